/**
 * The Tavily-compatible routes (`{prefix}/search`, `{prefix}/extract`): maintenance, the key from
 * `Authorization: Bearer` (before the body) or else the legacy `api_key` body field, the body, the rate
 * limit, then `/v1/search` or `/v1/extract` in translation (compat/tavily.ts).
 */
import { CitewiseError } from '../../errors.ts';
import type { ProtocolResponse } from '../../contract/protocol.ts';
import {
  parseTavilyExtract,
  parseTavilySearch,
  tavilyBodyKey,
  tavilyExtractResponse,
  tavilySearchResponse,
} from '../compat/tavily.ts';
import { bearerToken } from '../admission.ts';
import { readJsonBody } from '../body.ts';
import { checkIdempotencyKey, replayable } from '../replay.ts';
import { json, withHeaders } from '../respond.ts';
import type { RouteContext } from '../route.ts';

/** `search` or `extract` for a Tavily-compatible path under `prefix`, else null. */
export function tavilyRouteOf(path: string, prefix: string): 'search' | 'extract' | null {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (trimmed === `${prefix}/search`) return 'search';
  if (trimmed === `${prefix}/extract`) return 'extract';
  return null;
}

/** Serves `{prefix}/search` or `{prefix}/extract`. */
export async function routeTavily(
  context: RouteContext,
  which: 'search' | 'extract',
): Promise<ProtocolResponse> {
  const { service, request, info, caller } = context;
  const method = request.method.toUpperCase();
  if (method !== 'POST') {
    throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
      headers: { allow: 'POST' },
    });
  }
  const bearer = bearerToken(request.header('authorization'));
  // Maintenance first; with a bearer key the body is read only after the key checked out, as on /v1.
  if (!bearer) service.assertAvailable();
  let key = bearer ? (await service.admit(bearer, 'key')).key : undefined;
  const body = await readJsonBody(request, service.maxBodyBytes);
  key ??= (await service.admit(tavilyBodyKey(body), 'key')).key;
  caller.keyId = key.id;
  // Tavily's routes check the rate limit after the body (/v1 checks it before).
  const headers = await service.enforceRateLimit(key);
  const run = async (): Promise<ProtocolResponse> => {
    if (which === 'search') {
      const plan = parseTavilySearch(body);
      const found = await service.runSearch(key, plan.search, info);
      return withHeaders(json(200, tavilySearchResponse(plan, found, info.requestId), info), headers);
    }
    const pages = await service.runExtract(key, parseTavilyExtract(body), info);
    return withHeaders(json(200, tavilyExtractResponse(pages, info.requestId), info), headers);
  };
  const idempotencyKey = request.header('idempotency-key');
  if (!idempotencyKey || !service.idempotency) return run();
  const scope = `${key.id}:tavily-${which}:${checkIdempotencyKey(idempotencyKey)}`;
  return replayable(service.idempotency, scope, body, request.signal, run);
}
