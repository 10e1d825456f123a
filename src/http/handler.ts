/**
 * The router of /v1, framework-agnostic. Adapters (node:http, Express, Koa, fetch) only translate their
 * request into a {@link ProtocolRequest} and write back the {@link ProtocolResponse}; the routes are
 * registered in one table (routes/index.ts), each with its method, admission and handler (route.ts).
 *
 * Order of checks for POST /v1/search: route → method (405) → the one admission step (maintenance, key
 * (401), rate limit (429)) → content type and encoding (415) → body size, decoded (413) → JSON and fields
 * (400) → overload (503) → credits (433) → pipeline. Authentication comes before the body is read, so
 * unauthenticated clients cannot make us buffer bodies.
 *
 * Operating routes, without a key and served even in maintenance mode: `GET /healthz` (the process
 * answers), `GET /readyz` (the stores answer), `GET /v1/openapi.json` and `GET /docs/<path>` (the files of
 * the local corpus).
 */
import { randomUUID } from 'node:crypto';
import { CitewiseError, toCitewiseError, type ErrorCode } from '../errors.ts';
import type {
  Caller,
  ProtocolRequest,
  ProtocolResponse,
  RequestInfo,
  SearchService,
} from '../contract/protocol.ts';
import type { DocumentsService } from '../contract/documents.ts';
import type { ResearchService } from '../jobs/research-jobs.ts';
import { openAiErrorBody } from './compat/openai-chat.ts';
import { tavilyErrorBody } from './compat/tavily.ts';
import { bearerToken } from './admission.ts';
import { errorResponse } from './respond.ts';
import type { RouteContext } from './route.ts';
import { ROUTE_FAMILIES, ROUTES } from './routes/index.ts';
import { DOCS_PREFIX } from './routes/operating.ts';
import { routeTavily, tavilyRouteOf } from './routes/tavily.ts';

export {
  isStreamBody,
  type Caller,
  type IdempotencySettings,
  type ProtocolRequest,
  type ProtocolResponse,
  type RequestInfo,
  type RequestObservation,
  type SearchService,
} from '../contract/protocol.ts';
export { bearerToken } from './admission.ts';
export { readJsonBody } from './body.ts';
export { checkIdempotencyKey } from './replay.ts';
export { errorResponse, json, payloadTooLarge, sseResponse, withHeaders } from './respond.ts';
export { DOCS_PREFIX } from './routes/operating.ts';

/** The engine operations the router needs: {@link SearchService}, with research jobs and documents. */
export interface ProtocolService extends SearchService {
  /** Research jobs (`/v1/research…`, src/http/routes/research-jobs.ts); absent: those routes are 404. */
  research?: ResearchService;
  /** Accounts' documents (`/v1/documents…`, src/http/documents.ts); absent: those routes are 404. */
  documents?: DocumentsService;
}

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

function trimTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** The route label of a path (few distinct values, for metrics and logs). */
function routeOf(path: string): string {
  const family = ROUTE_FAMILIES.find((candidate) => candidate.owns(path));
  if (family) return family.label(path);
  const trimmed = trimTrailingSlash(path);
  return ROUTES[trimmed] ? trimmed : 'unmatched';
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
  const context: RouteContext = { service, request, info, caller };
  const tavily = service.tavilyPrefix === null ? null : tavilyRouteOf(request.path, service.tavilyPrefix);
  try {
    response = tavily ? await routeTavily(context, tavily) : await route(context);
  } catch (thrown) {
    const error = toCitewiseError(thrown);
    service.reportError(error, info);
    errorCode = error.code;
    response = errorResponse(error, info.requestId);
    // Tavily's clients read errors from {"detail": {"error": …}}; status and headers stay ours.
    if (tavily) response = { ...response, body: JSON.stringify(tavilyErrorBody(error)) };
    // OpenAI's clients read errors from {"error": {"message", "type", "param", "code"}}.
    else if (ROUTES[trimTrailingSlash(request.path)]?.errors === 'openai') {
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

/** Finds the request's route, checks its method, admits the caller as the route declares, and runs it. */
async function route(context: RouteContext): Promise<ProtocolResponse> {
  const { service, request, caller } = context;
  const family = ROUTE_FAMILIES.find(
    (candidate) => candidate.owns(request.path) && (candidate.servedBy?.(service) ?? true),
  );
  if (family) return family.serve(context);
  const path = trimTrailingSlash(request.path);
  const found = ROUTES[path];
  if (!found) throw new CitewiseError('not_found', `no route ${path}`);
  const method = request.method.toUpperCase();
  if (method !== found.method) {
    throw new CitewiseError('method_not_allowed', `${method} ${path}`, { headers: { allow: found.method } });
  }
  if (found.admission === 'public') return found.handle(context);
  const admitted = await service.admit(bearerToken(request.header('authorization')), found.admission, caller);
  return found.handle(context, admitted);
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
