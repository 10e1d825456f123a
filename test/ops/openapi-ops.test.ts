/**
 * The OpenAPI document describes the operating routes (no key) and the rate-limit headers that are sent,
 * and what the service really answers on those routes matches it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { DOCUMENT_CONTENT_TYPES } from '../../src/http/docs.ts';
import { ADAPTERS, type RunningServer } from '../support/servers.ts';

/** The value at `keys` inside the document (`undefined` when a step is missing). */
function at(value: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
let engine: SearchEngine;
let server: RunningServer;
let doc: unknown;

beforeAll(async () => {
  engine = createSearchEngine({ corpus: [CORPUS] });
  server = await ADAPTERS['node:http']!(engine);
  doc = await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json();
});
afterAll(async () => {
  await server.close();
  await engine.close();
});

describe('OpenAPI: operating routes and rate-limit headers', () => {
  it('documents /healthz, /readyz and /docs/{path} without security, and their real answers match', async () => {
    for (const [path, status] of [
      ['/healthz', 'ok'],
      ['/readyz', 'ready'],
    ] as const) {
      const operation = at(doc, 'paths', path, 'get');
      expect(at(operation, 'security')).toEqual([]);
      const schema = at(operation, 'responses', '200', 'content', 'application/json', 'schema');
      expect(at(schema, 'properties', 'status', 'const')).toBe(status);
      expect(await (await fetch(`${server.baseUrl}${path}`)).json()).toEqual({ status });
    }
    expect(at(doc, 'paths', '/readyz', 'get', 'responses', '503')).toEqual({
      $ref: '#/components/responses/NotReady',
    });

    const document = at(doc, 'paths', '/docs/{path}', 'get');
    expect(at(document, 'security')).toEqual([]);
    const served = Object.keys(at(document, 'responses', '200', 'content') as object).sort();
    const mediaTypes = new Set(Object.values(DOCUMENT_CONTENT_TYPES).map((type) => type.split(';')[0]));
    expect(served).toEqual([...mediaTypes].sort());
    const real = await fetch(`${server.baseUrl}/docs/volcanoes.md`);
    expect(served).toContain(real.headers.get('content-type')!.split(';')[0]);
    expect(at(document, 'responses', '404')).toEqual({ $ref: '#/components/responses/NotFound' });
  });

  it('documents RateLimit-Policy on the 200 and 429 of a search as sent by the built-in limiters', () => {
    expect(at(doc, 'paths', '/v1/search', 'post', 'responses', '200', 'headers', 'RateLimit-Policy')).toEqual(
      {
        $ref: '#/components/headers/RateLimit-Policy',
      },
    );
    expect(
      at(doc, 'components', 'responses', 'TooManyRequests', 'headers', 'RateLimit-Policy'),
    ).toBeDefined();
    expect(at(doc, 'components', 'headers', 'RateLimit-Policy', 'description')).toMatch(
      /built-in rate limiters/,
    );
  });
});
