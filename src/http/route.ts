/**
 * A route of /v1 as the router (handler.ts) registers it: its method, its admission (who may call it) and
 * its handler. The router matches the path, answers 405 for another method, runs the one admission step
 * (`SearchService.admit`, src/contract/protocol.ts) and hands the handler the admitted key and its rate-limit headers.
 */
import type {
  Admitted,
  Caller,
  ProtocolRequest,
  ProtocolResponse,
  RequestInfo,
} from '../contract/protocol.ts';
import type { ProtocolService } from './handler.ts';

/** What every handler gets. */
export interface RouteContext {
  readonly service: ProtocolService;
  readonly request: ProtocolRequest;
  readonly info: RequestInfo;
  /** Names the key to the access log once admission knows it. */
  readonly caller: Caller;
}

interface RouteBase {
  /** The one method served (another is a 405 with `Allow`). */
  readonly method: 'GET' | 'POST';
  /** `openai`: its errors in OpenAI's shape (`{"error": {"message", "type", "param", "code"}}`). */
  readonly errors?: 'openai';
}

/** A route anyone may call, served even in maintenance mode (the probes, the OpenAPI document). */
export interface PublicRoute extends RouteBase {
  readonly admission: 'public';
  handle(context: RouteContext): Promise<ProtocolResponse>;
}

/** A route for a valid key (`key`), whose rate limit is also checked (`key+rate`). */
export interface KeyedRoute extends RouteBase {
  readonly admission: 'key' | 'key+rate';
  handle(context: RouteContext, admitted: Admitted): Promise<ProtocolResponse>;
}

/** A route of /v1. */
export type Route = PublicRoute | KeyedRoute;

/**
 * A family of routes below a prefix (`/docs/…`, `/v1/research…`, `/v1/documents…`) whose methods and
 * admission depend on the rest of the path: it checks both itself, through `admitKeyed` (admission.ts).
 */
export interface RouteFamily {
  /** Whether `path` is one of its routes. */
  owns(path: string): boolean;
  /** Whether this service serves it (research and documents are optional); else its paths are 404. */
  servedBy?(service: ProtocolService): boolean;
  /** Its label of `path` for metrics and logs (`/v1/research/{id}`), few distinct values. */
  label(path: string): string;
  serve(context: RouteContext): Promise<ProtocolResponse>;
}
