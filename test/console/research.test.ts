/**
 * The console's Research page in headless Chromium, at desktop and phone widths: a job started from the
 * playground runs in the background, its page shows the steps and then the answer and sources, the list
 * shows the organization's jobs (and not another organization's), a running job can be cancelled; axe-core
 * finds nothing serious and nothing scrolls sideways on a phone.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Answerer, SearchProvider } from '../../src/pipeline/types.ts';
import { chromiumOrSkip, seriousAxeViolations } from './browser.ts';
import { overflowsSideways, signUpWithKey, useBrowserConsole } from './browser-console.ts';
import { memoryConsole } from './memory-console.ts';

const hasChromium = chromiumOrSkip();
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** A search that waits while `hold` is set (to catch a job running), else answers at once. */
let hold: Promise<void> | null = null;
const search: SearchProvider = {
  id: 'fixed',
  search: async (_query, { signal }) => {
    if (hold)
      await Promise.race([
        hold,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
      ]);
    return [
      {
        url: 'https://example.com/geography/riversofswitzerland/therhoneglacieranditssource.html',
        title: 'Rivers',
        content: 'The Rhône rises in the Rhône Glacier.',
      },
    ];
  },
};
const answerer: Answerer = {
  answer: async () => ({
    answer: 'It rises in the Rhône Glacier [1].',
    sources: ['https://example.com/geography/riversofswitzerland/therhoneglacieranditssource.html'],
  }),
};

const running = useBrowserConsole(hasChromium, () => memoryConsole({ search, answerer }));

async function openNav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
}

describe.runIf(hasChromium)('console Research page (headless Chromium)', { timeout: 90_000 }, () => {
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    it(`starts a job from the playground and shows its answer and sources (${label})`, async () => {
      const context = await running.browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await signUpWithKey(page, running.server.baseUrl, `research-${label}@example.com`, 'research');
        await openNav(page, 'Playground');
        await page.getByLabel('Question').fill('Where does the Rhône rise?');
        await page.getByRole('button', { name: 'Research in the background' }).click();
        await page.waitForURL(/\/research\/res_/);
        // The page reads the job again until it ends.
        await page.getByTestId('research-answer').waitFor({ timeout: 30_000 });
        expect(await page.getByTestId('research-status').textContent()).toContain('Completed');
        // A Markdown answer, rendered as the playground renders it: one paragraph here.
        expect(await page.getByTestId('research-answer').locator('p').textContent()).toBe(
          'It rises in the Rhône Glacier [1].',
        );
        const source = page.getByTestId('research-sources').getByRole('link');
        expect(await source.getAttribute('href')).toBe(
          'https://example.com/geography/riversofswitzerland/therhoneglacieranditssource.html',
        );
        expect(await source.getAttribute('rel')).toBe('noopener noreferrer nofollow');
        expect(await seriousAxeViolations(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);

        await openNav(page, 'Research');
        const row = page.getByRole('row').filter({ hasText: 'Where does the Rhône rise?' });
        expect(await row.count()).toBe(1);
        expect(await row.textContent()).toContain('Completed');
        expect(await seriousAxeViolations(page)).toEqual([]);
        expect(await overflowsSideways(page)).toBe(false);
      } finally {
        await context.close();
      }
    });
  }

  it('cancels a running job from its page, and another organization sees none of its jobs', async () => {
    const context = await running.browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    let release: () => void = () => {};
    hold = new Promise<void>((resolve) => (release = resolve));
    try {
      await signUpWithKey(page, running.server.baseUrl, 'research-cancel@example.com', 'research');
      await openNav(page, 'Playground');
      await page.getByLabel('Question').fill('A question that never ends');
      await page.getByRole('button', { name: 'Research in the background' }).click();
      await page.waitForURL(/\/research\/res_/);
      const jobUrl = page.url();
      expect(await page.getByTestId('research-status').textContent()).toMatch(/Running|Waiting/);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('research-status').filter({ hasText: 'Cancelled' }).waitFor();

      const stranger = await running.browser.newContext({ viewport: VIEWPORTS.phone });
      const other = await stranger.newPage();
      await signUpWithKey(other, running.server.baseUrl, 'research-stranger@example.com', 'research');
      await openNav(other, 'Research');
      expect(await other.getByText('No research jobs yet.').count()).toBe(1);
      const response = await other.goto(jobUrl);
      expect(response?.status()).toBe(404);
      await stranger.close();
    } finally {
      hold = null;
      release();
      await context.close();
    }
  });
});
