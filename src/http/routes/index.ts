/**
 * Every route of /v1, registered in one table: its path, method, admission and handler (route.ts). The
 * router (handler.ts) looks a request up here; the Tavily-compatible routes, under a prefix the operator
 * chooses, are looked up first (tavily.ts).
 */
import { CitewiseError } from '../../errors.ts';
import { documentsRouteOf, isDocumentsPath, routeDocuments } from '../documents.ts';
import { isResearchPath, researchRouteOf, routeResearch } from './research-jobs.ts';
import type { ProtocolResponse } from '../../contract/protocol.ts';
import type { ProtocolService } from '../handler.ts';
import type { Route, RouteContext, RouteFamily } from '../route.ts';
import { balanceRoute } from './balance.ts';
import { extractRoute } from './extract.ts';
import { chatCompletionsRoute, modelsRoute } from './openai.ts';
import { docsRoutes, healthRoute, openApiRoute, readyRoute } from './operating.ts';
import { searchRoute } from './search.ts';

/** The routes of one path each. */
export const ROUTES: Readonly<Record<string, Route>> = {
  '/v1/search': searchRoute,
  '/v1/extract': extractRoute,
  '/v1/balance': balanceRoute,
  '/v1/chat/completions': chatCompletionsRoute,
  '/v1/models': modelsRoute,
  '/v1/openapi.json': openApiRoute,
  '/healthz': healthRoute,
  '/readyz': readyRoute,
};

/** A family served only when the engine has its service (research jobs, documents); else its paths are 404. */
function optional<S>(
  owns: (path: string) => boolean,
  label: (path: string) => string,
  serviceOf: (service: ProtocolService) => S | undefined,
  serve: (service: S, context: RouteContext) => Promise<ProtocolResponse>,
): RouteFamily {
  return {
    owns,
    label,
    servedBy: (service) => serviceOf(service) !== undefined,
    async serve(context) {
      const served = serviceOf(context.service);
      if (served === undefined) throw new CitewiseError('not_found', `no route ${context.request.path}`);
      return serve(served, context);
    },
  };
}

/** `/v1/research…`: research jobs (research-jobs.ts), when the engine has them. */
const researchRoutes = optional(
  isResearchPath,
  researchRouteOf,
  (service) => service.research,
  (research, { service, request, info, caller }) => routeResearch(service, research, request, info, caller),
);

/** `/v1/documents…`: an account's own documents (http/documents.ts), when the engine has them. */
const documentsRoutes = optional(
  isDocumentsPath,
  documentsRouteOf,
  (service) => service.documents,
  (documents, { service, request, info, caller }) =>
    routeDocuments(service, documents, request, info, caller),
);

/** The families of routes below a prefix, in the order they are tried. */
export const ROUTE_FAMILIES: readonly RouteFamily[] = [docsRoutes, researchRoutes, documentsRoutes];
