/**
 * The files of `citewise index` are served at `/docs/.indexed/<id>/<name>` without a key, so they are held
 * to the corpus rules: read by real path, only while that is a regular file inside the source that was
 * indexed. A file or a folder replaced by a symbolic link after indexing (to /etc/passwd, to a secret with the
 * same extension, to another folder) and `..` tricks get 404. Real `citewise index` and `citewise serve`
 * processes on loopback.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-INDEXED-FOLDER';

/** A GET with the path sent exactly as written (fetch would resolve `..` itself). */
function rawGet(baseUrl: string, rawPath: string): Promise<{ status: number; body: string }> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: base.hostname, port: base.port, path: rawPath }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** The path `/docs/.indexed/<id>/<name>` an indexed file outside the corpus folders is served at. */
function indexedPath(file: string): string {
  const id = createHash('sha256').update(file).digest('hex').slice(0, 16);
  return `/docs/.indexed/${id}/${encodeURIComponent(file.split('/').at(-1)!)}`;
}

describe('files served from a `citewise index` folder', { timeout: 120_000 }, () => {
  let dir: string;
  let docs: string;
  let outside: string;
  let server: ServeProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-indexed-files-'));
    docs = join(dir, 'docs');
    outside = join(dir, 'outside');
    for (const folder of [docs, join(docs, 'sub'), outside]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(docs, 'office.md'), '# Office\n\nThe Wi-Fi password is `tide-pool-42`.\n');
    writeFileSync(join(docs, 'leave.md'), '# Leave\n\nParental leave is sixteen weeks.\n');
    writeFileSync(join(docs, 'sub', 'notes.md'), '# Notes\n\nThe pelican mascot is called Percy.\n');
    writeFileSync(join(outside, 'secret.md'), SECRET);
    writeFileSync(join(outside, 'notes.md'), SECRET);
    const dataDir = join(dir, 'data');
    const indexed = await runCli(['index', docs, '--data-dir', dataDir]);
    expect(indexed.code, indexed.stderr).toBe(0);
    server = await startServe(['--data-dir', dataDir]);
    // A search loads the index (and shows where its files are served): the attacker's view of the URLs.
    const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
    const key = created.stdout.trim().split('\n').at(-1)!.trim();
    const response = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'What is the Wi-Fi password?' }),
    });
    const { sources } = (await response.json()) as { sources: string[] };
    expect(sources.map((url) => new URL(url).pathname)).toEqual([indexedPath(join(docs, 'office.md'))]);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an indexed file without a key while it is the file that was indexed', async () => {
    const response = await rawGet(server.baseUrl, indexedPath(join(docs, 'office.md')));
    expect(response.status).toBe(200);
    expect(response.body).toContain('tide-pool-42');
  });

  it('refuses a file replaced by a symbolic link to /etc/passwd or to a secret outside the folder', async () => {
    const office = join(docs, 'office.md');
    unlinkSync(office);
    symlinkSync('/etc/passwd', office);
    const toPasswd = await rawGet(server.baseUrl, indexedPath(office));
    expect(toPasswd.status).toBe(404);
    expect(toPasswd.body).not.toMatch(/root:/);

    const leave = join(docs, 'leave.md');
    unlinkSync(leave);
    symlinkSync(join(outside, 'secret.md'), leave);
    const toSecret = await rawGet(server.baseUrl, indexedPath(leave));
    expect(toSecret.status).toBe(404);
    expect(toSecret.body).not.toContain(SECRET);
  });

  it('refuses a file whose folder was replaced by a symbolic link to another folder', async () => {
    const sub = join(docs, 'sub');
    expect((await rawGet(server.baseUrl, indexedPath(join(sub, 'notes.md')))).status).toBe(200);
    renameSync(sub, join(dir, 'sub-moved'));
    symlinkSync(outside, sub);
    const response = await rawGet(server.baseUrl, indexedPath(join(sub, 'notes.md')));
    expect(response.status).toBe(404);
    expect(response.body).not.toContain(SECRET);
  });

  it('refuses `..` tricks below /docs/.indexed/', async () => {
    const served = indexedPath(join(docs, 'sub', 'notes.md'));
    const id = served.split('/')[3]!;
    for (const path of [
      `/docs/.indexed/${id}/../../../outside/secret.md`,
      `/docs/.indexed/${id}/..%2f..%2f..%2foutside%2fsecret.md`,
      `/docs/.indexed/${id}/%2e%2e/%2e%2e/outside/secret.md`,
      `/docs/.indexed/${id}/${encodeURIComponent(join(outside, 'secret.md'))}`,
      `/docs/.indexed/../outside/secret.md`,
    ]) {
      const response = await rawGet(server.baseUrl, path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).not.toContain(SECRET);
    }
  });
});
