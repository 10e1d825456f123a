import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';
import { ERROR_TABLE } from '../../src/errors.ts';
import { createOpenApiDocument } from '../../src/http/openapi.ts';
import { PACKAGE_VERSION } from '../../src/package-info.ts';
import { parseSearchRequest } from '../../src/contract/search.ts';
import { createContentExtractor } from '../../src/pipeline/extract/index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { startFixtureWeb } from '../support/fixture-web.ts';
import { startTestService, type TestService } from './support.ts';

type Json = Record<string, unknown>;

let service: TestService;
let doc: Json;
beforeAll(async () => {
  service = await startTestService();
  const response = await fetch(`${service.baseUrl}/v1/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await response.json()) as Json;
});
afterAll(() => service.close());

/** Follows a local `$ref` (`#/components/...`). */
function resolve(value: unknown): Json {
  const node = value as Json;
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  expect(ref.startsWith('#/')).toBe(true);
  let target: unknown = doc;
  for (const part of ref.slice(2).split('/')) target = (target as Json)[part];
  expect(target, `${ref} resolves`).toBeDefined();
  return resolve(target);
}

/** The keywords of JSON Schema 2020-12 (the dialect of OpenAPI 3.1) that a schema here may use. */
const KEYWORDS = new Set(
  (
    '$ref $defs $id $anchor type enum const properties required additionalProperties propertyNames items ' +
    'prefixItems anyOf oneOf allOf not minimum maximum exclusiveMinimum exclusiveMaximum minLength maxLength ' +
    'pattern format minItems maxItems uniqueItems title description default examples deprecated readOnly writeOnly'
  ).split(' '),
);

/** Throws on a keyword outside JSON Schema 2020-12 (a typo or a zod leftover would be ignored by clients). */
function assertJsonSchemaKeywords(schema: unknown, where: string): void {
  if (typeof schema !== 'object' || schema === null) return;
  for (const [keyword, value] of Object.entries(schema)) {
    expect(KEYWORDS.has(keyword), `${where}: unknown keyword ${keyword}`).toBe(true);
    if (keyword === 'properties' || keyword === '$defs') {
      for (const [name, child] of Object.entries(value as Json))
        assertJsonSchemaKeywords(child, `${where}.${name}`);
    } else if (Array.isArray(value) && ['anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(keyword)) {
      value.forEach((child, i) => assertJsonSchemaKeywords(child, `${where}.${keyword}[${i}]`));
    } else if (['items', 'additionalProperties', 'not', 'propertyNames'].includes(keyword)) {
      assertJsonSchemaKeywords(value, `${where}.${keyword}`);
    }
  }
}

/**
 * A validator of a documented schema. No JSON Schema validator is a dependency, so the schema is turned back
 * into zod (`z.fromJSONSchema`): a round trip zod → JSON Schema → zod.
 */
function validator(schemaRef: unknown) {
  const schema = resolve(schemaRef);
  assertJsonSchemaKeywords(schema, 'schema');
  const zodSchema = z.fromJSONSchema(schema);
  let errors = '';
  const check = (value: unknown) => {
    const result = zodSchema.safeParse(value);
    errors = result.success ? '' : z.prettifyError(result.error);
    return result.success;
  };
  return Object.assign(check, {
    get errors() {
      return errors;
    },
  });
}
const errorsText = (check: { errors: string }) => check.errors;

function operations(): [string, string, Json][] {
  const paths = doc['paths'] as Record<string, Record<string, Json>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, string, Json] => [path, method, operation]),
  );
}

describe('OpenAPI 3.1 document', () => {
  it('is served without an API key, equals the generated document, and only to GET', async () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument())));
    const post = await fetch(`${service.baseUrl}/v1/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('describes both endpoints with bearer security and every response status', () => {
    expect(doc['openapi']).toBe('3.1.0');
    expect((doc['info'] as Json)['version']).toBe(PACKAGE_VERSION);
    expect(doc['security']).toEqual([{ bearerAuth: [] }]);
    const components = doc['components'] as Json;
    expect((components['securitySchemes'] as Json)['bearerAuth']).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const paths = doc['paths'] as Record<string, Record<string, Json>>;
    const search = paths['/v1/search']!['post']!;
    const balance = paths['/v1/balance']!['get']!;
    expect(Object.keys(search['responses'] as Json).sort()).toEqual(
      ['200', '400', '401', '409', '413', '415', '422', '429', '433', '500', '503'].sort(),
    );
    expect(Object.keys(balance['responses'] as Json).sort()).toEqual(['200', '401', '500', '503']);
    expect((search['requestBody'] as Json)['required']).toBe(true);
    expect(paths['/v1/openapi.json']!['get']!['security']).toEqual([]);
    const ids = operations().map(([, , operation]) => operation['operationId']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every schema uses only JSON Schema 2020-12 keywords and converts back to zod', () => {
    const schemas = (doc['components'] as Json)['schemas'] as Json;
    expect(Object.keys(schemas).sort()).toEqual([
      'AddDocumentRequest',
      'Balance',
      'Document',
      'DocumentList',
      'Error',
      'ExtractRequest',
      'ExtractResponse',
      'ResearchEvent',
      'ResearchJob',
      'ResearchJobList',
      'ResearchRequest',
      'SearchRequest',
      'SearchResponse',
      'StreamEvent',
    ]);
    for (const name of Object.keys(schemas))
      expect(() => validator({ $ref: `#/components/schemas/${name}` })).not.toThrow();
    expect(() => assertJsonSchemaKeywords({ type: 'string', nullable: true }, 'probe')).toThrow();
  });

  it('every example validates against its schema', () => {
    let checked = 0;
    for (const [path, method, operation] of operations()) {
      const bodies: [string, Json][] = [];
      const requestBody = operation['requestBody'] as Json | undefined;
      if (requestBody) bodies.push([`${method} ${path} request`, requestBody]);
      for (const [status, response] of Object.entries(operation['responses'] as Json)) {
        bodies.push([`${method} ${path} ${status}`, resolve(response)]);
      }
      for (const [where, body] of bodies) {
        for (const [mediaType, media] of Object.entries((body['content'] ?? {}) as Record<string, Json>)) {
          const validate = validator(media['schema']);
          for (const [name, example] of Object.entries((media['examples'] ?? {}) as Record<string, Json>)) {
            const ok = validate(example['value']);
            expect(ok, `${where} ${mediaType} example ${name}: ${errorsText(validate)}`).toBe(true);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('error examples carry the exact description texts of the specification', () => {
    const responses = (doc['components'] as Json)['responses'] as Record<string, Json>;
    const exampleText = (name: string) => {
      const media = (responses[name]!['content'] as Record<string, Json>)['application/json']!;
      return Object.values(media['examples'] as Record<string, Json>).map(
        (e) => ((e['value'] as Json)['error'] as Json)['description'],
      );
    };
    expect(exampleText('Unauthorized')).toContain('Invalid or expired API key');
    expect(exampleText('TooManyRequests')).toContain('Too Many Requests');
    expect(exampleText('QuotaExceeded')).toContain('Account is at / over message quota');
    expect(exampleText('ServerError')).toContain('Server Error');
    expect(exampleText('ServiceUnavailable')).toContain(ERROR_TABLE.service_unavailable.description);
    expect(responses['TooManyRequests']!['headers']).toHaveProperty('Retry-After');
    expect(responses['Unauthorized']!['headers']).toHaveProperty('WWW-Authenticate');
    expect(exampleText('IdempotencyInProgress')).toContain(ERROR_TABLE.idempotency_in_progress.description);
    expect(exampleText('IdempotencyMismatch')).toContain(ERROR_TABLE.idempotency_mismatch.description);
    // Every error code the service can send is documented by at least one example.
    const documented = new Set(
      Object.values(responses).flatMap((response) =>
        Object.values(
          ((response['content'] as Record<string, Json>)['application/json']!['examples'] ?? {}) as Record<
            string,
            Json
          >,
        ).map((e) => ((e['value'] as Json)['error'] as Json)['code']),
      ),
    );
    const undocumented = Object.keys(ERROR_TABLE).filter(
      (code) =>
        !documented.has(code) &&
        // forbidden_host is answered by /mcp only, which this document does not describe.
        !['not_found', 'method_not_allowed', 'upstream_error', 'timeout', 'forbidden_host'].includes(code),
    );
    expect(undocumented).toEqual([]);
  });

  it('request examples are accepted by the zod schema that validates requests', () => {
    const search = (doc['paths'] as Record<string, Record<string, Json>>)['/v1/search']!['post']!;
    const media = ((search['requestBody'] as Json)['content'] as Record<string, Json>)['application/json']!;
    const examples = Object.values(media['examples'] as Record<string, Json>);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) expect(() => parseSearchRequest(example['value'])).not.toThrow();
    // And the JSON Schema rejects what zod rejects, for the checks JSON Schema can express.
    const validate = validator(media['schema']);
    expect(validate({})).toBe(false);
    expect(validate({ prompt: 1 })).toBe(false);
    expect(validate({ prompt: 'x', response_type: 'html' })).toBe(false);
    expect(validate({ prompt: 'x', context: [{ role: 'user' }] })).toBe(false);
  });

  it('documents only prompt as required and every other request field as optional; extensions say so', () => {
    const request = resolve({ $ref: '#/components/schemas/SearchRequest' });
    expect(request['required']).toEqual(['prompt']);
    const properties = request['properties'] as Record<string, Json>;
    expect(Object.keys(properties)).toEqual(
      expect.arrayContaining(['prompt', 'context', 'response_type', 'stream']),
    );
    for (const [name, property] of Object.entries(properties)) {
      expect(typeof property['description'], name).toBe('string');
      if (!['prompt', 'context', 'response_type'].includes(name)) {
        expect(property['description'], name).toMatch(/^Extension \(optional\)/);
      }
    }
  });

  it('real responses of the engine validate against the documented schemas', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const validate = (name: string, value: unknown) => {
      const check = validator({ $ref: `#/components/schemas/${name}` });
      expect(check(value), `${name}: ${errorsText(check)}`).toBe(true);
    };
    validate('SearchResponse', await client.search({ prompt: 'How are credits charged?' }));
    validate('Balance', await client.balance());
    for await (const event of await client.searchStream({ prompt: 'How are credits charged?' })) {
      const { type, ...data } = event;
      validate(
        'StreamEvent',
        type === 'done' ? event.body : type === 'error' ? { error: event.error } : data,
      );
    }
    const unauthorized = await fetch(`${service.baseUrl}/v1/balance`);
    validate('Error', await unauthorized.json());
    const invalid = await fetch(`${service.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      body: '{"prompt":5}',
    });
    expect(invalid.status).toBe(400);
    validate('Error', await invalid.json());
    // Research jobs: the job while queued and once completed, a page of them, and their events.
    const job = await client.research.create({ prompt: 'How are credits charged?', metadata: { ticket: 1 } });
    validate('ResearchJob', job);
    const done = await client.research.wait(job.id);
    expect(done.status).toBe('completed');
    validate('ResearchJob', done);
    validate('ResearchJobList', await client.research.list({ limit: 5 }));
    for await (const event of await client.research.events(job.id)) {
      validate(event.event === 'completed' ? 'ResearchJob' : 'ResearchEvent', event.data);
    }
  });

  it("the typed client's extract gets a response that validates against ExtractResponse", async () => {
    const page = `<!doctype html><html lang="en"><head><title>How glaciers move</title>
      <meta property="article:published_time" content="2025-03-04T10:00:00Z"></head><body><main><article>
      <h1>How glaciers move</h1><p>Glaciers move by internal deformation of the ice and by sliding over the rock
      beneath them.</p></article></main></body></html>`;
    const web = await startFixtureWeb({ '/glaciers': page });
    // The shared service reads no pages; this one reads the loopback web (a first extraction on a busy
    // machine starts the extractor's worker, hence the longer page timeout).
    const reader = await startTestService({
      fetcher: createPageFetcher({ allowPrivateHosts: [new URL(web.baseUrl).host] }),
      extractor: createContentExtractor(),
      pageTimeoutMs: 30_000,
    });
    try {
      const client = createClient({ baseUrl: reader.baseUrl, apiKey: reader.apiKey });
      const before = (await client.balance()).available_credits;
      const body = await client.extract({ urls: [`${web.baseUrl}/glaciers`, `${web.baseUrl}/missing`] });
      const check = validator({ $ref: '#/components/schemas/ExtractResponse' });
      expect(check(body), errorsText(check)).toBe(true);
      expect(body.results).toEqual([
        {
          url: `${web.baseUrl}/glaciers`,
          title: 'How glaciers move',
          content: expect.stringContaining('Glaciers move by internal deformation') as unknown,
          published_at: expect.stringMatching(/^2025-03-04/) as unknown,
          page_type: 'article',
        },
        {
          url: `${web.baseUrl}/missing`,
          error: { code: 'bad_status', message: expect.any(String) as unknown },
        },
      ]);
      // 1 for the page read, 0.25 rounded up for the missing one.
      expect(body.credits_charged).toBe(2);
      expect((await client.balance()).available_credits).toBe(before - 2);
    } finally {
      await reader.close();
      await web.close();
    }
  });
});
