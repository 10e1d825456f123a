/**
 * The documents API through a real `serve`: an account adds, lists, reads and deletes its documents; its
 * searches answer from them; another account never sees them (answers, sources, lists, counts, errors);
 * the quota and the body limit answer in the spec's error shape.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, CitewiseApiError } from '../../src/client/index.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';

const SEVERAL_PROCESSES = { timeout: 180_000 };

describe('POST/GET/DELETE /v1/documents (serve)', () => {
  let dir: string;
  let server: ServeProcess;
  let alice = '';
  let bob = '';
  let aliceToo = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-documents-api-'));
    const dataDir = join(dir, 'data');
    server = await startServe([
      '--data-dir',
      dataDir,
      '--max-account-documents',
      '3',
      '--max-account-document-bytes',
      '6000',
    ]);
    alice = server.firstKey()!;
    const listedKeys = JSON.parse(
      (await runCli(['keys', 'list', '--json', '--data-dir', dataDir])).stdout,
    ) as {
      accountId: string;
    }[];
    const aliceAccount = listedKeys[0]!.accountId;
    const lastLine = (text: string) => text.trim().split('\n').at(-1)!.trim();
    bob = lastLine((await runCli(['keys', 'create', '--data-dir', dataDir, '--name', 'bob'])).stdout);
    aliceToo = lastLine(
      (await runCli(['keys', 'create', '--data-dir', dataDir, '--account', aliceAccount])).stdout,
    );
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    };
  };
  const ask = async (key: string, prompt: string) => {
    const { status, body } = await call(key, 'POST', '/v1/search', { prompt });
    expect(status).toBe(200);
    return body as { answer: string; sources: string[] };
  };

  it(
    'an account adds a document, its searches answer from it, another account sees nothing of it',
    SEVERAL_PROCESSES,
    async () => {
      const added = await call(alice, 'POST', '/v1/documents', {
        title: 'Greenhouse rota',
        content:
          '# Greenhouse rota\n\nThe orchids in the greenhouse are watered by Ingrid every Tuesday at seven.',
        format: 'markdown',
        metadata: { team: 'garden' },
      });
      expect(added.status).toBe(201);
      const { id, url } = added.body as { id: string; url: string };
      expect(id).toMatch(/^doc_[0-9a-f]{20}$/);
      expect(url).toBe(`${server.baseUrl}/v1/documents/${id}`);

      const answer = await ask(alice, 'Who waters the orchids in the greenhouse?');
      expect(answer.answer).toMatch(/Ingrid/);
      expect(answer.sources).toContain(url);
      // Another key of the same account sees it too.
      expect((await ask(aliceToo, 'Who waters the orchids in the greenhouse?')).answer).toMatch(/Ingrid/);

      // Bob: not in answers, not in sources, not in his list, and his errors are those of an unknown id.
      const bobs = await ask(bob, 'Who waters the orchids in the greenhouse?');
      expect(bobs.answer).not.toMatch(/Ingrid/);
      expect(bobs.sources).not.toContain(url);
      expect(await call(bob, 'GET', '/v1/documents')).toEqual({
        status: 200,
        body: { data: [], next_cursor: null },
      });
      const missing = `doc_${'0'.repeat(20)}`;
      const unknown = await call(bob, 'GET', `/v1/documents/${missing}`);
      const foreign = await call(bob, 'GET', `/v1/documents/${id}`);
      expect(foreign).toEqual(unknown);
      expect(foreign).toEqual({
        status: 404,
        body: { error: { description: 'Not Found: no such document', code: 'not_found' } },
      });
      expect(await call(bob, 'DELETE', `/v1/documents/${id}`)).toEqual(unknown);

      // Alice reads and lists it.
      expect(await call(alice, 'GET', `/v1/documents/${id}`)).toMatchObject({
        status: 200,
        body: {
          id,
          url,
          title: 'Greenhouse rota',
          format: 'markdown',
          metadata: { team: 'garden' },
          content: expect.stringContaining('Ingrid') as unknown,
        },
      });
      const listed = await call(aliceToo, 'GET', '/v1/documents');
      expect((listed.body as { data: { id: string }[] }).data.map((d) => d.id)).toEqual([id]);

      // Deleted: 204, then gone from her searches and reads.
      expect(await call(alice, 'DELETE', `/v1/documents/${id}`)).toEqual({ status: 204, body: undefined });
      expect((await ask(alice, 'Who waters the orchids in the greenhouse?')).answer).not.toMatch(/Ingrid/);
      expect((await call(alice, 'GET', `/v1/documents/${id}`)).status).toBe(404);
    },
  );

  it('HTML goes through the page extractor; lists page with a cursor', SEVERAL_PROCESSES, async () => {
    const html =
      '<html><head><title>Boiler manual</title></head><body><nav><a href="/">Home</a> <a href="/x">Products</a></nav>' +
      '<article><h1>Boiler manual</h1><p>Reset the boiler by holding the red button for ten seconds, then wait for the green light.</p>' +
      '<p>The pressure gauge should read between one and two bar when the system is cold.</p></article></body></html>';
    const added = await call(bob, 'POST', '/v1/documents', {
      content: html,
      format: 'html',
      url: 'https://intranet.example/boiler',
    });
    expect(added).toEqual({
      status: 201,
      body: { id: expect.stringMatching(/^doc_/) as unknown, url: 'https://intranet.example/boiler' },
    });
    const read = await call(bob, 'GET', `/v1/documents/${(added.body as { id: string }).id}`);
    expect(read.body).toMatchObject({ title: 'Boiler manual', format: 'markdown' });
    expect((read.body as { content: string }).content).toMatch(/red button/);
    expect((read.body as { content: string }).content).not.toMatch(/Products/);
    const answer = await ask(bob, 'How do I reset the boiler?');
    expect(answer.answer).toMatch(/red button/);
    expect(answer.sources).toContain('https://intranet.example/boiler');
    // The same URL again replaces it (200, same id).
    const again = await call(bob, 'POST', '/v1/documents', {
      content: 'Boilers are serviced yearly.',
      format: 'text',
      url: 'https://intranet.example/boiler',
    });
    expect(again).toEqual({ status: 200, body: added.body });

    await call(bob, 'POST', '/v1/documents', {
      content: 'Second note.',
      format: 'text',
      url: 'https://intranet.example/c2',
    });
    const first = await call(bob, 'GET', '/v1/documents?limit=1');
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    expect(typeof cursor).toBe('string');
    const second = await call(bob, 'GET', `/v1/documents?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect((second.body as { data: { url: string }[]; next_cursor: null }).data.map((d) => d.url)).toEqual([
      'https://intranet.example/c2',
    ]);
    expect((second.body as { next_cursor: null }).next_cursor).toBeNull();
  });

  it(
    'the quota (documents, bytes), the body limit and bad fields answer in the spec shape',
    SEVERAL_PROCESSES,
    async () => {
      // Bob holds 2 documents; the quota is 3 documents and 6000 bytes.
      const big = await call(bob, 'POST', '/v1/documents', { content: 'x '.repeat(3500), format: 'text' });
      expect(big.status).toBe(403);
      expect(big.body).toEqual({
        error: {
          code: 'document_quota_exceeded',
          description: expect.stringMatching(
            /^Forbidden: the account's document quota is used up \(at most 3 documents and 6000 bytes; it holds 2 documents and \d+ bytes\)$/,
          ) as unknown,
        },
      });
      expect((await call(bob, 'POST', '/v1/documents', { content: 'Third.', format: 'text' })).status).toBe(
        201,
      );
      expect(
        (await call(bob, 'POST', '/v1/documents', { content: 'Fourth.', format: 'text' })).body,
      ).toMatchObject({
        error: { code: 'document_quota_exceeded' },
      });
      // Alice's quota is her own.
      expect(
        (await call(alice, 'POST', '/v1/documents', { content: 'Alice again.', format: 'text' })).status,
      ).toBe(201);

      const tooLarge = await call(
        alice,
        'POST',
        '/v1/documents',
        JSON.stringify({ content: 'y'.repeat(1_100_000), format: 'text' }),
      );
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body).toMatchObject({ error: { code: 'payload_too_large' } });
      expect(await call(alice, 'POST', '/v1/documents', { content: 'z', format: 'docx' })).toEqual({
        status: 400,
        body: {
          error: {
            code: 'invalid_request',
            description: 'Invalid request: format must be markdown, text, html or pdf',
          },
        },
      });
      expect((await call('cw_not_a_key', 'GET', '/v1/documents')).status).toBe(401);
      expect((await call(alice, 'PUT', '/v1/documents')).status).toBe(405);
    },
  );

  it(
    'the typed client: client.documents add, list, get, remove, and the quota as CitewiseApiError',
    SEVERAL_PROCESSES,
    async () => {
      const client = createClient({ baseUrl: server.baseUrl, apiKey: aliceToo });
      const added = await client.documents.add({
        content: 'Kayaks are stored in shed three.',
        format: 'text',
        title: 'Kayaks',
      });
      expect(added.id).toMatch(/^doc_/);
      expect((await client.documents.get(added.id)).content).toBe('Kayaks are stored in shed three.');
      expect((await client.documents.list({ limit: 100 })).data.map((d) => d.id)).toContain(added.id);
      await client.documents.add({ content: 'Paddles hang beside them.', format: 'text' });
      // Alice now holds 3 documents, her quota: the next one is refused.
      const refused = await client.documents
        .add({ content: 'One too many.', format: 'text' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CitewiseApiError);
      expect(refused).toMatchObject({ status: 403, code: 'document_quota_exceeded' });
      await client.documents.remove(added.id);
      await expect(client.documents.get(added.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    },
  );
});
