/**
 * The operating routes, without a key and served even in maintenance mode: `GET /healthz` (the process
 * answers), `GET /readyz` (the stores answer), `GET /v1/openapi.json`, and `GET /docs/<path>` (the files of
 * the local corpus).
 */
import { CitewiseError } from '../../errors.ts';
import { openApiDocument } from '../openapi.ts';
import { json, withHeaders } from '../respond.ts';
import type { PublicRoute, RouteFamily } from '../route.ts';

/** Where the files of the local corpus are served: `/docs/<path>`. */
export const DOCS_PREFIX = '/docs/';

export const openApiRoute: PublicRoute = {
  method: 'GET',
  admission: 'public',
  handle: async ({ info }) => json(200, openApiDocument(), info),
};

export const healthRoute: PublicRoute = {
  method: 'GET',
  admission: 'public',
  handle: async ({ info }) => json(200, { status: 'ok' }, info),
};

export const readyRoute: PublicRoute = {
  method: 'GET',
  admission: 'public',
  async handle({ service, info }) {
    await service.checkReadiness();
    return json(200, { status: 'ready' }, info);
  },
};

/** `GET /docs/<path>`: a file of the local corpus (404 for anything else, so middleware passes it on). */
export const docsRoutes: RouteFamily = {
  owns: (path) => path.startsWith(DOCS_PREFIX),
  label: () => '/docs/*',
  async serve({ service, request, info }) {
    const method = request.method.toUpperCase();
    if (method !== 'GET') {
      throw new CitewiseError('method_not_allowed', `${method} ${request.path}`, {
        headers: { allow: 'GET' },
      });
    }
    return withHeaders(await service.serveDocument(request.path.slice(DOCS_PREFIX.length)), {
      'x-request-id': info.requestId,
    });
  },
};
