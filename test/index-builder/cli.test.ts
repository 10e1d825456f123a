/**
 * `citewise index` as a user runs it: real processes, a real data directory, a served index.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { startSite, type Site } from './site.ts';

/** Each test starts several CLI processes (index, serve): generous on a loaded machine (it hit 30 s). */
const SEVERAL_PROCESSES = { timeout: 180_000 };
describe('citewise index (CLI)', () => {
  let dir: string;
  let docs: string;
  let dataDir: string;
  let site: Site;
  let server: ServeProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-index-cli-'));
    docs = join(dir, 'handbook');
    dataDir = join(dir, 'data');
    mkdirSync(docs);
    writeFileSync(
      join(docs, 'volcanoes.md'),
      '# Volcano safety\n\nDuring an eruption, move uphill and away from river valleys, because lahars follow valleys.\n',
    );
    writeFileSync(join(docs, 'tides.txt'), 'Spring tides happen at new moon and full moon.\n');
    site = await startSite();
  });
  afterAll(async () => {
    await server?.stop();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async (prompt: string) => {
    const response = await fetch(`${server!.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server!.firstKey() ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { answer: string; sources: string[] };
  };

  it(
    'indexes a folder; serve answers from it; a crawl while serving is picked up without a restart',
    SEVERAL_PROCESSES,
    async () => {
      const indexed = await runCli(['index', docs, '--data-dir', dataDir, '--name', 'handbook']);
      expect(indexed.code).toBe(0);
      // stderr is not a terminal here: progress comes as plain lines.
      expect(indexed.stderr).toMatch(/^index: .*handbook: \d+ done/m);
      expect(indexed.stderr).not.toContain('\r');
      expect(indexed.stdout).toMatch(/Indexed 2 documents \(2 new, 0 updated, 0 unchanged\)/);

      const listed = await runCli(['index', '--list', '--json', '--data-dir', dataDir]);
      expect(JSON.parse(listed.stdout)).toMatchObject({
        documents: 2,
        sources: [{ source: docs, kind: 'folder', label: 'handbook', documents: 2 }],
      });

      server = await startServe(['--data-dir', dataDir]);
      const answer = await ask('Which way should I move during a volcanic eruption?');
      expect(answer.answer).toMatch(/uphill/);
      // Never a server path: the service's own URL of the indexed file, which opens.
      const source = answer.sources.find((url) => url.endsWith('/volcanoes.md'))!;
      expect(source).toMatch(
        new RegExp(`^${server.baseUrl}/docs/\\.indexed/doc_[0-9a-f]{20}/volcanoes\\.md$`),
      );
      expect(await (await fetch(source)).text()).toMatch(/uphill/);

      // Crawl the loopback site (allowed explicitly) while the server runs.
      const crawled = await runCli([
        'index',
        `http://127.0.0.1:${site.server.port}/`,
        '--data-dir',
        dataDir,
        '--allow-private-hosts',
        '127.0.0.1',
        '--max-depth',
        '1',
      ]);
      expect(crawled.code).toBe(0);
      expect(crawled.stdout).toMatch(/Skipped \d+: robots\.txt 1/);
      expect(site.paths).not.toContain('/private/secret');
      const capybaras = await ask('What are the largest rodents?');
      expect(capybaras.answer).toMatch(/Capybaras/);
      expect(capybaras.sources).toContain(`http://127.0.0.1:${site.server.port}/b`);

      // --remove takes documents out; the server stops citing them.
      const removed = await runCli([
        'index',
        '--remove',
        `http://127.0.0.1:${site.server.port}/`,
        '--data-dir',
        dataDir,
      ]);
      expect(removed.stdout).toMatch(/Removed [1-9]\d* documents/);
      const after = await ask('What are the largest rodents?');
      expect(after.sources.some((url) => url.startsWith(`http://127.0.0.1:${site.server.port}/`))).toBe(
        false,
      );
    },
  );

  it(
    'without the allow-list a loopback URL is blocked; no source is an error; --help works',
    SEVERAL_PROCESSES,
    async () => {
      const blocked = await runCli([
        'index',
        `http://127.0.0.1:${site.server.port}/`,
        '--data-dir',
        join(dir, 'other'),
      ]);
      expect(blocked.code).toBe(1);
      expect(blocked.stdout).toMatch(/blocked address 1/);

      const none = await runCli(['index', '--data-dir', join(dir, 'other')]);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/give a folder, file, URL or sitemap/);

      const help = await runCli(['index', '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/--max-pages <n>/);
      expect(help.stdout).toMatch(/--allow-private-hosts <hosts>/);
    },
  );
});
