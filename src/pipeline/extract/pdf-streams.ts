/**
 * A bound on what a PDF's compressed streams inflate to, checked before PDF.js reads it: a PDF of a few
 * megabytes can hold a Flate stream inflating to gigabytes (a "PDF bomb"), which PDF.js would inflate in
 * memory. Every stream whose data is zlib (PDF's FlateDecode; several layers deep too) is inflated here by
 * Node's zlib, chunk by chunk and counted, never held past the budget; a PDF whose streams inflate to more
 * than the budget in all is refused. Streams behind another filter first (ASCII armour, LZW) or
 * encryption are not seen here: the extraction worker's memory limit bounds those (see scheduling/worker-pool.ts).
 *
 * A stream is measured from its first byte to the end of its zlib data, wherever that is: not up to the
 * first `endstream` (the bytes `endstream` may well appear inside the compressed data, in a stored block,
 * and a reader that trusts the declared `/Length` inflates past them) nor up to a declared `/Length` (which
 * a reader may ignore when it is wrong). zlib stops at the end of its own data, so this counts at least
 * what any reader can inflate from that stream.
 */
import { createInflate, constants } from 'node:zlib';

/** Thrown when a PDF's streams inflate to more than the budget. */
export class PdfTooLargeError extends Error {
  constructor(maxDecodedBytes: number) {
    super(`the PDF's compressed streams inflate to more than ${maxDecodedBytes} bytes`);
    this.name = 'PdfTooLargeError';
  }
}

const STREAM = Buffer.from('stream', 'latin1');

/** A zlib header (RFC 1950): deflate method, and a check value that makes the first two bytes a multiple of 31. */
function isZlib(data: Uint8Array): boolean {
  const cmf = data[0];
  const flg = data[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * Inflates `data` and counts the output (what came out before any corruption: PDF.js keeps that much
 * too), rejecting with {@link PdfTooLargeError} as soon as it passes `limit` bytes. The output itself is
 * kept only when it is zlib again (a stream compressed twice), to be inflated in turn.
 */
function inflateAtMost(
  data: Uint8Array,
  limit: number,
  maxDecodedBytes: number,
): Promise<{ readonly length: number; readonly inner: Buffer | null }> {
  return new Promise((resolve, reject) => {
    const inflater = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    const chunks: Buffer[] = [];
    let length = 0;
    let keep: boolean | undefined;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      inflater.destroy();
      if (error) reject(error);
      else resolve({ length, inner: keep ? Buffer.concat(chunks) : null });
    };
    inflater.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) return finish(new PdfTooLargeError(maxDecodedBytes));
      // Decided on the first two bytes out (a first chunk of one byte is kept, to decide on the next).
      if (keep === undefined && length >= 2) keep = isZlib(Buffer.concat([...chunks, chunk]));
      if (keep !== false) chunks.push(chunk);
    });
    inflater.on('end', () => finish());
    inflater.on('error', () => finish());
    inflater.end(data);
  });
}

/**
 * Throws {@link PdfTooLargeError} when the zlib streams of `bytes` inflate to more than `maxDecodedBytes`
 * bytes in all (each layer of a stream compressed several times counts).
 */
export async function assertPdfStreamsWithin(bytes: Uint8Array, maxDecodedBytes: number): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let from = 0;
  for (;;) {
    const at = buffer.indexOf(STREAM, from);
    if (at === -1) return;
    from = at + STREAM.length;
    if (at >= 3 && buffer.toString('latin1', at - 3, at) === 'end') continue;
    // The data starts after the end of line that follows the keyword (CRLF or LF; a lone CR is tolerated).
    let start = from;
    if (buffer[start] === 0x0d) start++;
    if (buffer[start] === 0x0a) start++;
    // To the end of the file: inflating stops where the zlib data ends (see the module comment).
    let layer: Uint8Array | null = buffer.subarray(start);
    while (layer && isZlib(layer)) {
      const inflated = await inflateAtMost(layer, maxDecodedBytes - total, maxDecodedBytes);
      total += inflated.length;
      layer = inflated.inner;
    }
  }
}
