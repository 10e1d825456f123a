/**
 * `citewise index`: crawl sites and folders into the persisted local index of the data directory,
 * list what it holds, or remove documents. `citewise serve` searches the index together with its
 * corpus folders and picks up a rebuilt index on the next search.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import {
  acquireIndexLock,
  buildIndex,
  createProgressRenderer,
  INDEX_BUILDER_DEFAULTS,
  indexFilePath,
  openDataDirIndex,
  type IndexStore,
  SKIP_REASONS,
  type IndexSummary,
  type SourceSummary,
} from '../index-builder/index.ts';
import { addSettingOptions, resolveDataDir } from './config.ts';
import { parseNonNegativeInteger, SERVE_SETTINGS } from './settings.ts';

/** Flags of `citewise index` as commander parses them. */
interface IndexFlags {
  readonly dataDir?: string;
  readonly indexStore?: string;
  readonly maxPages: number;
  readonly maxDepth: number;
  readonly concurrency: number;
  readonly sameOrigin: boolean;
  readonly include: string[];
  readonly exclude: string[];
  readonly allowPrivateHosts?: string[];
  readonly name?: string;
  readonly rebuild?: boolean;
  readonly list?: boolean;
  readonly remove?: string;
  readonly json?: boolean;
  readonly progress: boolean;
}

/** Where the command writes; injectable for tests. */
export interface IndexCommandIO {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: { write(text: string): unknown };
  readonly stderr?: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
}

function integer(name: string, min: number) {
  return (value: string): number => {
    let parsed: number;
    try {
      parsed = parseNonNegativeInteger(value);
    } catch (error) {
      throw new InvalidArgumentError(`${name} ${(error as Error).message}`);
    }
    if (parsed < min) throw new InvalidArgumentError(`${name} must be at least ${min}`);
    return parsed;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function hostList(value: string, previous: string[] | undefined): string[] {
  const hosts = value
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
  if (hosts.length === 0) throw new InvalidArgumentError('give host names separated by commas');
  return [...(previous ?? []), ...hosts];
}

const REASON_LABELS: Readonly<Record<string, string>> = {
  robots: 'robots.txt',
  blocked: 'blocked address',
  too_large: 'too large',
  unsupported_type: 'unsupported type',
  http_error: 'HTTP error',
  no_text: 'no text',
  noindex: 'noindex',
  duplicate: 'duplicate',
  error: 'errors',
};

/** The summary printed after a build. */
export function formatSummary(summary: IndexSummary, file: string, total: number): string {
  const indexed = summary.added + summary.updated + summary.unchanged;
  const lines = [
    `${summary.interrupted ? 'Interrupted; kept' : 'Indexed'} ${indexed} document${indexed === 1 ? '' : 's'} ` +
      `(${summary.added} new, ${summary.updated} updated, ${summary.unchanged} unchanged` +
      `${summary.removed ? `, ${summary.removed} removed` : ''}) into ${file}; it holds ${total}.`,
  ];
  const skipped = SKIP_REASONS.filter((reason) => summary.skipped[reason] > 0);
  if (skipped.length > 0) {
    const totalSkipped = skipped.reduce((sum, reason) => sum + summary.skipped[reason], 0);
    lines.push(
      `Skipped ${totalSkipped}: ${skipped.map((reason) => `${REASON_LABELS[reason]} ${summary.skipped[reason]}`).join(', ')}.`,
    );
    for (const failure of summary.failures.slice(0, 10))
      lines.push(`  ${REASON_LABELS[failure.reason]}: ${failure.url} (${failure.message})`);
    if (totalSkipped > 10) lines.push(`  … and ${totalSkipped - 10} more`);
  }
  if (summary.notVisited > 0)
    lines.push(`Not visited: ${summary.notVisited} more links (raise --max-pages to follow them).`);
  if (total > 0)
    lines.push(
      '`citewise serve` with this --data-dir now answers from your documents alone (this index and any ' +
        '--corpus folders); --include-manual adds its built-in manual back.',
    );
  return `${lines.join('\n')}\n`;
}

function formatSources(sources: readonly SourceSummary[], total: number, file: string): string {
  if (sources.length === 0) return `The index ${file} is empty.\n`;
  const rows = sources.map((s) => [
    s.source || '(unknown)',
    s.kind,
    String(s.documents),
    s.indexedAt ? `${s.indexedAt.slice(0, 19)}Z` : '',
    s.label ?? '',
  ]);
  const header = ['SOURCE', 'KIND', 'DOCS', 'INDEXED', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const table = [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return `${table}\n${total} document${total === 1 ? '' : 's'} in ${file}\n`;
}

/** Turns a path into the file-URL prefix its documents have; URLs are kept. */
async function removalPrefix(prefix: string): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(prefix)) return prefix;
  const absolute = resolve(prefix);
  const href = pathToFileURL(absolute).href;
  const isFolder = await stat(absolute).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isFolder && !href.endsWith('/') ? `${href}/` : href;
}

/**
 * Adds the `index` command to the program.
 * @example registerIndexCommand(program)
 */
export function registerIndexCommand(program: Command, io: IndexCommandIO = {}): Command {
  const env = io.env ?? process.env;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const command = program
    .command('index')
    .description(
      'Crawl sites, sitemaps and folders (HTML, Markdown, text, PDF) into the local index that `serve` searches.',
    )
    .argument('[sources...]', 'folders, files, http(s) URLs to crawl, sitemap.xml URLs or files');
  // The data directory holds index.sqlite (or --index-store names PostgreSQL): the settings table's flags.
  addSettingOptions(command, SERVE_SETTINGS, (name) => name === 'dataDir' || name === 'indexStore');
  return command
    .option(
      '--max-pages <n>',
      'pages fetched at most per web source',
      integer('--max-pages', 1),
      INDEX_BUILDER_DEFAULTS.maxPages,
    )
    .option(
      '--max-depth <n>',
      'link depth followed from a start page',
      integer('--max-depth', 0),
      INDEX_BUILDER_DEFAULTS.maxDepth,
    )
    .option(
      '--concurrency <n>',
      'pages fetched at once',
      integer('--concurrency', 1),
      INDEX_BUILDER_DEFAULTS.concurrency,
    )
    .option('--no-same-origin', "also follow links to other sites (default: only the start page's origin)")
    .option(
      '--include <pattern>',
      'only URLs/paths matching: a prefix, or a glob with * and ** (repeatable)',
      collect,
      [],
    )
    .option('--exclude <pattern>', 'skip URLs/paths matching (repeatable)', collect, [])
    .option(
      '--allow-private-hosts <hosts>',
      'hosts allowed to resolve to private addresses, comma-separated; host:port allows only that port, a bare host every port',
      hostList,
    )
    .option('--name <label>', 'a label for these sources, shown by --list')
    .option('--rebuild', 'discard the existing index and start fresh')
    .option('--list', 'list the indexed sources and their document counts')
    .option('--remove <prefix>', 'remove documents whose URL (or path) starts with the prefix')
    .option('--json', 'with --list or a build: print JSON')
    .option('--no-progress', 'no progress output on stderr')
    .action(async (sources: string[], flags: IndexFlags) => {
      const dataDir = resolveDataDir(flags.dataDir, env);
      const indexStore = flags.indexStore ?? env.CITEWISE_INDEX_STORE;
      const open = (fresh: boolean) =>
        openDataDirIndex(dataDir, {
          fresh,
          ...(indexStore === undefined ? {} : { indexStore }),
          log: (message) => stderr.write(`citewise: ${message}\n`),
        });
      if (flags.list) {
        const store = await open(false);
        try {
          const listed = await store.sources();
          const total = await store.size();
          stdout.write(
            flags.json
              ? `${JSON.stringify({ file: store.file, documents: total, sources: listed }, null, 2)}\n`
              : formatSources(listed, total, store.file),
          );
        } finally {
          await store.close();
        }
        return;
      }
      if (sources.length === 0 && flags.remove === undefined && !flags.rebuild)
        throw new Error('give a folder, file, URL or sitemap to index (or --list, --remove <prefix>)');

      const lock = await acquireIndexLock(indexFilePath(dataDir));
      let store: IndexStore | undefined;
      try {
        store = await open(flags.rebuild === true);
        const file = store.file;
        if (flags.remove !== undefined) {
          const removed = await store.removeByPrefix(await removalPrefix(flags.remove));
          stdout.write(
            `Removed ${removed.length} document${removed.length === 1 ? '' : 's'} from ${file}.\n`,
          );
        }
        if (sources.length === 0) return;
        const controller = new AbortController();
        const onInterrupt = (): void => {
          stderr.write('\nStopping: saving what was indexed (press Ctrl-C again to quit at once)…\n');
          controller.abort();
          process.once('SIGINT', () => process.exit(130));
        };
        process.once('SIGINT', onInterrupt);
        const renderer = flags.progress ? createProgressRenderer({ stream: stderr }) : undefined;
        let summary: IndexSummary;
        try {
          summary = await buildIndex({
            store,
            sources,
            maxPages: flags.maxPages,
            maxDepth: flags.maxDepth,
            concurrency: flags.concurrency,
            sameOrigin: flags.sameOrigin,
            include: flags.include,
            exclude: flags.exclude,
            ...(flags.name === undefined ? {} : { label: flags.name }),
            fetcherOptions: { allowPrivateHosts: flags.allowPrivateHosts ?? [] },
            signal: controller.signal,
            ...(renderer ? { onProgress: (progress) => renderer.update(progress) } : {}),
          });
        } finally {
          renderer?.finish();
          process.off('SIGINT', onInterrupt);
        }
        await store.save();
        const total = await store.size();
        stdout.write(
          flags.json
            ? `${JSON.stringify({ file, documents: total, ...summary }, null, 2)}\n`
            : formatSummary(summary, file, total),
        );
        for (const failure of summary.sourceErrors)
          stderr.write(`citewise: ${failure.source}: ${failure.message}\n`);
        if (summary.interrupted) process.exitCode = 130;
        else if (summary.sourceErrors.length > 0) process.exitCode = 1;
      } finally {
        await store?.close();
        await lock.release();
      }
    });
}
