/**
 * Resilience wrappers for the upstreams of a search: the search provider and the answerer (a model).
 *
 * Each wrapped upstream gets
 * - retries of retryable failures only (5xx, 429, timeouts, resets, garbage bodies), with cockatiel's
 *   jittered exponential backoff, waiting at least what a 429's `Retry-After` asked for;
 * - a deadline: no retry is started whose wait would end past the request's deadline (or after its
 *   signal fired), and the wait itself is aborted with the signal;
 * - a circuit breaker of its own (cockatiel): after `threshold` consecutive upstream failures, calls fail
 *   fast with a 503 `service_unavailable` until a trial call succeeds `halfOpenAfterMs` later.
 *
 * An attempt that failed after the caller's own signal fired (a client that went away, the request's
 * deadline, any abort of ours) is the caller's doing, whatever the error looks like: it is neither retried
 * nor counted against the circuit. Only the upstream's own faults count.
 *
 * The retry loop is ours rather than cockatiel's `retry()` because that policy's backoff sleep does not
 * observe the abort signal; the backoff sequence and the breaker are cockatiel's.
 */
import {
  BrokenCircuitError,
  circuitBreaker,
  ConsecutiveBreaker,
  ExponentialBackoff,
  handleWhen,
  IsolatedCircuitError,
  type CircuitBreakerPolicy,
  type IBackoff,
} from 'cockatiel';
import { CitewiseError, isCitewiseError } from '../errors.ts';
import type {
  AnswerEvent,
  Answerer,
  AnswerInput,
  AnswerOutput,
  CallOptions,
  SearchHit,
  SearchProvider,
  SearchQuery,
} from '../pipeline/types.ts';
import { nonNegativeInteger, positiveInteger } from '../options.ts';

/** Circuit breaker settings of one upstream. */
export interface CircuitBreakerOptions {
  /** Consecutive upstream failures that open the circuit. @default 5 */
  readonly threshold?: number;
  /** How long the circuit stays open before one trial call is let through, in ms. @default 30_000 */
  readonly halfOpenAfterMs?: number;
}

/** Options of {@link withResilience} and {@link withAnswererResilience}. */
export interface ResilienceOptions {
  /** Retries after the first attempt (so at most `retries + 1` calls). @default 2 */
  readonly retries?: number;
  /** First backoff delay in ms; later ones grow exponentially with decorrelated jitter. @default 200 */
  readonly baseDelayMs?: number;
  /** Longest backoff delay in ms (a `Retry-After` may ask for more, within the deadline). @default 5_000 */
  readonly maxDelayMs?: number;
  /** Circuit breaker; `false` disables it. @default { threshold: 5, halfOpenAfterMs: 30_000 } */
  readonly circuitBreaker?: CircuitBreakerOptions | false;
  /** Observes retries and circuit changes (for logs and metrics). @default none */
  readonly onEvent?: (event: ResilienceEvent) => void;
}

/** What the wrapper did, reported to {@link ResilienceOptions.onEvent}. */
export type ResilienceEvent =
  | {
      readonly type: 'retry';
      readonly upstream: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: unknown;
    }
  | { readonly type: 'circuit_open'; readonly upstream: string }
  | { readonly type: 'circuit_half_open'; readonly upstream: string }
  | { readonly type: 'circuit_closed'; readonly upstream: string }
  | { readonly type: 'rejected_open'; readonly upstream: string };

interface Settings {
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly breaker: Required<CircuitBreakerOptions> | undefined;
  readonly onEvent: (event: ResilienceEvent) => void;
}

/** Defaults of {@link ResilienceOptions}. */
export const RESILIENCE_DEFAULTS = {
  baseDelayMs: 200,
  retries: 2,
  maxDelayMs: 5_000,
  circuitBreakerThreshold: 5,
  circuitBreakerHalfOpenAfterMs: 30_000,
} as const;

function resolveSettings(options: ResilienceOptions): Settings {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new TypeError('onEvent must be a function');
  }
  const breakerOptions = options.circuitBreaker;
  if (breakerOptions !== undefined && breakerOptions !== false && typeof breakerOptions !== 'object') {
    throw new TypeError('circuitBreaker must be an options object or false');
  }
  const baseDelayMs = positiveInteger('baseDelayMs', options.baseDelayMs, RESILIENCE_DEFAULTS.baseDelayMs);
  return {
    retries: nonNegativeInteger('retries', options.retries, RESILIENCE_DEFAULTS.retries),
    baseDelayMs,
    maxDelayMs: Math.max(
      baseDelayMs,
      positiveInteger('maxDelayMs', options.maxDelayMs, RESILIENCE_DEFAULTS.maxDelayMs),
    ),
    breaker:
      breakerOptions === false
        ? undefined
        : {
            threshold: positiveInteger(
              'circuitBreaker.threshold',
              breakerOptions?.threshold,
              RESILIENCE_DEFAULTS.circuitBreakerThreshold,
            ),
            halfOpenAfterMs: positiveInteger(
              'circuitBreaker.halfOpenAfterMs',
              breakerOptions?.halfOpenAfterMs,
              RESILIENCE_DEFAULTS.circuitBreakerHalfOpenAfterMs,
            ),
          },
    onEvent: options.onEvent ?? (() => {}),
  };
}

/**
 * True when the same call may succeed later. Errors that say so themselves (`retryable`, as
 * SearchProviderError and CitewiseError do) are believed; other errors (a model SDK's, a reset socket)
 * count as retryable unless they are aborts.
 */
export function isRetryableUpstreamError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { name, retryable, status } = error as { name?: unknown; retryable?: unknown; status?: unknown };
  // The caller's abort or deadline (DOMException AbortError/TimeoutError) is not the upstream's failure.
  if (name === 'AbortError' || (name === 'TimeoutError' && !isCitewiseError(error))) return false;
  if (isCitewiseError(error)) {
    // A 503 from an open circuit downstream, or a full queue: retrying here only adds load.
    if (error.code === 'service_unavailable') return false;
    if (!(error.retryable && error.status >= 500)) return false;
    // A wrapped upstream error (the model answerer's) defers to its cause's verdict, e.g. a 401 is final.
    return ownVerdict(error.cause) ?? true;
  }
  const verdict = ownVerdict(error);
  if (verdict !== undefined) return verdict;
  if (typeof retryable === 'boolean') return retryable;
  if (typeof status === 'number') return status === 429 || status >= 500;
  return true;
}

/** `isRetryable` (AI SDK errors) or `retryable` as the error states it, if it does. */
function ownVerdict(error: unknown): boolean | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { isRetryable, retryable } = error as { isRetryable?: unknown; retryable?: unknown };
  if (typeof isRetryable === 'boolean') return isRetryable;
  return typeof retryable === 'boolean' ? retryable : undefined;
}

/**
 * Carries, through the breaker, a failure that happened after the caller's signal fired, so that the
 * breaker does not count it; it is unwrapped again before anyone else sees it.
 */
class CallerAborted {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/** An upstream failure that counts against the circuit: retryable ones, not the caller's abort. */
function countsAgainstCircuit(error: unknown): boolean {
  if (error instanceof CallerAborted) return false;
  return isRetryableUpstreamError(error) || (isCitewiseError(error) && error.code === 'upstream_error');
}

function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The shared core: one breaker per upstream, and a retry loop per call. */
interface Guard {
  run<T>(call: CallOptions, attempt: (call: CallOptions) => Promise<T>, canRetry?: () => boolean): Promise<T>;
  /** Runs one attempt through the breaker only (no retries); `signal` is the caller's. */
  once<T>(attempt: () => Promise<T>, signal: AbortSignal): Promise<T>;
  readonly breaker: CircuitBreakerPolicy | undefined;
}

function createGuard(upstream: string, settings: Settings): Guard {
  const breaker = settings.breaker
    ? circuitBreaker(handleWhen(countsAgainstCircuit), {
        halfOpenAfter: settings.breaker.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(settings.breaker.threshold),
      })
    : undefined;
  breaker?.onBreak(() => settings.onEvent({ type: 'circuit_open', upstream }));
  breaker?.onHalfOpen(() => settings.onEvent({ type: 'circuit_half_open', upstream }));
  breaker?.onReset(() => settings.onEvent({ type: 'circuit_closed', upstream }));
  const backoffFactory = new ExponentialBackoff({
    initialDelay: settings.baseDelayMs,
    maxDelay: settings.maxDelayMs,
  });

  const once = async <T>(attempt: () => Promise<T>, signal: AbortSignal): Promise<T> => {
    if (!breaker) return attempt();
    try {
      return await breaker.execute(async () => {
        try {
          return await attempt();
        } catch (error) {
          throw signal.aborted ? new CallerAborted(error) : error;
        }
      });
    } catch (error) {
      if (error instanceof CallerAborted) throw error.error;
      if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
        settings.onEvent({ type: 'rejected_open', upstream });
        throw new CitewiseError('service_unavailable', `circuit of ${upstream} is open`, {
          description: `Service Unavailable: the upstream ${upstream} is failing, retry later`,
          retryAfterMs: settings.breaker?.halfOpenAfterMs,
          cause: error,
        });
      }
      throw error;
    }
  };

  return {
    breaker,
    once,
    async run(call, attempt, canRetry = () => true) {
      let backoff: IBackoff<unknown> | undefined;
      for (let retry = 0; ; retry++) {
        try {
          return await once(() => attempt(call), call.signal);
        } catch (error) {
          if (call.signal.aborted || retry >= settings.retries || !canRetry()) throw error;
          if (!isRetryableUpstreamError(error)) throw error;
          backoff = backoff ? backoff.next(undefined) : backoffFactory.next();
          const delayMs = Math.max(backoff.duration, retryAfterOf(error) ?? 0);
          // A retry that could only start after the deadline is no retry: fail now with the real cause.
          if (call.deadline !== undefined && Date.now() + delayMs >= call.deadline) throw error;
          settings.onEvent({ type: 'retry', upstream, attempt: retry + 1, delayMs, error });
          await sleep(delayMs, call.signal);
        }
      }
    },
  };
}

/** A resilient upstream also exposes its circuit (for health checks and tests). */
export interface ResilientUpstream {
  /** `closed`, `open`, `half-open` or `isolated`; `disabled` without a breaker. */
  readonly circuitState: 'closed' | 'open' | 'half-open' | 'isolated' | 'disabled';
}

const STATE_NAMES = ['closed', 'open', 'half-open', 'isolated'] as const;

function stateOf(breaker: CircuitBreakerPolicy | undefined): ResilientUpstream['circuitState'] {
  return breaker ? (STATE_NAMES[breaker.state] ?? 'closed') : 'disabled';
}

/**
 * Wraps a search provider with retries, a deadline-aware backoff and a circuit breaker of its own.
 * Wrap each provider of a fallback ladder separately, so that one failing upstream opens only its circuit
 * and the ladder moves on to the next one.
 *
 * @example
 * const search = createFallbackProvider([
 *   withResilience(createBraveProvider({ apiKey }), { retries: 2 }),
 *   withResilience(createWikipediaProvider()),
 * ]);
 */
export function withResilience(
  provider: SearchProvider,
  options: ResilienceOptions = {},
): SearchProvider & ResilientUpstream {
  if (!provider || typeof provider.search !== 'function' || typeof provider.id !== 'string') {
    throw new TypeError('withResilience: provider must be a SearchProvider (id and search())');
  }
  const guard = createGuard(provider.id, resolveSettings(options));
  return {
    id: provider.id,
    search: (query: SearchQuery, call: CallOptions): Promise<SearchHit[]> =>
      guard.run(call, (attemptCall) => provider.search(query, attemptCall)),
    ...(provider.close ? { close: () => provider.close!() } : {}),
    get circuitState() {
      return stateOf(guard.breaker);
    },
  };
}

/**
 * Wraps an answerer (a model) with retries, a deadline-aware backoff and a circuit breaker. A streamed
 * answer is retried only while nothing has been streamed yet; a failure after the first event is passed on.
 *
 * @param upstream Name of the upstream in errors and events. @default 'answerer'
 */
export function withAnswererResilience(
  answerer: Answerer,
  options: ResilienceOptions & { readonly upstream?: string } = {},
): Answerer & ResilientUpstream {
  if (!answerer || typeof answerer.answer !== 'function') {
    throw new TypeError('withAnswererResilience: answerer must have an answer() method');
  }
  const guard = createGuard(options.upstream ?? 'answerer', resolveSettings(options));
  const wrapped: Answerer & ResilientUpstream = {
    answer: (input: AnswerInput, call: CallOptions): Promise<AnswerOutput> =>
      guard.run(call, (attemptCall) => answerer.answer(input, attemptCall)),
    get circuitState() {
      return stateOf(guard.breaker);
    },
  };
  const stream = answerer.stream?.bind(answerer);
  if (!stream) return wrapped;
  return {
    ...wrapped,
    get circuitState() {
      return stateOf(guard.breaker);
    },
    stream: (input, call) => resilientStream(guard, stream, input, call),
  };
}

/**
 * Retries the stream until its first text: the leading events (`sources`) are held back until a `delta`
 * or `done` arrives, so that a failed attempt leaves no trace. Afterwards the stream is passed through.
 */
async function* resilientStream(
  guard: Guard,
  stream: (input: AnswerInput, call: CallOptions) => AsyncIterable<AnswerEvent>,
  input: AnswerInput,
  call: CallOptions,
): AsyncGenerator<AnswerEvent> {
  const { iterator, held, finished } = await guard.run(call, async (attemptCall) => {
    const opened = stream(input, attemptCall)[Symbol.asyncIterator]();
    const events: AnswerEvent[] = [];
    try {
      for (;;) {
        const next = await opened.next();
        if (next.done) return { iterator: opened, held: events, finished: true };
        events.push(next.value);
        if (next.value.type !== 'sources') return { iterator: opened, held: events, finished: false };
      }
    } catch (error) {
      await opened.return?.().catch(() => undefined);
      throw error;
    }
  });
  try {
    yield* held;
    if (finished) return;
    // Not retried past this point: text was already sent.
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  } finally {
    await iterator.return?.().catch(() => undefined);
  }
}
