/**
 * The engine's side of the /v1 protocol: the {@link ProtocolService} that http/handler.ts calls for every
 * request. It owns the checks before any work (maintenance, API key, rate limit), the probes and the access
 * log; the work itself (search, stream, extract) comes from engine/search.ts, stream.ts and extract.ts.
 */
import { CitewiseError } from '../errors.ts';
import type { IdempotencySettings, ProtocolService, RequestInfo } from '../http/handler.ts';
import type { IdempotencyStore } from '../contract/idempotency.ts';
import type { EngineMetrics } from '../observability/types.ts';
import type { CreditStore, KeyStore, RateLimiter, RateLimitOptions } from '../stores/types.ts';
import { HOLD_GRACE_MS } from './money-path.ts';
import type { CreditsService, KeyBalance } from './credits.ts';
import type { BalanceResponse } from '../contract/search.ts';
import type { Logger, ResolvedEngineOptions } from './options.ts';
import { rateLimitHeaders } from './response.ts';

/** How long `GET /readyz` waits for each store's ping. */
const READINESS_TIMEOUT_MS = 2_000;

/** What a client is told to wait before retrying during maintenance. */
const MAINTENANCE_RETRY_AFTER_MS = 60_000;

const MAINTENANCE_MESSAGE = 'maintenance mode';

/** The engine's {@link ProtocolService}, with what the library calls and the operator use too. */
export interface EngineProtocolService extends ProtocolService {
  /** Turns maintenance mode on or off (503 for every /v1 request while on). */
  setMaintenance(on: boolean): void;
}

/** What {@link createProtocolService} is built from. */
export interface ProtocolServiceParts {
  readonly resolved: ResolvedEngineOptions;
  readonly keys: KeyStore;
  readonly credits: CreditStore;
  /** The credits service: what a key can still spend (`GET /v1/balance`). */
  readonly creditsService: CreditsService;
  readonly rateLimiter: RateLimiter | null;
  /** The policy announced in `RateLimit-Policy`, when known. */
  readonly rateLimitPolicy: RateLimitOptions | undefined;
  readonly idempotencyStore: IdempotencyStore | undefined;
  readonly serveDocument: ProtocolService['serveDocument'];
  /** The metered work: engine/search.ts, stream.ts and extract.ts. */
  readonly work: Pick<ProtocolService, 'runSearch' | 'runSearchStream' | 'runExtract'>;
  readonly reportError: ProtocolService['reportError'];
  readonly metrics: EngineMetrics | undefined;
}

/** Creates the engine's protocol service. */
export function createProtocolService(parts: ProtocolServiceParts): EngineProtocolService {
  const { resolved, keys, credits, rateLimiter, rateLimitPolicy, metrics } = parts;
  const { logger } = resolved;
  let maintenance = resolved.maintenance;
  const idempotency: IdempotencySettings | undefined = parts.idempotencyStore && {
    store: parts.idempotencyStore,
    // As long as the credit hold: a claim outlives its search, and lapses if its instance died.
    leaseMs: resolved.requestTimeoutMs + HOLD_GRACE_MS,
    ttlMs: resolved.idempotencyTtlMs,
    // A retry waits as long as the first search may run.
    waitMs: resolved.requestTimeoutMs,
  };

  const service: EngineProtocolService = {
    maxBodyBytes: resolved.maxBodyBytes,
    tavilyPrefix: resolved.tavilyPrefix,
    assertAvailable() {
      if (maintenance) {
        throw new CitewiseError('service_unavailable', MAINTENANCE_MESSAGE, {
          description: 'Service Unavailable: down for maintenance',
          retryAfterMs: MAINTENANCE_RETRY_AFTER_MS,
        });
      }
    },
    async authenticate(apiKey) {
      const record = apiKey ? await keys.verify(apiKey) : null;
      if (!record) throw new CitewiseError('invalid_api_key');
      return record;
    },
    async enforceRateLimit(key) {
      if (!rateLimiter) return {};
      const result = await rateLimiter.consume(`key:${key.id}`);
      const headers = rateLimitHeaders(result, rateLimitPolicy);
      if (!result.allowed) {
        throw new CitewiseError('rate_limited', undefined, { retryAfterMs: result.retryAfterMs, headers });
      }
      return headers;
    },
    idempotency,
    async balance(key) {
      return balanceResponse(await parts.creditsService.keyBalance(key));
    },
    ...parts.work,
    checkReadiness: () => checkReadiness(keys, credits, rateLimiter, logger),
    serveDocument: parts.serveDocument,
    observeRequest(observation) {
      metrics?.observeRequest?.(observation);
      // The access log: one line per request; never the key nor the request body.
      const { method, route, status, durationMs, requestId, keyId, errorCode } = observation;
      logger.info(
        {
          method,
          route,
          status,
          durationMs: Math.round(durationMs * 10) / 10,
          requestId,
          keyId: keyId ?? null,
          ...(errorCode ? { errorCode } : {}),
        },
        'request',
      );
    },
    reportError: parts.reportError,
    async admit(apiKey, admission, caller) {
      service.assertAvailable();
      const key = await service.authenticate(apiKey);
      if (caller) caller.keyId = key.id;
      const headers = admission === 'key+rate' ? await service.enforceRateLimit(key) : {};
      return { key, headers };
    },
    setMaintenance(on) {
      maintenance = on;
    },
  };
  return service;
}

/**
 * Logs a failure: a 5xx with its cause, a 503 (an expected state: maintenance, overload, an upstream circuit
 * open) as a warning without a stack, and nothing for a 4xx (the access line says enough).
 */
export function createErrorReporter(logger: Logger): ProtocolService['reportError'] {
  return (error, info: RequestInfo) => {
    if (error.status < 500) return;
    if (error.status === 503) {
      // Maintenance is the operator's own doing: the access line (status 503) says enough.
      if (error.message !== MAINTENANCE_MESSAGE) {
        logger.warn({ requestId: info.requestId, code: error.code }, error.message);
      }
      return;
    }
    logger.error({ requestId: info.requestId, code: error.code, err: error.cause ?? error }, error.message);
  };
}

/** Pings every store; throws 503 naming those that did not answer within {@link READINESS_TIMEOUT_MS}. */
async function checkReadiness(
  keys: KeyStore,
  credits: CreditStore,
  rateLimiter: RateLimiter | null,
  logger: Logger,
): Promise<void> {
  const probes: [string, { ping?(): Promise<void> } | null][] = [
    ['key store', keys],
    ['credit store', credits],
    ['rate limiter', rateLimiter],
  ];
  const failed = (
    await Promise.all(
      probes.map(async ([name, store]) => {
        try {
          await withTimeout(store?.ping?.(), READINESS_TIMEOUT_MS, `${name} did not answer`);
          return null;
        } catch (error) {
          logger.warn({ err: error }, `not ready: ${name} unreachable`);
          return name;
        }
      }),
    )
  ).filter((name) => name !== null);
  if (failed.length > 0) {
    throw new CitewiseError('service_unavailable', `not ready: ${failed.join(', ')} unreachable`, {
      description: `Service Unavailable: ${failed.join(', ')} unreachable`,
    });
  }
}

/** Waits for `work` (nothing to wait for when undefined), rejecting after `ms`. */
async function withTimeout(work: Promise<void> | undefined, ms: number, message: string): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The body of `GET /v1/balance`: the spec's `available_credits` (what this key can still spend), and for a
 * key with a budget, additively, the account's credits and the budget's rest.
 */
export function balanceResponse(balance: KeyBalance): BalanceResponse {
  const { budget } = balance;
  if (!budget) return { available_credits: balance.available };
  return {
    available_credits: balance.available,
    account_credits: balance.account,
    key_budget: {
      credits: budget.credits,
      period: budget.period,
      remaining: budget.remaining,
      resets_at: budget.resetsAt === null ? null : new Date(budget.resetsAt).toISOString(),
    },
  };
}
