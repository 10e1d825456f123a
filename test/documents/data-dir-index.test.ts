/**
 * The data directory's index as users meet it, through the CLI and `serve`: a legacy `index.json` migrated
 * on first start (nothing lost, said in the log), incremental re-indexing, and `--corpus` and
 * `citewise index` reading the same files the same way.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { tinyPdf } from '../support/pdf.ts';

const LEGACY = fileURLToPath(new URL('../fixtures/legacy-index/index.json', import.meta.url));
const SEVERAL_PROCESSES = { timeout: 180_000 };

describe('the data directory index (CLI and serve)', () => {
  let dir: string;
  const servers: ServeProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-data-index-'));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const legacyDataDir = (name: string): string => {
    const dataDir = join(dir, name);
    mkdirSync(dataDir);
    copyFileSync(LEGACY, join(dataDir, 'index.json'));
    return dataDir;
  };
  const ask = async (server: ServeProcess, prompt: string) => {
    const response = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.firstKey() ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { answer: string; sources: string[] };
  };

  it(
    'migrates a legacy index.json on the first `citewise index` (logged; documents, records, sources kept)',
    SEVERAL_PROCESSES,
    async () => {
      const dataDir = legacyDataDir('cli');
      const listed = await runCli(['index', '--list', '--json', '--data-dir', dataDir]);
      expect(listed.code).toBe(0);
      expect(listed.stderr).toMatch(
        /Migrated 3 documents and 2 sources from .*index\.json into .*index\.sqlite; the old file is kept as .*index\.json\.migrated/,
      );
      expect(JSON.parse(listed.stdout)).toMatchObject({
        file: join(dataDir, 'index.sqlite'),
        documents: 3,
        sources: [
          { source: '/srv/handbook', kind: 'folder', label: 'handbook', documents: 2 },
          { source: 'https://intranet.example/', kind: 'site', documents: 1 },
        ],
      });
      expect(existsSync(join(dataDir, 'index.json'))).toBe(false);
      expect(readFileSync(join(dataDir, 'index.json.migrated'))).toEqual(readFileSync(LEGACY));
      // Once: the next run says nothing of it.
      const again = await runCli(['index', '--list', '--data-dir', dataDir]);
      expect(again.stderr).not.toMatch(/Migrated/);
      expect(again.stdout).toMatch(/3 documents in .*index\.sqlite/);
      // --remove still works on migrated documents.
      const removed = await runCli(['index', '--remove', 'https://intranet.example/', '--data-dir', dataDir]);
      expect(removed.stdout).toMatch(/Removed 1 document from/);
    },
  );

  it('serve migrates it on start and answers from the migrated documents', SEVERAL_PROCESSES, async () => {
    const dataDir = legacyDataDir('serve');
    const server = await startServe(['--data-dir', dataDir]);
    servers.push(server);
    expect(server.output()).toMatch(/Migrated 3 documents and 2 sources/);
    const answer = await ask(server, 'How long before a laptop locks when idle?');
    expect(answer.answer).toMatch(/five minutes/);
    expect(answer.sources).toContain('https://intranet.example/security');
  });

  it('re-reads only changed files, removes deleted ones, keeps --list true', SEVERAL_PROCESSES, async () => {
    const docs = join(dir, 'notes');
    const dataDir = join(dir, 'incremental');
    mkdirSync(docs);
    writeFileSync(join(docs, 'a.md'), '# A\n\nAardvarks dig burrows at night.\n');
    writeFileSync(join(docs, 'b.md'), '# B\n\nBadgers are related to otters.\n');
    writeFileSync(join(docs, 'c.txt'), 'Capybaras are the largest rodents.\n');
    const first = await runCli(['index', docs, '--data-dir', dataDir, '--no-progress']);
    expect(first.stdout).toMatch(/Indexed 3 documents \(3 new, 0 updated, 0 unchanged\)/);
    writeFileSync(join(docs, 'b.md'), '# B\n\nBadgers are related to weasels and otters.\n');
    rmSync(join(docs, 'c.txt'));
    const second = await runCli(['index', docs, '--data-dir', dataDir, '--no-progress']);
    expect(second.stdout).toMatch(
      /Indexed 2 documents \(0 new, 1 updated, 1 unchanged, 1 removed\).*it holds 2\./,
    );
    const listed = JSON.parse(
      (await runCli(['index', '--list', '--json', '--data-dir', dataDir])).stdout,
    ) as {
      documents: number;
    };
    expect(listed.documents).toBe(2);
  });

  it(
    '--corpus and citewise index read the same files the same way: the same answers',
    SEVERAL_PROCESSES,
    async () => {
      const docs = join(dir, 'handbook');
      mkdirSync(docs);
      writeFileSync(
        join(docs, 'parking.md'),
        '# Parking\n\nStaff park on level two of the garage; visitors use the spaces by the entrance.\n',
      );
      writeFileSync(
        join(docs, 'badges.html'),
        '<html><head><title>Badges</title></head><body><article><h1>Badges</h1><p>A lost badge is reported to reception, which blocks it within the hour and prints a new one.</p></article></body></html>',
      );
      writeFileSync(join(docs, 'lunch.txt'), 'The canteen serves lunch from noon until two o’clock.\n');
      writeFileSync(
        join(docs, 'wifi.pdf'),
        tinyPdf(['The guest wifi password changes every Monday.'], 'Wifi'),
      );
      const indexDir = join(dir, 'indexed');
      const built = await runCli(['index', docs, '--data-dir', indexDir, '--no-progress']);
      expect(built.stdout).toMatch(/Indexed 4 documents/);
      const viaIndex = await startServe(['--data-dir', indexDir]);
      servers.push(viaIndex);
      const viaCorpus = await startServe(['--data-dir', join(dir, 'corpus-only'), '--corpus', docs]);
      servers.push(viaCorpus);
      for (const prompt of [
        'Where do staff park?',
        'What happens when a badge is lost?',
        'When is lunch served?',
        'When does the guest wifi password change?',
      ]) {
        const [a, b] = [await ask(viaIndex, prompt), await ask(viaCorpus, prompt)];
        expect(a.answer).not.toBe('');
        expect(a.answer).toBe(b.answer);
        // The same files cited (their URLs differ: /docs/.indexed/… against /docs/…).
        const names = (sources: string[]) => sources.map((url) => url.slice(url.lastIndexOf('/') + 1));
        expect(names(a.sources)).toEqual(names(b.sources));
        expect(a.sources.length).toBeGreaterThan(0);
      }
    },
  );
});
