/**
 * Maintenance mode stored in PostgreSQL holds from the first request after a (re)start (issue #36, item 7):
 * `citewise serve` reads the stored state before its engine opens, instead of applying it a query later.
 * Requests hammer the port from before the process listens until it answers with maintenance; none may be
 * served (a 200) in between.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchemas, reachablePostgres, serverOrSkip, withSchema } from './servers.ts';

const CLI = fileURLToPath(new URL('../../bin/citewise.js', import.meta.url));
const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');
const schema = `cw_maint_${randomBytes(4).toString('hex')}`;
const store = url ? withSchema(url, schema) : '';
const dataDir = mkdtempSync(join(tmpdir(), 'citewise-maintenance-'));

/** Runs a CLI command to completion; its stdout. */
function cli(args: readonly string[]): string {
  const run = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`citewise ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (!url) return;
  await dropSchemas(url, [schema]);
});

describe.runIf(available)('maintenance stored in PostgreSQL, at start', () => {
  it('answers 503 from the first request the engine serves: no search slips through', async () => {
    const key = /^cw_\S+$/m.exec(cli(['keys', 'create', '--store', store]))?.[0];
    expect(key).toBeDefined();
    cli(['console', 'maintenance', 'on', '--store', store]);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', String(port), '--data-dir', dataDir, '--store', store, '--log-level', 'error'],
      { stdio: 'ignore' },
    );
    const statuses: string[] = [];
    try {
      // Eight clients in a tight loop until the service says "maintenance" 30 times.
      let maintenance = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (maintenance < 30 && child.exitCode === null) {
            try {
              const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body: JSON.stringify({ prompt: 'How do I create an API key?' }),
              });
              const text = await response.text();
              const kind =
                response.status === 503 && text.includes('maintenance')
                  ? 'maintenance'
                  : response.status === 503 && text.includes('starting')
                    ? 'starting'
                    : String(response.status);
              if (kind === 'maintenance') maintenance++;
              statuses.push(kind);
            } catch {
              await new Promise((resolve) => setTimeout(resolve, 5)); // not listening yet
            }
          }
        }),
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(statuses.filter((status) => status !== 'starting' && status !== 'maintenance')).toEqual([]);
    expect(statuses).toContain('maintenance');
  }, 120_000);
});
