/** `POST /v1/search`: a search, answered whole or streamed (server-sent events), replayed by `Idempotency-Key`. */
import { CitewiseError } from '../../errors.ts';
import { parseSearchRequest } from '../../contract/search.ts';
import { readJsonBody } from '../body.ts';
import { checkIdempotencyKey, replayable } from '../replay.ts';
import { eventStream, json, withHeaders } from '../respond.ts';
import type { KeyedRoute } from '../route.ts';

export const searchRoute: KeyedRoute = {
  method: 'POST',
  admission: 'key+rate',
  async handle({ service, request, info }, { key, headers }) {
    const body = await readJsonBody(request, service.maxBodyBytes);
    const idempotencyKey = request.header('idempotency-key');
    const search = parseSearchRequest(body);
    if (search.stream) {
      if (idempotencyKey) {
        throw new CitewiseError('invalid_request', 'idempotency with stream', {
          description: 'Invalid request: Idempotency-Key cannot be used with "stream": true',
        });
      }
      return withHeaders(eventStream(await service.runSearchStream(key, search, info), info), headers);
    }
    const run = async () => withHeaders(json(200, await service.runSearch(key, search, info), info), headers);
    if (!idempotencyKey || !service.idempotency) return run();
    const scope = `${key.id}:${checkIdempotencyKey(idempotencyKey)}`;
    return replayable(service.idempotency, scope, body, request.signal, run);
  },
};
