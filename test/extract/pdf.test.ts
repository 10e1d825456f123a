import { describe, expect, it } from 'vitest';
import { extractContent } from '../../src/pipeline/extract/index.ts';

/** Builds a minimal one-page PDF with a correct cross-reference table. */
function tinyPdf(lines: readonly string[], title: string): Uint8Array {
  const stream = [
    'BT',
    '/F1 12 Tf',
    '72 720 Td',
    '14 TL',
    ...lines.map((line) => `(${line}) Tj T*`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${title}) /Author (Test Author) /CreationDate (D:20240102030405Z) >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

describe('PDF extraction', () => {
  it('extracts text and metadata from a PDF', async () => {
    const pdf = tinyPdf(['Quarterly report on widgets.', 'Sales rose by ten percent.'], 'Widget Report');
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
    const pdf = tinyPdf(['Sniffed text.'], 'T');
    const copy = pdf.slice();
    const result = await extractContent(pdf, { url: 'https://example.test/file' });
    expect(result?.text).toContain('Sniffed text.');
    expect(pdf).toEqual(copy);
  });

  it('accepts a Node Buffer (what fs.readFile returns)', async () => {
    const pdf = Buffer.from(tinyPdf(['Read from disk.'], 'Disk'));
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
