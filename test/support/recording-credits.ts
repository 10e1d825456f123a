/**
 * A credit store that records every hold, charge and refund made of it (on top of a memory store by
 * default), for tests of who holds, charges and refunds what.
 */
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import type { CreditStore, ReserveInput } from '../../src/stores/types.ts';

/** The store; `seen`: each hold, charge and refund in order; `calls`: how many of each, read live. */
export function recordingCredits(base: CreditStore = createMemoryCreditStore()) {
  const seen = {
    holds: [] as ReserveInput[],
    commits: [] as [string, number | undefined][],
    refunds: [] as string[],
  };
  const store: CreditStore = {
    ...base,
    openAccount: (account, credits) => base.openAccount(account, credits),
    hasAccount: (account) => base.hasAccount(account),
    balance: (account) => base.balance(account),
    grant: (account, credits) => base.grant(account, credits),
    reserve: async (input) => {
      seen.holds.push(input);
      return base.reserve(input);
    },
    commit: async (id, actual) => {
      seen.commits.push([id, actual]);
      return base.commit(id, actual);
    },
    refund: async (id) => {
      seen.refunds.push(id);
      return base.refund(id);
    },
  };
  const calls = {
    get reserve() {
      return seen.holds.length;
    },
    get commit() {
      return seen.commits.length;
    },
    get refund() {
      return seen.refunds.length;
    },
  };
  return { store, seen, calls };
}
