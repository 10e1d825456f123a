/**
 * The access log through every adapter: one pino line per request at `info`, message "request", with
 * method, route, status, durationMs, requestId and keyId — never the API key, never the prompt. A
 * maintenance 503 is an `info` line, not an error with a stack.
 */
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngineOptions } from '../../src/engine/index.ts';
import { ADAPTERS, closedAfterEachTest } from '../support/servers.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const PROMPT = 'How tall is Mount Etna? (prompt-marker-5d1c)';

/** A real pino logger (as `serve` makes it) writing its JSON lines into an array. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines, raw };
}

const running = closedAfterEachTest();

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`access log via ${adapterName}`, () => {
    async function start(options: SearchEngineOptions = {}) {
      const log = capturingLogger();
      const engine = createSearchEngine({ corpus: [CORPUS], logger: log.logger, ...options });
      const server = await startAdapter(engine);
      running.push({ engine, server });
      return { ...log, engine, server };
    }

    it('writes one info line per request with its fields, never the key nor the prompt', async () => {
      const { engine, server, lines, raw } = await start();
      const { key, record } = await engine.createKey();
      const auth = { authorization: `Bearer ${key}` };
      const search = await fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: PROMPT }),
      });
      expect(search.status).toBe(200);
      const balance = await fetch(`${server.baseUrl}/v1/balance`, { headers: auth });
      // Another last character, whatever the key ends with ("xx" in place of the last two was the key itself
      // once in 4,096 keys).
      const wrongKey = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
      const refused = await fetch(`${server.baseUrl}/v1/balance`, {
        headers: { authorization: `Bearer ${wrongKey}` },
      });
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(refused.status).toBe(401);

      const requests = lines.filter((line) => line['msg'] === 'request');
      expect(requests).toHaveLength(4);
      for (const line of requests) {
        expect(line['level']).toBe(30);
        expect(typeof line['durationMs']).toBe('number');
      }
      expect(
        requests.map(({ method, route, status, requestId, keyId }) => ({
          method,
          route,
          status,
          requestId,
          keyId,
        })),
      ).toEqual([
        {
          method: 'POST',
          route: '/v1/search',
          status: 200,
          requestId: search.headers.get('x-request-id'),
          keyId: record.id,
        },
        {
          method: 'GET',
          route: '/v1/balance',
          status: 200,
          requestId: balance.headers.get('x-request-id'),
          keyId: record.id,
        },
        {
          method: 'GET',
          route: '/v1/balance',
          status: 401,
          requestId: refused.headers.get('x-request-id'),
          keyId: null,
        },
        {
          method: 'GET',
          route: '/healthz',
          status: 200,
          requestId: health.headers.get('x-request-id'),
          keyId: null,
        },
      ]);
      const everything = raw.join('\n');
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(0, -2));
      expect(everything).not.toContain('prompt-marker-5d1c');
    });

    it('logs a maintenance 503 at info, without an error line or a stack', async () => {
      const { engine, server, lines } = await start({ maintenance: true });
      const { key } = await engine.createKey();
      const response = await fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: PROMPT }),
      });
      expect(response.status).toBe(503);
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, msg: 'request', status: 503, errorCode: 'service_unavailable' }),
      ]);
      expect(JSON.stringify(lines)).not.toContain('stack');
    });
  });
}
