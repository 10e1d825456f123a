/**
 * The console on two `citewise serve` instances sharing one PostgreSQL database (headless Chromium): sign
 * up on one, sign in on the other and see the same keys; a session made on one is valid on the other;
 * a key revoked on one gets 401 on the other at once; usage recorded by one shows on the other.
 * Skipped locally without PostgreSQL; required under CI.
 */
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startInstances, type Instance } from '../multi-instance/instances.ts';
import { dropSchemas, reachablePostgres, serverOrSkip, withSchema } from '../multi-instance/servers.ts';
import { chromiumOrSkip, launchBrowser, seriousAxeViolations } from './browser.ts';

const url = await reachablePostgres();
const available = serverOrSkip('PostgreSQL', url, 'DATABASE_URL');
const schema = `cw_console_two_${randomBytes(4).toString('hex')}`;
const USER = { email: 'two@example.com', password: 'two-instances-password' };

describe.runIf(available && chromiumOrSkip())('console on two instances sharing PostgreSQL', () => {
  let instances: Instance[] = [];
  let browser: Browser;

  beforeAll(async () => {
    const store = withSchema(url!, schema);
    instances = await startInstances(2, ['--store', store]);
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(instances.map((instance) => instance.stop()));
    await dropSchemas(url!, [schema]);
  });

  it('signs up on one instance and sees the same keys, session and usage on the other', async () => {
    const [a, b] = instances as [Instance, Instance];
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${a.baseUrl}/sign-up`);
    await page.getByLabel('Email').fill(USER.email);
    await page.getByLabel('Password').fill(USER.password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL('**/keys');
    expect(await page.getByTestId('available-credits').textContent()).toBe('1,000');
    await page.getByLabel('Name').fill('shared');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(await search(a.baseUrl, key)).toBe(200);

    // The cookie made by A is a session B knows (cookies are per host, and both listen on 127.0.0.1).
    await page.goto(`${b.baseUrl}/usage`);
    expect(page.url()).toBe(`${b.baseUrl}/usage`);
    expect(await page.getByTestId('available-credits').textContent()).toBe('999');
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByTestId('searches-30-days').textContent();
        },
        { timeout: 10_000 },
      )
      .toBe('1');
    await context.close();

    // A fresh browser signs in on B and sees the key made on A.
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(`${b.baseUrl}/sign-in`);
    await second.getByLabel('Email').fill(USER.email);
    await second.getByLabel('Password').fill(USER.password);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.waitForURL('**/keys');
    expect(await second.getByText(`${key.slice(0, 8)}…`).count()).toBe(1);
    expect(await seriousAxeViolations(second)).toEqual([]);

    // Revoked on B: A refuses it at once (every verify reads PostgreSQL).
    second.once('dialog', (dialog) => void dialog.accept());
    await second.getByRole('button', { name: 'Revoke shared' }).click();
    await second.getByTestId('key-notice').waitFor();
    expect(await search(a.baseUrl, key)).toBe(401);
    await other.close();
  });
});
