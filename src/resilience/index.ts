/** Retries, deadline-aware backoff and circuit breakers for the upstreams of a search. */
export {
  isRetryableUpstreamError,
  withAnswererResilience,
  withResilience,
  type CircuitBreakerOptions,
  type ResilienceEvent,
  type ResilienceOptions,
  type ResilientUpstream,
} from './resilience.ts';
