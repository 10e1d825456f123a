/** Observability: Prometheus metrics (opt-in) and the engine's metrics hook. */
export { createMetrics, type Metrics, type MetricsOptions } from './metrics.ts';
export type { EngineMetrics, RequestObservation, SearchObservation } from './types.ts';
