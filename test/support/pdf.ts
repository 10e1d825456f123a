/** A hand-written PDF for extraction and crawler tests: small enough to read, valid enough for pdf.js. */
import { once } from 'node:events';
import { createDeflate, createDeflateRaw } from 'node:zlib';

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

/** One content stream of {@link pdfOfStreams}: its encoded bytes and the filters that decode them, in order. */
export interface PdfContentStream {
  readonly data: Uint8Array;
  readonly filters?: readonly string[];
}

/** Builds a PDF of one page per content stream (Helvetica), with a correct cross-reference table. */
export function pdfOfStreams(streams: readonly PdfContentStream[]): Uint8Array {
  const font = 3 + streams.length * 2;
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${streams.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${streams.length} >>`,
  ];
  streams.forEach((stream, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    );
    const filters = stream.filters?.length
      ? ` /Filter [${stream.filters.map((f) => `/${f}`).join(' ')}]`
      : '';
    objects.push(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.data.byteLength}${filters} >>\nstream\n`, 'latin1'),
        stream.data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof object === 'string' ? Buffer.from(object, 'latin1') : object,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  tail += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** Page text as a content stream: one `Tj` per line. */
export function textContent(lines: readonly string[]): Uint8Array {
  return Buffer.from(
    ['BT', '/F1 12 Tf', '72 720 Td', '14 TL', ...lines.map((l) => `(${l}) Tj T*`), 'ET'].join('\n'),
  );
}

/**
 * A content stream that says "bomb", then `size` bytes of spaces, deflated as it is generated (a PDF bomb:
 * 128 MiB of it is about 128 KB).
 */
export async function deflatedBomb(size: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = once(deflate, 'end');
  deflate.write(textContent(['bomb']));
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  for (let written = 0; written < size; written += spaces.length) {
    if (!deflate.write(spaces)) await once(deflate, 'drain');
  }
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

/** Adler-32 (RFC 1950) of `chunks`, the checksum ending a zlib stream. */
function adler32(chunks: readonly Uint8Array[]): number {
  let a = 1;
  let b = 0;
  for (const chunk of chunks) {
    for (const byte of chunk) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A PDF bomb that hides from a scanner cutting streams at the first `endstream`: a zlib stream whose first
 * block is stored (uncompressed) and holds the bytes `endstream`, followed by a deflated content stream that
 * says "bomb" and `size` bytes of spaces. Valid zlib (checksum included), so a reader inflates it whole.
 */
export async function endstreamBomb(size: number): Promise<Buffer> {
  const hidden = Buffer.from('endstream', 'latin1');
  const stored = Buffer.alloc(5);
  stored[0] = 0x00; // BFINAL 0, BTYPE 00: a stored block
  stored.writeUInt16LE(hidden.length, 1);
  stored.writeUInt16LE(~hidden.length & 0xffff, 3);
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = once(deflate, 'end');
  const content = Buffer.concat([Buffer.from('\n', 'latin1'), textContent(['bomb'])]);
  deflate.write(content);
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  let written = 0;
  for (; written < size; written += spaces.length) {
    if (!deflate.write(spaces)) await once(deflate, 'drain');
  }
  deflate.end();
  await done;
  // The checksum of everything inflated: the hidden bytes, the content, then the spaces.
  let a = adler32([hidden, content]);
  let b = a >>> 16;
  a &= 0xffff;
  for (let i = 0; i < written; i++) {
    a = (a + 0x20) % 65521;
    b = (b + a) % 65521;
  }
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(((b << 16) | a) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0x01]), stored, hidden, ...chunks, checksum]);
}
