/**
 * Single sign-on in headless Chromium against a real OpenID Connect provider (`oidc-provider` on
 * 127.0.0.1): "Sign in with SSO" on the console's sign-in page, the provider's login and consent pages,
 * the callback at /console/sso/callback; the user made on first sign-in from the verified email; the role
 * from the groups claim at every sign-in; an unverified email, a wrong state and a wrong nonce refused;
 * sign-out; password sign-in off for the SSO organization; the http:// issuer rule; the discovery kept.
 * With CITEWISE_SSO_SCREENSHOTS=<dir> the run saves what a user sees at each step there; with
 * CITEWISE_SCREENSHOTS=1 it writes the manual's docs/images/console-sso-sign-in.png.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import {
  createConsole,
  createConsoleNodeHandler,
  createMemoryAccountStore,
  createMemoryUsageStore,
  createUsageRecorder,
  withConsoleKeys,
  type AccountStore,
  type Console,
  type SsoOptions,
} from '../../src/console/index.ts';
import { NO_PASSWORD } from '../../src/console/passwords.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import { createMemoryKeyStore } from '../../src/stores/memory/key-store.ts';
import { fakeSearchProvider, staticAnswerer } from '../../src/testing/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { CLI } from '../support/cli.ts';
import { chromiumOrSkip, launchBrowser, seriousAxeViolations } from './browser.ts';

const BASE = '/console';
const ORGANIZATION = 'Acme';
const ADMINS = 'citewise-admins';
const SHOTS = process.env['CITEWISE_SSO_SCREENSHOTS'];
const MANUAL_SHOTS = process.env['CITEWISE_SCREENSHOTS'] === '1';
const hasChromium = chromiumOrSkip();

let provider: TestOidcProvider;
let server: ListeningServer;
let browser: Browser;
let accounts: AccountStore;
let engine: SearchEngine;
/** The console answering requests now (tests switch between SSO settings on the same stores). */
let current: Console;
const consoles: Console[] = [];

/** A console on the shared stores with these SSO options (over the defaults of the suite). */
function ssoConsole(sso: Partial<SsoOptions> = {}): Console {
  const usage = createMemoryUsageStore();
  const app = createConsole({
    engine,
    accounts,
    usage,
    recorder: createUsageRecorder(usage),
    basePath: BASE,
    sso: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      publicUrl: server.baseUrl,
      organization: ORGANIZATION,
      adminGroup: ADMINS,
      ...sso,
    },
  });
  consoles.push(app);
  return app;
}

beforeAll(async () => {
  if (!hasChromium) return;
  accounts = createMemoryAccountStore();
  const usage = createMemoryUsageStore();
  engine = createSearchEngine({
    keys: withConsoleKeys(createMemoryKeyStore(), accounts),
    credits: createMemoryCreditStore(),
    usage: createUsageRecorder(usage),
    search: fakeSearchProvider([{ url: 'https://example.com/a', title: 'A', content: 'A page.' }]),
    answerer: staticAnswerer({ answer: 'A [1].', sources: ['https://example.com/a'] }),
    fetcher: false,
    extractor: false,
  });
  // The console first (its own paths under /console), then /v1, as `serve` mounts them.
  const api = createNodeHandler(engine);
  const listener: RequestListener = (req, res) =>
    createConsoleNodeHandler(current, { basePath: BASE })(req, res, () => api(req, res));
  server = await listenOnLoopback(createServer(listener));
  provider = await startOidcProvider(`${server.baseUrl}${BASE}/sso/callback`);
  current = ssoConsole();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(consoles.map((app) => app.close()));
  await server?.close();
  await provider?.close();
});

/** A browser context that reaches nothing but loopback (the provider's page imports a web font). */
async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    return host === '127.0.0.1' ? route.continue() : route.abort();
  });
  return context;
}

/** Changes one check (state, nonce) of the sign-in this browser started, in its SSO cookie. */
async function tamperFlowCookie(context: BrowserContext, check: string, value: string): Promise<void> {
  const flow = (await context.cookies()).find((c) => c.name === 'cw_sso')!;
  const checks = JSON.parse(Buffer.from(flow.value, 'base64url').toString()) as Record<string, string>;
  expect(checks[check]).toBeTypeOf('string');
  checks[check] = value;
  await context.addCookies([{ ...flow, value: Buffer.from(JSON.stringify(checks)).toString('base64url') }]);
}

/** The text of the first element a locator finds (waiting for it). */
async function textOf(locator: ReturnType<Page['locator']>): Promise<string> {
  return (await locator.first().textContent()) ?? '';
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** From the console's sign-in page through the provider's login page, up to its consent page. */
async function toProviderLogin(page: Page, login: string): Promise<void> {
  await page.goto(`${server.baseUrl}${BASE}/sign-in`);
  await shot(page, `1-sign-in-${login}`);
  if (MANUAL_SHOTS && login === 'alice') {
    await page.screenshot({
      path: fileURLToPath(new URL('../../docs/images/console-sso-sign-in.png', import.meta.url)),
    });
  }
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password: the test provider takes any');
  await shot(page, `2-provider-login-${login}`);
}

/** Submits the provider's login page and its consent page; resolves once back at the console. */
async function finishAtProvider(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).waitFor();
  await shot(page, '2b-provider-consent');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${server.baseUrl}${BASE}/**`);
}

/** A whole SSO sign-in in a fresh context; returns the page where the console left the user. */
async function ssoSignIn(login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext();
  const page = await context.newPage();
  await toProviderLogin(page, login);
  await finishAtProvider(page);
  return { context, page };
}

async function roleIn(email: string): Promise<string | undefined> {
  const user = await accounts.findUserByEmail(email);
  const organizations = user ? await accounts.listUserOrganizations(user.id) : [];
  return organizations.find((o) => o.organizationName === ORGANIZATION)?.role;
}

describe.skipIf(!hasChromium)('SSO with OpenID Connect (oidc-provider on loopback, Chromium)', () => {
  it('signs in a new user from the verified email, as admin from the groups claim, with PKCE, state and nonce', async () => {
    provider.accounts.set('alice', {
      email: 'Alice@Acme.example',
      email_verified: true,
      name: 'Alice',
      groups: [ADMINS, 'staff'],
    });
    expect(await accounts.findUserByEmail('alice@acme.example')).toBeNull();
    const context = await newContext();
    const page = await context.newPage();
    const authorization: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === provider.issuer && url.pathname === '/auth') authorization.push(url);
    });
    await toProviderLogin(page, 'alice');
    // The checks wait in an HttpOnly, SameSite=Lax cookie of the console's /sso/ paths, for 10 minutes.
    const flow = (await context.cookies()).find((c) => c.name === 'cw_sso')!;
    expect(flow).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: `${BASE}/sso/` });
    expect(flow.expires - Date.now() / 1000).toBeGreaterThan(540);
    expect(flow.expires - Date.now() / 1000).toBeLessThanOrEqual(600);
    const asked = authorization[0]!.searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(asked.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(asked.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(asked.get('scope')).toBe('openid email profile groups');
    expect(asked.get('redirect_uri')).toBe(`${server.baseUrl}/console/sso/callback`);
    await finishAtProvider(page);

    expect(page.url()).toBe(`${server.baseUrl}${BASE}/keys`);
    expect(await textOf(page.locator('.org-bar'))).toContain(ORGANIZATION);
    expect(await textOf(page.locator('.org-bar'))).toContain('your role: admin');
    await shot(page, '3-signed-in-alice');
    const user = await accounts.findUserByEmail('alice@acme.example');
    expect(user?.passwordHash).toBe(NO_PASSWORD);
    expect(await roleIn('alice@acme.example')).toBe('admin');
    // The account page says there is no password to change.
    await page.getByRole('link', { name: 'Account' }).click();
    expect(await textOf(page.locator('main'))).toContain('You sign in with SSO');
    await context.close();
  });

  it('gives members outside the admin group the member role, and follows the groups claim at every sign-in', async () => {
    provider.accounts.set('bob', { email: 'bob@acme.example', email_verified: true, groups: ['staff'] });
    let { context, page } = await ssoSignIn('bob');
    expect(await textOf(page.locator('.org-bar'))).toContain('your role: member');
    expect(await roleIn('bob@acme.example')).toBe('member');
    await context.close();

    provider.accounts.get('bob')!.groups = ['staff', ADMINS];
    ({ context, page } = await ssoSignIn('bob'));
    expect(await textOf(page.locator('.org-bar'))).toContain('your role: admin');
    await context.close();

    provider.accounts.get('bob')!.groups = [];
    ({ context, page } = await ssoSignIn('bob'));
    expect(await textOf(page.locator('.org-bar'))).toContain('your role: member');
    expect(await roleIn('bob@acme.example')).toBe('member');
    // The audit log has each sign-in and each role the groups claim changed, in the SSO organization.
    const bobs = await accounts.listAudit({ actor: 'bob@acme.example' });
    expect(bobs.map((e) => [e.action, e.detail])).toEqual([
      ['sign_in', 'sso as member'],
      ['role_changed', 'sso groups: admin → member'],
      ['sign_in', 'sso as admin'],
      ['role_changed', 'sso groups: member → admin'],
      ['sign_in', 'sso as member'],
      ['member_joined', 'sso as member'],
    ]);
    expect(new Set(bobs.map((e) => e.organizationId)).size).toBe(1);
    expect(bobs[0]!.ip).toBe('127.0.0.1');
    // Both users are in one organization, made once (and its discovery fetched once).
    const named = (await accounts.listOrganizations()).filter((o) => o.name === ORGANIZATION);
    expect(named).toHaveLength(1);
    expect(provider.requests.filter((r) => r.endsWith('/.well-known/openid-configuration'))).toHaveLength(1);
    await context.close();
  });

  it('refuses an email the provider has not verified, and makes no user', async () => {
    provider.accounts.set('eve', { email: 'eve@acme.example', email_verified: false, groups: [ADMINS] });
    const { context, page } = await ssoSignIn('eve');
    expect(page.url()).toContain(`${BASE}/sso/callback`);
    expect(await textOf(page.getByRole('alert'))).toContain('has not verified eve@acme.example');
    expect(await accounts.findUserByEmail('eve@acme.example')).toBeNull();
    const [refused] = await accounts.listAudit({ actor: 'eve@acme.example' });
    expect(refused).toMatchObject({ action: 'sign_in_failed', detail: 'sso: email-not-verified' });
    await context.close();
  });

  it('refuses a callback whose state is not the one this browser sent', async () => {
    provider.accounts.set('mallory', { email: 'mallory@acme.example', email_verified: true });
    const context = await newContext();
    const page = await context.newPage();
    await toProviderLogin(page, 'mallory');
    // The provider answers with the state of the authorization request; this browser now expects
    // another one (as when a callback made for someone else's browser is opened here).
    await tamperFlowCookie(context, 'state', 'a-state-the-provider-never-saw');
    await finishAtProvider(page);
    expect(page.url()).toContain(`${BASE}/sso/callback`);
    expect(await textOf(page.getByRole('alert'))).toContain('The sign-in could not be verified');
    await shot(page, '4-wrong-state');
    expect(await accounts.findUserByEmail('mallory@acme.example')).toBeNull();
    await page.goto(`${server.baseUrl}${BASE}/keys`);
    expect(page.url()).toBe(`${server.baseUrl}${BASE}/sign-in`);
    await context.close();
  });

  it('refuses an ID token whose nonce is not the one this browser sent', async () => {
    provider.accounts.set('trudy', { email: 'trudy@acme.example', email_verified: true });
    const context = await newContext();
    const page = await context.newPage();
    await toProviderLogin(page, 'trudy');
    // The provider puts the nonce of the authorization request in the ID token; this browser now
    // expects another one.
    await tamperFlowCookie(context, 'nonce', 'a-nonce-the-provider-never-saw');
    await finishAtProvider(page);
    expect(page.url()).toContain(`${BASE}/sso/callback`);
    expect(await textOf(page.getByRole('alert'))).toContain('The sign-in could not be verified');
    expect(await accounts.findUserByEmail('trudy@acme.example')).toBeNull();
    await context.close();
  });

  it('refuses a callback without the sign-in started in this browser', async () => {
    const response = await fetch(`${server.baseUrl}${BASE}/sso/callback?code=x&state=y`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not started in this browser');
  });

  it('ends the console session at sign-out', async () => {
    const { context, page } = await ssoSignIn('alice');
    const session = (await context.cookies()).find((c) => c.name === 'cw_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.baseUrl}${BASE}/sign-in`);
    expect(await page.getByRole('link', { name: 'Sign in with SSO' }).isVisible()).toBe(true);
    // The old session cookie opens nothing any more.
    const again = await fetch(`${server.baseUrl}${BASE}/keys`, {
      headers: { cookie: `cw_session=${session.value}` },
      redirect: 'manual',
    });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${BASE}/sign-in`);
    expect(await accounts.findSession(session.value)).toBeNull();
    await context.close();
  });

  it('answers 502 while the provider is down, and reads its discovery again at the next sign-in', async () => {
    const app = ssoConsole();
    const start = () =>
      app.handle({
        method: 'GET',
        path: '/sso/start',
        header: () => undefined,
        readBody: () => Promise.resolve(new Uint8Array()),
        signal: new AbortController().signal,
      });
    provider.down = true;
    try {
      const refused = await start();
      expect(refused.status).toBe(502);
      expect(refused.body).toContain('The sign-in provider cannot be reached');
    } finally {
      provider.down = false;
    }
    const started = await start();
    expect(started.status).toBe(303);
    expect(started.headers['location']).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
  });

  it('shows "Sign in with SSO" at 375 px without overflow or serious axe violations', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}${BASE}/sign-in`);
    const button = page.getByRole('link', { name: 'Sign in with SSO' });
    expect(await button.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot(page, '0-sign-in-375px');
    await context.close();
  });
});

describe.skipIf(!hasChromium)('password sign-in off for the SSO organization', () => {
  const password = 'carols-password-1';

  async function passwordSignIn(email: string): Promise<Response> {
    return fetch(`${server.baseUrl}${BASE}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password }).toString(),
      redirect: 'manual',
    });
  }

  it('refuses a member of the SSO organization, lets others and the operator in', async () => {
    // Carol had a password account before SSO; her first SSO sign-in puts her in the SSO organization.
    const signUp = await fetch(`${server.baseUrl}${BASE}/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'carol@acme.example', password }).toString(),
      redirect: 'manual',
    });
    expect(signUp.status).toBe(303);
    provider.accounts.set('carol', { email: 'carol@acme.example', email_verified: true });
    const { context } = await ssoSignIn('carol');
    await context.close();
    expect(await roleIn('carol@acme.example')).toBe('member');
    // Dave is not in the SSO organization.
    await fetch(`${server.baseUrl}${BASE}/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'dave@elsewhere.example', password }).toString(),
    });

    // Password sign-in on (the default): Carol may use her password.
    expect((await passwordSignIn('carol@acme.example')).status).toBe(303);

    current = ssoConsole({ passwordSignIn: false });
    try {
      const refused = await passwordSignIn('carol@acme.example');
      expect(refused.status).toBe(403);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await refused.text()).toContain('Members of Acme sign in with SSO');
      // A wrong password still reads as a wrong password (nothing said about the account).
      const wrong = await fetch(`${server.baseUrl}${BASE}/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'carol@acme.example', password: 'not-her-password' }).toString(),
      });
      expect(wrong.status).toBe(401);
      expect((await passwordSignIn('dave@elsewhere.example')).status).toBe(303);
      // The instance operator keeps the way in when the provider is down.
      const carol = (await accounts.findUserByEmail('carol@acme.example'))!;
      await accounts.setOperator(carol.id, true);
      expect((await passwordSignIn('carol@acme.example')).status).toBe(303);
      await accounts.setOperator(carol.id, false);
      // SSO itself still works for her.
      const { context: again, page } = await ssoSignIn('carol');
      expect(page.url()).toBe(`${server.baseUrl}${BASE}/keys`);
      await again.close();
    } finally {
      current = consoles[0]!;
    }
  });
});

describe('the issuer', () => {
  const options = (issuer: string): SsoOptions => ({
    issuer,
    clientId: 'citewise',
    publicUrl: 'https://search.example.com',
    organization: ORGANIZATION,
  });
  const make = (issuer: string) => {
    const accounts = createMemoryAccountStore();
    const usage = createMemoryUsageStore();
    const engine = createSearchEngine({
      keys: withConsoleKeys(createMemoryKeyStore(), accounts),
      credits: createMemoryCreditStore(),
      search: fakeSearchProvider([]),
      fetcher: false,
      extractor: false,
    });
    return createConsole({
      engine,
      accounts,
      usage,
      recorder: createUsageRecorder(usage),
      sso: options(issuer),
    });
  };

  it('may be plain http:// on loopback only', async () => {
    expect(() => make('http://sso.example.com/realms/acme')).toThrow(/loopback only/);
    expect(() => make('http://10.0.0.5:8080')).toThrow(/loopback only/);
    for (const issuer of [
      'https://sso.example.com/realms/acme',
      'http://127.0.0.1:8080',
      'http://localhost:9',
      'http://[::1]:9',
    ])
      await make(issuer).close();
  });

  it('is refused by `citewise serve` when plain http:// off loopback, before anything starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-sso-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    // Killed after 20 s: a serve that took the issuer would otherwise run on.
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
        env: {
          ...process.env,
          CITEWISE_OIDC_ISSUER: 'http://sso.example.com',
          CITEWISE_OIDC_CLIENT_ID: 'citewise',
          CITEWISE_OIDC_ORGANIZATION: ORGANIZATION,
        },
        timeout: 20_000,
        killSignal: 'SIGKILL',
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('CITEWISE_OIDC_ISSUER');
    expect(result.stderr).toContain('loopback only');
  });
});
