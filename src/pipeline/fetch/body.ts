/**
 * Response bodies: media types, content-codings, and reading with a cap on decoded bytes.
 * Decoding is done here with node:zlib streams (undici's `request` does not decompress), so that the
 * cap counts decoded bytes and a decompression bomb stops at the cap.
 */
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { FetchError } from './errors.ts';

/** Media types the fetcher accepts by default. */
export const DEFAULT_CONTENT_TYPES: readonly string[] = [
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'application/pdf',
];

/** A parsed `Content-Type` header. */
export interface MediaType {
  /** Lower-case `type/subtype` without parameters. */
  readonly type: string;
  /** Lower-case `charset` parameter, if any. */
  readonly charset?: string;
}

/** Parses a `Content-Type` header; `undefined` when it is missing or not `type/subtype`. */
export function parseContentType(header: string | undefined): MediaType | undefined {
  if (!header) return undefined;
  const [essence = '', ...params] = header.split(';');
  const type = essence.trim().toLowerCase();
  if (!/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/.test(type)) return undefined;
  for (const param of params) {
    const equals = param.indexOf('=');
    if (equals < 0) continue;
    if (param.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const value = param
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim()
      .toLowerCase();
    return value ? { type, charset: value } : { type };
  }
  return { type };
}

const PDF_SIGNATURE = '%PDF-';
const HTML_STARTS = ['<!doctype html', '<html', '<head', '<body', '<title', '<meta', '<!--', '<p>', '<div'];

/**
 * Guesses the media type of a body sent without one: PDF by signature, HTML by its opening tag, plain
 * text when the first KiB has no control bytes; `undefined` for anything else (binary).
 */
export function sniffContentType(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 1024));
  if (head.subarray(0, 5).toString('latin1') === PDF_SIGNATURE) return 'application/pdf';
  if ((head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0xff && head[1] === 0xfe)) return 'text/plain';
  const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const text = head.subarray(start).toString('latin1').trimStart().toLowerCase();
  if (HTML_STARTS.some((prefix) => text.startsWith(prefix))) return 'text/html';
  for (let i = start; i < head.length; i++) {
    const byte = head[i] ?? 0;
    // Tab, LF, FF, CR and ESC occur in text; other C0 controls mean binary.
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) {
      return undefined;
    }
  }
  return 'text/plain';
}

/** Content-codings this runtime can decode, in the order we advertise them. */
export const SUPPORTED_ENCODINGS: readonly string[] = [
  'gzip',
  'deflate',
  'br',
  ...(typeof zlib.createZstdDecompress === 'function' ? ['zstd'] : []),
];

function createDecoder(coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return zlib.createZstdDecompress();
    default:
      throw new FetchError('bad_encoding', `unsupported content-coding ${coding}`);
  }
}

/**
 * Parses `Content-Encoding` into the codings to undo, outermost first. Throws `bad_encoding` for unknown
 * codings or more than `maxCodings`.
 */
export function parseContentEncoding(header: string | undefined, maxCodings: number): string[] {
  if (!header) return [];
  const applied = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (applied.length > maxCodings) {
    throw new FetchError('bad_encoding', `${applied.length} content-codings (at most ${maxCodings})`);
  }
  for (const coding of applied) {
    if (coding !== 'x-gzip' && !SUPPORTED_ENCODINGS.includes(coding)) {
      throw new FetchError('bad_encoding', `unsupported content-coding ${coding}`);
    }
  }
  // Codings are listed in the order they were applied; undo the last one first.
  return applied.reverse();
}

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Codings to undo, outermost first (from {@link parseContentEncoding}). */
  readonly codings: readonly string[];
  /** Cap on decoded bytes. */
  readonly maxBytes: number;
  /** `throw`: fail with `too_large`; `truncate`: keep the first `maxBytes` (used for robots.txt). */
  readonly onOverflow: 'throw' | 'truncate';
  readonly signal: AbortSignal;
}

class BodyLimitReached extends Error {}

type PipelineStage = Readable | Transform | ((source: AsyncIterable<Buffer>) => Promise<void>);
/** `pipeline(streams[], options)`: the array form, which @types/node does not declare. */
type RunPipeline = (stages: PipelineStage[], options: { signal: AbortSignal }) => Promise<void>;

/**
 * Reads a body through its decoders, counting decoded bytes. Past the cap the source stream is destroyed,
 * which makes undici close the connection instead of downloading the rest.
 */
export async function readBody(source: Readable, options: ReadBodyOptions): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  const decoders = options.codings.map(createDecoder);
  let decoderError: unknown;
  for (const decoder of decoders) {
    decoder.once('error', (error) => {
      decoderError ??= error;
    });
  }
  const collect = async (decoded: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of decoded) {
      const room = options.maxBytes - total;
      if (chunk.length > room) {
        if (options.onOverflow === 'throw') {
          throw new FetchError('too_large', `body exceeds ${options.maxBytes} bytes after decoding`);
        }
        chunks.push(chunk.subarray(0, room));
        total += room;
        truncated = true;
        throw new BodyLimitReached();
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  };
  try {
    const stages: PipelineStage[] = [source, ...decoders, collect];
    await (pipeline as unknown as RunPipeline)(stages, { signal: options.signal });
  } catch (error) {
    if (!(truncated && error instanceof BodyLimitReached)) {
      source.destroy();
      if (error instanceof FetchError) throw error;
      if (decoderError !== undefined && error === decoderError) {
        throw new FetchError('bad_encoding', 'corrupt compressed body', { cause: error });
      }
      throw error;
    }
    source.destroy();
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}
