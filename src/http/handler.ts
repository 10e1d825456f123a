/**
 * The framework-agnostic HTTP protocol of /v1, written once. Adapters (node:http, Express, Koa, fetch)
 * only translate their request into a {@link ProtocolRequest} and write back the {@link ProtocolResponse}.
 *
 * Order of checks for POST /v1/search: route → maintenance → auth (401) → rate limit (429) →
 * content type and encoding (415) → body size, decoded (413) → JSON and fields (400) → overload (503) → credits (433) → pipeline.
 * Authentication comes before the body is read, so unauthenticated clients cannot make us buffer bodies.
 *
 * Operating routes, without a key and served even in maintenance mode: `GET /healthz` (the process
 * answers), `GET /readyz` (the stores answer) and `GET /docs/<path>` (the files of the local corpus).
 */
import {
  chatCompletion,
  chatCompletionChunks,
  modelList,
  openAiErrorBody,
  parseChatRequest,
} from './compat/openai-chat.ts';
import {
  parseTavilyExtract,
  parseTavilySearch,
  tavilyBodyKey,
  tavilyErrorBody,
  tavilyExtractResponse,
  tavilySearchResponse,
} from './compat/tavily.ts';
import { parseExtractRequest } from '../contract/extract.ts';
import { randomUUID } from 'node:crypto';
import { CitewiseError, errorBody, toCitewiseError, type ErrorCode } from '../errors.ts';
import { decodeRequestBody, requestEncodings } from './content-encoding.ts';
import { openApiDocument } from './openapi.ts';
import { isResearchPath, researchRouteOf, routeResearch } from './research.ts';
import { documentsRouteOf, isDocumentsPath, routeDocuments } from './documents.ts';
import type { DocumentsService } from '../documents/service.ts';
import type { ResearchService } from '../jobs/research.ts';
import { fingerprintBody, isReplayable } from '../contract/idempotency.ts';
import { jsonDepth, MAX_JSON_DEPTH, parseSearchRequest, type SearchStreamEvent } from '../contract/search.ts';
import type {
  IdempotencySettings,
  ProtocolRequest,
  ProtocolResponse,
  RequestInfo,
  SearchService,
} from '../contract/protocol.ts';

export {
  isStreamBody,
  type IdempotencySettings,
  type ProtocolRequest,
  type ProtocolResponse,
  type RequestInfo,
  type RequestObservation,
  type SearchService,
} from '../contract/protocol.ts';

/** The engine operations the router needs: {@link SearchService}, with research jobs and documents. */
export interface ProtocolService extends SearchService {
  /** Research jobs (`/v1/research…`, src/http/research.ts); absent: those routes are 404. */
  research?: ResearchService;
  /** Accounts' documents (`/v1/documents…`, src/http/documents.ts); absent: those routes are 404. */
  documents?: DocumentsService;
}

const ROUTES: Readonly<Record<string, string>> = {
  '/v1/search': 'POST',
  '/v1/extract': 'POST',
  '/v1/balance': 'GET',
  // OpenAI-compatible chat (errors in OpenAI's shape).
  '/v1/chat/completions': 'POST',
  '/v1/models': 'GET',
  // Public (no API key), served even in maintenance mode: the OpenAPI document and the probes.
  '/v1/openapi.json': 'GET',
  '/healthz': 'GET',
  '/readyz': 'GET',
};

/** The OpenAI-compatible routes, whose errors have OpenAI's shape. */
const OPENAI_PATHS: ReadonlySet<string> = new Set(['/v1/chat/completions', '/v1/models']);

/** Where the files of the local corpus are served: `/docs/<path>`. */
export const DOCS_PREFIX = '/docs/';
const DOCS_ROUTE = '/docs/*';

/**
 * Whether a path is served by {@link handleProtocolRequest}: `/v1/…`, the probes and `/docs/…`
 * (adapters mounted as middleware pass other paths on).
 */
export function isApiPath(path: string, tavilyPrefix: string | null = null): boolean {
  return (
    path === '/v1' ||
    (tavilyPrefix !== null && tavilyRouteOf(path, tavilyPrefix) !== null) ||
    path.startsWith('/v1/') ||
    path.startsWith(DOCS_PREFIX) ||
    ROUTES[trimTrailingSlash(path)] !== undefined
  );
}

/**
 * Whether a middleware adapter should pass this request on (`next()`) instead of answering: a `/docs/…`
 * path that is not a corpus file may belong to the host application.
 */
export function passesOn(path: string, response: ProtocolResponse): boolean {
  return path.startsWith(DOCS_PREFIX) && response.status === 404;
}

/** `search` or `extract` for a Tavily-compatible path under `prefix`, else null. */
function tavilyRouteOf(path: string, prefix: string): 'search' | 'extract' | null {
  const trimmed = trimTrailingSlash(path);
  if (trimmed === `${prefix}/search`) return 'search';
  if (trimmed === `${prefix}/extract`) return 'extract';
  return null;
}

function trimTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** The route label of a path (few distinct values, for metrics and logs). */
function routeOf(path: string): string {
  if (path.startsWith(DOCS_PREFIX)) return DOCS_ROUTE;
  if (isResearchPath(path)) return researchRouteOf(path);
  if (isDocumentsPath(path)) return documentsRouteOf(path);
  const trimmed = trimTrailingSlash(path);
  return ROUTES[trimmed] ? trimmed : 'unmatched';
}

/** Extracts the key from `Authorization: Bearer <key>`; `undefined` when absent or malformed. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

/** Runs one /v1 request through the protocol. Never throws: every failure becomes a spec error body. */
export async function handleProtocolRequest(
  service: ProtocolService,
  request: ProtocolRequest,
): Promise<ProtocolResponse> {
  const info: RequestInfo = {
    requestId: randomUUID(),
    startedAt: performance.now(),
    signal: request.signal,
    ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}),
  };
  let response: ProtocolResponse;
  let errorCode: ErrorCode | undefined;
  const caller: Caller = {};
  const tavily = service.tavilyPrefix === null ? null : tavilyRouteOf(request.path, service.tavilyPrefix);
  try {
    response = tavily
      ? await routeTavily(service, request, info, caller, tavily)
      : await route(service, request, info, caller);
  } catch (thrown) {
    const error = toCitewiseError(thrown);
    service.reportError(error, info);
    errorCode = error.code;
    response = errorResponse(error, info.requestId);
    // Tavily's clients read errors from {"detail": {"error": …}}; status and headers stay ours.
    if (tavily) response = { ...response, body: JSON.stringify(tavilyErrorBody(error)) };
    // OpenAI's clients read errors from {"error": {"message", "type", "param", "code"}}.
    else if (OPENAI_PATHS.has(trimTrailingSlash(request.path))) {
      response = { ...response, body: JSON.stringify(openAiErrorBody(error)) };
    }
  }
  service.observeRequest?.({
    route: tavily ? `${service.tavilyPrefix}/${tavily}` : routeOf(request.path),
    method: request.method.toUpperCase(),
    status: response.status,
    ...(errorCode ? { errorCode } : {}),
    durationMs: performance.now() - info.startedAt,
    requestId: info.requestId,
    ...(caller.keyId ? { keyId: caller.keyId } : {}),
  });
  return response;
}

/** Who is calling, once known (for the access log). */
export interface Caller {
  keyId?: string;
}

async function route(
  service: ProtocolService,
  request: ProtocolRequest,
  info: RequestInfo,
  caller: Caller,
): Promise<ProtocolResponse> {
  const method = request.method.toUpperCase();
  if (request.path.startsWith(DOCS_PREFIX)) {
    if (method !== 'GET') {
      throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
        headers: { allow: 'GET' },
      });
    }
    return withHeaders(await service.serveDocument(request.path.slice(DOCS_PREFIX.length)), {
      'x-request-id': info.requestId,
    });
  }
  const path = trimTrailingSlash(request.path);
  if (service.research && isResearchPath(path)) {
    return routeResearch(service, service.research, request, info, caller);
  }
  if (service.documents && isDocumentsPath(path)) {
    return routeDocuments(service, service.documents, request, info, caller);
  }
  const allowed = ROUTES[path];
  if (!allowed) throw new CitewiseError('not_found', `no route ${path}`);
  if (method !== allowed) {
    throw new CitewiseError('method_not_allowed', `${method} ${path}`, { headers: { allow: allowed } });
  }
  if (path === '/v1/openapi.json') return json(200, openApiDocument(), info);
  if (path === '/healthz') return json(200, { status: 'ok' }, info);
  if (path === '/readyz') {
    await service.checkReadiness();
    return json(200, { status: 'ready' }, info);
  }

  service.assertAvailable();
  const key = await service.authenticate(bearerToken(request.header('authorization')));
  caller.keyId = key.id;
  if (path === '/v1/balance') return json(200, await service.balance(key), info);
  if (path === '/v1/models') return json(200, modelList(), info);

  const limitHeaders = await service.enforceRateLimit(key);
  const body = await readJsonBody(request, service.maxBodyBytes);
  const idempotencyKey = request.header('idempotency-key');
  if (path === '/v1/extract') {
    const extract = parseExtractRequest(body);
    const run = async () =>
      withHeaders(json(200, await service.runExtract(key, extract, info), info), limitHeaders);
    if (!idempotencyKey || !service.idempotency) return run();
    const scope = `${key.id}:extract:${checkIdempotencyKey(idempotencyKey)}`;
    return replayable(service.idempotency, scope, body, request.signal, run);
  }
  if (path === '/v1/chat/completions') {
    const plan = parseChatRequest(body);
    if (plan.stream) {
      const events = await service.runSearchStream(key, plan.search, info);
      return withHeaders(sseResponse(chatCompletionChunks(plan, events, info.requestId), info), limitHeaders);
    }
    const found = await service.runSearch(key, plan.search, info);
    return withHeaders(json(200, chatCompletion(plan, found, info.requestId), info), limitHeaders);
  }
  const search = parseSearchRequest(body);
  if (search.stream) {
    if (idempotencyKey) {
      throw new CitewiseError('invalid_request', 'idempotency with stream', {
        description: 'Invalid request: Idempotency-Key cannot be used with "stream": true',
      });
    }
    return withHeaders(eventStream(await service.runSearchStream(key, search, info), info), limitHeaders);
  }
  const run = async () =>
    withHeaders(json(200, await service.runSearch(key, search, info), info), limitHeaders);
  if (!idempotencyKey || !service.idempotency) return run();
  const scope = `${key.id}:${checkIdempotencyKey(idempotencyKey)}`;
  return replayable(service.idempotency, scope, body, request.signal, run);
}

/**
 * A Tavily-compatible request: the same checks as `/v1` (maintenance, key, rate limit, body), the key from
 * `Authorization: Bearer` or else the legacy `api_key` body field, then `/v1/search` or `/v1/extract` in
 * translation.
 */
async function routeTavily(
  service: ProtocolService,
  request: ProtocolRequest,
  info: RequestInfo,
  caller: Caller,
  which: 'search' | 'extract',
): Promise<ProtocolResponse> {
  const method = request.method.toUpperCase();
  if (method !== 'POST') {
    throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
      headers: { allow: 'POST' },
    });
  }
  service.assertAvailable();
  const bearer = bearerToken(request.header('authorization'));
  // With a bearer key the body is read only after it checked out, as on /v1.
  let key = bearer ? await service.authenticate(bearer) : undefined;
  const body = await readJsonBody(request, service.maxBodyBytes);
  key ??= await service.authenticate(tavilyBodyKey(body));
  caller.keyId = key.id;
  const limitHeaders = await service.enforceRateLimit(key);
  const run = async (): Promise<ProtocolResponse> => {
    if (which === 'search') {
      const plan = parseTavilySearch(body);
      const found = await service.runSearch(key, plan.search, info);
      return withHeaders(json(200, tavilySearchResponse(plan, found, info.requestId), info), limitHeaders);
    }
    const pages = await service.runExtract(key, parseTavilyExtract(body), info);
    return withHeaders(json(200, tavilyExtractResponse(pages, info.requestId), info), limitHeaders);
  };
  const idempotencyKey = request.header('idempotency-key');
  if (!idempotencyKey || !service.idempotency) return run();
  const scope = `${key.id}:tavily-${which}:${checkIdempotencyKey(idempotencyKey)}`;
  return replayable(service.idempotency, scope, body, request.signal, run);
}

/**
 * Runs a search once per Idempotency-Key, across every instance sharing the store: a retry with the same
 * body replays the stored 200 (no second charge), or, while the first request still runs (here or on
 * another instance), waits for its response; the same key with another body is a 422. A retry that waited
 * `waitMs` in vain gets a 409. Failed searches are forgotten, so a retry runs them again.
 */
async function replayable(
  settings: IdempotencySettings,
  scope: string,
  body: unknown,
  signal: AbortSignal,
  run: () => Promise<ProtocolResponse>,
): Promise<ProtocolResponse> {
  const { store } = settings;
  const fingerprint = fingerprintBody(body);
  const giveUpAt = Date.now() + settings.waitMs;
  for (let pause = IDEMPOTENCY_FIRST_POLL_MS; ; pause = Math.min(pause * 2, IDEMPOTENCY_MAX_POLL_MS)) {
    const found = await store.begin(scope, fingerprint, settings.leaseMs);
    if (found.state === 'new') break;
    if (found.fingerprint !== fingerprint) throw new CitewiseError('idempotency_mismatch');
    if (found.state === 'done') {
      return { ...found.response, headers: { ...found.response.headers, 'idempotent-replayed': 'true' } };
    }
    if (signal.aborted || Date.now() + pause > giveUpAt) {
      throw new CitewiseError('idempotency_in_progress', undefined, { retryAfterMs: 1_000 });
    }
    await waitOrAbort(pause, signal);
  }
  try {
    const response = await run();
    if (isReplayable(response)) await store.complete(scope, response, settings.ttlMs);
    return response;
  } catch (error) {
    await store.abandon(scope);
    throw error;
  }
}

/** First and longest pause between two looks at a request that is still running elsewhere, in ms. */
const IDEMPOTENCY_FIRST_POLL_MS = 50;
const IDEMPOTENCY_MAX_POLL_MS = 500;

/** Waits `ms`, or less if `signal` fires first (never rejects). */
function waitOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export function checkIdempotencyKey(value: string): string {
  if (value.length > 255 || !/^[\x21-\x7e]+$/.test(value)) {
    throw new CitewiseError('invalid_request', 'bad idempotency key', {
      description: 'Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters',
    });
  }
  return value;
}

export function withHeaders(
  response: ProtocolResponse,
  headers: Readonly<Record<string, string>>,
): ProtocolResponse {
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** Server-sent events: one `event:` per {@link SearchStreamEvent}, its payload as JSON `data:`. */
function eventStream(events: AsyncIterable<SearchStreamEvent>, info: RequestInfo): ProtocolResponse {
  async function* frames(): AsyncGenerator<string> {
    for await (const event of events) {
      const { type, ...payload } = event;
      const data = type === 'done' ? event.body : type === 'error' ? { error: event.error } : payload;
      yield `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    }
  }
  return sseResponse(frames(), info);
}

/** A `text/event-stream` response of already formatted frames. */
export function sseResponse(frames: AsyncIterable<string>, info: RequestInfo): ProtocolResponse {
  return {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': info.requestId,
    },
    body: frames,
  };
}

/**
 * Reads a JSON body: content type and encoding (415), size after decoding (413), UTF-8 and JSON (400).
 * Shared by /v1 and /mcp, so both have the same limit and checks.
 */
export async function readJsonBody(request: ProtocolRequest, limit: number): Promise<unknown> {
  const contentType = request.header('content-type');
  if (!contentType || !isJsonMediaType(contentType)) {
    throw new CitewiseError('unsupported_media_type', `content-type ${contentType ?? '(none)'}`);
  }
  const codings = requestEncodings(request.header('content-encoding'));
  const declared = Number(request.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    throw new CitewiseError('payload_too_large', undefined, {
      description: `Payload Too Large: the body must be at most ${limit} bytes`,
    });
  }
  // A host framework's body parser (e.g. express.json()) may have read the body already.
  if (request.parsedBody !== undefined) return withinDepth(request.parsedBody);
  const raw = await request.readBody(limit);
  const bytes = codings.length
    ? await decodeRequestBody(raw, codings, limit, () => payloadTooLarge(limit))
    : raw;
  if (bytes.byteLength === 0) {
    throw new CitewiseError('invalid_request', 'empty body', {
      description: 'Invalid request: the body is required (a JSON object with a prompt)',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new CitewiseError('invalid_request', 'body is not UTF-8', {
      description: 'Invalid request: the body is not valid UTF-8',
      cause,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new CitewiseError('invalid_request', 'malformed JSON', {
      description: 'Invalid request: the body is not valid JSON',
      cause,
    });
  }
  return withinDepth(parsed);
}

/**
 * A body with a field nested past {@link MAX_JSON_DEPTH} is a 400 naming the field, whatever the route (the
 * same words as the `json_schema` check).
 */
function withinDepth(body: unknown): unknown {
  const tooDeep = (name: string, limit: number) =>
    new CitewiseError('invalid_request', 'body nested too deeply', {
      description: `Invalid request: ${name} must be nested at most ${limit} levels deep`,
    });
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) {
      if (jsonDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep(name, MAX_JSON_DEPTH);
    }
  } else if (jsonDepth(body, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH + 1) {
    throw tooDeep('the body', MAX_JSON_DEPTH + 1);
  }
  return body;
}

/** `application/json` or any `+json` type, parameters allowed; a charset other than UTF-8 is refused. */
function isJsonMediaType(value: string): boolean {
  const [type = '', ...params] = value.toLowerCase().split(';');
  const media = type.trim();
  if (media !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(media)) return false;
  const charset = params.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  return !charset || /^charset="?utf-8"?$/.test(charset);
}

/** Error for a body past the limit, thrown by adapters' `readBody`. */
export function payloadTooLarge(limit: number): CitewiseError {
  return new CitewiseError('payload_too_large', undefined, {
    description: `Payload Too Large: the body must be at most ${limit} bytes`,
  });
}

function baseHeaders(requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-request-id': requestId,
  };
}

export function json(status: number, body: unknown, info: RequestInfo): ProtocolResponse {
  return { status, headers: baseHeaders(info.requestId), body: JSON.stringify(body) };
}

/**
 * Strips the mount prefix from a pathname; `null` when the path is outside it.
 * `stripBasePath('/api/v1/search', '/api')` → `/v1/search`.
 */
export function stripBasePath(pathname: string, basePath: string): string | null {
  const base = basePath.replace(/\/+$/, '');
  if (!base) return pathname;
  if (pathname === base) return '/';
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : null;
}

/** Builds the spec error response (body, `Retry-After`, `WWW-Authenticate`, extra headers). */
export function errorResponse(error: CitewiseError, requestId: string = randomUUID()): ProtocolResponse {
  const headers: Record<string, string> = { ...baseHeaders(requestId), ...error.headers };
  if (error.retryAfterMs !== undefined) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
  }
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  return { status: error.status, headers, body: JSON.stringify(errorBody(error)) };
}
