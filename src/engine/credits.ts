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
import { BudgetExceededError, CitewiseError } from '../errors.ts';
import type { UsageRecorder } from '../stores/account-types.ts';
import { budgetWindow, describeBudget } from '../stores/budgets.ts';
import type { CreditStore, KeyBudget, KeyRecord, Reservation, ReserveInput } from '../stores/types.ts';

/** Options of {@link createCreditsService}. */
export interface CreditsServiceOptions {
  /** Where balances and holds live. */
  readonly store: CreditStore;
  /**
   * Where every grant, charge and refund is written, e.g. the console's batching recorder
   * (`createUsageRecorder`). Grants are written only when it has `recordGrant`. @default none
   */
  readonly ledger?: UsageRecorder | undefined;
  /** The clock that says which period a key budget is in (UTC days and months). @default Date.now */
  readonly now?: (() => number) | undefined;
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

/** Creates the credits service over `store`, writing to `ledger`. */
export function createCreditsService(options: CreditsServiceOptions): CreditsService {
  const { store, ledger } = options;
  const now = options.now ?? Date.now;
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
    async hold({ key, ...input }) {
      const budget = key?.budget;
      if (!budget) return store.reserve(input);
      if (!store.budgetSpent) {
        throw new CitewiseError('server_error', 'this credit store does not enforce key budgets');
      }
      const { window, resetsAt } = budgetWindow(budget.period, now());
      try {
        return await store.reserve({ ...input, budget: { key: key.id, limit: budget.credits, window } });
      } catch (error) {
        if (error instanceof BudgetExceededError) throw budgetSpent(key.id, budget, error, resetsAt);
        throw error;
      }
    },
    async keyBalance(key) {
      const account = await store.balance(key.accountId);
      const budget = key.budget;
      if (!budget || !store.budgetSpent) return { available: account, account };
      const { window, resetsAt } = budgetWindow(budget.period, now());
      const spent = await store.budgetSpent(key.accountId, key.id, window);
      const remaining = Math.max(0, budget.credits - spent);
      return {
        available: Math.min(account, remaining),
        account,
        budget: { credits: budget.credits, period: budget.period, remaining, resetsAt },
      };
    },
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

/** The 433 of a hold that would pass key `keyId`'s budget: names the budget, what is left and when it resets. */
function budgetSpent(
  keyId: string,
  budget: KeyBudget,
  error: BudgetExceededError,
  resetsAt: number | null,
): CitewiseError {
  const left = Math.max(0, error.limit - error.spent);
  const when =
    resetsAt === null ? 'it does not reset' : `it starts afresh at ${new Date(resetsAt).toISOString()}`;
  const description =
    `Account is at / over message quota: API key ${keyId} has a budget of ${describeBudget(budget)}, ` +
    `${left} left, too few for this search; ${when}`;
  return new CitewiseError('key_budget_exceeded', error.message, { description, cause: error });
}
