/**
 * "Your documents only": once the user gave documents (`citewise index`, or `--corpus`), `serve` answers from
 * them alone, says "No answer in your documents." (free) when they hold none, and adds its own manual back
 * only with `--include-manual`. Real `citewise` processes on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { apiClient } from '../support/servers.ts';

const HANDBOOK = fileURLToPath(new URL('../fixtures/handbook/', import.meta.url));
const SEVERAL_PROCESSES = { timeout: 180_000 };
const NO_ANSWER = 'No answer in your documents.';

interface SearchBody {
  answer: string;
  sources: string[];
}

describe('serve answers from your documents alone once you gave some', () => {
  let dir: string;
  const servers: ServeProcess[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-your-docs-'));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (args: string[]) => {
    const server = await startServe(args);
    servers.push(server);
    const created = await runCli(['keys', 'create', '--data-dir', server.dataDir]);
    expect(created.code).toBe(0);
    const client = apiClient(server.baseUrl, created.stdout.trim().split('\n').at(-1)!.trim());
    const ask = async (prompt: string): Promise<SearchBody> => {
      const response = await client.post({ prompt });
      expect(response.status).toBe(200);
      return (await response.json()) as SearchBody;
    };
    return { server, client, ask };
  };

  it(
    'the manual until `citewise index` gives documents, then those alone; "no answer" is free',
    SEVERAL_PROCESSES,
    async () => {
      const dataDir = join(dir, 'indexed');
      const { server, client, ask } = await start(['--data-dir', dataDir]);
      const before = await ask('How do I use Brave search?');
      expect(before.sources.some((url) => url.endsWith('/docs/guides/search-providers.md'))).toBe(true);

      // Indexed while serving: picked up by the next search, and the manual is left out.
      const indexed = await runCli(['index', HANDBOOK, '--data-dir', dataDir]);
      expect(indexed.code).toBe(0);
      expect(indexed.stdout).toMatch(/answers from your documents alone/);
      const wifi = await ask('What is the Wi-Fi password?');
      expect(wifi.answer).toContain('`tide-pool-42`');
      expect(wifi.sources).toEqual([
        expect.stringMatching(/\/docs\/\.indexed\/doc_[0-9a-f]{20}\/office\.md$/),
      ]);

      const credits = await client.balance();
      for (const prompt of ['How much is the parental leave?', 'How do I use Brave search?']) {
        expect(await ask(prompt), prompt).toMatchObject({ answer: NO_ANSWER, sources: [] });
      }
      expect(await client.balance()).toBe(credits);
      expect(server.output()).not.toMatch(/"level":50/);
    },
  );

  it(
    '--corpus answers from its folders alone; --include-manual adds the manual back',
    SEVERAL_PROCESSES,
    async () => {
      const own = await start(['--data-dir', join(dir, 'corpus'), '--corpus', HANDBOOK]);
      expect(await own.ask('How do I use Brave search?')).toMatchObject({ answer: NO_ANSWER, sources: [] });
      expect((await own.ask('Where do bikes go?')).sources).toEqual([`${own.server.baseUrl}/docs/office.md`]);

      const both = await start(['--data-dir', join(dir, 'both'), '--corpus', HANDBOOK, '--include-manual']);
      const brave = await both.ask('How do I use Brave search?');
      // The manual comes after the given folders: served at /docs/2/.
      expect(brave.sources).toContain(`${both.server.baseUrl}/docs/2/guides/search-providers.md`);
      expect((await fetch(brave.sources[0]!)).status).toBe(200);
      expect((await both.ask('Where do bikes go?')).sources).toEqual([
        `${both.server.baseUrl}/docs/office.md`,
      ]);
    },
  );
});
