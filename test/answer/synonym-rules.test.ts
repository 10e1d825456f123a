/**
 * The operator's synonym rules (issue 45): company words no dictionary links ("badge" ↔ "access card"),
 * given to the engine (`synonyms`) or to `citewise serve --synonyms <file>`, asked over HTTP of the handbook.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { parseSynonymRules, SynonymSet } from '../../src/text/synonym-rules.ts';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { apiClient, type ApiClient } from '../support/servers.ts';

const HANDBOOK = fileURLToPath(new URL('../fixtures/handbook/', import.meta.url));
const RULES_FILE = fileURLToPath(new URL('../fixtures/handbook-synonyms.txt', import.meta.url));
const RULES = readFileSync(RULES_FILE, 'utf8');

const running: { engine: SearchEngine; server: ListeningServer }[] = [];

async function serve(synonyms?: string): Promise<ApiClient> {
  const engine = createSearchEngine({ corpus: [HANDBOOK], ...(synonyms ? { synonyms } : {}) });
  const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
  const { key } = await engine.createKey({ credits: 1_000 });
  running.push({ engine, server });
  return apiClient(server.baseUrl, key);
}

async function ask(client: ApiClient, prompt: string): Promise<{ answer: string; sources: string[] }> {
  const response = await client.post({ prompt });
  expect(response.status).toBe(200);
  return (await response.json()) as { answer: string; sources: string[] };
}

let withRules: ApiClient;
let withoutRules: ApiClient;

beforeAll(async () => {
  withRules = await serve(RULES);
  withoutRules = await serve();
});

afterAll(async () => {
  for (const { engine, server } of running) await Promise.all([server.close(), engine.close()]);
});

describe('synonym rules at query time', () => {
  it('the badge question is answered from the "access card" page, which never says "badge"', async () => {
    const { answer, sources } = await ask(withRules, 'What should I do if I lose my badge?');
    expect(answer).toMatch(/^Report a lost or stolen access card to the Security desk/);
    expect(sources[0]).toMatch(/\/access-cards\.md$/);
  });

  it('without the rules the same question misses the page (the rules make the difference)', async () => {
    const { answer, sources } = await ask(withoutRules, 'What should I do if I lose my badge?');
    expect(answer).not.toContain('Security desk');
    expect(sources.some((url) => url.endsWith('/access-cards.md'))).toBe(false);
  });

  it('a value stated only under the synonym: the price of a new badge', async () => {
    const { answer, sources } = await ask(withRules, 'How much does a new badge cost?');
    expect(answer).toContain('A replacement costs EUR 20');
    expect(sources[0]).toMatch(/\/access-cards\.md$/);
  });

  it('an exact word still outranks its synonym', async () => {
    // The office page says "badge" itself: the access card page, found through the synonym, ranks below it.
    const { answer } = await ask(withRules, 'When does the front door open with a badge?');
    expect(answer).toMatch(/^The front door opens with your badge from 7:00 to 20:00/);
  });

  it('a one-way rule: "PTO" finds the holiday page, which never says "PTO"', async () => {
    const { answer, sources } = await ask(withRules, 'How much PTO do I get?');
    expect(answer).toContain('27 days of paid holiday');
    expect(sources[0]).toMatch(/\/holidays\.md$/);
    expect((await ask(withoutRules, 'How much PTO do I get?')).answer).not.toContain('27 days');
  });
});

describe('the rules format (Solr synonyms)', () => {
  it('reads equivalences and one-way rules, skips comments, and never applies a one-way rule backwards', () => {
    const set = new SynonymSet(
      parseSynonymRules(['# company words', 'badge, access card', 'PTO => holiday']),
    );
    expect(set.forQuery('I lost my badges').rewrites).toEqual(['I lost my access card']);
    expect(set.forQuery('my access card').rewrites).toEqual(['my badge']);
    expect(set.forQuery('how many PTO days').rewrites).toEqual(['how many holiday days']);
    expect(set.forQuery('how many holiday days').rewrites).toEqual([]);
  });

  it('a bad rule is refused with its line, by the engine and by `citewise serve --synonyms`', async () => {
    expect(() => createSearchEngine({ corpus: [HANDBOOK], synonyms: 'badge, access card\nbadge' })).toThrow(
      /synonyms line 2: "badge" names one phrase/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'citewise-synonyms-'));
    try {
      const file = join(dir, 'synonyms.txt');
      writeFileSync(file, 'badge => access card => key card\n');
      const result = await runCli(['serve', '--port', '0', '--data-dir', dir, '--synonyms', file]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('synonyms line 1: more than one "=>"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`citewise serve --synonyms <file>` answers the badge question from the access card page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'citewise-synonyms-'));
    let server: ServeProcess | undefined;
    try {
      server = await startServe(['--data-dir', dir, '--corpus', HANDBOOK, '--synonyms', RULES_FILE]);
      const created = await runCli(['keys', 'create', '--data-dir', dir]);
      expect(created.code).toBe(0);
      const client = apiClient(server.baseUrl, created.stdout.trim().split('\n').at(-1)!.trim());
      const { answer } = await ask(client, 'What should I do if I lose my badge?');
      expect(answer).toMatch(/^Report a lost or stolen access card/);
    } finally {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
