/**
 * Request `Content-Encoding`: gzip, deflate and br bodies are decoded with node:zlib, and the body limit
 * applies to the decoded bytes (a small compressed body cannot expand past it: zlib stops at the limit).
 * Any other coding is refused with 415 rather than read as if it were plain JSON.
 */
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import { CitewiseError } from '../errors.ts';

type Decoder = (input: Uint8Array, options: ZlibOptions) => Promise<Buffer>;

/** The request codings we decode, by their `Content-Encoding` token. */
const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** The codings accepted in a request's `Content-Encoding` (besides `identity`). */
export const SUPPORTED_REQUEST_ENCODINGS: readonly string[] = ['gzip', 'deflate', 'br'];

/**
 * The codings of a `Content-Encoding` header, in the order they were applied (`identity` dropped).
 * Throws 415 for a coding we do not decode, before any of the body is read.
 */
export function requestEncodings(header: string | undefined): readonly string[] {
  if (!header) return [];
  const codings = header
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '' && token !== 'identity');
  for (const coding of codings) {
    if (!DECODERS[coding]) {
      throw new CitewiseError('unsupported_media_type', `content-encoding ${coding}`, {
        description: `Unsupported Media Type: Content-Encoding ${coding} is not supported (use ${SUPPORTED_REQUEST_ENCODINGS.join(', ')} or none)`,
        headers: { 'accept-encoding': SUPPORTED_REQUEST_ENCODINGS.join(', ') },
      });
    }
  }
  return codings;
}

/**
 * Undoes the codings (last applied first). Fails with 413 as soon as a decoded body would pass `limit`
 * bytes, and with 400 when the bytes are not valid for their coding.
 */
export async function decodeRequestBody(
  bytes: Uint8Array,
  codings: readonly string[],
  limit: number,
  tooLarge: () => CitewiseError,
): Promise<Uint8Array> {
  let body = bytes;
  for (const coding of [...codings].reverse()) {
    try {
      body = await DECODERS[coding]!(body, { maxOutputLength: limit });
    } catch (cause) {
      if ((cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw new CitewiseError('invalid_request', `body is not valid ${coding}`, {
        description: `Invalid request: the body is not valid ${coding} data`,
        cause,
      });
    }
  }
  return body;
}
