/** A hand-written PDF for extraction and crawler tests: small enough to read, valid enough for pdf.js. */

/** Document information of {@link tinyPdf}; `author` and `creationDate` (PDF date, `D:2024…Z`) are optional. */
export interface TinyPdfInfo {
  readonly author?: string;
  readonly creationDate?: string;
}

/** Builds a minimal one-page PDF (Helvetica, one line per entry) with a correct cross-reference table. */
export function tinyPdf(lines: readonly string[], title: string, info: TinyPdfInfo = {}): Uint8Array {
  const stream = [
    'BT',
    '/F1 12 Tf',
    '72 720 Td',
    '14 TL',
    ...lines.map((line) => `(${line}) Tj T*`),
    'ET',
  ].join('\n');
  const infoEntries = [
    `/Title (${title})`,
    ...(info.author === undefined ? [] : [`/Author (${info.author})`]),
    ...(info.creationDate === undefined ? [] : [`/CreationDate (${info.creationDate})`]),
  ];
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< ${infoEntries.join(' ')} >>`,
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
