import { describe, expect, it } from 'vitest';
import { extractContent } from '../../src/pipeline/extract/index.ts';
import { tinyPdf } from '../support/pdf.ts';

/** Every PDF here carries the same author and creation date, which the first test reads back. */
const INFO = { author: 'Test Author', creationDate: 'D:20240102030405Z' };

describe('PDF extraction', () => {
  it('extracts text and metadata from a PDF', async () => {
    const pdf = tinyPdf(
      ['Quarterly report on widgets.', 'Sales rose by ten percent.'],
      'Widget Report',
      INFO,
    );
    const result = await extractContent(pdf, {
      url: 'https://example.test/report.pdf',
      contentType: 'application/pdf',
    });
    expect(result?.title).toBe('Widget Report');
    expect(result?.byline).toBe('Test Author');
    expect(result?.publishedAt).toBe('2024-01-02T03:04:05.000Z');
    expect(result?.text).toContain('Quarterly report on widgets.');
    expect(result?.text).toContain('Sales rose by ten percent.');
    expect(result?.text.indexOf('Quarterly')).toBeLessThan(result?.text.indexOf('Sales') ?? -1);
  });

  it('sniffs a PDF without a content type and leaves the input intact', async () => {
    const pdf = tinyPdf(['Sniffed text.'], 'T', INFO);
    const copy = pdf.slice();
    const result = await extractContent(pdf, { url: 'https://example.test/file' });
    expect(result?.text).toContain('Sniffed text.');
    expect(pdf).toEqual(copy);
  });

  it('accepts a Node Buffer (what fs.readFile returns)', async () => {
    const pdf = Buffer.from(tinyPdf(['Read from disk.'], 'Disk', INFO));
    const result = await extractContent(pdf, { url: 'file:///tmp/disk.pdf', contentType: 'application/pdf' });
    expect(result?.text).toContain('Read from disk.');
  });

  it('rejects a corrupt PDF', async () => {
    const junk = new TextEncoder().encode('%PDF-1.4\nthis is not a pdf');
    await expect(
      extractContent(junk, { url: 'https://example.test/x.pdf', contentType: 'application/pdf' }),
    ).rejects.toThrow();
  });
});
