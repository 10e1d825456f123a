/**
 * One index on PostgreSQL shared by two `serve` processes (`--index-store postgres://…`): what
 * `citewise index` adds while both run is found by both within seconds, and a removal leaves both.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { dropSchemas, reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');

describe.runIf(available)('a document index on PostgreSQL shared by two serve processes', () => {
  const schema = `cw_shared_${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'citewise-shared-index-'));
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
    await dropSchemas(url!, [schema]);
  });

  const indexStore = (): string => {
    const target = new URL(url!);
    target.searchParams.set('schema', schema);
    return target.href;
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
    'both answer from it; a document indexed while they run is found by both within seconds',
    { timeout: 180_000 },
    async () => {
      const docs = join(dir, 'docs');
      mkdirSync(docs);
      writeFileSync(
        join(docs, 'kiln.md'),
        '# Kiln\n\nThe kiln is fired to 1240 degrees for stoneware glazes.\n',
      );
      // The environment variable works as the flag does.
      const built = await runCli(['index', docs, '--data-dir', join(dir, 'builder'), '--no-progress'], {
        CITEWISE_INDEX_STORE: indexStore(),
      });
      expect(built.code, built.stderr).toBe(0);
      expect(built.stdout).toMatch(/Indexed 1 document .* into postgres:\/\/postgres:\*\*\*@/);

      for (const name of ['one', 'two'])
        servers.push(await startServe(['--data-dir', join(dir, name), '--index-store', indexStore()]));
      for (const server of servers)
        expect((await ask(server, 'How hot is the kiln fired?')).answer).toMatch(/1240/);

      writeFileSync(
        join(docs, 'wheel.md'),
        '# Wheel\n\nThe pottery wheel is cleaned with a sponge every Friday.\n',
      );
      const added = await runCli([
        'index',
        docs,
        '--data-dir',
        join(dir, 'builder'),
        '--index-store',
        indexStore(),
      ]);
      expect(added.stdout).toMatch(/1 new, 0 updated, 1 unchanged/);
      const started = Date.now();
      for (const server of servers) {
        const answer = await ask(server, 'When is the pottery wheel cleaned?');
        expect(answer.answer).toMatch(/Friday/);
      }
      expect(Date.now() - started).toBeLessThan(30_000);

      const removed = await runCli([
        'index',
        '--remove',
        join(docs, 'wheel.md'),
        '--data-dir',
        join(dir, 'builder'),
        '--index-store',
        indexStore(),
      ]);
      expect(removed.stdout).toMatch(/Removed 1 document/);
      for (const server of servers)
        expect((await ask(server, 'When is the pottery wheel cleaned?')).answer).not.toMatch(/Friday/);
    },
  );
});
