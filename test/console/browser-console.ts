/**
 * One console in real Chromium for a browser suite: the console and the API on one loopback server, a
 * headless browser, and the steps every suite takes (sign up with a key, check nothing scrolls sideways).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Console } from '../../src/console/index.ts';
import type { SearchEngine } from '../../src/engine/index.ts';
import type { ListeningServer } from '../support/loopback-server.ts';
import { launchBrowser } from './browser.ts';
import { listenConsoleAndApi } from './memory-console.ts';

/** A console served on loopback with a browser to drive it; `close` ends all of it. */
export interface BrowserConsole {
  readonly engine: SearchEngine;
  readonly app: Console;
  readonly server: ListeningServer;
  readonly browser: Browser;
  close(): Promise<void>;
}

/** Serves `made` (from `memoryConsole`) as `citewise serve` mounts it and launches Chromium. */
export async function startBrowserConsole(made: {
  engine: SearchEngine;
  app: Console;
}): Promise<BrowserConsole> {
  const { engine, app } = made;
  const server = await listenConsoleAndApi(app, engine);
  const browser = await launchBrowser();
  return {
    engine,
    app,
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
      await app.close();
      await engine.close();
    },
  };
}

/**
 * One browser console for the whole test file: `make` (a `memoryConsole(...)`) is served and Chromium
 * launched in `beforeAll` when `enabled` (Chromium was found), and all of it closed in `afterAll`. The
 * returned object stands for it from the first test on.
 */
export function useBrowserConsole(
  enabled: boolean,
  make: () => { engine: SearchEngine; app: Console },
): BrowserConsole {
  let running: BrowserConsole | undefined;
  beforeAll(async () => {
    if (enabled) running = await startBrowserConsole(make());
  }, 60_000);
  afterAll(() => running?.close());
  const started = (): BrowserConsole => {
    if (!running) throw new Error('the browser console starts in beforeAll (is Chromium there?)');
    return running;
  };
  return {
    get engine() {
      return started().engine;
    },
    get app() {
      return started().app;
    },
    get server() {
      return started().server;
    },
    get browser() {
      return started().browser;
    },
    close: async () => running?.close(),
  };
}

/**
 * Signs up as `email` on the console at `baseUrl`, creates a key named `keyName` and returns it (the
 * password is derived from the key's name: suites never sign in again with it).
 */
export async function signUpWithKey(
  page: Page,
  baseUrl: string,
  email: string,
  keyName: string,
): Promise<string> {
  await page.goto(`${baseUrl}/sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(`${keyName}-password-1`);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/keys');
  await page.getByLabel('Name').fill(keyName);
  await page.getByRole('button', { name: 'Create key' }).click();
  return (await page.getByTestId('new-api-key').textContent())!.trim();
}

/** Whether the page is wider than the viewport (something scrolls sideways). */
export function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
}
