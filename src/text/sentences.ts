/** Sentence splitting with `Intl.Segmenter`. */
import { inlineSpanRanges } from './markdown.ts';

const segmenters = new Map<string, Intl.Segmenter>();

function sentenceSegmenter(locale: string | undefined): Intl.Segmenter {
  const key = locale ?? '';
  let segmenter = segmenters.get(key);
  if (segmenter === undefined) {
    let resolved: string | undefined = locale;
    try {
      if (resolved !== undefined) Intl.getCanonicalLocales(resolved);
    } catch {
      resolved = undefined; // an invalid tag (e.g. from a page's lang attribute) falls back to the default
    }
    segmenter = new Intl.Segmenter(resolved, { granularity: 'sentence' });
    segmenters.set(key, segmenter);
  }
  return segmenter;
}

// Abbreviations after which Intl.Segmenter (ICU) wrongly ends a sentence in English text.
const ABBREVIATION =
  /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|Prof|St|No|Fig|Inc|Ltd|Jr|Sr|Hon)\.$/i;
/** A name's middle initial ("James K. Polk", "Nathan H. Juran"), not a Roman numeral ("World War I."). */
const INITIAL = /(?:^|\s)\p{Lu}\p{Ll}+\s+(?![IVX]\.)\p{Lu}\.$/u;

/**
 * Whether `text` ends with an abbreviation ("Dr.", "St.", "e.g.") or a name's middle initial ("Hyman B."):
 * a period there does not end a sentence, though ICU ends one.
 */
export function endsShort(text: string): boolean {
  return ABBREVIATION.test(text) || INITIAL.test(text);
}

/**
 * Splits text into sentences using `Intl.Segmenter` with sentence granularity for the given locale
 * (BCP 47 tag such as `en` or `de-CH`; invalid tags fall back to the runtime default).
 * Sentences are trimmed, empty ones dropped, and a split after a common abbreviation ("e.g.", "Dr.")
 * or a name's middle initial ("James K. Polk") is undone, and so is a split before a lower-case letter (ICU ends a sentence after `?"` even when the
 * sentence goes on). Line breaks inside a paragraph do not end a sentence; blank lines do.
 */
export function splitSentences(text: string, locale?: string): string[] {
  const sentences: string[] = [];
  for (const paragraph of text.split(/\n[ \t]*\n/)) {
    const flat = paragraph.replace(/\s*\n\s*/g, ' ').trim();
    for (const { start, end } of sentenceSpans(flat, locale)) sentences.push(flat.slice(start, end));
  }
  return sentences;
}

/**
 * The sentences of `text` as offsets (`text.slice(start, end)` is a trimmed sentence), split as
 * {@link splitSentences} splits one paragraph. A line break ends a sentence here (ICU's rule), but a code
 * span (`` `helpdesk new --urgent?` ``), a link or an image (`![Done!](done.png)`) is never cut.
 */
export function sentenceSpans(text: string, locale?: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let pending: { start: number; end: number } | null = null;
  const inline = inlineSpanRanges(text);
  let nextInline = 0;
  /** Whether `offset` falls inside a code span, link or image (offsets only grow). */
  const insideInline = (offset: number): boolean => {
    while (nextInline < inline.length && inline[nextInline]![1] <= offset) nextInline++;
    const span = inline[nextInline];
    return span !== undefined && span[0] < offset && offset < span[1];
  };
  for (const { segment, index } of sentenceSegmenter(locale).segment(text)) {
    const piece = segment.trim();
    if (piece.length === 0) continue;
    const start = index + (segment.length - segment.trimStart().length);
    const end = start + piece.length;
    // A "sentence" starting in lower case continues the previous one (ICU splits after `?"` in
    // 'the prompt "How tall is it?" searches for…').
    const previous: { start: number; end: number } | undefined =
      pending === null && /^\p{Ll}/u.test(piece) ? spans.pop() : undefined;
    if (previous) pending = { start: previous.start, end };
    else pending = pending === null ? { start, end } : { start: pending.start, end };
    if (!endsShort(text.slice(pending.start, pending.end)) && !insideInline(pending.end)) {
      spans.push(pending);
      pending = null;
    }
  }
  if (pending !== null) spans.push(pending);
  return inline.length === 0 ? spans : spans.flatMap((span) => splitBeforeCode(text, span, inline));
}

const END_BEFORE_CODE = /[.!?]["'”’)\]]*\s+(?=`)/g;

/**
 * ICU does not end a sentence before one that opens with a code span in lower case ("… removes).
 * `provider.index` is …"): splits `span` there, unless the period ends an abbreviation or sits inside a
 * code span, link or image.
 */
function splitBeforeCode(
  text: string,
  span: { start: number; end: number },
  inline: readonly [number, number][],
): { start: number; end: number }[] {
  const parts: { start: number; end: number }[] = [];
  let start = span.start;
  const sentence = text.slice(span.start, span.end);
  for (const match of sentence.matchAll(END_BEFORE_CODE)) {
    const stop = span.start + match.index + match[0].trimEnd().length;
    const next = span.start + match.index + match[0].length;
    const inside = inline.some(([from, to]) => from < stop && stop < to);
    const opensCode = inline.some(([from]) => from === next) && text[next + 1] !== '`';
    if (inside || !opensCode || endsShort(text.slice(start, stop))) continue;
    parts.push({ start, end: stop });
    start = next;
  }
  parts.push({ start, end: span.end });
  return parts;
}
