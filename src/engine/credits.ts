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
import type { CreditStore, KeyBudget } from '../stores/types.ts';
import type { CreditsService, HoldInput, HoldOf, KeyBalance } from '../contract/credits.ts';

export type { CreditsService, HoldInput, HoldOf, KeyBalance };

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
