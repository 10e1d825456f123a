/**
 * Budgets per key and the audit log in the console, in headless Chromium against a real `citewise serve`
 * (SQLite in a temporary data directory): a key created with a budget on the API keys page, its 433, the
 * budget changed on its page; sign-ins (and a failed one), sign-out, members and the CLI's entries on the
 * Audit page, its filters and CSV, the operator's view of every organization, a member refused; every
 * page at desktop width and at 375 px (no page-wide horizontal scroll, axe-core clean).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { chromiumOrSkip, launchBrowser, seriousAxeViolations } from './browser.ts';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };
const MEMBER = { email: 'member@example.com', password: 'member-password-1' };
const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
const hasChromium = chromiumOrSkip();

let serve: ServeProcess;
let browser: Browser;
let dataDir: string;
let owner: BrowserContext;
let page: Page;

async function search(key: string): Promise<Response> {
  return fetch(`${serve.baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'What does GET /v1/balance return?' }),
  });
}

/** The page at desktop width and on a phone: axe-core clean, and no horizontal scroll of the page. */
async function checkBothWidths(name: string): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(layout.scrollWidth, `horizontal scroll at ${size.width} px on ${name}`).toBeLessThanOrEqual(
      layout.clientWidth,
    );
    expect(await seriousAxeViolations(page), `axe at ${size.width} px on ${name}`).toEqual([]);
  }
  await page.setViewportSize(DESKTOP);
}

async function signIn(target: Page, who: { email: string; password: string }): Promise<void> {
  await target.goto(`${serve.baseUrl}/sign-in`);
  await target.getByLabel('Email').fill(who.email);
  await target.getByLabel('Password').fill(who.password);
  await target.getByRole('button', { name: 'Sign in' }).click();
}

/** The audit table's rows as text cells (time left out). */
async function auditRows(): Promise<string[][]> {
  return page
    .locator('table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].slice(1).map((td) => td.textContent.trim())),
    );
}

beforeAll(async () => {
  if (!hasChromium) return;
  dataDir = mkdtempSync(join(tmpdir(), 'citewise-console-audit-'));
  serve = await startServe(['--data-dir', dataDir]);
  browser = await launchBrowser();
  owner = await browser.newContext({ viewport: DESKTOP });
  page = await owner.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(hasChromium)(
  'budgets and the audit log in the console (Chromium)',
  { timeout: 120_000 },
  () => {
    let key = '';

    it('creates a key with a budget of 1 credit a day; past it, a search gets 433', async () => {
      await page.goto(`${serve.baseUrl}/sign-up`);
      await page.getByLabel('Email').fill(OWNER.email);
      await page.getByLabel('Password').fill(OWNER.password);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL('**/keys');
      await page.getByLabel('Name').fill('agent');
      await page.getByLabel('Budget (credits)').fill('1');
      await page.getByLabel('Per').selectOption('day');
      await page.getByRole('button', { name: 'Create key' }).click();
      key = (await page.getByTestId('new-api-key').textContent())!.trim();
      expect(await page.getByTestId('key-budget').first().textContent()).toMatch(/1 credit a day/);
      await checkBothWidths('keys with a budget');

      expect((await search(key)).status).toBe(200);
      const refused = await search(key);
      expect(refused.status).toBe(433);
      expect(((await refused.json()) as { error: { description: string } }).error.description).toMatch(
        /^Account is at \/ over message quota: API key key_[0-9a-f]+ has a budget of 1 credit a day, 0 left/,
      );
    });

    it("changes the key's budget on its page; the key searches again", async () => {
      await page.goto(`${serve.baseUrl}/keys`);
      await page.getByRole('link', { name: 'Change the budget of agent' }).click();
      await page.waitForURL('**/keys/*/budget');
      expect(await page.getByLabel('Budget (credits)').inputValue()).toBe('1');
      await checkBothWidths('budget page');
      // The field takes digits only (the server refuses anything else too).
      expect(await page.getByLabel('Budget (credits)').getAttribute('pattern')).toBe('[0-9]*');
      await page.getByLabel('Budget (credits)').fill('5');
      await page.getByLabel('Per').selectOption('month');
      await page.getByRole('button', { name: 'Save budget' }).click();
      expect(await page.getByTestId('key-notice').textContent()).toBe(
        'The budget of agent is now 5 credits a month.',
      );
      expect(await page.getByTestId('key-budget').first().textContent()).toMatch(/5 credits a month/);
      expect((await search(key)).status).toBe(200);
    });

    it('shows sign-ins, a failed one, sign-out, the key and its budget on the Audit page, filtered and as CSV', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL('**/sign-in');
      await signIn(page, { email: OWNER.email, password: 'not-the-password' });
      expect(await page.getByText('Email or password is incorrect.').count()).toBe(1);
      await signIn(page, OWNER);
      await page.waitForURL('**/keys');
      // An invitation, and a member who joins through it.
      await page.getByRole('link', { name: 'Members' }).click();
      await page.getByRole('button', { name: 'Invite' }).click();
      const link = (await page.getByTestId('invite-link').textContent())!.trim();
      const memberContext = await browser.newContext();
      const memberPage = await memberContext.newPage();
      await memberPage.goto(link);
      const region = memberPage.getByRole('region', { name: 'New to citewise' });
      await region.getByLabel('Email').fill(MEMBER.email);
      await region.getByLabel('Password').fill(MEMBER.password);
      await region.getByRole('button', { name: 'Sign up' }).click();
      await memberPage.waitForURL('**/keys');

      await page.getByRole('link', { name: 'Audit' }).click();
      await page.waitForURL('**/audit');
      const rows = await auditRows();
      const actions = rows.map((cells) => cells[1]);
      expect(actions).toEqual([
        'member_joined',
        'member_invited',
        'sign_in',
        'sign_in_failed',
        'sign_out',
        'budget_set',
        'key_created',
        'member_joined',
      ]);
      expect(rows[0]).toEqual([
        MEMBER.email,
        'member_joined',
        MEMBER.email,
        'invitation accepted: member',
        '127.0.0.1',
      ]);
      expect(rows[3]).toEqual([OWNER.email, 'sign_in_failed', OWNER.email, 'password', '127.0.0.1']);
      expect(rows[5]!.slice(0, 2)).toEqual([OWNER.email, 'budget_set']);
      expect(rows[5]![3]).toBe('5 credits a month');
      expect(rows[6]![3]).toBe('agent, budget 1 credit a day');
      await checkBothWidths('audit');

      await page.getByLabel('Action').selectOption('key_created');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/\/audit\?action=key_created&/);
      expect((await auditRows()).map((cells) => cells[1])).toEqual(['key_created']);

      const csvHref = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
      expect(csvHref).toBe('/audit.csv?action=key_created');
      const csv = await page.request.get(`${serve.baseUrl}${csvHref}`);
      expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).toBe('"time","actor","action","organization","target","detail","ip"');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(
        /"owner@example.com","key_created","org_[^"]+","key_[0-9a-f]+","agent, budget 1 credit a day","127.0.0.1"$/,
      );

      // A member sees no Audit link, and the page refuses them.
      expect(await memberPage.getByRole('link', { name: 'Audit' }).count()).toBe(0);
      const refused = await memberPage.goto(`${serve.baseUrl}/audit`);
      expect(refused?.status()).toBe(403);
      await memberContext.close();
    });

    it('the operator sees every organization, with the CLI entries, and filters one', async () => {
      const made = await runCli(['console', 'operator', OWNER.email, '--data-dir', dataDir]);
      expect(made.code, made.stderr).toBe(0);
      const created = await runCli([
        'keys',
        'create',
        '--data-dir',
        dataDir,
        '--name',
        'ops',
        '--budget',
        '100/month',
      ]);
      expect(created.code, created.stderr).toBe(0);
      await page.goto(`${serve.baseUrl}/audit`);
      const rows = await auditRows();
      expect(rows[0]!.slice(0, 2)).toEqual(['cli', 'key_created']);
      expect(rows[0]![3]).toBe('ops, budget 100 credits a month');
      expect(rows[1]).toEqual(['operator', 'operator_action', OWNER.email, 'made the operator', '—', '']);
      expect(await page.getByRole('columnheader', { name: 'Organization' }).count()).toBe(1);
      await checkBothWidths('audit (operator)');
      const organization = page.getByLabel('Organization');
      const options = await organization.locator('option').allTextContents();
      expect(options).toEqual(['All', "owner's organization"]);
      await organization.selectOption({ label: "owner's organization" });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/\/audit\?.*organization=org_/);
      const own = await auditRows();
      expect(own.every((cells) => cells[4] === "owner's organization")).toBe(true);
      expect(own.map((cells) => cells[1])).toContain('key_created');
    });
  },
);
