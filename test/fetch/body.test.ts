import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseContentEncoding, readBody, sniffContentType } from '../../src/pipeline/fetch/body.ts';
import { parseContentType } from '../../src/pipeline/fetch/index.ts';

describe('parseContentType', () => {
  it.each([
    ['text/html', { type: 'text/html' }],
    ['Text/HTML; Charset=UTF-8', { type: 'text/html', charset: 'utf-8' }],
    ['text/html;charset="Shift_JIS"', { type: 'text/html', charset: 'shift_jis' }],
    ['text/plain; format=flowed; charset=windows-1252', { type: 'text/plain', charset: 'windows-1252' }],
    ['text/html; charset=', { type: 'text/html' }],
    ['application/xhtml+xml', { type: 'application/xhtml+xml' }],
  ])('%s', (header, expected) => {
    expect(parseContentType(header)).toEqual(expected);
  });

  it.each([undefined, '', 'html', 'text/', '/html', 'text/html junk'])('rejects %s', (header) => {
    expect(parseContentType(header)).toBeUndefined();
  });
});

describe('sniffContentType', () => {
  const bytes = (value: string | number[]) =>
    typeof value === 'string' ? Buffer.from(value) : Buffer.from(value);
  it.each([
    ['%PDF-1.7 ...', 'application/pdf'],
    ['<!DOCTYPE html><html>', 'text/html'],
    ['\n  <html lang="en">', 'text/html'],
    ['\uFEFF<!doctype html>', 'text/html'],
    ['Just some words.\n', 'text/plain'],
    ['', 'text/plain'],
  ])('%j is %s', (body, expected) => {
    expect(sniffContentType(bytes(body))).toBe(expected);
  });

  it('calls bytes with control characters binary', () => {
    expect(sniffContentType(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeUndefined();
    expect(sniffContentType(bytes([0x50, 0x4b, 0x03, 0x04, 0x00]))).toBeUndefined();
  });
});

describe('parseContentEncoding', () => {
  it('returns codings to undo, last applied first, ignoring identity', () => {
    expect(parseContentEncoding('gzip, br', 2)).toEqual(['br', 'gzip']);
    expect(parseContentEncoding('identity', 2)).toEqual([]);
    expect(parseContentEncoding(undefined, 2)).toEqual([]);
    expect(parseContentEncoding(' GZIP ', 2)).toEqual(['gzip']);
  });

  it('refuses too many or unknown codings', () => {
    expect(() => parseContentEncoding('gzip, gzip, gzip', 2)).toThrow(
      expect.objectContaining({ code: 'bad_encoding' }),
    );
    expect(() => parseContentEncoding('compress', 2)).toThrow(
      expect.objectContaining({ code: 'bad_encoding' }),
    );
    expect(() => parseContentEncoding('gzip', 0)).toThrow(expect.objectContaining({ code: 'bad_encoding' }));
  });
});

describe('readBody', () => {
  const signal = new AbortController().signal;
  it('decodes stacked codings and counts decoded bytes', async () => {
    const data = Buffer.alloc(10_000, 'x');
    const body = await readBody(Readable.from([zlib.brotliCompressSync(zlib.gzipSync(data))]), {
      codings: ['br', 'gzip'],
      maxBytes: 10_000,
      onOverflow: 'throw',
      signal,
    });
    expect(Buffer.from(body).equals(data)).toBe(true);
    await expect(
      readBody(Readable.from([zlib.gzipSync(data)]), {
        codings: ['gzip'],
        maxBytes: 9_999,
        onOverflow: 'throw',
        signal,
      }),
    ).rejects.toMatchObject({ code: 'too_large' });
  });

  it('truncates at the cap when asked, and destroys the source', async () => {
    const source = Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b'), Buffer.alloc(600, 'c')]);
    const body = await readBody(source, { codings: [], maxBytes: 1000, onOverflow: 'truncate', signal });
    expect(body.byteLength).toBe(1000);
    expect(Buffer.from(body.subarray(600)).toString()).toBe('b'.repeat(400));
    expect(source.destroyed).toBe(true);
  });
});
