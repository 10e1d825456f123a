/**
 * The port of the one credits service (src/engine/credits.ts implements it): what jobs, the console and the
 * engine's money path call to hold, charge and refund credits.
 */
import type { CreditStore, KeyBudget, KeyRecord, Reservation, ReserveInput } from '../stores/types.ts';

/** A hold being settled: its id, whose it is, and what it held. */
export interface HoldOf {
  /** The hold's id (the request id). */
  readonly id: string;
  /** The credit account it holds credits of. */
  readonly account: string;
  /** The API key that spends; a hold without one is settled but not written to the ledger. */
  readonly keyId?: string | undefined;
  /** The credits held. */
  readonly amount: number;
}

/** Input of {@link CreditsService.hold}: a reservation, and the key that spends (whose budget applies). */
export interface HoldInput extends Omit<ReserveInput, 'budget'> {
  /** The spending key: when it has a budget, the hold also spends that budget (433 when it would pass it). */
  readonly key?: Pick<KeyRecord, 'id' | 'budget'> | undefined;
}

/** What one key can still spend: the smaller of its account's credits and its budget's rest. */
export interface KeyBalance {
  /** Credits the key can still spend. */
  readonly available: number;
  /** The account's credits. */
  readonly account: number;
  /** The key's budget and what is left of it in the current period; absent for a key without one. */
  readonly budget?: {
    readonly credits: number;
    readonly period: KeyBudget['period'];
    readonly remaining: number;
    /** Epoch ms when the budget starts afresh; `null` for a budget that never does. */
    readonly resetsAt: number | null;
  };
}

/** Every change to a credit account, each with its ledger entry (see src/engine/credits.ts). */
export interface CreditsService {
  /** The store the balances live in. */
  readonly store: CreditStore;
  /** Available credits; 0 for an unknown account. */
  balance(account: string): Promise<number>;
  /** Whether the account exists. */
  hasAccount(account: string): Promise<boolean>;
  /**
   * Opens the account with `credits` if it does not exist, writing a grant with `note` (e.g. `sign-up`).
   * Returns `true` if it was opened; an existing account is left as it is.
   */
  openAccount(account: string, credits: number, note: string): Promise<boolean>;
  /** Adds credits (opening the account if needed), writing a grant with `note`; returns the new balance. */
  grant(account: string, amount: number, note: string): Promise<number>;
  /**
   * Holds credits before work starts (see {@link CreditStore.reserve}); throws 433 when the account has too
   * few, or when the hold would pass the spending key's budget (the description names the budget).
   */
  hold(input: HoldInput): Promise<Reservation>;
  /** What `key` can still spend (see {@link KeyBalance}). */
  keyBalance(key: Pick<KeyRecord, 'id' | 'accountId' | 'budget'>): Promise<KeyBalance>;
  /**
   * Charges `amount` of the hold (at most what it held; the rest returns) and writes the charge. Returns
   * `true` if this call settled the hold (see {@link CreditStore.commit}).
   */
  charge(hold: HoldOf, amount: number): Promise<boolean>;
  /** Returns the held credits and writes the refund. Returns `true` if this call settled the hold. */
  refund(hold: HoldOf): Promise<boolean>;
}
