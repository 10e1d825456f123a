/** `POST /v1/extract`: the pages of up to 20 URLs read, charged per page read; replayed by `Idempotency-Key`. */
import { parseExtractRequest } from '../../contract/extract.ts';
import { readJsonBody } from '../body.ts';
import { checkIdempotencyKey, replayable } from '../replay.ts';
import { json, withHeaders } from '../respond.ts';
import type { KeyedRoute } from '../route.ts';

export const extractRoute: KeyedRoute = {
  method: 'POST',
  admission: 'key+rate',
  async handle({ service, request, info }, { key, headers }) {
    const body = await readJsonBody(request, service.maxBodyBytes);
    const idempotencyKey = request.header('idempotency-key');
    const extract = parseExtractRequest(body);
    const run = async () =>
      withHeaders(json(200, await service.runExtract(key, extract, info), info), headers);
    if (!idempotencyKey || !service.idempotency) return run();
    const scope = `${key.id}:extract:${checkIdempotencyKey(idempotencyKey)}`;
    return replayable(service.idempotency, scope, body, request.signal, run);
  },
};
