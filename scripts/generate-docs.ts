/**
 * Writes the generated pages of the manual from the code, so they cannot drift from it:
 * docs/reference/configuration.md (the settings table), docs/reference/errors.md (ERROR_TABLE) and
 * docs/reference/cli.md (every command's --help). `npm run docs:generate`; test/docs/generated.test.ts
 * fails when a committed page differs from what this produces.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { databasePath, modelVariables } from '../src/cli/config.ts';
import { FIRST_KEY_FILE } from '../src/cli/first-key.ts';
import { buildProgram } from '../src/cli/main.ts';
import {
  MCP_SETTINGS,
  CONSOLE_SETTINGS,
  SERVE_SETTINGS,
  SETTING_GROUPS,
  type AnySetting,
  type SettingGroup,
} from '../src/cli/settings.ts';
import { ENGINE_DEFAULTS } from '../src/engine/index.ts';
import { ERROR_TABLE } from '../src/errors.ts';

/** Width of the `--help` texts on the CLI page. */
const HELP_WIDTH = 100;

const GENERATED_NOTE = (source: string) =>
  `<!-- Generated from ${source} by \`npm run docs:generate\`. Do not edit: change the code and regenerate. -->`;

/** Escapes a cell of a Markdown table: pipes, and angle brackets outside code spans (not HTML tags). */
function cell(text: string): string {
  return text
    .split('`')
    .map((part, index) => (index % 2 === 0 ? part.replace(/</g, '&lt;').replace(/>/g, '&gt;') : part))
    .join('`')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
}

function code(text: string): string {
  return `\`${text}\``;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

function settingRow(name: string, setting: AnySetting): string[] {
  const variables = [setting.env, ...(setting.alsoEnv ?? [])].map(code).join(', ');
  const shownDefault =
    setting.default !== undefined ? code(setting.default) : (setting.defaultText ?? 'none');
  return [code(name), setting.flag ? code(setting.flag) : '—', variables, shownDefault, setting.meaning];
}

/** docs/reference/configuration.md */
export function configurationPage(): string {
  const all: [string, AnySetting][] = [
    ...Object.entries(SERVE_SETTINGS),
    ...Object.entries(MCP_SETTINGS),
    ...Object.entries(CONSOLE_SETTINGS),
  ];
  const sections = (Object.keys(SETTING_GROUPS) as SettingGroup[]).map((group) => {
    const rows = all.filter(([, setting]) => setting.group === group);
    const serveOnly = rows
      .filter(([, setting]) => setting.serveOnly)
      .map(([, s]) => code(s.flag!.split(' ')[0]!));
    return [
      `## ${SETTING_GROUPS[group]}`,
      '',
      table(
        ['Setting', 'Flag', 'Environment variable', 'Default', 'Meaning'],
        rows.map(([name, setting]) => settingRow(name, setting)),
      ),
      ...(serveOnly.length
        ? ['', `Only \`serve\` has ${serveOnly.join(', ')}; \`citewise mcp\` has the others.`]
        : []),
    ].join('\n');
  });
  const libraryOnly = Object.entries(ENGINE_DEFAULTS).filter(([name]) => !(name in SERVE_SETTINGS));
  return `${[
    '# Configuration reference',
    '',
    GENERATED_NOTE('the settings table in `src/cli/settings.ts`'),
    '',
    'Every setting of `citewise serve` (and of `citewise mcp`, which runs the same engine over stdio). Each',
    'one is read from its flag, else from its environment variable, else it takes its default: a flag wins',
    'over its variable. An empty variable counts as unset. A bad value stops the command with a message that',
    'names the flag and the variable, for example:',
    '',
    '```text',
    'citewise: --max-results (CITEWISE_MAX_RESULTS) must be a positive integer, got "x"',
    '```',
    '',
    'API keys of search providers and models are read only from the environment, never from flags, so they',
    'do not show in the process list. The same values as flags:',
    '',
    '```sh',
    'citewise serve --port 9000 --rate-limit 120/1m --search wikipedia,duckduckgo',
    'CITEWISE_PORT=9000 CITEWISE_RATE_LIMIT=120/1m CITEWISE_SEARCH=wikipedia,duckduckgo citewise serve',
    '```',
    '',
    `Durations are written like \`500ms\`, \`30s\`, \`1m\`, \`12h\`, \`30d\`; rate limits as REQUESTS/WINDOW, like \`60/1m\`.`,
    'Every command and its flags: [CLI reference](cli.md). Error codes of the HTTP API: [errors](errors.md).',
    '',
    ...sections.flatMap((section) => [section, '']),
    '## Administration commands',
    '',
    '`citewise keys …`, `citewise credits …`, `citewise migrate` and `citewise index` take the same',
    `\`--data-dir\` (\`CITEWISE_DATA_DIR\`) and, except \`index\`, \`--store\` (\`CITEWISE_STORE\`) as \`serve\`, so they`,
    `work on the same keys and credits. With the default store, the data directory holds \`${databasePath('')}\`;`,
    `on first start \`serve\` writes the first API key to \`${FIRST_KEY_FILE}\` there (readable only by its owner).`,
    '',
    '## Model provider variables',
    '',
    'Read when `--model` or `--embedding-model` names that provider:',
    '',
    table(
      ['Environment variable', 'Meaning'],
      modelVariables().map((variable) => [code(variable.name), variable.meaning]),
    ),
    '',
    '## Library defaults',
    '',
    'Defaults of the library that the command does not change (`ENGINE_DEFAULTS`, where the defaults above',
    'come from too): `freeCredits` is what a new account receives; the others are options of',
    '`createSearchEngine()`. See the [library reference](library.md).',
    '',
    table(
      ['Option', 'Default'],
      libraryOnly.map(([name, value]) => [code(name), code(JSON.stringify(value))]),
    ),
  ].join('\n')}\n`;
}

/** docs/reference/errors.md */
export function errorsPage(): string {
  const rows = Object.entries(ERROR_TABLE).map(([errorCode, row]) => [
    code(errorCode),
    String(row.status),
    code(row.description),
    row.retryable ? 'yes' : 'no',
    row.when,
  ]);
  return `${[
    '# Errors',
    '',
    GENERATED_NOTE('`ERROR_TABLE` in `src/errors.ts`'),
    '',
    'Every error response has the body `{"error":{"description":"…"}}`, as the service specification says,',
    'plus an additive `code` a client can switch on. The descriptions of 401, 429, 433 and 500 are the',
    "specification's exact texts. Some errors give a more precise description than the table's, for example",
    'a 400 names the invalid field. "Retryable" says whether the same request may succeed later.',
    '',
    table(['Code', 'Status', 'Description', 'Retryable', 'When'], rows),
    '',
    'The HTTP API: [HTTP API reference](http-api.md). In the library, the same codes are on `CitewiseError`',
    '(`code`, `status`, `description`, `retryable`).',
  ].join('\n')}\n`;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}

/** The `--help` text of a command, at a fixed width, without colors. */
function helpText(command: Command): string {
  let text = '';
  command.configureOutput({
    writeOut: (chunk) => (text += chunk),
    getOutHelpWidth: () => HELP_WIDTH,
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text.trimEnd();
}

/** docs/reference/cli.md */
export function cliPage(): string {
  const commands = allCommands(buildProgram()).filter((command) => command.name() !== 'help');
  return `${[
    '# CLI reference',
    '',
    GENERATED_NOTE("the commander program's `--help` (`src/cli/`)"),
    '',
    'Every command of `citewise` with its `--help`. The settings of `serve` are explained in the',
    '[configuration reference](configuration.md).',
    '',
    ...commands.map(
      (command) => `- [\`${commandPath(command)}\`](#${commandPath(command).replace(/ /g, '-')})`,
    ),
    '',
    ...commands.flatMap((command) => [
      `## ${commandPath(command)}`,
      '',
      '```text',
      helpText(command),
      '```',
      '',
    ]),
  ]
    .join('\n')
    .trimEnd()}\n`;
}

/** The generated pages, by path relative to the repository root. */
export function generatedPages(): Record<string, string> {
  return {
    'docs/reference/configuration.md': configurationPage(),
    'docs/reference/errors.md': errorsPage(),
    'docs/reference/cli.md': cliPage(),
  };
}

if (import.meta.main) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  for (const [path, text] of Object.entries(generatedPages())) {
    writeFileSync(`${root}${path}`, text);
    console.log(`wrote ${path}`);
  }
}
