/**
 * PDF and HTML uploads to `POST /v1/documents` over real HTTP (issue 44): a PDF (base64 in `content`,
 * `format: "pdf"`) and an HTML page go through the extractor of web pages, are stored as Markdown and
 * answer searches; the body limit applies to a PDF's decoded bytes (its base64 may be larger); a bad upload
 * is a spec-shaped 400.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex } from '../../src/documents/index.ts';
import { startTestService, type TestService } from '../agents/support.ts';

const PDF = readFileSync(new URL('../fixtures/documents/kiln-manual.pdf', import.meta.url));
const LIMIT = 4096;

/** The fixture PDF grown to `size` bytes by a comment after its end (readers ignore it). */
function pdfOfSize(size: number): string {
  const padding = Buffer.from(`\n%${'p'.repeat(Math.max(0, size - PDF.byteLength - 2))}`);
  return Buffer.concat([PDF, padding]).subarray(0, size).toString('base64');
}

describe('PDF and HTML uploads (POST /v1/documents)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      documents: { index: createMemoryDocumentIndex() },
      maxBodyBytes: LIMIT,
    });
  });
  afterAll(() => service.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('a PDF is extracted as a page is, stored as Markdown, and answers a search', async () => {
    const added = await call('POST', '/v1/documents', { content: PDF.toString('base64'), format: 'pdf' });
    expect(added.status).toBe(201);
    const { id, url } = added.body as { id: string; url: string };
    const stored = await call('GET', `/v1/documents/${id}`);
    expect(stored.body).toMatchObject({ format: 'markdown', title: 'Kiln K7 manual' });
    expect(stored.body.content).toContain('The Kiln K7 fires stoneware at 1280 degrees Celsius.');
    const asked = await call('POST', '/v1/search', {
      prompt: 'How long does a full firing of the Kiln K7 take?',
      documents: 'own',
    });
    expect(asked.status).toBe(200);
    expect(asked.body.answer).toMatch(/eleven hours/);
    expect(asked.body.sources).toEqual([url]);
  });

  it('an HTML page loses its navigation and keeps its title and text', async () => {
    const html =
      '<!doctype html><html><head><title>Glaze recipes</title></head><body>' +
      '<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main><article><h1>Glaze recipes</h1>' +
      '<p>The celadon glaze uses two percent red iron oxide in a reduction firing.</p>' +
      '<p>Apply the celadon glaze in three thin coats.</p></article></main></body></html>';
    const added = await call('POST', '/v1/documents', { content: html, format: 'html' });
    expect(added.status).toBe(201);
    const stored = await call('GET', `/v1/documents/${(added.body as { id: string }).id}`);
    expect(stored.body).toMatchObject({ format: 'markdown', title: 'Glaze recipes' });
    expect(stored.body.content).toContain('two percent red iron oxide');
    expect(stored.body.content).not.toContain('Shop');
  });

  it('the size limit applies to the decoded PDF, not to its base64', async () => {
    // 3,900 bytes of PDF are 5,200 characters of base64: a body over the 4,096-byte limit, accepted.
    const fits = await call('POST', '/v1/documents', {
      content: pdfOfSize(LIMIT - 196),
      format: 'pdf',
      url: 'https://kilns.test/fits.pdf',
    });
    expect(fits.status).toBe(201);
    const tooLarge = {
      status: 413,
      body: {
        error: {
          code: 'payload_too_large',
          description: `Payload Too Large: the content must be at most ${LIMIT} bytes`,
        },
      },
    };
    expect(await call('POST', '/v1/documents', { content: pdfOfSize(LIMIT + 1), format: 'pdf' })).toEqual(
      tooLarge,
    );
    expect(await call('POST', '/v1/documents', { content: 'x'.repeat(LIMIT + 1), format: 'text' })).toEqual(
      tooLarge,
    );
    // Searches keep the limit of the body itself.
    expect((await call('POST', '/v1/search', { prompt: 'x'.repeat(LIMIT) })).status).toBe(413);
  });

  it('content that is not the base64 of a PDF, or a PDF without text, is a 400', async () => {
    const invalid = (description: string) => ({
      status: 400,
      body: { error: { code: 'invalid_request', description: `Invalid request: ${description}` } },
    });
    const notPdf = invalid('content of a pdf document must be the base64 of a PDF file');
    expect(await call('POST', '/v1/documents', { content: 'not base64!', format: 'pdf' })).toEqual(notPdf);
    expect(
      await call('POST', '/v1/documents', {
        content: Buffer.from('hello').toString('base64'),
        format: 'pdf',
      }),
    ).toEqual(notPdf);
    const broken = Buffer.from('%PDF-1.4\nnothing else').toString('base64');
    expect(await call('POST', '/v1/documents', { content: broken, format: 'pdf' })).toEqual(
      invalid('the PDF cannot be read (damaged or encrypted)'),
    );
  });
});
