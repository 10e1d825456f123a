/**
 * `citewise index` creates its data folder for its owner alone (0700) and its index file 0600, as `serve`
 * does with its own files (the SQLite index and its WAL files), so that `serve` on the same data folder has nothing to warn about.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli.ts';

const root = mkdtempSync(join(tmpdir(), 'citewise-index-modes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;

describe.skipIf(process.platform === 'win32')('citewise index file modes', { timeout: 120_000 }, () => {
  it('creates the data folder 0700 and the index file 0600; serve then warns of no file', async () => {
    const documents = join(root, 'documents');
    mkdirSync(documents);
    writeFileSync(
      join(documents, 'leave.md'),
      '# Leave\n\nEvery employee has 30 days of paid leave a year.\n',
    );
    const dataDir = join(root, 'data');
    const indexed = await runCli(['index', documents, '--data-dir', dataDir, '--no-progress']);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(mode(dataDir)).toBe('0700');
    for (const file of readdirSync(dataDir).filter((name) => name.startsWith('index.sqlite'))) {
      expect(mode(join(dataDir, file)), file).toBe('0600');
    }
    expect(mode(join(dataDir, 'index.sqlite'))).toBe('0600');

    const serve = await startServe(['--data-dir', dataDir, '--no-console']);
    try {
      expect(serve.output()).not.toContain('is open to other users');
    } finally {
      await serve.stop();
    }
  });
});
