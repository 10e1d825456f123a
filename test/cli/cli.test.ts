/**
 * The `citewise` command as a user runs it: real processes, a real data directory, real HTTP.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, servedUrl, startServe, type ServeProcess } from '../support/cli.ts';
import { MANUAL_CORPUS } from '../support/corpus.ts';

/**
 * Tests that run several CLI processes one after another: each start loads the whole CLI, which took 9 s a
 * start on a shared 2-core machine under load (the 7-process test then exceeded 120 s).
 */
const SEVERAL_PROCESSES = { timeout: 300_000 };

/** Whether util-linux `script` (a pseudo-terminal) is available for the terminal test. */
const hasScript = spawnSync('script', ['--version']).status === 0;

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
    server = await startServer(dataDir, ['--corpus', MANUAL_CORPUS, '--log-level', 'info']);
    firstKey = server.firstKey() ?? '';
  });

  afterAll(async () => {
    if (server.child.exitCode === null) await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start writes the key to <data-dir>/first-key.txt (0600) and, off a terminal, prints only the path', async () => {
    expect(firstKey).toMatch(/^cw_[A-Za-z0-9]{40}$/);
    const file = join(dataDir, 'first-key.txt');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The notice follows the "listening" line (on stderr, which may arrive a moment later).
    await expect.poll(() => server.output()).toMatch(/1000 credits[\s\S]*Try it/);
    expect(server.output()).toMatch(new RegExp(`Bearer \\$\\(cat ${file}\\)`));
    expect(server.output()).not.toContain(firstKey);
    // The JSON log on stdout says that a key was made and where, never the key. The logger writes
    // asynchronously, so its line may follow the notice.
    await expect.poll(() => server.output()).toContain('"first key created"');
    const logged = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; file?: string });
    expect(logged.find((entry) => entry.msg === 'first key created')?.file).toBe(file);
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

  it(
    'keys create (while the server runs) prints the key as the last line, and it works at once',
    SEVERAL_PROCESSES,
    async () => {
      const created = await run(['keys', 'create', '--data-dir', dataDir, '--credits', '25', '--name', 'ci']);
      expect(created.stderr).toBe('');
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
      // `keys list --json` says which keys work, as the table's STATUS column does.
      const after = JSON.parse((await run(['keys', 'list', '--data-dir', dataDir, '--json'])).stdout) as {
        id: string;
        status: string;
      }[];
      expect(after.map((r) => r.status).sort()).toEqual(['active', 'revoked']);
      expect(after.find((r) => r.id === record.id)?.status).toBe('revoked');
    },
  );

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

  it('every command has --help; bad input exits 1 with a readable message', SEVERAL_PROCESSES, async () => {
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
    expect(badDuration.stderr).toMatch(/--expires-in <duration>.* must be a duration/);
    const badRevoke = await run(['keys', 'revoke', 'key_nope', '--data-dir', dataDir]);
    expect(badRevoke.code).toBe(1);
    expect(badRevoke.stderr).toMatch(/no key with id key_nope/);
    const badRate = await run(['serve', '--data-dir', dataDir, '--rate-limit', 'lots'], {});
    expect(badRate.code).toBe(1);
    expect(badRate.stderr).toContain(
      '--rate-limit (CITEWISE_RATE_LIMIT) must be REQUESTS/WINDOW, e.g. 60/1m, got "lots"',
    );
  });

  it.skipIf(!hasScript)(
    'on a terminal, the first start shows the address, the key, framed, and the operator setup link',
    async () => {
      const other = mkdtempSync(join(tmpdir(), 'citewise-cli-tty-'));
      try {
        // util-linux `script` runs serve on a pseudo-terminal, so stderr is a TTY as in a user's shell.
        const command = [
          process.execPath,
          CLI,
          'serve',
          '--port',
          '0',
          '--log-level',
          'warn',
          '--data-dir',
          other,
        ]
          .map((part) => `'${part}'`)
          .join(' ');
        const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        try {
          await expect.poll(() => output, { timeout: 20_000 }).toMatch(/curl -H/);
          const key = readFileSync(join(other, 'first-key.txt'), 'utf8').trim();
          expect(key).toMatch(/^cw_[A-Za-z0-9]{40}$/);
          expect(output).toMatch(new RegExp(`\\|\\s+${key}\\s+\\|`));
          // A person at a terminal reads the address (stdout holds the JSON log lines).
          expect(output).toMatch(/citewise listening on http:\/\/127\.0\.0\.1:\d+/);
          // With no console operator yet, the terminal also shows the one-time operator setup link.
          await expect.poll(() => output, { timeout: 20_000 }).toContain('No operator yet');
          const setupLink = readFileSync(join(other, 'operator-setup-link.txt'), 'utf8').trim();
          expect(setupLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/setup\/[\w-]{43}$/);
          expect(output).toContain(setupLink);
        } finally {
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('close', resolve));
        }
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    },
  );

  it(
    'keys create and credits grant refuse an unknown account unless --create-account; --credits only for a new one',
    SEVERAL_PROCESSES,
    async () => {
      const typo = await run(['keys', 'create', '--data-dir', dataDir, '--account', 'acct_typo']);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/no account acct_typo: .*--create-account/);
      const grantTypo = await run(['credits', 'grant', 'acct_typo', '10', '--data-dir', dataDir]);
      expect(grantTypo.code).toBe(1);
      expect(grantTypo.stderr).toMatch(/no account acct_typo: .*--create-account/);
      expect((await run(['credits', 'balance', 'acct_typo', '--data-dir', dataDir])).code).toBe(1);

      const created = await run([
        'keys',
        'create',
        '--data-dir',
        dataDir,
        '--account',
        'acct_team',
        '--create-account',
        '--credits',
        '7',
      ]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/new account acct_team \(7 credits\)/);

      const ignoredCredits = await run([
        'keys',
        'create',
        '--data-dir',
        dataDir,
        '--account',
        'acct_team',
        '--credits',
        '500',
      ]);
      expect(ignoredCredits.code).toBe(1);
      expect(ignoredCredits.stderr).toMatch(/--credits applies only when an account is created/);
      expect(ignoredCredits.stderr).toContain('citewise credits grant acct_team 500');
      const second = await run(['keys', 'create', '--data-dir', dataDir, '--account', 'acct_team']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/for account acct_team \(7 credits\)/);

      const granted = await run([
        'credits',
        'grant',
        'acct_new',
        '3',
        '--data-dir',
        dataDir,
        '--create-account',
      ]);
      expect(granted.code, granted.stderr).toBe(0);
      expect((await run(['credits', 'balance', 'acct_new', '--data-dir', dataDir])).stdout.trim()).toBe('3');
    },
  );

  it(
    'names flags and environment variables, never library options, when a provider or model lacks a setting',
    SEVERAL_PROCESSES,
    async () => {
      const other = mkdtempSync(join(tmpdir(), 'citewise-cli-'));
      try {
        const noKeys = { BRAVE_API_KEY: '', BRAVE_SEARCH_API_KEY: '', SEARXNG_URL: '', OPENAI_API_KEY: '' };
        const brave = await run(['serve', '--data-dir', other, '--port', '0', '--search', 'brave'], noKeys);
        expect(brave.code).toBe(1);
        expect(brave.stderr).toMatch(/--search brave needs the environment variable BRAVE_API_KEY/);
        expect(brave.stderr).not.toMatch(/apiKey/);
        const searxng = await run(
          ['serve', '--data-dir', other, '--port', '0', '--search', 'wikipedia,searxng'],
          noKeys,
        );
        expect(searxng.code).toBe(1);
        expect(searxng.stderr).toMatch(/--search searxng needs --searxng-url \(SEARXNG_URL\)/);
        expect(searxng.stderr).not.toMatch(/baseUrl/);
        const model = await run(
          ['serve', '--data-dir', other, '--port', '0', '--model', 'openai:gpt-4o-mini'],
          noKeys,
        );
        expect(model.code).toBe(1);
        expect(model.stderr).toMatch(
          /model openai:gpt-4o-mini needs the environment variable OPENAI_API_KEY/,
        );
        const fromEnv = await run(['serve', '--data-dir', other, '--port', '0'], {
          CITEWISE_MAX_RESULTS: 'many',
        });
        expect(fromEnv.code).toBe(1);
        expect(fromEnv.stderr).toContain(
          '--max-results (CITEWISE_MAX_RESULTS) must be a positive integer, got "many"',
        );
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    },
  );

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

  it('creates the data directory 0700 and the database 0600 (its -wal too); warns at start when they are wider', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'citewise-modes-'));
    const data = join(parent, 'data');
    try {
      const fresh = await startServer(data);
      try {
        expect(statSync(data).mode & 0o777).toBe(0o700);
        expect(statSync(join(data, 'citewise.db')).mode & 0o777).toBe(0o600);
        expect(statSync(join(data, 'citewise.db-wal')).mode & 0o777).toBe(0o600);
        expect(fresh.output()).not.toMatch(/open to other users/);
      } finally {
        // A request answered: serve is past its start (its SIGTERM handler is set).
        await fetch(`${fresh.baseUrl}/healthz`);
        expect(await stop(fresh)).toBe(0);
      }
      // Files of an older version (or made by hand) keep their modes, and are named at start.
      chmodSync(data, 0o755);
      chmodSync(join(data, 'citewise.db'), 0o644);
      const old = await startServer(data);
      try {
        await expect
          .poll(() => old.output())
          .toMatch(/citewise\.db is open to other users \(mode 0644\).*chmod 600/);
        expect(old.output()).toMatch(/data is open to other users \(mode 0755\).*chmod 700/);
      } finally {
        await fetch(`${old.baseUrl}/healthz`);
        expect(await stop(old)).toBe(0);
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('/healthz answers 200 from the moment serve listens, also while it starts (/readyz is the one that waits)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'citewise-health-'));
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    // A web search provider makes serve start its extraction workers before it opens: a start of a second or so.
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', String(port), '--data-dir', parent, '--log-level', 'info'].concat([
        '--search',
        'searxng',
        '--searxng-url',
        'http://127.0.0.1:9',
      ]),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let listening = false;
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      listening ||= servedUrl(stdout) !== undefined;
    });
    const health: string[] = [];
    const ready: string[] = [];
    try {
      while (!listening && child.exitCode === null) {
        const [h, r] = await Promise.all(
          ['/healthz', '/readyz'].map((path) =>
            fetch(`http://127.0.0.1:${port}${path}`).then(
              async (response) => `${response.status} ${await response.text()}`,
              () => null, // not listening yet
            ),
          ),
        );
        if (h) health.push(h);
        if (r) ready.push(r);
      }
      expect(listening).toBe(true);
      // Answered while it started: liveness 200, readiness 503 "starting".
      expect(health.length).toBeGreaterThan(0);
      expect(new Set(health)).toEqual(new Set(['200 {"status":"ok"}']));
      expect(ready.some((answer) => answer.startsWith('503') && answer.includes('starting'))).toBe(true);
      await fetch(`http://127.0.0.1:${port}/healthz`);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(parent, { recursive: true, force: true });
    }
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
