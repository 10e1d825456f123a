/**
 * The engine's opt-in metrics hook: plain callbacks, so the engine does not depend on a metrics library.
 * `createMetrics()` implements it with prom-client.
 */
import type { ErrorCode } from '../errors.ts';
import type { RequestObservation } from '../contract/protocol.ts';

export type { RequestObservation };

/** A settled search (library call, HTTP or MCP), as reported to {@link EngineMetrics.observeSearch}. */
export interface SearchObservation {
  readonly outcome: 'success' | 'error';
  /** Whether the answer was streamed. */
  readonly stream: boolean;
  /** Credits committed (0 when the search failed and was refunded). */
  readonly creditsCharged: number;
  /** Milliseconds per pipeline stage, when measured (not for streamed searches). */
  readonly timings?: Readonly<Record<string, number>>;
  /** From the start of the request until the search settled, in ms. */
  readonly durationMs: number;
  readonly errorCode?: ErrorCode;
}

/** Callbacks the engine calls when given `metrics`; each must be cheap and must not throw. */
export interface EngineMetrics {
  /** Once per /v1 HTTP request, when its response (or stream) starts. */
  observeRequest?(observation: RequestObservation): void;
  /** Once per search that reserved credits, when it is committed or refunded. */
  observeSearch?(observation: SearchObservation): void;
}
