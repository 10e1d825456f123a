/**
 * The console's Documents page in headless Chromium, at desktop and phone (375 px) widths: an organization
 * adds a pasted Markdown document and uploads a PDF file (read into the form by console.js, extracted as
 * pages are), sees them listed a page at a time, deletes one after confirming (and keeps it when the
 * confirmation is dismissed); another organization sees none of them; a form without the CSRF token is
 * refused; axe-core finds nothing serious and nothing scrolls sideways.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentIndex } from '../../src/documents/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { SearchProvider } from '../../src/pipeline/types.ts';
import { chromiumOrSkip, seriousAxeViolations } from './browser.ts';
import { overflowsSideways, signUpWithKey, useBrowserConsole } from './browser-console.ts';
import { memoryConsole } from './memory-console.ts';

const hasChromium = chromiumOrSkip();
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 375, height: 812 },
} as const;
const PDF_FIXTURE = fileURLToPath(new URL('../fixtures/documents/kiln-manual.pdf', import.meta.url));
const HANDBOOK = `# Studio handbook

## Opening hours

The pottery studio opens at eight in the morning and closes at ten at night.

## Clay

| Clay | Firing |
|---|---|
| Stoneware | 1280 °C |
| Earthenware | 1100 °C |
`;

const noWeb: SearchProvider = { id: 'none', search: async () => [] };

const running = useBrowserConsole(hasChromium, () =>
  memoryConsole(
    { search: noWeb, answerer: createExtractiveAnswerer() },
    {},
    { documents: { index: createMemoryDocumentIndex() } },
  ),
);

async function openDocuments(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
  await page.waitForURL('**/documents');
}

async function checkLayout(page: Page): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
  expect(await overflowsSideways(page)).toBe(false);
}

const rows = (page: Page) => page.getByTestId('document-row');

describe.runIf(hasChromium)('console Documents page (headless Chromium)', { timeout: 120_000 }, () => {
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    it(`adds a pasted document and a PDF file, lists them, deletes one after confirming (${label})`, async () => {
      const context = await running.browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        const key = await signUpWithKey(
          page,
          running.server.baseUrl,
          `documents-${label}@example.com`,
          'documents',
        );
        await openDocuments(page);
        expect(await page.getByText('No documents yet.').count()).toBe(1);
        await checkLayout(page);

        // Pasted Markdown.
        await page.getByLabel('Title').fill('Studio handbook');
        await page.getByLabel('Format').selectOption('markdown');
        await page.getByLabel('Content').fill(HANDBOOK);
        await page.getByRole('button', { name: 'Add document' }).click();
        await page.waitForURL('**/documents');
        await rows(page).filter({ hasText: 'Studio handbook' }).waitFor();

        // A PDF file: read into the form as base64, extracted by the documents API.
        await page.getByLabel('File (Markdown, text, HTML or PDF)').setInputFiles(PDF_FIXTURE);
        await expect.poll(() => page.getByLabel('Content').inputValue()).toMatch(/^JVBERi0/);
        expect(await page.getByLabel('Title').inputValue()).toBe('kiln-manual');
        await page.getByRole('button', { name: 'Add document' }).click();
        await rows(page).filter({ hasText: 'kiln-manual' }).waitFor();
        expect(await rows(page).count()).toBe(2);
        await checkLayout(page);

        // What the page added is the account's, through the API: the PDF's text, the table's rows.
        const listed = (await (
          await fetch(`${running.server.baseUrl}/v1/documents`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as { data: { id: string; title: string }[] };
        const pdf = listed.data.find((d) => d.title === 'kiln-manual')!;
        const read = (await (
          await fetch(`${running.server.baseUrl}/v1/documents/${pdf.id}`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as { content: string };
        expect(read.content).toContain('A full firing of the Kiln K7 takes eleven hours.');
        const asked = (await (
          await fetch(`${running.server.baseUrl}/v1/search`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ prompt: 'When does the pottery studio open?', documents: 'own' }),
          })
        ).json()) as { answer: string };
        expect(asked.answer).toMatch(/eight in the morning/);

        // The playground asks the organization's documents alone when told to.
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Playground' })
          .click();
        await page.getByLabel('Question').fill('When does the pottery studio open?');
        await page.getByLabel('Sources').selectOption('own');
        expect(await page.getByTestId('curl').textContent()).toContain('"documents":"own"');
        await page.getByRole('button', { name: 'Ask', exact: true }).click();
        await page.getByTestId('answer').filter({ hasText: 'eight in the morning' }).waitFor();
        const handbook = listed.data.find((d) => d.title === 'Studio handbook')!;
        expect(await page.getByTestId('sources').textContent()).toContain(`/v1/documents/${handbook.id}`);
        await openDocuments(page);

        // Delete asks first: dismissed, the document stays; accepted, it goes.
        const handbookRow = rows(page).filter({ hasText: 'Studio handbook' });
        page.once('dialog', (dialog) => void dialog.dismiss());
        await handbookRow.getByRole('button', { name: 'Delete' }).click();
        // Had the form been sent, the page would have reloaded by now.
        await page.waitForTimeout(500);
        expect(await rows(page).count()).toBe(2);
        page.once('dialog', (dialog) => {
          expect(dialog.message()).toContain('Delete “Studio handbook”?');
          void dialog.accept();
        });
        await handbookRow.getByRole('button', { name: 'Delete' }).click();
        await handbookRow.waitFor({ state: 'detached' });
        expect(await rows(page).count()).toBe(1);
        await checkLayout(page);
      } finally {
        await context.close();
      }
    });
  }

  it('pages through many documents; another organization sees none; no CSRF token, no change', async () => {
    const context = await running.browser.newContext({ viewport: VIEWPORTS.phone });
    const page = await context.newPage();
    try {
      const key = await signUpWithKey(
        page,
        running.server.baseUrl,
        'documents-many@example.com',
        'documents',
      );
      for (let i = 0; i < 23; i++) {
        const response = await fetch(`${running.server.baseUrl}/v1/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: `Glaze note ${String(i).padStart(2, '0')}`,
            content: `Glaze note ${i}: the glaze number ${i} is fired in the gas kiln.`,
            format: 'text',
            url: `https://studio.test/glazes/${String(i).padStart(2, '0')}`,
          }),
        });
        expect(response.status).toBe(201);
      }
      await openDocuments(page);
      expect(await rows(page).count()).toBe(20);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      expect(await rows(page).count()).toBe(3);
      expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
      await checkLayout(page);
      await page.getByRole('link', { name: 'First page' }).click();
      expect(await rows(page).count()).toBe(20);

      // Content over the API's size limit: the API's 413 and its description, nothing added.
      await page.getByLabel('Content').evaluate((area, text) => {
        (area as HTMLTextAreaElement).value = text;
      }, 'x'.repeat(1_100_000));
      const [tooLarge] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.getByRole('button', { name: 'Add document' }).click(),
      ]);
      expect(tooLarge.status()).toBe(413);
      expect(
        await page.getByText('Payload Too Large: the content must be at most 1048576 bytes').count(),
      ).toBe(1);
      await page.goto(`${running.server.baseUrl}/documents`);

      // A same-origin form without the CSRF token is refused, and nothing is added.
      const refused = await page.evaluate(async () => {
        const response = await fetch(location.pathname, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'format=text&content=Forged+note',
        });
        return response.status;
      });
      expect(refused).toBe(403);

      const stranger = await running.browser.newContext({ viewport: VIEWPORTS.desktop });
      const other = await stranger.newPage();
      await signUpWithKey(other, running.server.baseUrl, 'documents-stranger@example.com', 'documents');
      await openDocuments(other);
      expect(await other.getByText('No documents yet.').count()).toBe(1);
      // Deleting another organization's document answers as an unknown one.
      const listed = (await (
        await fetch(`${running.server.baseUrl}/v1/documents?limit=1`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { data: { id: string }[] };
      other.once('dialog', () => undefined);
      const deleted = await other.evaluate(async (id) => {
        const csrf = (document.querySelector('input[name="_csrf"]') as HTMLInputElement).value;
        const response = await fetch(`${location.pathname}/${id}/delete`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `_csrf=${encodeURIComponent(csrf)}`,
        });
        return response.status;
      }, listed.data[0]!.id);
      expect(deleted).toBe(404);
      await stranger.close();
      const after = (await (
        await fetch(`${running.server.baseUrl}/v1/documents?limit=100`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { data: unknown[] };
      expect(after.data).toHaveLength(23);
    } finally {
      await context.close();
    }
  });
});
