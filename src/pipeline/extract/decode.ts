/**
 * Byte decoding with the precedence browsers use: byte-order mark, then the Content-Type charset, then a
 * `<meta charset>` / `http-equiv` declaration in the first 1024 bytes, then a default.
 */

/** Where the chosen encoding came from. */
export type EncodingSource = 'bom' | 'header' | 'meta' | 'utf8-valid' | 'default';

/** Result of {@link decodeBytes}. */
export interface DecodedText {
  readonly text: string;
  /** WHATWG encoding name actually used, e.g. `utf-8`, `windows-1252`, `shift_jis`. */
  readonly encoding: string;
  readonly source: EncodingSource;
}

/** Options of {@link decodeBytes}. */
export interface DecodeOptions {
  /** Charset label from the Content-Type header, if any. */
  readonly charset?: string | undefined;
  /** Look for `<meta charset>` in the first 1024 bytes (HTML only). @default false */
  readonly sniffMeta?: boolean;
}

const META_PREFIX_BYTES = 1024;

/** Returns the WHATWG encoding name for a label, or `undefined` when the label is unknown. */
export function normalizeEncodingLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const cleaned = label.trim().replace(/^["']|["']$/g, '');
  if (cleaned === '') return undefined;
  try {
    return new TextDecoder(cleaned).encoding;
  } catch {
    return undefined;
  }
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** Finds a charset declared by `<meta charset>` or `<meta http-equiv="Content-Type" content="...">`. */
export function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  // latin1 maps every byte to one code unit, so ASCII markup is readable whatever the real encoding.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, META_PREFIX_BYTES));
  for (const match of head.matchAll(/<meta\b([^>]*)>/gi)) {
    const attributes = new Map<string, string>();
    for (const attribute of (match[1] ?? '').matchAll(
      /([^\s=/>]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/g,
    )) {
      const name = attribute[1]?.toLowerCase();
      if (name && !attributes.has(name))
        attributes.set(name, attribute[2] ?? attribute[3] ?? attribute[4] ?? '');
    }
    let label = attributes.get('charset');
    if (label === undefined && attributes.get('http-equiv')?.trim().toLowerCase() === 'content-type') {
      label = /charset\s*=\s*["']?\s*([^\s"';]+)/i.exec(attributes.get('content') ?? '')?.[1];
    }
    const encoding = normalizeEncodingLabel(label);
    if (!encoding) continue;
    // WHATWG: a UTF-16 declaration in ASCII-compatible bytes means UTF-8; x-user-defined means windows-1252.
    if (encoding.startsWith('utf-16')) return 'utf-8';
    if (encoding === 'x-user-defined') return 'windows-1252';
    return encoding;
  }
  return undefined;
}

/** The bytes as UTF-8, or undefined when they are not valid UTF-8 (one decoding serves as check and result). */
function decodeValidUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Decodes bytes to text. Precedence: BOM > `charset` > `<meta>` (when `sniffMeta`) > UTF-8 when the bytes are
 * valid UTF-8 > windows-1252 (the WHATWG default for undeclared legacy HTML). Unknown labels are ignored.
 */
export function decodeBytes(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const bom = bomEncoding(bytes);
  if (bom) return { text: new TextDecoder(bom).decode(bytes), encoding: bom, source: 'bom' };
  const header = normalizeEncodingLabel(options.charset);
  if (header && header !== 'replacement') {
    return { text: new TextDecoder(header).decode(bytes), encoding: header, source: 'header' };
  }
  const meta = options.sniffMeta ? sniffMetaCharset(bytes) : undefined;
  if (meta && meta !== 'replacement') {
    return { text: new TextDecoder(meta).decode(bytes), encoding: meta, source: 'meta' };
  }
  // Undeclared pages today are mostly UTF-8; valid multi-byte UTF-8 is almost never intended windows-1252.
  const utf8 = decodeValidUtf8(bytes);
  if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8', source: 'utf8-valid' };
  return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252', source: 'default' };
}
