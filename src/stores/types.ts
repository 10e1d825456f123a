/**
 * Store interfaces: API keys, credits and rate limits. Every implementation (memory, SQLite, Redis,
 * PostgreSQL, or a user's own) must pass the conformance suites in `citewise/testing`.
 *
 * Times are epoch milliseconds. Credit amounts are non-negative safe integers.
 */
import type { BudgetCharge, KeyBudget } from './budgets.ts';

export type { BudgetCharge, BudgetPeriod, KeyBudget } from './budgets.ts';

/** A stored API key. The raw key is never stored: only its SHA-256 hash. */
export interface KeyRecord {
  /** Stable id, e.g. `key_3f9c1a2b7d4e`; used to list and revoke. Never secret. */
  readonly id: string;
  /** The account whose credits this key spends. */
  readonly accountId: string;
  /** Optional human label. */
  readonly name: string | null;
  /** The first characters of the raw key (e.g. `cw_7Hq2x`), safe to display so users can tell keys apart. */
  readonly prefix: string;
  readonly createdAt: number;
  /** When the key stops working; `null` = never. */
  readonly expiresAt: number | null;
  /** When the key was revoked; `null` = active. */
  readonly revokedAt: number | null;
  /** What the key may spend per period, on top of its account's credits; absent or `null` = no budget. */
  readonly budget?: KeyBudget | null;
}

/** Input of {@link KeyStore.create}. */
export interface CreateKeyInput {
  readonly accountId: string;
  readonly name?: string | null;
  /** Epoch ms after which the key is rejected; omit or `null` for no expiry. */
  readonly expiresAt?: number | null;
  /** The key's budget (see {@link KeyBudget}); omit or `null` for none. */
  readonly budget?: KeyBudget | null;
}

/** API keys. Keys are high-entropy, prefixed (`cw_`), shown once at creation and stored hashed. */
export interface KeyStore {
  /** Creates a key; the raw `key` is returned only here. */
  create(input: CreateKeyInput): Promise<{ key: string; record: KeyRecord }>;
  /** Returns the record for a raw key, or `null` when unknown, malformed, revoked or expired. */
  verify(rawKey: string): Promise<KeyRecord | null>;
  /** Revokes a key by id. Returns `false` if no such key (revoking twice returns `true` both times). */
  revoke(id: string): Promise<boolean>;
  /** Lists keys, optionally of one account, oldest first. */
  list(accountId?: string): Promise<KeyRecord[]>;
  /**
   * Sets (or with `null` removes) a key's budget; returns the updated record, or `null` if no such key.
   * The built-in stores have it; without it, budgets cannot be set.
   */
  setBudget?(id: string, budget: KeyBudget | null): Promise<KeyRecord | null>;
  /** Resolves when the store can serve requests, rejects when it cannot (the `/readyz` probe). */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/** A hold on credits, made before work starts and settled by commit or refund. */
export interface Reservation {
  readonly id: string;
  readonly account: string;
  readonly amount: number;
  /** After this time an unsettled reservation lapses and its credits return to the account. */
  readonly expiresAt: number;
}

/** Input of {@link CreditStore.reserve}. */
export interface ReserveInput {
  readonly account: string;
  /** Caller-chosen unique id (the request id); commit and refund are idempotent by it. */
  readonly id: string;
  readonly amount: number;
  /** How long the hold lasts if never settled (a crashed instance). */
  readonly ttlMs: number;
  /**
   * A key budget the hold also spends: the reservation is refused with {@link BudgetExceededError} when
   * the key's counter in `budget.window` plus `amount` would pass `budget.limit`. Commit gives the unspent
   * rest back to the budget, refund and lapse all of it. Stores without `budgetSpent` ignore it.
   */
  readonly budget?: BudgetCharge;
}

/**
 * Credits per account. `balance` is what can still be reserved: grants minus commits minus live holds.
 * Check-and-change is atomic in every implementation: concurrent reservations never overspend.
 */
export interface CreditStore {
  /** Creates the account with `initialCredits` if it does not exist. Returns `true` if it was created. */
  openAccount(account: string, initialCredits: number): Promise<boolean>;
  /** Whether the account exists. */
  hasAccount(account: string): Promise<boolean>;
  /** Available credits; 0 for an unknown account. */
  balance(account: string): Promise<number>;
  /** Adds credits (creating the account if needed); returns the new balance. */
  grant(account: string, amount: number): Promise<number>;
  /**
   * Holds `amount` credits. Throws {@link QuotaExceededError} when the balance is below `amount`
   * (an amount of 0 always succeeds). Reserving an id that already exists throws `TypeError`.
   */
  reserve(input: ReserveInput): Promise<Reservation>;
  /**
   * Charges the reservation: `actual` (default: the reserved amount, at most that) is spent and the rest
   * returned. Returns `true` if this call settled it; `false` if it was already committed, refunded,
   * lapsed, or unknown. Exactly one of commit/refund ever returns `true` for an id.
   */
  commit(id: string, actual?: number): Promise<boolean>;
  /** Returns the reserved credits. Same settlement rules as {@link commit}. */
  refund(id: string): Promise<boolean>;
  /**
   * Credits key `key` of `account` has spent (committed plus live holds) in budget window `window`; 0 for
   * a key whose counter is in another window. Stores that have it enforce {@link ReserveInput.budget}
   * atomically with the balance (the built-in stores all do).
   */
  budgetSpent?(account: string, key: string, window: string): Promise<number>;
  /** Resolves when the store can serve requests, rejects when it cannot (the `/readyz` probe). */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/** Outcome of one {@link RateLimiter.consume}. */
export interface RateLimitResult {
  readonly allowed: boolean;
  /** Requests allowed per window. */
  readonly limit: number;
  /** Requests still allowed right now. */
  readonly remaining: number;
  /** Epoch ms when the limiter is fully replenished. */
  readonly resetAt: number;
  /** When denied: ms until the next request would be allowed; 0 when allowed. */
  readonly retryAfterMs: number;
}

/** Options shared by the built-in rate limiters. */
export interface RateLimitOptions {
  /** Requests allowed per window (also the burst size). @default 60 */
  readonly limit: number;
  /** Window length in ms. @default 60_000 */
  readonly windowMs: number;
}

/** Per-key request limiter; accurate under concurrency. */
export interface RateLimiter {
  consume(key: string, cost?: number): Promise<RateLimitResult>;
  /**
   * The limit and window this limiter enforces, announced in the `RateLimit-Policy` header. The built-in
   * limiters set it; a limiter without it sends only `RateLimit` (unless the engine's `rateLimit` names it).
   */
  readonly policy?: RateLimitOptions;
  /** Resolves when the limiter can serve requests, rejects when it cannot (the `/readyz` probe). */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/** What {@link IdempotencyStore.begin} found for a scope. */
export type IdempotencyState =
  | { readonly state: 'new' }
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  | { readonly state: 'done'; readonly fingerprint: string; readonly response: StoredResponse };

/** A completed response, kept for replay. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Remembers requests sent with an `Idempotency-Key`, by `scope` (API key id + Idempotency-Key), so that a
 * retry, on this instance or any other sharing the store, replays the first response instead of running
 * (and charging) again.
 */
export interface IdempotencyStore {
  /**
   * Claims `scope` for a request whose body has `fingerprint`, or says who has it. Atomic across every
   * instance sharing the store: of concurrent begins for one scope, exactly one sees `new`. A claim that
   * is neither completed nor abandoned within `leaseMs` (its instance died) lapses, and the next begin
   * claims it anew.
   */
  begin(scope: string, fingerprint: string, leaseMs: number): Promise<IdempotencyState>;
  /** Stores the response of a request that began; it is replayed for `ttlMs`. */
  complete(scope: string, response: StoredResponse, ttlMs: number): Promise<void>;
  /** Forgets a request that failed (a claim still in progress only), so that a retry runs again. */
  abandon(scope: string): Promise<void>;
  close?(): Promise<void>;
}
