import { describe, expect, it } from 'vitest';
import { decodeBytes, sniffMetaCharset } from '../../src/pipeline/extract/decode.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? ascii(part) : part)));

// "café €" in windows-1252: é = 0xE9, € = 0x80 (both invalid as UTF-8 here).
const CAFE_1252 = [0x63, 0x61, 0x66, 0xe9, 0x20, 0x80];
// "日本語" in Shift_JIS.
const NIHONGO_SJIS = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea];

describe('decodeBytes', () => {
  it('uses the Content-Type charset for windows-1252', () => {
    const decoded = decodeBytes(bytes(CAFE_1252), { charset: 'windows-1252' });
    expect(decoded).toMatchObject({ text: 'café €', encoding: 'windows-1252', source: 'header' });
  });

  it('treats iso-8859-1 as windows-1252, as browsers do', () => {
    expect(decodeBytes(bytes(CAFE_1252), { charset: 'ISO-8859-1' }).text).toBe('café €');
  });

  it('defaults to windows-1252 for undeclared bytes that are not valid UTF-8', () => {
    expect(decodeBytes(bytes('<p>', CAFE_1252, '</p>'), { sniffMeta: true })).toMatchObject({
      text: '<p>café €</p>',
      source: 'default',
    });
  });

  it('keeps undeclared valid UTF-8 as UTF-8', () => {
    const utf8 = new TextEncoder().encode('<p>naïve — ok</p>');
    expect(decodeBytes(utf8, { sniffMeta: true })).toMatchObject({
      text: '<p>naïve — ok</p>',
      source: 'utf8-valid',
    });
  });

  it('reads <meta charset> for Shift_JIS', () => {
    const page = bytes('<html><head><meta charset="Shift_JIS"></head><body>', NIHONGO_SJIS, '</body></html>');
    const decoded = decodeBytes(page, { sniffMeta: true });
    expect(decoded.encoding).toBe('shift_jis');
    expect(decoded.text).toContain('日本語');
  });

  it('reads the http-equiv Content-Type declaration', () => {
    const page = bytes(
      '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>',
      CAFE_1252,
    );
    expect(sniffMetaCharset(page)).toBe('windows-1252');
    expect(decodeBytes(page, { sniffMeta: true }).text).toContain('café €');
  });

  it('ignores charset= in an unrelated meta content', () => {
    expect(sniffMetaCharset(bytes('<meta name="x" content="charset=shift_jis">'))).toBeUndefined();
  });

  it('lets a BOM win over the header and the meta tag', () => {
    const page = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('<meta charset="windows-1252">é'),
    ]);
    const decoded = decodeBytes(page, { charset: 'shift_jis', sniffMeta: true });
    expect(decoded).toMatchObject({ encoding: 'utf-8', source: 'bom' });
    expect(decoded.text).toBe('<meta charset="windows-1252">é');
  });

  it('decodes UTF-16LE with a BOM', () => {
    const page = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]);
    expect(decodeBytes(page).text).toBe('hé');
  });

  it('lets the header win over the meta tag', () => {
    const page = bytes('<meta charset="shift_jis">', CAFE_1252);
    expect(decodeBytes(page, { charset: 'windows-1252', sniffMeta: true }).text).toContain('café');
  });

  it('falls back safely on unknown labels', () => {
    const page = bytes('<meta charset="no-such-charset">', CAFE_1252);
    const decoded = decodeBytes(page, { charset: 'bogus', sniffMeta: true });
    expect(decoded.source).toBe('default');
    expect(decoded.text).toContain('café €');
  });

  it('maps a UTF-16 meta declaration in ASCII bytes to UTF-8', () => {
    expect(sniffMetaCharset(bytes('<meta charset="utf-16">'))).toBe('utf-8');
  });
});

describe('extractContent charset handling', () => {
  const paragraph = 'This paragraph is long enough to be read as the article body of the page. '.repeat(4);
  it('decodes a Shift_JIS page declared only in <meta>', async () => {
    const page = bytes(
      '<html><head><meta charset="shift_jis"><title>t</title></head><body><article><p>',
      NIHONGO_SJIS,
      ` ${paragraph}</p></article></body></html>`,
    );
    const result = await extractContent(page, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.text).toContain('日本語');
  });

  it('decodes windows-1252 from the charset inside contentType', async () => {
    const page = bytes('<html><body><article><p>', CAFE_1252, ` ${paragraph}</p></article></body></html>`);
    const result = await extractContent(page, {
      url: 'https://example.test/',
      contentType: 'text/html; charset=windows-1252',
    });
    expect(result?.text).toContain('café €');
  });
});
