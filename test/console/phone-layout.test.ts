/**
 * The console with real content in headless Chromium, on a phone (375 px) and at desktop width: a long
 * Markdown answer with long source URLs in the playground, a finished research job with its steps, answer
 * and sources, and a pending invitation (its Cancel button) in Members. Nothing scrolls sideways and no
 * element sticks out of the viewport. The research job page renders the answer's Markdown as the
 * playground does (the same renderer: the same elements for the same answer).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Answerer, SearchProvider } from '../../src/pipeline/types.ts';
import { chromiumOrSkip } from './browser.ts';
import { signUpWithKey, useBrowserConsole } from './browser-console.ts';
import { memoryConsole } from './memory-console.ts';

const hasChromium = chromiumOrSkip();
const VIEWPORTS = {
  phone: { width: 375, height: 740 },
  desktop: { width: 1280, height: 800 },
} as const;

/** Long URLs, as intranet wikis and generated docs sites have them. */
const URLS = [
  'https://docs.example.com/handbook/engineering/platform/observability/alerting-and-on-call-rotations-for-the-search-service.html?section=escalation-policies',
  'https://wiki.example.com/spaces/OPERATIONS/pages/48213377/Runbook%3A+Restarting+the+indexer+after+a+failed+deployment+of+the+ranking+model',
  'https://example.com/geography/riversofswitzerland/therhoneglacieranditssourceinthecantonofvalais.html',
];

/** A long Markdown answer: a heading, a list, emphasis, a link, inline code and citations. */
const ANSWER = [
  '## Escalation',
  '',
  'When the **search service** pages, the on-call engineer follows the [escalation policy](https://docs.example.com/handbook/escalation) [1]:',
  '',
  '- acknowledge the page within *five minutes* [1];',
  '- restart the indexer with `citewise index --rebuild /srv/handbook/engineering/platform/observability` if the ranking model failed to deploy [2];',
  '- hand over to the second line after thirty minutes [1].',
  '',
  `The Rhône rises in the Rhône Glacier, see ${URLS[2]} [3]. `.repeat(3).trim(),
].join('\n');

/** A question naming a URL: research steps repeat it in their queries (one long unbreakable word). */
const QUESTION = `What does ${URLS[0]} say about escalation, and how is the indexer restarted?`;

const search: SearchProvider = {
  id: 'fixed',
  search: async () =>
    URLS.map((url, i) => ({
      url,
      title: `Page ${i + 1}`,
      content: `Escalation and restarts, page ${i + 1}.`,
    })),
};
const answerer: Answerer = { answer: async () => ({ answer: ANSWER, sources: URLS }) };

const running = useBrowserConsole(hasChromium, () => memoryConsole({ search, answerer }));

interface Layout {
  readonly scrollWidth: number;
  readonly innerWidth: number;
  /** Elements whose box ends right of the viewport, or whose content is wider than their box. */
  readonly sticking: string[];
  /** The right edge and content width of each measured element. */
  readonly measured: Record<string, { right: number; scrollWidth: number; clientWidth: number }>;
}

/**
 * The page's width against the viewport, every element sticking out (boxes inside a table's own scrolling
 * box excepted: a wide table scrolls there), and the elements named by `selectors`.
 */
function layout(page: Page, selectors: Record<string, string>): Promise<Layout> {
  return page.evaluate((named) => {
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${[...element.classList].map((c) => `.${c}`).join('')}` +
      ` "${(element.textContent ?? '').trim().slice(0, 40)}"`;
    const sticking: string[] = [];
    for (const element of document.querySelectorAll('body *')) {
      if (element.closest('.table-wrap') && !element.classList.contains('table-wrap')) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      const style = getComputedStyle(element);
      const clipsItself =
        style.overflowX === 'auto' || style.overflowX === 'scroll' || style.overflowX === 'hidden';
      if (
        box.right > window.innerWidth + 0.5 ||
        (!clipsItself && element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0)
      )
        sticking.push(
          `${describe(element)}: right ${Math.round(box.right)}, content ${element.scrollWidth} in ${element.clientWidth}`,
        );
    }
    const measured: Layout['measured'] = {};
    for (const [name, selector] of Object.entries(named)) {
      const element = document.querySelector(selector);
      if (!element) throw new Error(`no ${selector} on the page`);
      measured[name] = {
        right: element.getBoundingClientRect().right,
        scrollWidth: element.scrollWidth,
        clientWidth: element.clientWidth,
      };
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      sticking,
      measured,
    };
  }, selectors);
}

/** Asserts that nothing scrolls sideways and nothing sticks out, naming what does. */
async function expectNoOverflow(page: Page, where: string, selectors: Record<string, string>): Promise<void> {
  const found = await layout(page, selectors);
  expect(found.sticking, `elements sticking out on ${where}`).toEqual([]);
  expect(found.scrollWidth, `page width on ${where}`).toBeLessThanOrEqual(found.innerWidth);
  for (const [name, box] of Object.entries(found.measured)) {
    expect(box.right, `${name} on ${where}`).toBeLessThanOrEqual(found.innerWidth);
    expect(box.scrollWidth, `${name}'s content on ${where}`).toBeLessThanOrEqual(box.clientWidth);
  }
}

/** What a rendered answer holds: its elements by tag, and its text. */
function rendered(page: Page, testId: string) {
  return page.getByTestId(testId).evaluate((element) => ({
    html: element.innerHTML,
    text: element.textContent ?? '',
    tags: [...element.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()),
  }));
}

describe.runIf(hasChromium)(
  'console layout with real content (headless Chromium)',
  { timeout: 120_000 },
  () => {
    for (const [label, viewport] of Object.entries(VIEWPORTS)) {
      it(`playground, research job and members fit at ${viewport.width} px; the job's answer renders like the playground's`, async () => {
        const context = await running.browser.newContext({ viewport });
        const page = await context.newPage();
        try {
          // A long address, as companies give them: it shows in Members and its pending invitations.
          await signUpWithKey(
            page,
            running.server.baseUrl,
            `layout-${label}.platform-engineering@subsidiary.example.com`,
            'layout',
          );

          // The playground: a long answer with its sources.
          await page.goto(`${running.server.baseUrl}/playground`);
          await page.getByLabel('Question').fill(QUESTION);
          await page.getByRole('button', { name: 'Ask', exact: true }).click();
          await page
            .locator('#pg-status')
            .filter({ hasText: /^Done in/ })
            .waitFor({ timeout: 30_000 });
          expect(await page.getByTestId('sources').getByRole('link').count()).toBe(URLS.length);
          await expectNoOverflow(page, `the playground at ${viewport.width} px`, {
            'playground source list': '#pg-sources',
            'playground answer': '#pg-answer',
          });
          const played = await rendered(page, 'answer');

          // A finished research job with its steps.
          await page.getByRole('button', { name: 'Research in the background' }).click();
          await page.waitForURL(/\/research\/res_/);
          await page.getByTestId('research-answer').waitFor({ timeout: 30_000 });
          expect(await page.getByTestId('research-status').textContent()).toContain('Completed');
          expect(await page.getByTestId('research-steps').locator('li').count()).toBeGreaterThan(0);
          await expectNoOverflow(page, `a research job at ${viewport.width} px`, {
            'research job steps': '[data-testid="research-steps"]',
            'research job answer': '[data-testid="research-answer"]',
            'research job sources': '[data-testid="research-sources"]',
          });
          // Markdown rendered as elements, as the playground renders it: no markup left as text.
          const job = await rendered(page, 'research-answer');
          expect(job.tags).toEqual(expect.arrayContaining(['h2', 'ul', 'li', 'strong', 'em', 'a', 'code']));
          expect(job.text).not.toMatch(/\*\*|\]\(|^## /m);
          expect(job.html).toBe(played.html);
          const link = page.getByTestId('research-answer').getByRole('link', { name: 'escalation policy' });
          expect(await link.getAttribute('href')).toBe('https://docs.example.com/handbook/escalation');
          expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');

          // Members with a pending invitation: its Cancel button.
          await page.goto(`${running.server.baseUrl}/members`);
          await page.getByRole('button', { name: 'Invite' }).click();
          await page.getByTestId('invite-link').waitFor();
          await expectNoOverflow(page, `Members at ${viewport.width} px`, {
            'Members Cancel button': 'form[action$="/delete"] button',
            'invitation link': '[data-testid="invite-link"]',
          });
        } finally {
          await context.close();
        }
      });
    }
  },
);
