/** Sentence splitting with `Intl.Segmenter`. */

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
  /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|Prof|St|No|Fig|Inc|Ltd|Jr|Sr)\.$/i;

/**
 * Splits text into sentences using `Intl.Segmenter` with sentence granularity for the given locale
 * (BCP 47 tag such as `en` or `de-CH`; invalid tags fall back to the runtime default).
 * Sentences are trimmed, empty ones dropped, and a split after a common abbreviation ("e.g.", "Dr.")
 * is undone, and so is a split before a lower-case letter (ICU ends a sentence after `?"` even when the
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
 * {@link splitSentences} splits one paragraph. A line break ends a sentence here (ICU's rule).
 */
export function sentenceSpans(text: string, locale?: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let pending: { start: number; end: number } | null = null;
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
    if (!ABBREVIATION.test(text.slice(pending.start, pending.end))) {
      spans.push(pending);
      pending = null;
    }
  }
  if (pending !== null) spans.push(pending);
  return spans;
}
