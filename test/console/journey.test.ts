/**
 * The console's journey in headless Chromium against a real `citewise serve` (SQLite in a temporary data
 * directory, the built-in docs as corpus): sign up, keys, a search, usage, revocation, invitations and
 * roles, the playground, the operator (setup link, grant, suspend, maintenance) and its CLI commands,
 * keyboard-only use, and on every page: axe-core, a visible label on every field and under 100 KB of
 * JavaScript. With CITEWISE_SCREENSHOTS=1 the run also writes the manual's screenshots to
 * docs/images/console-*.png.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, runScript, startServe, type ServeProcess } from '../support/cli.ts';
import { chromiumOrSkip, launchBrowser, seriousAxeViolations } from './browser.ts';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };
const MEMBER = { email: 'member@example.com', password: 'member-password-1' };
const SCREENSHOTS = process.env['CITEWISE_SCREENSHOTS'] === '1';
const hasChromium = chromiumOrSkip();
const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
/** JavaScript a console page may load (the issue: "first paint of each page under 100 KB of JS"). */
const JS_BUDGET_BYTES = 100_000;
/** A phone's viewport (an iPhone SE / 8 in CSS pixels). */
const PHONE = { width: 375, height: 740 };

let serve: ServeProcess;
let browser: Browser;
let dataDir: string;
let owner: BrowserContext;
let ownerPage: Page;
const secrets: string[] = [OWNER.password, MEMBER.password];
const checkedPages = new Set<string>();
const missingFavicons: string[] = [];

async function search(key: string, prompt = 'What does GET /v1/balance return?'): Promise<Response> {
  return fetch(`${serve.baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
}

/** Bytes of every script the page loads (all of them are files of the console: no inline script). */
async function scriptBytes(page: Page): Promise<number> {
  const sources = await page
    .locator('script')
    .evaluateAll((scripts) => scripts.map((script) => (script as HTMLScriptElement).src));
  let total = 0;
  for (const source of sources) {
    expect(source, 'a script without src').not.toBe('');
    total += (await (await fetch(source)).arrayBuffer()).byteLength;
  }
  return total;
}

/** Form fields (other than hidden ones and buttons) without a visible, non-empty label. */
function fieldsWithoutVisibleLabel(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((field) => !['hidden', 'submit', 'button'].includes((field as HTMLInputElement).type))
      .filter((field) => {
        const labels = [...((field as HTMLInputElement).labels ?? [])];
        return !labels.some((label) => {
          const box = label.getBoundingClientRect();
          const style = getComputedStyle(label);
          return (
            box.width > 1 &&
            box.height > 1 &&
            style.visibility !== 'hidden' &&
            style.clip === 'auto' &&
            (label.textContent ?? '').trim() !== ''
          );
        });
      })
      .map((field) => field.outerHTML.slice(0, 120)),
  );
}

/**
 * Once per page name: axe-core (no serious or critical violation), a visible label on every field, and
 * the JavaScript the page loads within the budget. With `screenshot`, the manual's screenshot when asked.
 */
async function checkPage(page: Page, name: string, screenshot = true): Promise<void> {
  if (SCREENSHOTS && screenshot) {
    await page.screenshot({ path: join(IMAGES, `console-${name}.png`), fullPage: true });
  }
  if (checkedPages.has(name)) return;
  checkedPages.add(name);
  expect(await seriousAxeViolations(page), `axe on ${name}`).toEqual([]);
  expect(await fieldsWithoutVisibleLabel(page), `fields without a visible label on ${name}`).toEqual([]);
  expect(await scriptBytes(page), `JavaScript of ${name}`).toBeLessThan(JS_BUDGET_BYTES);
  await checkOnPhone(page, name);
}

/**
 * The page on a phone (375 × 740 CSS px): no horizontal scroll of the page (wide tables scroll in their
 * own box), the header within a fifth of the screen, and axe again at that width.
 */
async function checkOnPhone(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize(PHONE);
  try {
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      header: document.querySelector('header')?.getBoundingClientRect().height ?? 0,
    }));
    expect(layout.scrollWidth, `horizontal scroll at ${PHONE.width} px on ${name}`).toBeLessThanOrEqual(
      layout.clientWidth,
    );
    expect(layout.header, `header height at ${PHONE.width} px on ${name}`).toBeLessThanOrEqual(
      PHONE.height / 5,
    );
    expect(await seriousAxeViolations(page), `axe at ${PHONE.width} px on ${name}`).toEqual([]);
  } finally {
    if (size) await page.setViewportSize(size);
  }
}

async function signUp(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${serve.baseUrl}/sign-up`);
  await checkPage(page, 'sign-up');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/keys');
}

async function createKey(page: Page, name: string): Promise<string> {
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-api-key').textContent())!.trim();
  secrets.push(key);
  return key;
}

beforeAll(async () => {
  if (!hasChromium) return;
  dataDir = mkdtempSync(join(tmpdir(), 'citewise-console-journey-'));
  serve = await startServe(['--data-dir', dataDir, '--log-level', 'info']);
  browser = await launchBrowser();
  owner = await browser.newContext();
  ownerPage = await owner.newPage();
  ownerPage.on('response', (response) => {
    if (/favicon/.test(response.url()) && response.status() >= 400) missingFavicons.push(response.url());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// Each step drives a real serve, Chromium and sometimes the CLI: generous timeouts for a loaded machine.
describe.runIf(hasChromium)('console journey (headless Chromium, real serve)', { timeout: 90_000 }, () => {
  let key = '';
  let ownerKey = '';

  it('1. signs up and shows 1,000 credits', async () => {
    await signUp(ownerPage, OWNER);
    expect(await ownerPage.getByTestId('available-credits').textContent()).toBe('1,000');
    expect(await ownerPage.getByText('your role: owner').count()).toBe(1);
    await checkPage(ownerPage, 'keys');
  });

  it('2. creates a key that searches with 200', async () => {
    key = await createKey(ownerPage, 'journey');
    expect(key).toMatch(/^cw_[A-Za-z0-9]{32,}$/);
    await checkPage(ownerPage, 'new-key');
    const response = await search(key);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { sources: unknown };
    expect(Array.isArray(body.sources)).toBe(true);
    // The key is shown once: reloading the page shows only its prefix.
    await ownerPage.goto(`${serve.baseUrl}/keys`);
    expect(await ownerPage.content()).not.toContain(key);
    expect(await ownerPage.getByText(`${key.slice(0, 8)}…`).count()).toBe(1);
  });

  it('3. shows 999 credits and 1 search in usage, per key, in the ledger and the CSV', async () => {
    await ownerPage.getByRole('link', { name: 'Usage' }).click();
    await ownerPage.waitForURL('**/usage');
    expect(await ownerPage.getByTestId('available-credits').textContent()).toBe('999');
    expect(await ownerPage.getByTestId('searches-30-days').textContent()).toBe('1');
    expect(
      await ownerPage.getByRole('cell', { name: `journey (${key.slice(0, 8)}…)` }).count(),
    ).toBeGreaterThan(0);
    await checkPage(ownerPage, 'usage');
    // The chart's dates are text under it, readable on a phone (SVG text shrank with the chart).
    await ownerPage.setViewportSize(PHONE);
    const axis = ownerPage.locator('.chart-axis span').first();
    expect(await axis.textContent()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(parseFloat(await axis.evaluate((node) => getComputedStyle(node).fontSize))).toBeGreaterThanOrEqual(
      12,
    );
    await ownerPage.setViewportSize({ width: 1280, height: 720 });
    const csv = await ownerPage.request.get(`${serve.baseUrl}/usage.csv`);
    expect(csv.headers()['content-type']).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('"time","entry","credits","key_id","key_name","note"');
    expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(['"charge"', '"grant"']);
  });

  it('4. asks before revoking the key, says it was revoked, and the key then gets 401', async () => {
    await ownerPage.getByRole('link', { name: 'API keys' }).click();
    // Dismissed: nothing happens.
    const dismissed = new Promise<string>((resolve) =>
      ownerPage.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      }),
    );
    await ownerPage.getByRole('button', { name: 'Revoke journey' }).click();
    expect(await dismissed).toMatch(/^Revoke the key “journey” \(cw_\w+…\)\? .*401/);
    expect((await search(key)).status).toBe(200);
    ownerPage.once('dialog', (dialog) => void dialog.accept());
    await ownerPage.getByRole('button', { name: 'Revoke journey' }).click();
    await expect
      .poll(() => ownerPage.getByTestId('key-notice').textContent())
      .toMatch(/^The key “journey” \(cw_\w+…\) was revoked: it stops working at once\.$/);
    expect(await ownerPage.getByText('revoked', { exact: true }).count()).toBe(1);
    expect((await search(key)).status).toBe(401);
  });

  it('has a favicon: the pages link it, and /favicon.ico answers', async () => {
    const href = await ownerPage.locator('link[rel="icon"]').getAttribute('href');
    const icon = await fetch(new URL(href!, serve.baseUrl));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect((await fetch(`${serve.baseUrl}/favicon.ico`)).status).toBe(200);
    expect(missingFavicons).toEqual([]);
  });

  it('5. invites a member who signs up through the link and sees the organization', async () => {
    ownerKey = await createKey(ownerPage, 'owner key');
    await ownerPage.getByRole('link', { name: 'Members' }).click();
    await ownerPage.getByRole('button', { name: 'Invite' }).click();
    const link = (await ownerPage.getByTestId('invite-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${serve.baseUrl}/invite/[A-Za-z0-9_-]{43}$`));
    await checkPage(ownerPage, 'members');

    const member = await browser.newContext();
    const page = await member.newPage();
    await page.goto(link);
    await checkPage(page, 'invitation');
    const newAccount = page.getByRole('region', { name: 'New to citewise' });
    await newAccount.getByLabel('Email').fill(MEMBER.email);
    await newAccount.getByLabel('Password').fill(MEMBER.password);
    await newAccount.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL('**/keys');
    expect(await page.getByText("owner's organization").count()).toBeGreaterThan(0);
    expect(await page.getByText('your role: member').count()).toBe(1);
    // The link works once.
    const again = await fetch(link);
    expect(again.status).toBe(404);
    await member.close();
  });

  it("6. a member cannot revoke the owner's key (no button, and a forged request gets 403)", async () => {
    const member = await browser.newContext();
    const page = await member.newPage();
    await page.goto(`${serve.baseUrl}/sign-in`);
    await checkPage(page, 'sign-in');
    await page.getByLabel('Email').fill(MEMBER.email);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    expect(await page.getByRole('button', { name: 'Revoke owner key' }).count()).toBe(0);
    const keyId = await ownerKeyId();
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const forged = await page.request.post(`${serve.baseUrl}/keys/${keyId}/revoke`, {
      form: { _csrf: csrf! },
      headers: { origin: serve.baseUrl },
    });
    expect(forged.status()).toBe(403);
    expect((await search(ownerKey)).status).toBe(200);
    // A member creates and revokes their own key.
    const own = await createKey(page, 'member key');
    await page.goto(`${serve.baseUrl}/keys`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke member key' }).click();
    await expect.poll(() => page.getByTestId('key-notice').count()).toBe(1);
    expect((await search(own)).status).toBe(401);
    await member.close();
  });

  it('removing a member revokes the keys they created', async () => {
    const member = await browser.newContext();
    const page = await member.newPage();
    await page.goto(`${serve.baseUrl}/sign-in`);
    await page.getByLabel('Email').fill(MEMBER.email);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    const memberKey = await createKey(page, 'second member key');
    expect((await search(memberKey)).status).toBe(200);
    await ownerPage.getByRole('link', { name: 'Members' }).click();
    await ownerPage.getByRole('button', { name: `Remove ${MEMBER.email}` }).click();
    await ownerPage.waitForURL('**/members');
    expect((await search(memberKey)).status).toBe(401);
    await page.goto(`${serve.baseUrl}/keys`);
    expect(await page.getByText('You are not a member of any organization').count()).toBe(1);
    await checkPage(page, 'no-organization', false);
    const missing = await page.goto(`${serve.baseUrl}/invite/not-a-token`); // the console's error page
    expect(missing!.status()).toBe(404);
    await checkPage(page, 'error', false);
    await member.close();
  });

  it('the playground streams an answer with its sources and copies curl with the key prefix only', async () => {
    await ownerPage.getByRole('link', { name: 'Playground' }).click();
    await ownerPage.getByLabel('Question').fill('How do I revoke an API key?');
    await ownerPage.getByLabel('Response type').selectOption('markdown');
    await ownerPage.getByRole('button', { name: 'Ask' }).click();
    await ownerPage.getByText(/^Done in \d+ ms\.$/).waitFor({ timeout: 30_000 });
    expect((await ownerPage.getByTestId('answer').textContent())!.length).toBeGreaterThan(20);
    // Local documents are cited by their location; web sources become links (noopener noreferrer nofollow).
    expect(await ownerPage.getByTestId('sources').locator('li').count()).toBeGreaterThan(0);
    for (const link of await ownerPage.getByTestId('sources').locator('a').all()) {
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    }
    const curl = (await ownerPage.getByTestId('curl').textContent())!;
    expect(curl).toContain(`Bearer ${ownerKey.slice(0, 8)}…`);
    expect(curl).not.toContain(ownerKey);
    expect(curl).toContain('/v1/search');
    await checkPage(ownerPage, 'playground');
  });

  it('the Documents page adds a pasted document that the organization then lists', async () => {
    await ownerPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Documents' })
      .click();
    await ownerPage.waitForURL('**/documents');
    await ownerPage.getByLabel('Title').fill('Office handbook');
    await ownerPage.getByLabel('Format').selectOption('markdown');
    await ownerPage
      .getByLabel('Content')
      .fill('# Office handbook\n\n## Badges\n\nLost badges are replaced at the front desk within one day.\n');
    await ownerPage.getByRole('button', { name: 'Add document' }).click();
    await ownerPage.getByTestId('document-row').filter({ hasText: 'Office handbook' }).waitFor();
    await checkPage(ownerPage, 'documents');
  });

  it('the operator comes from the one-time setup link, grants credits, suspends and switches maintenance', async () => {
    const setupLink = readFileSync(join(dataDir, 'operator-setup-link.txt'), 'utf8').trim();
    expect(serve.output()).not.toContain(setupLink); // not a TTY: only the file's path is printed
    expect(serve.output()).toContain('operator-setup-link.txt');
    await ownerPage.goto(setupLink);
    await checkPage(ownerPage, 'operator-setup');
    await ownerPage.getByRole('button', { name: 'Become operator' }).click();
    await ownerPage.waitForURL('**/operator');
    await checkPage(ownerPage, 'operator');
    expect((await fetch(setupLink)).status).toBe(404);

    const org = "owner's organization";
    await ownerPage
      .getByRole('row', { name: new RegExp(org) })
      .getByRole('spinbutton', { name: 'Credits' })
      .fill('500');
    await ownerPage.getByRole('button', { name: `Grant credits to ${org}` }).click();
    await ownerPage.waitForURL('**/operator');
    await ownerPage.getByRole('link', { name: 'Usage' }).click();
    const credits = Number(
      (await ownerPage.getByTestId('available-credits').textContent())!.replace(/,/g, ''),
    );
    expect(credits).toBeGreaterThan(1000);
    expect(await ownerPage.getByRole('cell', { name: `granted by ${OWNER.email}` }).count()).toBe(1);

    await ownerPage.getByRole('link', { name: 'Operator' }).click();
    await ownerPage.getByRole('button', { name: `Suspend ${org}` }).click();
    await ownerPage.waitForURL('**/operator');
    expect((await search(ownerKey)).status).toBe(401);
    await ownerPage.getByRole('button', { name: `Reactivate ${org}` }).click();
    await ownerPage.waitForURL('**/operator');
    expect((await search(ownerKey)).status).toBe(200);

    await ownerPage.getByRole('button', { name: 'Start maintenance' }).click();
    await ownerPage.waitForURL('**/operator');
    expect((await search(ownerKey)).status).toBe(503);
    await ownerPage.getByRole('button', { name: 'End maintenance' }).click();
    await ownerPage.waitForURL('**/operator');
    expect((await search(ownerKey)).status).toBe(200);
  });

  it('the operator page lists the credit accounts outside the console and grants them credits', async () => {
    // The first start's account (its key is in first-key.txt) is no organization of the console.
    const firstKey = serve.firstKey()!;
    const before = (await (
      await fetch(`${serve.baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${firstKey}` } })
    ).json()) as { available_credits: number };
    const listed = JSON.parse((await runCli(['keys', 'list', '--json', '--data-dir', dataDir])).stdout) as {
      accountId: string;
      prefix: string;
    }[];
    const account = listed.find((record) => firstKey.startsWith(record.prefix))!.accountId;
    await ownerPage.goto(`${serve.baseUrl}/operator`);
    expect(await ownerPage.getByTestId(`account-credits-${account}`).textContent()).toBe(
      before.available_credits.toLocaleString('en-US'),
    );
    await ownerPage
      .getByRole('row', { name: new RegExp(account) })
      .getByRole('spinbutton', { name: 'Credits' })
      .fill('25');
    await ownerPage.getByRole('button', { name: `Grant credits to ${account}` }).click();
    await ownerPage.waitForURL('**/operator');
    expect(await ownerPage.getByTestId(`account-credits-${account}`).textContent()).toBe(
      (before.available_credits + 25).toLocaleString('en-US'),
    );
    const after = (await (
      await fetch(`${serve.baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${firstKey}` } })
    ).json()) as { available_credits: number };
    expect(after.available_credits).toBe(before.available_credits + 25);
  });

  it('the operator makes a one-time password reset link; the member sets a new password with it', async () => {
    await ownerPage.goto(`${serve.baseUrl}/operator`);
    await ownerPage.getByLabel("Member's email").fill(MEMBER.email);
    await ownerPage.getByRole('button', { name: 'Make reset link' }).click();
    const link = (await ownerPage.getByTestId('reset-link').textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${serve.baseUrl}/reset/[\\w-]{43}$`));
    await checkPage(ownerPage, 'operator-reset-link', false);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await checkPage(page, 'reset-password', false);
    MEMBER.password = 'member-password-2';
    secrets.push(MEMBER.password);
    await page.getByLabel('New password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL('**/keys');
    // Used once: the link is gone.
    expect((await fetch(link)).status).toBe(404);
    await context.close();

    // From the CLI: a link, or a password from stdin; the old password stops working.
    const printed = await runCli([
      'console',
      'reset-password',
      MEMBER.email,
      '--data-dir',
      dataDir,
      '--public-url',
      serve.baseUrl,
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toMatch(new RegExp(`^${serve.baseUrl}/reset/[\\w-]{43}$`));
    expect((await fetch(printed.stdout.trim())).status).toBe(200);
    const set = await runScript(
      CLI,
      ['console', 'reset-password', MEMBER.email, '--password-stdin', '--data-dir', dataDir],
      {},
      'member-password-3\n',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`Set a new password for ${MEMBER.email}`);
    const signIn = async (password: string) => {
      const fresh = await browser.newContext();
      const page = await fresh.newPage();
      await page.goto(`${serve.baseUrl}/sign-in`);
      await page.getByLabel('Email').fill(MEMBER.email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForLoadState();
      const url = page.url();
      await fresh.close();
      return url;
    };
    expect(await signIn(MEMBER.password)).toMatch(/\/sign-in$/);
    MEMBER.password = 'member-password-3';
    secrets.push(MEMBER.password);
    expect(await signIn(MEMBER.password)).toMatch(/\/keys$/);
    const weak = await runScript(
      CLI,
      ['console', 'reset-password', MEMBER.email, '--password-stdin', '--data-dir', dataDir],
      {},
      'short\n',
    );
    expect(weak.code).toBe(1);
  });

  it('the operator commands work from the CLI while serve runs', async () => {
    const list = await runCli(['console', 'orgs', '--json', '--data-dir', dataDir]);
    expect(list.code, list.stderr).toBe(0);
    const orgs = JSON.parse(list.stdout) as { id: string; name: string; credits: number; status: string }[];
    const org = orgs.find((o) => o.name === "owner's organization")!;
    const granted = await runCli(['console', 'grant', org.id, '7', '--data-dir', dataDir]);
    expect(granted.code, granted.stderr).toBe(0);
    expect(granted.stdout).toContain(`available: ${org.credits + 7}`);
    const suspended = await runCli(['console', 'suspend', org.id, '--data-dir', dataDir]);
    expect(suspended.code, suspended.stderr).toBe(0);
    // The running instance reads suspensions again within 5 s.
    await expect
      .poll(async () => (await search(ownerKey)).status, { timeout: 15_000, interval: 1_000 })
      .toBe(401);
    await runCli(['console', 'reactivate', org.id, '--data-dir', dataDir]);
    await expect
      .poll(async () => (await search(ownerKey)).status, { timeout: 15_000, interval: 1_000 })
      .toBe(200);
    const unknown = await runCli(['console', 'grant', 'org_nope', '5', '--data-dir', dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no organization org_nope');
  }, 300_000);

  it('switches maintenance and makes or unmakes the operator from the CLI while serve runs', async () => {
    const on = await runCli(['console', 'maintenance', 'on', '--data-dir', dataDir]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain('Maintenance on.');
    // Every instance reads the switch again within 5 s.
    await expect
      .poll(async () => (await search(ownerKey)).status, { timeout: 15_000, interval: 1_000 })
      .toBe(503);
    const off = await runCli(['console', 'maintenance', 'off', '--data-dir', dataDir]);
    expect(off.code, off.stderr).toBe(0);
    await expect
      .poll(async () => (await search(ownerKey)).status, { timeout: 15_000, interval: 1_000 })
      .toBe(200);

    // A new one-time setup link from the CLI makes the (signed-in) member the operator.
    const printed = await runCli([
      'console',
      'operator-link',
      '--public-url',
      serve.baseUrl,
      '--data-dir',
      dataDir,
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    const setupLink = printed.stdout.trim();
    expect(setupLink).toMatch(new RegExp(`^${serve.baseUrl}/setup/[A-Za-z0-9_-]{43}$`));
    const member = await browser.newContext();
    const page = await member.newPage();
    await page.goto(`${serve.baseUrl}/sign-in`);
    await page.getByLabel('Email').fill(MEMBER.email);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    await page.goto(setupLink);
    await page.getByRole('button', { name: 'Become operator' }).click();
    await page.waitForURL('**/operator');
    expect((await fetch(setupLink)).status).toBe(404);

    const removed = await runCli(['console', 'operator', MEMBER.email, '--remove', '--data-dir', dataDir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`${MEMBER.email} is no longer the operator.`);
    expect((await page.goto(`${serve.baseUrl}/operator`))!.status()).toBe(403);
    const made = await runCli(['console', 'operator', MEMBER.email, '--data-dir', dataDir]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`${MEMBER.email} is now the operator.`);
    expect((await page.goto(`${serve.baseUrl}/operator`))!.status()).toBe(200);
    await member.close();
    await runCli(['console', 'operator', MEMBER.email, '--remove', '--data-dir', dataDir]);

    const unknown = await runCli(['console', 'operator', 'nobody@example.com', '--data-dir', dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no console user nobody@example.com');
  }, 300_000);

  it('works with the keyboard alone: sign in, create a key', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${serve.baseUrl}/sign-in`);
    const focusOn = async (label: string) => {
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const element = document.activeElement as HTMLInputElement | null;
          return element?.labels?.[0]?.textContent?.trim() ?? element?.textContent?.trim() ?? '';
        });
        if (focused === label) return;
      }
      throw new Error(`could not reach ${label} with Tab`);
    };
    await focusOn('Email');
    await page.keyboard.type(OWNER.email);
    await focusOn('Password');
    await page.keyboard.type(OWNER.password);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/keys');
    await focusOn('Name');
    await page.keyboard.type('keyboard key');
    await focusOn('Create key');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-api-key').waitFor();
    const created = (await page.getByTestId('new-api-key').textContent())!.trim();
    secrets.push(created);
    expect((await search(created)).status).toBe(200);
    await page.getByRole('link', { name: 'Account' }).click();
    await checkPage(page, 'account');
    // Sign out, with the keyboard too: the session ends, and the console asks to sign in again.
    await focusOn('Sign out');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/sign-in');
    await page.goto(`${serve.baseUrl}/keys`);
    expect(page.url()).toBe(`${serve.baseUrl}/sign-in`);
    await context.close();
  });

  it('never logs keys or passwords', () => {
    const output = serve.output();
    expect(output).toContain('"msg":"console: key created"');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

async function ownerKeyId(): Promise<string> {
  const list = await runCli(['keys', 'list', '--json', '--data-dir', dataDir]);
  const records = JSON.parse(list.stdout) as { id: string; name: string | null }[];
  return records.find((r) => r.name === 'owner key')!.id;
}
