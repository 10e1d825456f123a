/**
 * The console's security properties, each through the real HTTP stack (the console's node adapter in
 * front of the engine's, on 127.0.0.1): password hashing, cookie flags, CSRF, throttling, identical
 * answers for unknown emails and wrong passwords, sessions ended on sign-out and password change, CSP,
 * sign-up policies, logs without secrets, and a playground that renders hostile answers inertly in Chromium.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/engine/index.ts';
import { verifyPassword, type AccountStore, type ConsoleOptions } from '../../src/console/index.ts';
import { listenConsoleAndApi, memoryConsole } from './memory-console.ts';
import { chromiumOrSkip, launchBrowser } from './browser.ts';
import { fakeSearchProvider, staticAnswerer } from '../../src/testing/index.ts';

interface Harness {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly logs: string[];
  close(): Promise<void>;
}

/** Hostile text as a web page or a model could return it. */
function hostileAnswer(pixelUrl: string): string {
  return [
    '**Answer** with <script>window.__xss = "script"</script> a script,',
    `an image <img src="${pixelUrl}?html" onerror="window.__xss = 'onerror'">,`,
    `a markdown image ![tracker](${pixelUrl}?markdown),`,
    'a [javascript link](javascript:window.__xss=%22link%22) and <a href="javascript:window.__xss=1">another</a>,',
    'and a [fine link](https://example.com/fine) [1].',
    '',
    '<iframe src="javascript:window.top.__xss=`frame`"></iframe>',
  ].join('\n');
}

async function startHarness(
  options: Partial<ConsoleOptions> = {},
  pixelUrl = 'http://127.0.0.1:9/p.png',
): Promise<Harness> {
  const logs: string[] = [];
  const logger: Logger = {
    info: (object, message) => logs.push(JSON.stringify({ ...object, message })),
    warn: (object, message) => logs.push(JSON.stringify({ ...object, message })),
    error: (object, message) => logs.push(JSON.stringify({ ...object, message })),
  };
  const search = fakeSearchProvider(
    [
      {
        url: 'https://example.com/hostile',
        title: '<script>window.__xss="title"</script>',
        content: `Revoking a key stops it at once. ${hostileAnswer(pixelUrl)}`,
      },
    ],
    { id: 'hostile' },
  );
  const answerer = staticAnswerer({
    answer: hostileAnswer(pixelUrl),
    sources: ['https://example.com/hostile'],
  });
  const { engine, app, accounts } = memoryConsole({ search, answerer }, { logger, ...options });
  const server = await listenConsoleAndApi(app, engine);
  return {
    baseUrl: server.baseUrl,
    accounts,
    logs,
    async close() {
      await app.close();
      await server.close();
      await engine.close();
    },
  };
}

/** A browser-like client: keeps the session cookie, sends same-origin forms. */
function client(baseUrl: string, extraHeaders: Record<string, string> = {}) {
  let cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return {
    get cookie() {
      return cookieHeader();
    },
    set cookie(value: string) {
      cookies = new Map(
        value
          .split('; ')
          .filter(Boolean)
          .map((pair) => pair.split('=') as [string, string]),
      );
    },
    async request(
      method: string,
      path: string,
      form?: Record<string, string>,
      headers: Record<string, string> = {},
    ) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(cookies.size ? { cookie: cookieHeader() } : {}),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl } : {}),
          ...extraHeaders,
          ...headers,
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = pair!.split('=') as [string, string];
        if (value === '' || /Max-Age=0/.test(line)) cookies.delete(name);
        else cookies.set(name, value);
      }
      return { response, text: await response.text() };
    },
    async csrf(path = '/keys'): Promise<string> {
      const { text } = await this.request('GET', path);
      return /name="csrf-token" content="([^"]+)"/.exec(text)![1]!;
    },
  };
}

const PASSWORD = 'a-long-password-1';

/** A member invitation into a new organization, made by its owner (a link is honoured only while its creator may invite). */
async function invitationInto(accounts: AccountStore, name: string): Promise<string> {
  const organization = await accounts.createOrganization({ name });
  const owner = await accounts.createUser({
    email: `owner-of-${name.toLowerCase()}@example.com`,
    passwordHash: 'x',
  });
  await accounts.putMembership({ organizationId: organization.id, userId: owner!.id, role: 'owner' });
  const { token } = await accounts.createInvitation({
    organizationId: organization.id,
    role: 'member',
    createdBy: owner!.id,
    expiresAt: Date.now() + 60_000,
  });
  return token;
}

// Each scrypt hash takes 32 MiB and tens of milliseconds; some tests make a dozen: room for a loaded machine.
describe('console security', { timeout: 90_000 }, () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      trustProxy: true,
      signInLimitPerAccount: { limit: 3, windowMs: 600_000 },
      signInLimitPerAddress: { limit: 6, windowMs: 600_000 },
    });
  });
  afterAll(() => harness.close());

  it('hashes passwords with scrypt and refuses short ones', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.1' });
    const short = await c.request('POST', '/sign-up', { email: 'short@example.com', password: 'short' });
    expect(short.response.status).toBe(400);
    expect(short.text).toContain('at least 10 characters');
    const ok = await c.request('POST', '/sign-up', { email: 'hash@example.com', password: PASSWORD });
    expect(ok.response.status).toBe(303);
    const user = await harness.accounts.findUserByEmail('hash@example.com');
    expect(user!.passwordHash).toMatch(/^scrypt\$32768\$8\$4\$[\w-]{22}\$[\w-]{43}$/);
    expect(user!.passwordHash).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, user!.passwordHash)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}x`, user!.passwordHash)).toBe(false);
  });

  it('sets the session cookie HttpOnly and SameSite=Lax, and Secure only behind https', async () => {
    const plain = client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.2' });
    const { response } = await plain.request('POST', '/sign-up', {
      email: 'cookie@example.com',
      password: PASSWORD,
    });
    const [session] = response.headers.getSetCookie();
    expect(session).toMatch(/^cw_session=[\w-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);

    const proxied = client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.2', 'x-forwarded-proto': 'https' });
    const signIn = await proxied.request(
      'POST',
      '/sign-in',
      { email: 'cookie@example.com', password: PASSWORD },
      { origin: `https://${new URL(harness.baseUrl).host}` },
    );
    expect(signIn.response.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);

    // Without --trust-proxy the forwarded protocol is not believed.
    const untrusting = await startHarness();
    try {
      const c = client(untrusting.baseUrl, { 'x-forwarded-proto': 'https' });
      const r = await c.request('POST', '/sign-up', { email: 'a@example.com', password: PASSWORD });
      expect(r.response.headers.getSetCookie()[0]).not.toContain('Secure');
    } finally {
      await untrusting.close();
    }
  });

  it('refuses state-changing requests without the CSRF token or from another site', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.3' });
    await c.request('POST', '/sign-up', { email: 'csrf@example.com', password: PASSWORD });
    const token = await c.csrf();
    const missing = await c.request('POST', '/keys', { name: 'no token' });
    expect(missing.response.status).toBe(403);
    const wrong = await c.request('POST', '/keys', {
      name: 'wrong token',
      _csrf: (token.startsWith('x') ? 'y' : 'x') + token.slice(1),
    });
    expect(wrong.response.status).toBe(403);
    const crossOrigin = await c.request(
      'POST',
      '/keys',
      { name: 'evil', _csrf: token },
      { origin: 'https://evil.example' },
    );
    expect(crossOrigin.response.status).toBe(403);
    const crossSite = await c.request(
      'POST',
      '/keys',
      { name: 'evil', _csrf: token },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.response.status).toBe(403);
    const loginCsrf = await client(harness.baseUrl).request(
      'POST',
      '/sign-in',
      { email: 'csrf@example.com', password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(loginCsrf.response.status).toBe(403);
    expect((await c.request('GET', '/keys')).text).not.toContain('evil');
    const allowed = await c.request(
      'POST',
      '/keys',
      { name: 'good', _csrf: token },
      { 'sec-fetch-site': 'same-origin' },
    );
    expect(allowed.response.status).toBe(201);
  });

  it('answers an unknown email and a wrong password identically', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.4' });
    await c.request('POST', '/sign-up', { email: 'known@example.com', password: PASSWORD });
    const unknown = await client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.5' }).request(
      'POST',
      '/sign-in',
      {
        email: 'unknown@example.com',
        password: PASSWORD,
      },
    );
    const wrong = await client(harness.baseUrl, { 'x-forwarded-for': '10.0.0.6' }).request(
      'POST',
      '/sign-in',
      {
        email: 'known@example.com',
        password: `${PASSWORD}-wrong`,
      },
    );
    expect(unknown.response.status).toBe(401);
    expect(wrong.response.status).toBe(401);
    expect(unknown.text).toBe(wrong.text);
    expect(unknown.response.headers.getSetCookie()).toEqual(wrong.response.headers.getSetCookie());
  });

  it('throttles failed sign-ins per account and address, and attempts per address; the owner still gets in', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.1.1' });
    await c.request('POST', '/sign-up', { email: 'throttle@example.com', password: PASSWORD });
    /** Signs in to throttle@example.com from `address`. */
    const signInFrom = (address: string, password: string) =>
      client(harness.baseUrl, { 'x-forwarded-for': address }).request('POST', '/sign-in', {
        email: 'throttle@example.com',
        password,
      });
    for (let i = 0; i < 3; i++) {
      expect((await signInFrom(`10.0.2.${i}`, 'wrong-password-x')).response.status).toBe(401);
    }
    // The account is under attack: an address that failed on it waits, even with the right password…
    const blocked = await signInFrom('10.0.2.0', PASSWORD);
    expect(blocked.response.status).toBe(429);
    expect(blocked.text).toContain('Too many attempts');
    expect(Number(blocked.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // …an address that has not failed gets one try: a wrong password counts, the owner's right one gets in.
    expect((await signInFrom('10.0.2.8', 'wrong-password-x')).response.status).toBe(401);
    expect((await signInFrom('10.0.2.8', 'wrong-password-y')).response.status).toBe(429);
    expect((await signInFrom('10.0.2.9', PASSWORD)).response.status).toBe(303);

    const address = client(harness.baseUrl, { 'x-forwarded-for': '10.0.3.1' });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (
          await address.request('POST', '/sign-in', {
            email: `spray${i}@example.com`,
            password: 'wrong-password-x',
          })
        ).response.status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });

  it('sign-up tells a taken email apart (no email step could hide it), and probing it is throttled per address', async () => {
    const prober = client(harness.baseUrl, { 'x-forwarded-for': '10.0.7.1' });
    const first = await prober.request('POST', '/sign-up', {
      email: 'taken@example.com',
      password: PASSWORD,
    });
    expect(first.response.status).toBe(303);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const probe = await client(harness.baseUrl, { 'x-forwarded-for': '10.0.7.1' }).request(
        'POST',
        '/sign-up',
        {
          email: i === 0 ? 'taken@example.com' : `probe${i}@example.com`,
          password: PASSWORD,
        },
      );
      if (i === 0) expect(probe.text).toContain('An account with this email already exists');
      statuses.push(probe.response.status);
    }
    // 6 attempts per address in this harness's window: the first sign-up and 5 probes, then 429.
    expect(statuses).toEqual([400, 303, 303, 303, 303, 429]);
  });

  it('ends the session on sign-out, and every session on a password change', async () => {
    const a = client(harness.baseUrl, { 'x-forwarded-for': '10.0.4.1' });
    await a.request('POST', '/sign-up', { email: 'sessions@example.com', password: PASSWORD });
    const b = client(harness.baseUrl, { 'x-forwarded-for': '10.0.4.2' });
    await b.request('POST', '/sign-in', { email: 'sessions@example.com', password: PASSWORD });
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.4.3' });
    await c.request('POST', '/sign-in', { email: 'sessions@example.com', password: PASSWORD });
    expect((await b.request('GET', '/keys')).response.status).toBe(200);

    // Sign-out: the old cookie no longer works, even if the browser kept it.
    const stolen = c.cookie;
    await c.request('POST', '/sign-out', { _csrf: await c.csrf() });
    c.cookie = stolen;
    expect((await c.request('GET', '/keys')).response.headers.get('location')).toBe('/sign-in');

    // Password change: b is signed out; a gets a new session, its old cookie is dead too.
    const before = a.cookie;
    const changed = await a.request('POST', '/account', {
      _csrf: await a.csrf(),
      current: PASSWORD,
      password: 'a-new-long-password',
    });
    expect(changed.response.status).toBe(303);
    expect((await a.request('GET', '/keys')).response.status).toBe(200);
    expect((await b.request('GET', '/keys')).response.status).toBe(303);
    const old = client(harness.baseUrl);
    old.cookie = before;
    expect((await old.request('GET', '/keys')).response.status).toBe(303);
  });

  it('sends a CSP without inline scripts and with frame-ancestors none, on every page', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.5.1' });
    await c.request('POST', '/sign-up', { email: 'csp@example.com', password: PASSWORD });
    const token = await invitationInto(harness.accounts, 'CSP');
    for (const path of [
      '/sign-in',
      '/sign-up',
      '/keys',
      '/members',
      '/usage',
      '/playground',
      '/account',
      '/operator', // 403 for everyone but the operator: the error page
      `/invite/${token}`,
      '/setup/not-a-token', // 404: the error page
    ]) {
      const { response, text } = await c.request('GET', path);
      const csp = response.headers.get('content-security-policy')!;
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(text, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(text, path).not.toMatch(/\son[a-z]+=/);
    }
  });

  it('never logs passwords, keys or session tokens', async () => {
    const c = client(harness.baseUrl, { 'x-forwarded-for': '10.0.6.1' });
    await c.request('POST', '/sign-up', { email: 'logs@example.com', password: PASSWORD });
    const created = await c.request('POST', '/keys', { name: 'logged?', _csrf: await c.csrf() });
    const key = /data-testid="new-api-key"[^>]*>([^<]+)</.exec(created.text)![1]!;
    await client(harness.baseUrl, { 'x-forwarded-for': '10.0.6.2' }).request('POST', '/sign-in', {
      email: 'logs@example.com',
      password: 'wrong-password-y',
    });
    const logs = harness.logs.join('\n');
    expect(logs).toContain('console: key created');
    expect(logs).toContain('console: sign-in failed');
    for (const secret of [PASSWORD, 'wrong-password-y', key, c.cookie.split('=')[1]!])
      expect(logs).not.toContain(secret);
  });
});

describe('password hashing under a sign-in flood', { timeout: 90_000 }, () => {
  it('runs a bounded number of hashes at once: past the waiting line, 429 with Retry-After; then sign-in works again', async () => {
    const harness = await startHarness({
      trustProxy: true,
      signInLimitPerAccount: { limit: 1_000, windowMs: 600_000 },
      signInLimitPerAddress: { limit: 1_000, windowMs: 600_000 },
    });
    try {
      const owner = client(harness.baseUrl, { 'x-forwarded-for': '10.9.0.1' });
      await owner.request('POST', '/sign-up', { email: 'flood@example.com', password: PASSWORD });
      // 40 sign-ins at once from 20 addresses: 2 hash, 8 wait, the rest are told to come back.
      const flood = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          client(harness.baseUrl, { 'x-forwarded-for': `10.9.1.${i % 20}` }).request('POST', '/sign-in', {
            email: `nobody${i}@example.com`,
            password: 'wrong-password-x',
          }),
        ),
      );
      const busy = flood.filter((attempt) => attempt.response.status === 429);
      expect(busy.length).toBeGreaterThan(0);
      expect(flood.every((attempt) => [401, 429].includes(attempt.response.status))).toBe(true);
      for (const attempt of busy) {
        expect(attempt.response.headers.get('retry-after')).toBe('1');
        expect(attempt.text).toContain('Too many sign-ins at once');
      }
      const after = await client(harness.baseUrl, { 'x-forwarded-for': '10.9.2.1' }).request(
        'POST',
        '/sign-in',
        { email: 'flood@example.com', password: PASSWORD },
      );
      expect(after.response.status).toBe(303);
    } finally {
      await harness.close();
    }
  });
});

describe('sign-up policies', { timeout: 90_000 }, () => {
  it('invite-only: no sign-up without a link; sign-up through an invitation works', async () => {
    const harness = await startHarness({ signup: 'invite-only' });
    try {
      const page = await client(harness.baseUrl).request('GET', '/sign-up');
      expect(page.text).toContain('invite-only');
      const refused = await client(harness.baseUrl).request('POST', '/sign-up', {
        email: 'x@example.com',
        password: PASSWORD,
      });
      expect(refused.response.status).toBe(403);
      expect(await harness.accounts.findUserByEmail('x@example.com')).toBeNull();
      const token = await invitationInto(harness.accounts, 'Invited');
      const invited = client(harness.baseUrl);
      const joined = await invited.request('POST', `/invite/${token}`, {
        intent: 'sign-up',
        email: 'x@example.com',
        password: PASSWORD,
      });
      expect(joined.response.status).toBe(303);
      expect((await invited.request('GET', '/keys')).text).toContain('Invited');
    } finally {
      await harness.close();
    }
  });

  it('email domains: only listed domains may sign up', async () => {
    const harness = await startHarness({ signupDomains: ['example.com'] });
    try {
      const refused = await client(harness.baseUrl).request('POST', '/sign-up', {
        email: 'x@other.org',
        password: PASSWORD,
      });
      expect(refused.response.status).toBe(403);
      expect(refused.text).toContain('limited to addresses at example.com');
      const allowed = await client(harness.baseUrl).request('POST', '/sign-up', {
        email: 'x@example.com',
        password: PASSWORD,
      });
      expect(allowed.response.status).toBe(303);
    } finally {
      await harness.close();
    }
  });
});

describe.runIf(chromiumOrSkip())('playground with hostile text (headless Chromium)', () => {
  it('never runs scripts, loads no remote image, and gives links rel="noopener noreferrer nofollow"', async () => {
    let pixelHits = 0;
    const pixel = createServer((_req, res) => {
      pixelHits++;
      res.end();
    });
    await new Promise<void>((resolve) => pixel.listen(0, '127.0.0.1', resolve));
    const pixelUrl = `http://127.0.0.1:${(pixel.address() as AddressInfo).port}/pixel.png`;
    const harness = await startHarness({}, pixelUrl);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${harness.baseUrl}/sign-up`);
      await page.getByLabel('Email').fill('xss@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL('**/keys');
      await page.getByLabel('Name').fill('xss');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('new-api-key').waitFor();
      await page.getByRole('link', { name: 'Playground' }).click();
      await page.getByLabel('Question').fill('What happens when a key is revoked?');
      await page.getByRole('button', { name: 'Ask' }).click();
      await page
        .getByText(/^Done in \d+ ms\.$/)
        .waitFor({ timeout: 30_000 })
        .catch(async (error: unknown) => {
          throw new Error(`no answer; status: ${await page.locator('#pg-status').textContent()}`, {
            cause: error,
          });
        });

      const answer = page.getByTestId('answer');
      expect(await answer.locator('strong').first().textContent()).toBe('Answer');
      expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
      expect(await answer.locator('script, img, iframe').count()).toBe(0);
      expect(await answer.locator('[onerror]').count()).toBe(0);
      const links = await answer.locator('a').all();
      expect(links.length).toBeGreaterThanOrEqual(1);
      expect(await answer.textContent()).toContain('javascript link');
      expect(await page.locator('[href^="javascript"], [src^="javascript"]').count()).toBe(0);
      for (const link of links) {
        expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
        const href = await link.getAttribute('href');
        expect(href === null || href.startsWith('https://')).toBe(true);
      }
      expect(await answer.locator('a[href="https://example.com/fine"]').count()).toBe(1);
      await page
        .getByRole('link', { name: 'javascript link' })
        .click()
        .catch(() => {});
      expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();

      // The same answer as a research job: its page renders it with the same renderer, as inertly.
      await page.getByRole('button', { name: 'Research in the background' }).click();
      await page.waitForURL(/\/research\/res_/);
      const job = page.getByTestId('research-answer');
      await job.waitFor({ timeout: 30_000 });
      expect(await job.locator('strong').first().textContent()).toBe('Answer');
      expect(await job.locator('script, img, iframe, [onerror]').count()).toBe(0);
      expect(await page.locator('[href^="javascript"], [src^="javascript"]').count()).toBe(0);
      for (const link of await job.locator('a').all())
        expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
      expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
      expect(pixelHits).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await harness.close();
      await new Promise((resolve) => pixel.close(resolve));
    }
  }, 90_000);
});
