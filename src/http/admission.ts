/**
 * The admission of a keyed sub-route (`/v1/research…`, `/v1/documents…`): the method against what the path
 * allows (405 with `Allow`), maintenance, then the bearer key, which the access log then names.
 */
import { CitewiseError } from '../errors.ts';
import type { KeyRecord } from '../stores/types.ts';
import { bearerToken, type Caller, type ProtocolRequest, type ProtocolService } from './handler.ts';

/** Checks `method` against `allowed` (e.g. `'GET, POST'`), then admits the request's key. */
export async function admitKeyed(
  service: ProtocolService,
  request: ProtocolRequest,
  caller: Caller,
  method: string,
  allowed: string,
): Promise<KeyRecord> {
  if (!allowed.split(', ').includes(method)) {
    throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
      headers: { allow: allowed },
    });
  }
  service.assertAvailable();
  const key = await service.authenticate(bearerToken(request.header('authorization')));
  caller.keyId = key.id;
  return key;
}
