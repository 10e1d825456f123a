/** Observability: Prometheus metrics (opt-in) and the engine's metrics hook. */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export { createMetrics, type Metrics, type MetricsOptions } from './metrics.ts';
export type { EngineMetrics, RequestObservation, SearchObservation } from './types.ts';
