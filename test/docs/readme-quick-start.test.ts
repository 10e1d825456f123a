/**
 * The README's quick starts, run as a newcomer would and as written: the shell blocks of "Quick start: the
 * service" (the first start, the curl search and balance, more keys for a new or an existing account) in an
 * empty folder, and the TypeScript block of "Quick start: the library". Only the port (0 instead of 8787)
 * and `npx citewise` (this checkout's bin) are changed. The test fails when the README's commands or the
 * answers it shows stop matching.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runScript, startServe, type ServeProcess } from '../support/cli.ts';
import { REPO_ROOT } from '../support/manual.ts';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const section = (title: string) => README.split(/^## /m).find((part) => part.startsWith(title)) ?? '';
const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);

const folder = mkdtempSync(path.join(tmpdir(), 'citewise-readme-'));
let serve: ServeProcess | undefined;
afterAll(async () => {
  await serve?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs README shell lines in the empty folder, with `npx citewise` as this checkout's command. */
const sh = (script: string) =>
  execFileSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: folder,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    },
    timeout: 60_000,
  }).trim();
const asWritten = (script: string, port: string) =>
  script.replaceAll('localhost:8787', `localhost:${port}`).replaceAll('npx citewise', `node '${CLI}'`);

describe("the README's quick start", () => {
  const service = section('Quick start: the service');

  it(
    'service: the first start, the search and balance it shows, more keys',
    { timeout: 120_000 },
    async () => {
      // `npm start` / `npx citewise serve` in an empty folder: the data directory is ./.citewise.
      expect(blocks(service, 'sh')[0]).toMatch(/npm start/);
      expect(process.env['CITEWISE_DATA_DIR']).toBeUndefined();
      serve = await startServe([], {}, folder);
      expect(serve.dataDir).toBe(path.join(folder, '.citewise'));
      const port = new URL(serve.baseUrl).port;
      const [, search, moreKeys] = blocks(service, 'sh');
      expect(search).toMatch(/KEY=\$\(cat \.citewise\/first-key\.txt\)/);
      const answered = JSON.parse(sh(asWritten(search!, port))) as Record<string, unknown>;
      const shown = JSON.parse(blocks(service, 'json')[0]!) as { answer: string; sources: string[] };
      expect(answered.response_type).toBe('markdown');
      // The answer begins as the README shows it ("…" marks where the README stops quoting).
      expect((answered.answer as string).slice(0, shown.answer.length - 2)).toBe(
        shown.answer.replace(/ …$/, ''),
      );
      expect(answered.sources).toEqual(
        shown.sources.map((url) => url.replace('127.0.0.1:8787', `127.0.0.1:${port}`)),
      );

      const balance = /`(curl [^`]*\/v1\/balance)` gives `([^`]*)`/.exec(service);
      expect(balance).not.toBeNull();
      expect(sh(`KEY=$(cat .citewise/first-key.txt); ${asWritten(balance![1]!, port)}`)).toBe(balance![2]);

      // "More keys": a new account each time; --account gives an existing one another key.
      expect(service).toMatch(
        /`npx citewise keys create` makes a \*\*new account\*\* with its own 1,000 credits/,
      );
      const created = sh(asWritten('npx citewise keys create', port));
      const account = /for new account (acct_\w+) \(1000 credits\)/.exec(created)?.[1];
      expect(account, created).toBeDefined();
      const lines = moreKeys!.split('\n').filter((line) => line.startsWith('npx citewise'));
      expect(lines).toHaveLength(3);
      const outputs = lines.map((line) =>
        sh(asWritten(line.replace(/acct_3f9c…/g, account!).replace(/\s+#.*$/, ''), port)),
      );
      expect(outputs[0]).toContain(account);
      expect(outputs[1]).toMatch(
        new RegExp(`^Created key key_\\w+ for account ${account} \\(1000 credits\\)`),
      );
      expect(outputs[2]).toBe(`Granted 500 credits to ${account}; available: 1500.`);
    },
  );

  it(
    'library: the TypeScript block runs and prints what its comments say',
    { timeout: 120_000 },
    async () => {
      const [code] = blocks(section('Quick start: the library'), 'ts');
      const script = path.join(folder, 'quick-start.ts');
      const index = pathToFileURL(path.join(REPO_ROOT, 'src', 'index.ts')).href;
      writeFileSync(script, code!.replace("from 'citewise'", `from '${index}'`));
      const run = await runScript(script, []);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/set `BRAVE_API_KEY`.*\[1\]/);
      expect(run.stdout).toContain('/docs/guides/search-providers.md');
      expect(run.stdout).toContain('{ available_credits: 99 }');
    },
  );
});
