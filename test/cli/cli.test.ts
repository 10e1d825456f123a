/**
 * The `citewise` command as a user runs it: real processes, a real data directory, real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

type Server = ServeProcess;

function run(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, env);
}

function startServer(dataDir: string, extra: readonly string[] = []): Promise<Server> {
  return startServe(['--data-dir', dataDir, ...extra]);
}

function stop(server: Server): Promise<number | null> {
  return server.stop();
}

async function balance(baseUrl: string, key: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)!.trim();
}

describe('citewise CLI', () => {
  let dataDir: string;
  let server: Server;
  let firstKey: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-cli-'));
    server = await startServer(dataDir, ['--corpus', MANUAL_CORPUS]);
    firstKey = server.firstKey() ?? '';
  });

  afterAll(async () => {
    if (server.child.exitCode === null) await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start creates an account with 1,000 credits and prints its key once', async () => {
    expect(firstKey).toMatch(/^cw_[A-Za-z0-9]{40}$/);
    expect(server.output()).toMatch(/1000 credits/);
    const response = await balance(server.baseUrl, firstKey);
    expect(await response.json()).toEqual({ available_credits: 1000 });
  });

  it('answers "How do I create an API key?" from its --corpus with sources', async () => {
    const response = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${firstKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How do I create an API key?' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { answer: string; sources: string[]; response_type: string };
    expect(body.response_type).toBe('markdown');
    expect(body.answer).toMatch(/keys create/);
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.sources.some((url) => url.endsWith('api-keys.md'))).toBe(true);
  });

  it('keys create (while the server runs) prints the key as the last line, and it works at once', async () => {
    const created = await run(['keys', 'create', '--data-dir', dataDir, '--credits', '25', '--name', 'ci']);
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    expect(key).toMatch(/^cw_[A-Za-z0-9]{40}$/);
    expect(await (await balance(server.baseUrl, key)).json()).toEqual({ available_credits: 25 });

    const listed = await run(['keys', 'list', '--data-dir', dataDir, '--json']);
    const records = JSON.parse(listed.stdout) as Array<{
      id: string;
      name: string | null;
      accountId: string;
    }>;
    expect(records).toHaveLength(2);
    expect(listed.stdout).not.toContain(key);
    const record = records.find((r) => r.name === 'ci')!;

    const granted = await run(['credits', 'grant', record.accountId, '75', '--data-dir', dataDir]);
    expect(granted.code).toBe(0);
    expect(await (await balance(server.baseUrl, key)).json()).toEqual({ available_credits: 100 });

    const revoked = await run(['keys', 'revoke', record.id, '--data-dir', dataDir]);
    expect(revoked.code).toBe(0);
    expect((await balance(server.baseUrl, key)).status).toBe(401);
  });

  it('keys create --account adds a key to an existing account; --expires-in makes it expire', async () => {
    const listed = JSON.parse(
      (await run(['keys', 'list', '--data-dir', dataDir, '--json'])).stdout,
    ) as Array<{
      accountId: string;
    }>;
    const account = listed[0]!.accountId;
    const created = await run([
      'keys',
      'create',
      '--data-dir',
      dataDir,
      '--account',
      account,
      '--expires-in',
      '30d',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/expires 20\d\d-/);
    const response = await balance(server.baseUrl, lastLine(created.stdout));
    expect(response.status).toBe(200);
  });

  it('every command has --help; bad input exits 1 with a readable message', async () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['keys', 'create', '--help'],
      ['keys', 'list', '--help'],
      ['keys', 'revoke', '--help'],
      ['credits', 'grant', '--help'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: citewise/);
    }
    const badDuration = await run(['keys', 'create', '--data-dir', dataDir, '--expires-in', 'soon']);
    expect(badDuration.code).not.toBe(0);
    expect(badDuration.stderr).toMatch(/invalid duration/);
    const badRevoke = await run(['keys', 'revoke', 'key_nope', '--data-dir', dataDir]);
    expect(badRevoke.code).toBe(1);
    expect(badRevoke.stderr).toMatch(/no key with id key_nope/);
    const badRate = await run(['serve', '--data-dir', dataDir, '--rate-limit', 'lots'], {});
    expect(badRate.code).toBe(1);
    expect(badRate.stderr).toMatch(/invalid rate limit/);
  });

  it('keeps keys and balances across restarts and stops cleanly on SIGTERM', async () => {
    await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${firstKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'credits' }),
    });
    const before = ((await (await balance(server.baseUrl, firstKey)).json()) as { available_credits: number })
      .available_credits;
    expect(await stop(server)).toBe(0);
    server = await startServer(dataDir, ['--corpus', MANUAL_CORPUS]);
    expect(server.output()).not.toMatch(/cw_[A-Za-z0-9]{40}/);
    expect(await (await balance(server.baseUrl, firstKey)).json()).toEqual({ available_credits: before });
  });

  it('--maintenance answers 503 on every /v1 route', async () => {
    const other = await startServer(dataDir, ['--maintenance']);
    try {
      const response = await balance(other.baseUrl, firstKey);
      expect(response.status).toBe(503);
    } finally {
      expect(await stop(other)).toBe(0);
    }
  });
});
