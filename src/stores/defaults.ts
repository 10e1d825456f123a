/**
 * Defaults of the built-in stores, every backend side by side, so that where they differ it shows (SQLite
 * keeps settled reservations a week, for auditing; memory and Redis remember their ids a day). The
 * options' JSDoc states the same values.
 */
export const STORE_DEFAULTS = {
  /** Requests allowed per window by the built-in rate limiters (also the burst size), and the window. */
  rateLimit: { limit: 60, windowMs: 60_000 },
  /** What one request costs a rate limiter. */
  rateLimitCost: 1,
  /** Keys a memory rate limiter tracks at most. */
  maxRateLimitKeys: 100_000,
  /** How long memory and Redis remember a settled reservation id (late commit → `false`, reuse refused): 24 h. */
  settledRetentionMs: 86_400_000,
  /** How long SQLite keeps settled reservations (idempotent settlement and auditing): 7 days. */
  sqliteSettledRetentionMs: 604_800_000,
  /** Settled reservation ids a memory credit store remembers at most. */
  maxSettled: 100_000,
  /** How long Redis and PostgreSQL retry a commit or refund while the server is unreachable. */
  settleRetryMs: 5_000,
  /** Idempotency-Key requests a memory store remembers at most. */
  maxIdempotencyEntries: 10_000,
  /** How long a verified (or revoked) key is served from a shared store's in-process cache. */
  keyCacheMs: 5_000,
  /** How long an unknown key is remembered as unknown. */
  negativeCacheMs: 1_000,
  /** Keys in that cache at most. */
  keyCacheSize: 10_000,
  /** How long SQLite waits for a lock held by another connection or process. */
  sqliteBusyTimeoutMs: 5_000,
  /** Connections of a PostgreSQL store's pool. */
  postgresMaxConnections: 10,
  /** Longest PostgreSQL statement. */
  postgresStatementTimeoutMs: 5_000,
  /** Longest Redis command. */
  redisCommandTimeoutMs: 2_000,
  /* The job queues (stores/<backend>/job-queue.ts). */
  /** pg-boss: how long a running job may go without a heartbeat before another worker gets it (≥ 10 s). */
  heartbeatSeconds: 30,
  /** pg-boss: how often its monitor looks for jobs without a heartbeat. */
  monitorSeconds: 5,
  /** BullMQ: how often its stalled-job checker looks for jobs whose worker died. */
  stalledCheckMs: 5_000,
  /** BullMQ: how long a job handed out while its account is at its cap waits before it is offered again. */
  capRetryMs: 1_000,
} as const;
