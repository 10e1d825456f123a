/**
 * `citewise keys budget <id> <credits[/day|/month]|none>`: sets, changes or removes an API key's budget.
 * What the key already spent in the current period still counts against a changed budget.
 */
import { recordCliAudit } from './audit-command.ts';
import { InvalidArgumentError, type Command } from 'commander';
import { describeBudget, parseBudget } from '../stores/budgets.ts';
import type { KeyBudget } from '../stores/types.ts';
import { setKeyBudget } from '../engine/admin.ts';
import type { CliStores } from './stores.ts';

/** The store flags a command takes (`--data-dir`, `--store`). */
type StoreFlags = Record<string, unknown>;

/** Parses the `<budget>` argument: `<credits>[/day|/month]`, or `none` to remove the budget. */
export function parseBudgetArgument(text: string): KeyBudget | null {
  if (text.trim().toLowerCase() === 'none') return null;
  try {
    return parseBudget(text);
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}, or none.`);
  }
}

/** Registers `keys budget` under the `keys` command. */
export function registerKeyBudgetCommand(
  keys: Command,
  withStoreOptions: (command: Command) => Command,
  withStores: (flags: never, work: (stores: CliStores) => Promise<void>) => Promise<void>,
): void {
  withStoreOptions(
    keys
      .command('budget')
      .description("Set, change or remove (none) a key's budget, e.g. keys budget key_… 500/day.")
      .argument('<id>', 'key id, as shown by `keys list`')
      .argument(
        '<budget>',
        'credits[/day|/month] (UTC periods; without a period: in all), or none',
        parseBudgetArgument,
      ),
  ).action(async (id: string, budget: KeyBudget | null, flags: StoreFlags) => {
    await withStores(flags as never, async (stores) => {
      const record = await setKeyBudget(stores.keys, id, budget);
      if (!record) throw new Error(`no key with id ${id}`);
      await recordCliAudit(flags, {
        actor: 'cli',
        action: 'budget_set',
        organizationId: record.accountId,
        target: id,
        detail: budget ? describeBudget(budget) : 'removed',
      });
      console.log(
        budget
          ? `Budget of ${id}: ${describeBudget(budget)}.`
          : `Budget of ${id} removed: it spends its account's credits.`,
      );
    });
  });
}
