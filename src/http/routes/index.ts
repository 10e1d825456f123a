/**
 * Every route of /v1, registered in one table: its path, method, admission and handler (route.ts). The
 * router (handler.ts) looks a request up here; the Tavily-compatible routes, under a prefix the operator
 * chooses, are looked up first (tavily.ts).
 */
import { CitewiseError } from '../../errors.ts';
import { documentsRouteOf, isDocumentsPath, routeDocuments } from '../documents.ts';
import { isResearchPath, researchRouteOf, routeResearch } from './research-jobs.ts';
import type { Route, RouteFamily } from '../route.ts';
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

const notServed = (path: string) => new CitewiseError('not_found', `no route ${path}`);

/** `/v1/research…`: research jobs (research-jobs.ts), when the engine has them. */
const researchRoutes: RouteFamily = {
  owns: isResearchPath,
  servedBy: (service) => service.research !== undefined,
  label: researchRouteOf,
  async serve({ service, request, info, caller }) {
    if (!service.research) throw notServed(request.path);
    return routeResearch(service, service.research, request, info, caller);
  },
};

/** `/v1/documents…`: an account's own documents (http/documents.ts), when the engine has them. */
const documentsRoutes: RouteFamily = {
  owns: isDocumentsPath,
  servedBy: (service) => service.documents !== undefined,
  label: documentsRouteOf,
  async serve({ service, request, info, caller }) {
    if (!service.documents) throw notServed(request.path);
    return routeDocuments(service, service.documents, request, info, caller);
  },
};

/** The families of routes below a prefix, in the order they are tried. */
export const ROUTE_FAMILIES: readonly RouteFamily[] = [docsRoutes, researchRoutes, documentsRoutes];
