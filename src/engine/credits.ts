/**
 * The credits service: every change to a credit account, written once, each with its ledger entry. Opening
 * an account and granting credits add a `grant` entry; a search's hold is either charged (a `charge` entry)
 * or refunded (a `refund` entry, which returns the hold and costs nothing). The engine's money path, the
 * console (sign-up, the operator's grants) and the CLI (`keys create`, `credits grant`, `console grant`) all
 * go through it, so that once no hold is live an account's balance is its grants minus its charges.
 *
 * The balance lives in the {@link CreditStore} (atomic, shared by every instance); the ledger is the usage
 * recorder the service is given (the console's usage store). Without a ledger, only the balance changes.
 */
import type { UsageRecorder } from '../stores/account-types.ts';
import type { CreditStore, Reservation, ReserveInput } from '../stores/types.ts';

/** Options of {@link createCreditsService}. */
export interface CreditsServiceOptions {
  /** Where balances and holds live. */
  readonly store: CreditStore;
  /**
   * Where every grant, charge and refund is written, e.g. the console's batching recorder
   * (`createUsageRecorder`). Grants are written only when it has `recordGrant`. @default none
   */
  readonly ledger?: UsageRecorder | undefined;
}

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

/** See the module comment. */
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
  /** Holds credits before work starts (see {@link CreditStore.reserve}); throws 433 when too few. */
  hold(input: ReserveInput): Promise<Reservation>;
  /**
   * Charges `amount` of the hold (at most what it held; the rest returns) and writes the charge. Returns
   * `true` if this call settled the hold (see {@link CreditStore.commit}).
   */
  charge(hold: HoldOf, amount: number): Promise<boolean>;
  /** Returns the held credits and writes the refund. Returns `true` if this call settled the hold. */
  refund(hold: HoldOf): Promise<boolean>;
}

/** Creates the credits service over `store`, writing to `ledger`. */
export function createCreditsService(options: CreditsServiceOptions): CreditsService {
  const { store, ledger } = options;
  const recordGrant = (accountId: string, credits: number, note: string) =>
    ledger?.recordGrant?.({ accountId, credits, note });
  const recordSearch = (hold: HoldOf, kind: 'charge' | 'refund', credits: number) => {
    if (hold.keyId !== undefined) {
      ledger?.recordSearch({ accountId: hold.account, keyId: hold.keyId, kind, credits });
    }
  };
  return {
    store,
    balance: (account) => store.balance(account),
    hasAccount: (account) => store.hasAccount(account),
    async openAccount(account, credits, note) {
      const opened = await store.openAccount(account, credits);
      if (opened) recordGrant(account, credits, note);
      return opened;
    },
    async grant(account, amount, note) {
      const balance = await store.grant(account, amount);
      recordGrant(account, amount, note);
      return balance;
    },
    hold: (input) => store.reserve(input),
    async charge(hold, amount) {
      const charged = Math.min(hold.amount, amount);
      const settled = await store.commit(hold.id, charged);
      if (settled) recordSearch(hold, 'charge', charged);
      return settled;
    },
    async refund(hold) {
      const settled = await store.refund(hold.id);
      if (settled) recordSearch(hold, 'refund', hold.amount);
      return settled;
    },
  };
}
