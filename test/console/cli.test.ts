/**
 * The console's settings of `serve`, `--no-console`, the console options in `--help`, and sessions that
 * survive a restart of `serve`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConsoleSettings } from '../../src/cli/console-command.ts';
import { databasePath } from '../../src/cli/config.ts';
import { createSqliteAccountStore } from '../../src/stores/sqlite/accounts.ts';
import { runCli, startServe } from '../support/cli.ts';

describe('console settings', () => {
  it('resolves flags over environment variables, with defaults', () => {
    const defaults = resolveConsoleSettings({ dataDir: '/tmp/cw' }, {});
    expect(defaults).toEqual({
      enabled: true,
      signup: 'open',
      signupDomains: [],
      trustProxy: false,
      accountsStore: 'sqlite:/tmp/cw/citewise.db',
      local: true,
      auditRetentionDays: 365,
      sso: null,
    });
    const fromEnv = resolveConsoleSettings(
      { dataDir: '/tmp/cw' },
      {
        CITEWISE_CONSOLE: 'false',
        CITEWISE_SIGNUP: 'invite-only',
        CITEWISE_SIGNUP_DOMAINS: 'Example.com, @example.org',
        CITEWISE_TRUST_PROXY: 'true',
        CITEWISE_STORE: 'postgres://u:p@127.0.0.1/db',
        CITEWISE_AUDIT_RETENTION_DAYS: '30',
      },
    );
    expect(fromEnv).toMatchObject({
      auditRetentionDays: 30,
      enabled: false,
      signup: 'invite-only',
      signupDomains: ['example.com', 'example.org'],
      trustProxy: true,
      accountsStore: 'postgres://u:p@127.0.0.1/db',
      local: false,
    });
    expect(
      resolveConsoleSettings({ signup: 'open', dataDir: '/d' }, { CITEWISE_SIGNUP: 'invite-only' }).signup,
    ).toBe('open');
    // Redis keeps no accounts: they go to SQLite in the data dir unless --accounts-store says otherwise.
    expect(resolveConsoleSettings({ store: 'redis://127.0.0.1:6379', dataDir: '/d' }, {}).accountsStore).toBe(
      'sqlite:/d/citewise.db',
    );
    expect(() => resolveConsoleSettings({ signup: 'closed', dataDir: '/d' }, {})).toThrow(
      /open or invite-only/,
    );
    expect(() => resolveConsoleSettings({ signupDomains: 'not a domain', dataDir: '/d' }, {})).toThrow(
      /not a domain/,
    );
    expect(() => resolveConsoleSettings({ accountsStore: 'redis://x', dataDir: '/d' }, {})).toThrow(
      /sqlite:PATH or postgres/,
    );
  });

  it('serve --no-console serves no console page', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-no-console-'));
    const serve = await startServe(['--no-console', '--data-dir', dataDir]);
    try {
      const response = await fetch(`${serve.baseUrl}/sign-in`);
      expect(response.status).toBe(404);
      expect(serve.output()).not.toContain('operator-setup-link');
    } finally {
      await serve.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps a session across a restart of serve (SQLite in the data directory)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-console-restart-'));
    let serve = await startServe(['--data-dir', dataDir]);
    try {
      const signUp = await fetch(`${serve.baseUrl}/sign-up`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'restart@example.com', password: 'restart-password-1' }),
      });
      expect(signUp.status).toBe(303);
      const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!;
      await serve.stop();
      serve = await startServe(['--data-dir', dataDir]);
      const keys = await fetch(`${serve.baseUrl}/keys`, { headers: { cookie }, redirect: 'manual' });
      expect(keys.status).toBe(200);
      expect(await keys.text()).toContain('data-testid="available-credits">1,000<');
    } finally {
      await serve.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('serve applies --signup-domains and --trust-proxy, and CITEWISE_SIGNUP=invite-only', async () => {
    const signUp = (baseUrl: string, email: string, headers: Record<string, string> = {}) =>
      fetch(`${baseUrl}/sign-up`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ email, password: 'settings-password-1' }),
      });
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-console-settings-'));
    const serve = await startServe([
      '--data-dir',
      join(dataDir, 'a'),
      '--signup-domains',
      'example.com',
      '--trust-proxy',
    ]);
    const inviteOnly = await startServe(['--data-dir', join(dataDir, 'b')], {
      CITEWISE_SIGNUP: 'invite-only',
    });
    try {
      const refused = await signUp(serve.baseUrl, 'x@other.org');
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('limited to addresses at example.com');
      // Behind a TLS-ending proxy (believed with --trust-proxy) the session cookie gets Secure.
      const host = new URL(serve.baseUrl).host;
      const allowed = await signUp(serve.baseUrl, 'x@example.com', {
        'x-forwarded-proto': 'https',
        origin: `https://${host}`,
      });
      expect(allowed.status).toBe(303);
      expect(allowed.headers.getSetCookie()[0]).toMatch(/; Secure$/);

      expect((await signUp(inviteOnly.baseUrl, 'x@example.com')).status).toBe(403);
      expect(await (await fetch(`${inviteOnly.baseUrl}/sign-up`)).text()).toContain('invite-only');
    } finally {
      await Promise.all([serve.stop(), inviteOnly.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('lists the console options in serve --help', async () => {
    const help = await runCli(['serve', '--help']);
    for (const flag of [
      '--no-console',
      '--signup <policy>',
      '--signup-domains',
      '--trust-proxy',
      '--accounts-store',
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });

  // Four short CLI runs: generous on a busy machine.
  it(
    'console operator-link takes --public-url, CITEWISE_PUBLIC_URL and the data dir as serve does',
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'citewise-operator-link-'));
      try {
        const link = /^(\S+)\/setup\/\S+$/m;
        const byDefault = await runCli(['console', 'operator-link'], { CITEWISE_DATA_DIR: dataDir });
        expect(byDefault.code, byDefault.stderr).toBe(0);
        expect(link.exec(byDefault.stdout)?.[1]).toBe('http://127.0.0.1:8787');
        const fromEnv = await runCli(['console', 'operator-link', '--data-dir', dataDir], {
          CITEWISE_PUBLIC_URL: 'https://search.example.com/',
        });
        expect(link.exec(fromEnv.stdout)?.[1]).toBe('https://search.example.com');
        const fromFlag = await runCli(
          ['console', 'operator-link', '--data-dir', dataDir, '--public-url', 'https://a.example.com'],
          { CITEWISE_PUBLIC_URL: 'https://search.example.com' },
        );
        expect(link.exec(fromFlag.stdout)?.[1]).toBe('https://a.example.com');
        const help = await runCli(['console', 'operator-link', '--help']);
        const text = help.stdout.replace(/\s+/g, ' ');
        expect(text).toContain('env CITEWISE_PUBLIC_URL');
        expect(text).toContain('env CITEWISE_DATA_DIR');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it(
    'console reset-password prints a link on the port, host and public URL serve is configured with',
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'citewise-reset-link-'));
      try {
        const accounts = createSqliteAccountStore({ path: databasePath(dataDir) });
        await accounts.createUser({ email: 'reset@example.com', passwordHash: 'scrypt$placeholder' });
        await accounts.close?.();
        const base = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
          const printed = await runCli(
            ['console', 'reset-password', 'reset@example.com', '--data-dir', dataDir, ...args],
            env,
          );
          expect(printed.code, printed.stderr).toBe(0);
          return /^(\S+)\/reset\/[\w-]{43}$/m.exec(printed.stdout)?.[1];
        };
        expect(await base(['--port', '9090'])).toBe('http://127.0.0.1:9090');
        expect(await base([], { CITEWISE_PORT: '9191', CITEWISE_HOST: '0.0.0.0' })).toBe(
          'http://localhost:9191',
        );
        expect(await base(['--port', '9090', '--public-url', 'https://search.example.com/'])).toBe(
          'https://search.example.com',
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('serve --public-url writes the first operator setup link below the public URL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-setup-link-'));
    const serve = await startServe(['--data-dir', dataDir, '--public-url', 'https://search.example.com']);
    try {
      const link = readFileSync(join(dataDir, 'operator-setup-link.txt'), 'utf8').trim();
      expect(link).toMatch(/^https:\/\/search\.example\.com\/setup\/[\w-]{43}$/);
      expect((await fetch(`${serve.baseUrl}${new URL(link).pathname}`)).status).toBe(200);
    } finally {
      await serve.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
