/**
 * Request Content-Encoding over real sockets, against every adapter: gzip, deflate and br bodies are
 * decoded (and the body limit counts the decoded bytes); any other coding is a 415 in the spec's shape.
 */
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const LIMIT = 4096;

const ENCODERS: Readonly<Record<string, (bytes: Buffer) => Buffer>> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`request Content-Encoding via ${adapterName}`, () => {
    const running: Array<{ engine: SearchEngine; server: RunningServer }> = [];
    afterEach(async () => {
      for (const { engine, server } of running.splice(0)) {
        await server.close();
        await engine.close();
      }
    });

    async function setup() {
      const engine = createSearchEngine({ corpus: [CORPUS], maxBodyBytes: LIMIT, rateLimiter: false });
      const { key } = await engine.createKey({ credits: 100 });
      const server = await startAdapter(engine);
      running.push({ engine, server });
      const post = (body: Buffer, encoding: string) =>
        fetch(`${server.baseUrl}/v1/search`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-encoding': encoding,
          },
          body: new Uint8Array(body),
        });
      return { post };
    }

    async function errorOf(response: Response, status: number): Promise<string> {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { description: string } };
      expect(Object.keys(body)).toEqual(['error']);
      return body.error.description;
    }

    it.each(Object.keys(ENCODERS))('decodes a %s body', async (encoding) => {
      const { post } = await setup();
      const body = Buffer.from(JSON.stringify({ prompt: 'How is green tea made?' }));
      const response = await post(ENCODERS[encoding]!(body), encoding);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { answer: string }).answer.length).toBeGreaterThan(0);
    });

    it('counts the limit after decoding: a small gzip body that expands past it is a 413', async () => {
      const { post } = await setup();
      const big = Buffer.from(JSON.stringify({ prompt: `tea ${' '.repeat(LIMIT * 50)}` }));
      const compressed = gzipSync(big);
      expect(compressed.byteLength).toBeLessThan(LIMIT);
      expect(await errorOf(await post(compressed, 'gzip'), 413)).toMatch(/Payload Too Large/);
    });

    it('refuses other codings with 415, and bytes that are not of their coding with 400', async () => {
      const { post } = await setup();
      const body = Buffer.from(JSON.stringify({ prompt: 'tea' }));
      const compress = await errorOf(await post(body, 'compress'), 415);
      const corrupt = await errorOf(await post(body, 'gzip'), 400);
      // After express.json() the host's parser decoded (or refused) the body, with its own list of codings.
      if (adapterName.includes('express.json')) return;
      expect(compress).toMatch(/Content-Encoding compress/);
      expect(corrupt).toMatch(/not valid gzip/);
      expect(await errorOf(await post(body, 'zstd'), 415)).toMatch(/not supported/);
    });
  });
}
