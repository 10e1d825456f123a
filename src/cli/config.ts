/**
 * Configuration of the `citewise` command from the settings table: flag, else environment variable, else
 * default. The functions here read no `process.env` themselves: the command modules (`main.ts`,
 * `mcp-command.ts`, `index-command.ts`) hand it in, so that they stay testable. Only `src/cli/` reads
 * `process.env`; library code takes options (test/repo/process-env.test.ts holds that).
 */
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { MODEL_ENVIRONMENT } from '../models/resolve.ts';
import {
  ALL_SETTINGS,
  CONSOLE_SETTINGS,
  type ConsoleTableValues,
  MCP_SETTINGS,
  SERVE_SETTINGS,
  defaultText,
  settingLabel,
  type AnySetting,
  type Setting,
  type McpConfig,
  type ServeConfig,
  type SettingValues,
} from './settings.ts';

export {
  formatDuration,
  parseDuration,
  parseRateLimit,
  type McpConfig,
  type ServeConfig,
} from './settings.ts';

/** An environment: `process.env` in the CLI, a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Flags as commander parses them: strings, string arrays (`<dir...>`) or `true` for switches. */
export type CommandFlags = Readonly<Record<string, unknown>>;

/** Default data directory, relative to the working directory. */
export const DEFAULT_DATA_DIR = SERVE_SETTINGS.dataDir.default;

/** The name commander stores a setting's flag under, e.g. `--wikipedia-lang` → `wikipediaLang`. */
function attributeOf(setting: AnySetting): string | undefined {
  return setting.flag === undefined ? undefined : new Option(setting.flag).attributeName();
}

/** The environment variable of `setting` that is set (non-empty), if any. */
function setVariable(setting: AnySetting, env: Env): string | undefined {
  return [setting.env, ...(setting.alsoEnv ?? [])].find((name) => (env[name] ?? '').trim() !== '');
}

/**
 * Resolves one setting: its flag, else its variable, else its default. A bad value throws an Error that
 * names the flag and the variable, e.g. `--max-results (CITEWISE_MAX_RESULTS) must be a positive integer,
 * got "x"`.
 */
export function resolveSetting<T>(setting: Setting<T>, flags: CommandFlags, env: Env): T | undefined {
  const attribute = attributeOf(setting);
  const flagValue = attribute === undefined ? undefined : flags[attribute];
  const parse = (run: () => T, shown: string): T => {
    try {
      return run();
    } catch (error) {
      const got = setting.secret ? '' : `, got "${shown}"`;
      throw new Error(`${settingLabel(setting)} ${(error as Error).message}${got}`, { cause: error });
    }
  };
  if (setting.negated) {
    if (flagValue === false) return parse(() => setting.parse('false'), 'false');
  } else if (flagValue === true && setting.isSwitch) {
    return parse(() => setting.parse('true'), 'true');
  }
  if (Array.isArray(flagValue) && setting.parseItems) {
    const items = flagValue.map(String);
    return parse(() => setting.parseItems!(items), items.join(' '));
  }
  if (typeof flagValue === 'string') return parse(() => setting.parse(flagValue), flagValue);
  const variable = setVariable(setting, env);
  const text = variable === undefined ? setting.default : env[variable]!;
  return text === undefined ? undefined : parse(() => setting.parse(text), text);
}

function resolveTable<Table extends Readonly<Record<string, AnySetting>>>(
  table: Table,
  flags: CommandFlags,
  env: Env,
): SettingValues<Table> {
  const entries = Object.entries(table).map(([name, setting]) => [name, resolveSetting(setting, flags, env)]);
  return Object.fromEntries(entries) as SettingValues<Table>;
}

/** Resolves `serve` settings from commander's flags and the environment. Throws a readable Error. */
export function resolveServeConfig(flags: CommandFlags, env: Env): ServeConfig {
  return resolveTable(SERVE_SETTINGS, flags, env);
}

/** Resolves the console's settings (`serve` mounts the console at `/`). */
export function resolveConsoleTable(flags: CommandFlags, env: Env): ConsoleTableValues {
  return resolveTable(CONSOLE_SETTINGS, flags, env);
}

/** Resolves the settings `mcp` has besides the engine's. */
export function resolveMcpConfig(flags: CommandFlags, env: Env): McpConfig {
  return resolveTable(MCP_SETTINGS, flags, env);
}

/** The data directory from `--data-dir`, else `CITEWISE_DATA_DIR`, else `.citewise` (absolute). */
export function resolveDataDir(flag: string | undefined, env: Env): string {
  return resolveSetting(SERVE_SETTINGS.dataDir, { dataDir: flag }, env)!;
}

/** The store URL from `--store`, else `CITEWISE_STORE`, else undefined (SQLite in the data directory). */
export function resolveStore(flag: string | undefined, env: Env): string | undefined {
  return resolveSetting(SERVE_SETTINGS.store, { store: flag }, env);
}

/**
 * The base URL clients reach the service at: `publicUrl`, else `http://<host>:<port>` of the listener
 * (`localhost` for an any-address host such as 0.0.0.0, which no client can open).
 */
export function resolvePublicUrl(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl !== undefined) return publicUrl;
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The SQLite database inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'citewise.db');
}

/** The help text of a setting's flag: meaning, default and variable. */
export function optionDescription(setting: AnySetting): string {
  const meaning = setting.meaning.replace(/\.$/, '');
  const shown = setting.isSwitch ? '' : `default: ${defaultText(setting)}; `;
  return `${meaning} (${shown}env ${setting.env})`;
}

/**
 * Adds the flags of `table`'s settings to `command` (those `include` accepts), generated from the table.
 * @example addSettingOptions(program.command('keys'), SERVE_SETTINGS, (name) => name === 'dataDir')
 */
export function addSettingOptions(
  command: Command,
  table: Readonly<Record<string, AnySetting>>,
  include: (name: string, setting: AnySetting) => boolean = () => true,
): Command {
  for (const [name, setting] of Object.entries(table)) {
    if (setting.flag !== undefined && include(name, setting)) {
      command.addOption(new Option(setting.flag, optionDescription(setting)));
    }
  }
  return command;
}

/** Variables of the model providers (keys and base URLs), read when `--model` names that provider. */
export function modelVariables(): { readonly name: string; readonly meaning: string }[] {
  return Object.entries(MODEL_ENVIRONMENT).flatMap(([provider, names]) => [
    ...(names.apiKey ? [{ name: names.apiKey, meaning: `API key of ${provider}: models` }] : []),
    ...(names.baseUrl ? [{ name: names.baseUrl, meaning: `base URL of ${provider}: models` }] : []),
  ]);
}

/** The list of environment variables at the end of `citewise --help`. */
export function environmentHelp(): string {
  const rows = [
    ...Object.values(ALL_SETTINGS).map((setting) => ({
      name: [setting.env, ...(setting.alsoEnv ?? [])].join(', '),
      meaning: setting.flag ? setting.flag.split(' ')[0]! : setting.meaning.replace(/\.$/, ''),
    })),
    ...modelVariables(),
  ];
  const width = Math.max(...rows.map((row) => row.name.length));
  return [
    'Environment variables (a flag wins over its variable; see docs/reference/configuration.md):',
    ...rows.map((row) => `  ${row.name.padEnd(width)}  ${row.meaning}`),
  ].join('\n');
}
