/**
 * Budgets per key from the `citewise` command, as a user meets them: `keys create --budget`, a search
 * past it answered 433 by `serve`, `keys budget` to change or remove it, `keys list` showing it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

const SEVERAL_PROCESSES = { timeout: 300_000 };

describe('citewise keys --budget', () => {
  let dataDir: string;
  let server: ServeProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-budget-cli-'));
    server = await startServe(['--data-dir', dataDir, '--corpus', MANUAL_CORPUS]);
  }, 120_000);
  afterAll(async () => {
    if (server.child.exitCode === null) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const search = (key: string) =>
    fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How do I create an API key?' }),
    });

  it(
    'creates a key with a budget, refuses a search past it with 433, changes and removes it',
    SEVERAL_PROCESSES,
    async () => {
      const created = await runCli([
        'keys',
        'create',
        '--data-dir',
        dataDir,
        '--credits',
        '50',
        '--name',
        'agent',
        '--budget',
        '1/day',
      ]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/\(50 credits, budget 1 credit a day\)/);
      const key = created.stdout.trim().split('\n').at(-1)!.trim();
      const id = /Created key (key_[0-9a-f]+)/.exec(created.stdout)![1]!;

      expect((await search(key)).status).toBe(200);
      const refused = await search(key);
      expect(refused.status).toBe(433);
      expect(((await refused.json()) as { error: { description: string } }).error.description).toMatch(
        new RegExp(
          `^Account is at / over message quota: API key ${id} has a budget of 1 credit a day, 0 left`,
        ),
      );

      const listed = await runCli(['keys', 'list', '--data-dir', dataDir]);
      expect(listed.stdout).toMatch(/BUDGET/);
      expect(listed.stdout).toMatch(new RegExp(`${id} .* 1/day`));

      const changed = await runCli(['keys', 'budget', id, '5/month', '--data-dir', dataDir]);
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stdout).toBe(`Budget of ${id}: 5 credits a month.\n`);
      expect((await search(key)).status).toBe(200);
      const balance = await fetch(`${server.baseUrl}/v1/balance`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(await balance.json()).toMatchObject({ available_credits: 4, account_credits: 48 });

      const removed = await runCli(['keys', 'budget', id, 'none', '--data-dir', dataDir]);
      expect(removed.stdout).toMatch(/removed/);
      const bad = await runCli(['keys', 'budget', id, '5/week', '--data-dir', dataDir]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/budget must be <credits>\[\/day\|\/month\]/);
      const unknown = await runCli(['keys', 'budget', 'key_000000000000', '5', '--data-dir', dataDir]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no key with id key_000000000000/);
    },
  );
});
