/**
 * The links the console hands out, through the real HTTP stack on 127.0.0.1: a new password (by a reset
 * link, the account page or the CLI's reset) revokes every outstanding reset link of that user, and with a
 * `publicUrl` every link (invitation, password reset, the operator's setup link) is built below it, never
 * from the request's `Host` header (undici's `request` sends the `Host` a client chooses).
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/console/password-reset.ts';
import { SESSION_COOKIE } from '../../src/console/security.ts';
import type { AccountStore, ConsoleOptions } from '../../src/console/index.ts';
import { fakeSearchProvider, staticAnswerer } from '../../src/testing/index.ts';
import { chromiumOrSkip, launchBrowser } from './browser.ts';
import { listenConsoleAndApi, memoryConsole } from './memory-console.ts';

const PASSWORD = 'links-password-1';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start(options: Partial<ConsoleOptions> = {}) {
  const search = fakeSearchProvider([{ url: 'https://example.com/a', title: 'A', content: 'Keys.' }]);
  const answerer = staticAnswerer({ answer: 'Keys [1].', sources: ['https://example.com/a'] });
  const { engine, app, accounts } = memoryConsole({ search, answerer }, options);
  const server = await listenConsoleAndApi(app, engine);
  closers.push(
    () => engine.close(),
    () => app.close(),
    () => server.close(),
  );
  return { baseUrl: server.baseUrl, accounts };
}

/** A client that keeps its session cookie and sends the `Host` it is given (the server's own by default). */
function browser(baseUrl: string, host = new URL(baseUrl).host) {
  let cookie = '';
  let csrf = '';
  const origin = `http://${host}`;
  const send = async (method: string, path: string, form?: Record<string, string>) => {
    const response = await request(`${baseUrl}${path}`, {
      method: method as 'GET' | 'POST',
      headers: {
        host,
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin } : {}),
      },
      ...(form
        ? { body: new URLSearchParams({ ...(csrf ? { _csrf: csrf } : {}), ...form }).toString() }
        : {}),
    });
    const setCookie = response.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      if (line.startsWith(`${SESSION_COOKIE}=`)) cookie = line.split(';')[0]!;
    }
    const text = await response.body.text();
    const token = /<meta name="csrf-token" content="([^"]+)"/.exec(text)?.[1];
    if (token) csrf = token;
    return { status: response.statusCode, text };
  };
  return {
    send,
    async signUp(email: string) {
      expect((await send('POST', '/sign-up', { email, password: PASSWORD })).status).toBe(303);
      await send('GET', '/keys');
    },
  };
}

/** Signs up an operator and a member; the operator's client makes reset links for the member. */
async function operatorAndMember(baseUrl: string, accounts: AccountStore, host?: string) {
  const operator = browser(baseUrl, host);
  await operator.signUp('operator@example.com');
  await accounts.setOperator((await accounts.findUserByEmail('operator@example.com'))!.id, true);
  await browser(baseUrl).signUp('member@example.com');
  await operator.send('GET', '/operator');
  const resetLink = async () => {
    const made = await operator.send('POST', '/operator/reset-link', { email: 'member@example.com' });
    expect(made.status).toBe(200);
    return /data-testid="reset-link"[^>]*>([^<]+)</.exec(made.text)![1]!;
  };
  return { operator, resetLink };
}

/** The status of opening a reset link (its path below the test server). */
async function open(baseUrl: string, link: string): Promise<number> {
  return (await request(`${baseUrl}${new URL(link).pathname}`)).statusCode;
}

describe('password reset links', () => {
  it('a new password revokes every outstanding reset link: by another link, the account page and the CLI', async () => {
    const { baseUrl, accounts } = await start();
    const { resetLink } = await operatorAndMember(baseUrl, accounts);

    // Two links; the second is used: the first stops working, not only the used one.
    const first = await resetLink();
    const second = await resetLink();
    expect(await open(baseUrl, first)).toBe(200);
    const used = await browser(baseUrl).send('POST', new URL(second).pathname, {
      password: 'links-password-2',
    });
    expect(used.status).toBe(303);
    expect(await open(baseUrl, second)).toBe(404);
    expect(await open(baseUrl, first)).toBe(404);
    const late = await browser(baseUrl).send('POST', new URL(first).pathname, {
      password: 'attacker-pass-1',
    });
    expect(late.status).toBe(404);

    // A link made before the member changes the password on the account page.
    const beforeChange = await resetLink();
    const member = browser(baseUrl);
    expect(
      (await member.send('POST', '/sign-in', { email: 'member@example.com', password: 'links-password-2' }))
        .status,
    ).toBe(303);
    await member.send('GET', '/account');
    const changed = await member.send('POST', '/account', {
      current: 'links-password-2',
      password: 'links-password-3',
    });
    expect(changed.status).toBe(303);
    expect(await open(baseUrl, beforeChange)).toBe(404);

    // A link made before the operator sets a password with `citewise console reset-password --password-stdin`.
    const beforeCli = await resetLink();
    expect(await open(baseUrl, beforeCli)).toBe(200);
    await setPassword(accounts, (await accounts.findUserByEmail('member@example.com'))!, 'links-password-4');
    expect(await open(baseUrl, beforeCli)).toBe(404);

    // A link made after the last change still works.
    expect(await open(baseUrl, await resetLink())).toBe(200);
  });
});

describe('links below publicUrl', () => {
  it('builds invitation and reset links below publicUrl, whatever Host the request names', async () => {
    const { baseUrl, accounts } = await start({ publicUrl: 'https://search.example.com/' });
    const { operator, resetLink } = await operatorAndMember(baseUrl, accounts, 'attacker.example:8080');
    expect(await resetLink()).toMatch(/^https:\/\/search\.example\.com\/reset\/[\w-]{43}$/);
    await operator.send('GET', '/members');
    const invited = await operator.send('POST', '/members', { role: 'member' });
    expect(invited.status).toBe(201);
    expect(/data-testid="invite-link"[^>]*>([^<]+)</.exec(invited.text)![1]).toMatch(
      /^https:\/\/search\.example\.com\/invite\/[\w-]{43}$/,
    );
    expect(invited.text).not.toContain('attacker.example');
  });

  it('without publicUrl, links use the origin the request reached', async () => {
    const { baseUrl, accounts } = await start();
    const { resetLink } = await operatorAndMember(baseUrl, accounts);
    expect(await resetLink()).toMatch(new RegExp(`^${baseUrl}/reset/[\\w-]{43}$`));
  });
});

describe.runIf(chromiumOrSkip())(
  'the playground with publicUrl (headless Chromium)',
  { timeout: 90_000 },
  () => {
    it('copies a curl command for the public URL, not the address the browser opened', async () => {
      const { baseUrl } = await start({ publicUrl: 'https://search.example.com' });
      const chromium = await launchBrowser();
      closers.push(() => chromium.close());
      const page = await chromium.newPage();
      await page.goto(`${baseUrl}/sign-up`);
      await page.getByLabel('Email').fill('curl@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL('**/keys');
      await page.getByLabel('Name').fill('curl');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('new-api-key').waitFor();
      await page.goto(`${baseUrl}/playground`);
      expect(await page.getByTestId('curl').textContent()).toMatch(
        /^curl -sS 'https:\/\/search\.example\.com\/v1\/search'/,
      );
    });
  },
);
