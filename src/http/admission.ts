/**
 * The admission of a keyed route: the method against what the path allows (405 with `Allow`), then the
 * engine's one admission step ({@link SearchService.admit}: maintenance, the bearer key, which the access log
 * then names, and for `key+rate` the key's rate limit).
 */
import { CitewiseError } from '../errors.ts';
import type { Admitted, Caller, ProtocolRequest, SearchService } from '../contract/protocol.ts';

/** The key of an `Authorization: Bearer <key>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

/** Throws 405 (with `Allow`) unless `method` is one of `allowed` (e.g. `'GET, POST'`). */
export function checkMethod(request: ProtocolRequest, method: string, allowed: string): void {
  if (!allowed.split(', ').includes(method)) {
    throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
      headers: { allow: allowed },
    });
  }
}

/** Checks `method` against `allowed`, then admits the request's bearer key (and its rate, for `key+rate`). */
export async function admitKeyed(
  service: SearchService,
  request: ProtocolRequest,
  caller: Caller,
  method: string,
  allowed: string,
  admission: 'key' | 'key+rate' = 'key',
): Promise<Admitted> {
  checkMethod(request, method, allowed);
  return service.admit(bearerToken(request.header('authorization')), admission, caller);
}
