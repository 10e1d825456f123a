/** Bounds on what one extraction may produce: the inflated size of a PDF's streams and the extracted text. */

/** Defaults of the extraction bounds (options of `extractContent` and `createContentExtractor`). */
export const EXTRACTION_LIMIT_DEFAULTS = {
  /** Most bytes a PDF's compressed streams may inflate to in all (64 MiB); a PDF past it is not read. */
  maxPdfDecodedBytes: 64 * 1024 * 1024,
  /** Most characters of extracted text (and of its Markdown) kept of one page. */
  maxTextChars: 2_000_000,
} as const;

/** `text` cut to at most `max` characters, at the last line break or space before the cut when there is one. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  return (boundary > max * 0.9 ? cut.slice(0, boundary) : cut).trimEnd();
}
