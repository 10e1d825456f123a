/**
 * Console attacks of issue #36 in headless Chromium against the console over real HTTP (127.0.0.1): a
 * removed admin cannot come back through an invitation they created (item 3), a key named like a
 * spreadsheet formula is quoted in the usage CSV (item 8), and someone who knows an email cannot lock its
 * owner out (item 10). The console trusts X-Forwarded-For here, so each browser has an address of its own.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountStore, Console } from '../../src/console/index.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import type { Answerer, SearchProvider } from '../../src/pipeline/types.ts';
import type { ListeningServer } from '../support/loopback-server.ts';
import { chromiumOrSkip, launchBrowser } from './browser.ts';
import { listenConsoleAndApi, memoryConsole } from './memory-console.ts';

const hasChromium = chromiumOrSkip();
const PASSWORD = 'abuse-password-1';
const search: SearchProvider = {
  id: 'fixed',
  search: async () => [{ url: 'https://example.com/keys', title: 'Keys', content: 'Revoke a key there.' }],
};
const answerer: Answerer = {
  answer: async () => ({ answer: 'On the API keys page [1].', sources: ['https://example.com/keys'] }),
};

let server: ListeningServer;
let engine: SearchEngine;
let app: Console;
let accounts: AccountStore;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  ({ engine, app, accounts } = memoryConsole(
    { search, answerer },
    {
      trustProxy: true,
      signInLimitPerAccount: { limit: 3, windowMs: 600_000 },
      signInLimitPerAddress: { limit: 20, windowMs: 600_000 },
    },
  ));
  server = await listenConsoleAndApi(app, engine);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await server?.close();
  await engine?.close();
});

/** A new browser, seen by the console as coming from `address` (X-Forwarded-For; the console trusts it). */
async function newBrowser(address: string): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } });
  contexts.push(context);
  return context.newPage();
}

async function signUp(page: Page, email: string): Promise<void> {
  await page.goto(`${server.baseUrl}/sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/keys');
}

/** The rows of a CSV whose cells are all quoted (`""` inside a cell is a quote). */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .map((line) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((match) => match[1]!.replace(/""/g, '"')));
}

/** Signs in; the page's status. */
async function signIn(page: Page, email: string, password = PASSWORD): Promise<number> {
  await page.goto(`${server.baseUrl}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.waitForLoadState();
  return response.status();
}

/** Invites with a role from the members page; the link. */
async function invite(page: Page, role: 'member' | 'admin'): Promise<string> {
  await page.goto(`${server.baseUrl}/members`);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Invite' }).click();
  return (await page.getByTestId('invite-link').textContent())!.trim();
}

describe.runIf(hasChromium)('console abuse (headless Chromium)', { timeout: 90_000 }, () => {
  it('a removed admin cannot come back through an invitation they created; the list names who made each one', async () => {
    const owner = await newBrowser('10.36.3.1');
    await signUp(owner, 'owner3@example.com');
    const adminLink = await invite(owner, 'admin');
    const admin = await newBrowser('10.36.3.2');
    await admin.goto(adminLink);
    const region = admin.getByRole('region', { name: 'New to citewise' });
    await region.getByLabel('Email').fill('admin3@example.com');
    await region.getByLabel('Password').fill(PASSWORD);
    await region.getByRole('button', { name: 'Sign up' }).click();
    await admin.waitForURL('**/keys');
    // The admin makes a link for later, before being removed.
    const backdoor = await invite(admin, 'member');

    await owner.goto(`${server.baseUrl}/members`);
    const pending = owner.getByRole('listitem').filter({ hasText: 'created by admin3@example.com' });
    expect(await pending.count()).toBe(1);
    await owner.getByRole('button', { name: 'Remove admin3@example.com' }).click();
    await owner.waitForURL('**/members');
    expect(await owner.getByText('created by admin3@example.com').count()).toBe(0);

    // The link is dead: shown as such, and accepting it does not make them a member again.
    const reopened = await admin.goto(backdoor);
    expect(reopened!.status()).toBe(404);
    // Signed out, straight to the form's target (as if the page had been kept open).
    const signedOut = await newBrowser('10.36.3.2');
    const forced = await signedOut.request.post(backdoor, {
      form: { intent: 'sign-in', email: 'admin3@example.com', password: PASSWORD },
      headers: { origin: server.baseUrl },
    });
    expect(forced.status()).toBe(404);
    await admin.goto(`${server.baseUrl}/keys`);
    expect(await admin.getByText('You are not a member of any organization').count()).toBe(1);
  });

  it('a key named like a formula is quoted in the usage CSV (-, +, = and @ cells), numbers are not', async () => {
    const page = await newBrowser('10.36.8.1');
    await signUp(page, 'owner8@example.com');
    // (A key name is trimmed, so none starts with a tab or a carriage return.)
    const names = ['-1+HYPERLINK("http://evil.test/","x")', '+1+1', '=1+1', '@SUM(1)'];
    for (const name of names) {
      await page.goto(`${server.baseUrl}/keys`);
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.getByTestId('new-api-key').textContent())!.trim();
      const searched = await fetch(`${server.baseUrl}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'How do I revoke a key?' }),
      });
      expect(searched.status).toBe(200);
    }
    const csv = await (await page.request.get(`${server.baseUrl}/usage.csv`)).text();
    const rows = parseCsv(csv).slice(1);
    const keyNames = rows.filter((cells) => cells[1] === 'charge').map((cells) => cells[4]);
    expect(keyNames.sort()).toEqual(names.map((name) => `'${name}`).sort());
    // Credits are numbers and stay as they are.
    expect(rows.map((cells) => cells[2])).toEqual(expect.arrayContaining(['-1', '+1000']));
  });

  it('ten wrong passwords from one address do not lock the owner out: the right one from their own address gets in', async () => {
    const owner = await newBrowser('10.36.10.1');
    await signUp(owner, 'owner10@example.com');
    await owner.context().clearCookies();
    const attacker = await newBrowser('10.36.10.66');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push(await signIn(attacker, 'owner10@example.com', `guess-number-${i}`));
    // The account's limit here is 3 failures: then this address waits, and says so.
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(new Set(statuses.slice(3))).toEqual(new Set([429]));
    expect(await attacker.getByText('Too many attempts').count()).toBe(1);
    // The owner, from an address without failures, with the right password.
    expect(await signIn(owner, 'owner10@example.com')).toBe(303);
    await owner.waitForURL('**/keys');
    expect(await owner.getByRole('heading', { name: 'API keys' }).count()).toBe(1);
  });

  it('an invitation whose creator is no longer an owner or admin there is refused when used', async () => {
    const owner = await newBrowser('10.36.3.3');
    await signUp(owner, 'owner3b@example.com');
    const ownerUser = (await accounts.findUserByEmail('owner3b@example.com'))!;
    const [membership] = await accounts.listUserOrganizations(ownerUser.id);
    const stranger = (await accounts.findUserByEmail('owner3@example.com'))!;
    // Made by someone who is not a member of this organization (as a link created while its creator was
    // being removed would be).
    const { token } = await accounts.createInvitation({
      organizationId: membership!.organizationId,
      role: 'member',
      createdBy: stranger.id,
      expiresAt: Date.now() + 60_000,
    });
    const page = await newBrowser('10.36.3.4');
    const response = await page.goto(`${server.baseUrl}/invite/${token}`);
    expect(response!.status()).toBe(404);
    expect(await page.getByText('This invitation link is not valid any more').count()).toBe(1);
  });
});
