/** `GET /v1/balance`: what the key can still spend (no rate limit: it costs nothing). */
import { json } from '../respond.ts';
import type { KeyedRoute } from '../route.ts';

export const balanceRoute: KeyedRoute = {
  method: 'GET',
  admission: 'key',
  async handle({ service, info }, { key }) {
    return json(200, await service.balance(key), info);
  },
};
