/**
 * SSO as the operator sets it up: `citewise serve` with the `--oidc-*` settings (the secret in
 * CITEWISE_OIDC_CLIENT_SECRET) against a real OpenID Connect provider on loopback, and a sign-in through
 * Chromium that lands in the SSO organization, kept in the SQLite accounts of the data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { chromiumOrSkip, launchBrowser } from './browser.ts';

const hasChromium = chromiumOrSkip();
let provider: TestOidcProvider;
let serve: ServeProcess;
let browser: Browser;
let dataDir: string;

/** A port free right now on 127.0.0.1 (the provider must know the callback before serve starts). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  if (!hasChromium) return;
  dataDir = mkdtempSync(join(tmpdir(), 'citewise-sso-serve-'));
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(`${publicUrl}/sso/callback`);
  provider.accounts.set('alice', { email: 'alice@acme.example', email_verified: true, groups: ['ops'] });
  serve = await startServe(
    [
      ...['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir, '--public-url', publicUrl],
      ...['--oidc-issuer', provider.issuer, '--oidc-client-id', provider.clientId],
      ...['--oidc-organization', 'Acme Corp', '--oidc-admin-group', 'ops'],
    ],
    { CITEWISE_OIDC_CLIENT_SECRET: provider.clientSecret },
  );
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await provider?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('citewise serve --oidc-issuer …', () => {
  it('signs a user in with SSO into the organization it names, with the role of the admin group', async () => {
    const context = await browser.newContext();
    await context.route('**/*', (route) =>
      new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    await page.goto(`${serve.baseUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${serve.baseUrl}/keys`);
    const bar = (await page.locator('.org-bar').textContent()) ?? '';
    expect(bar).toContain('Acme Corp');
    expect(bar).toContain('your role: admin');
    // The sign-in is in the log (ids only).
    expect(serve.output()).toContain('"event":"console.sso_signin"');
    // The secret was given in the environment only, and is never printed.
    expect(serve.output()).not.toContain(provider.clientSecret);
    await context.close();
  });
});
