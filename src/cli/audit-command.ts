/**
 * The audit log from the command line: `citewise audit [--since <date>] [--organization <id>] [--json]`
 * prints it, and {@link recordCliAudit} writes the entries of the admin commands (`keys create|revoke|budget`,
 * `credits grant`: actor `cli`; `citewise console …`: actor `operator`).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { AUDIT_DEFAULTS } from '../console/audit.ts';
import type { AuditEntry, NewAuditEntry } from '../stores/audit.ts';
import { addSettingOptions, type CommandFlags } from './config.ts';
import { openConsoleStores, resolveConsoleSettings, type ConsoleFlags } from './console-command.ts';
import { CONSOLE_SETTINGS, SERVE_SETTINGS } from './settings.ts';

/**
 * Appends `entry` to the audit log of the accounts store the flags name (`--accounts-store`, else the
 * `--store` database). A failure to write is printed as a warning: the command's work is done.
 */
export async function recordCliAudit(flags: ConsoleFlags, entry: NewAuditEntry): Promise<void> {
  try {
    const { accountsStore } = resolveConsoleSettings({ ...flags, console: true }, process.env);
    const stores = openConsoleStores(accountsStore);
    try {
      await stores.accounts.appendAudit(entry);
    } finally {
      await stores.close();
    }
  } catch (error) {
    process.stderr.write(`warning: audit log entry not written: ${(error as Error).message}\n`);
  }
}

/** Parses `--since`: a date (`2026-11-01`, UTC midnight) or a date and time in ISO 8601. */
function sinceOption(text: string): number {
  const value = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (Number.isNaN(value))
    throw new InvalidArgumentError('give a date, e.g. 2026-11-01, or an ISO 8601 time');
  return value;
}

function limitOption(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 10_000) {
    throw new InvalidArgumentError('give a whole number from 1 to 10000');
  }
  return value;
}

interface AuditFlags extends ConsoleFlags {
  readonly since?: number;
  readonly organization?: string;
  readonly action?: string;
  readonly limit?: number;
  readonly json?: boolean;
}

/** Registers `citewise audit`. */
export function registerAuditCommand(program: Command): void {
  const command = program
    .command('audit')
    .description(
      'Print the audit log, newest first: sign-ins, keys, members, credits, budgets and operator actions.',
    );
  addSettingOptions(
    addSettingOptions(command, SERVE_SETTINGS, (name) => name === 'dataDir' || name === 'store'),
    CONSOLE_SETTINGS,
    (name) => name === 'accountsStore',
  )
    .option('--since <date>', 'only entries from this date (UTC) or ISO 8601 time on', sinceOption)
    .option('--organization <id>', 'only entries of this organization')
    .option('--action <action>', 'only this action, e.g. key_created')
    .option('--limit <n>', `most entries printed (default: ${AUDIT_DEFAULTS.cliLimit})`, limitOption)
    .option('--json', 'print JSON (one array)')
    .action(async (flags: AuditFlags) => {
      const { accountsStore } = resolveConsoleSettings(
        { ...(flags as CommandFlags), console: true },
        process.env,
      );
      const stores = openConsoleStores(accountsStore);
      try {
        const entries = await stores.accounts.listAudit({
          ...(flags.since !== undefined ? { since: flags.since } : {}),
          ...(flags.organization ? { organizationId: flags.organization } : {}),
          ...(flags.action ? { action: flags.action } : {}),
          limit: flags.limit ?? AUDIT_DEFAULTS.cliLimit,
        });
        if (flags.json) console.log(JSON.stringify(entries.map(jsonEntry), null, 2));
        else printAuditTable(entries);
      } finally {
        await stores.close();
      }
    });
}

function jsonEntry(entry: AuditEntry) {
  return { ...entry, time: new Date(entry.at).toISOString() };
}

function printAuditTable(entries: readonly AuditEntry[]): void {
  if (entries.length === 0) {
    console.log('No audit entries.');
    return;
  }
  const rows = entries.map((e) => [
    new Date(e.at).toISOString().slice(0, 19) + 'Z',
    e.actor,
    e.organizationId ?? '-',
    e.action,
    e.target ?? '-',
    e.ip ?? '-',
    e.detail ?? '',
  ]);
  const header = ['TIME', 'ACTOR', 'ORGANIZATION', 'ACTION', 'TARGET', 'IP', 'DETAIL'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows]) {
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  }
}
