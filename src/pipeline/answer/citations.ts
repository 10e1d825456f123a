/**
 * Citation validation and link stripping for model answers, written as a streaming filter so that the
 * streamed deltas and the final answer are the same text.
 *
 * The model cites the numbered sources of its prompt with `[n]` (also `[1, 2]`, `[1-3]`, `[1][2]`). The
 * filter removes citations of sources that do not exist, renumbers the rest in order of first citation
 * (so that `[1]` is `cited[0]`), turns links and bare URLs that point at a source into a citation, drops
 * links, autolinks, bare URLs and images the model invented (keeping a link's text), reference-link
 * definitions, footnotes, HTML comments, HTML tags and inline `<think>…</think>` reasoning. Code spans and
 * fenced code blocks pass unchanged.
 *
 * It buffers only what it cannot decide yet: an unfinished `[…]`, `![…](…)`, `<…>`, URL, code span,
 * or a line start that may open a code fence or a reference definition.
 */

/** A text transformation applied to a stream of deltas: `push` returns what can be emitted so far. */
export interface StreamingFilter {
  /** Feeds the next delta; returns the text that is final so far (possibly empty). */
  push(delta: string): string;
  /** Ends the stream; returns whatever was still held back. */
  end(): string;
}

/** Options of {@link createCitationFilter}. */
export interface CitationFilterOptions {
  /** URLs of the numbered sources the model was given: `[n]` refers to `sources[n - 1]`. */
  readonly sources: readonly string[];
  /**
   * `renumber`: validate and renumber citations in order of first citation. `keep`: leave bracketed
   * numbers as they are (used when stripping links from arbitrary Markdown).
   * @default 'renumber'
   */
  readonly citations?: 'renumber' | 'keep';
}

/** A {@link StreamingFilter} that also reports which sources were cited. */
export interface CitationFilter extends StreamingFilter {
  /** URLs cited so far, in order of first citation: `[n]` in the output is `cited[n - 1]`. */
  readonly cited: readonly string[];
}

/** Longest `[…]` label, link destination, tag, code span or line looked at before giving up. */
const MAX_LABEL = 300;
const MAX_DESTINATION = 2048;
const MAX_TAG = 1000;
const MAX_CODE_SPAN = 2000;
const MAX_COMMENT = 5000;
/** Widest citation range expanded (`[1-40]` is not a citation). */
const MAX_RANGE = 20;

/** HTML elements whose tags are stripped; other `<words>` (placeholders such as `<id>`) are kept. */
const HTML_ELEMENTS: ReadonlySet<string> = new Set(
  (
    'a abbr address area article aside audio b base bdi bdo big blink blockquote body br button canvas caption ' +
    'center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed fieldset ' +
    'figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img ' +
    'input ins kbd label legend li link main map mark marquee math menu meta meter nav noscript object ol ' +
    'optgroup option output p param picture pre progress q rp rt ruby s samp script search section select slot ' +
    'small source span strike strong style sub summary sup svg table tbody td template textarea tfoot th thead ' +
    'time title tr track tt u ul var video wbr'
  ).split(' '),
);

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)(?:\n|$)/;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]{1,300}\]:/;
/** A line start that may still become a fence or a reference definition. */
const PARTIAL_LINE_START = /^ {0,3}(?:`{0,2}|~{0,2}|\[[^\]\n]{0,300}|\[[^\]\n]{1,300}\])$/;
const CITATION_LABEL = /^\s*\d{1,4}(?:\s*(?:,|;|-|–|—)\s*\d{1,4})*\s*$/;
const TAG = /^<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/;
const PARTIAL_TAG = /^<\/?(?:[A-Za-z][^<>]*)?$/; // a tag may span lines, as TAG allows
const THINKING = /^<(think|thinking|reasoning)>/i;
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]*)>/i;
const BARE_URL = /^(?:https?:\/\/|www\.)[^\s<>"'`[\]{}|\\^]+/i;
const URL_PREFIXES = ['https://', 'http://', 'www.'];

const isWordChar = (char: string): boolean => /[\p{L}\p{N}_]/u.test(char);

/**
 * Canonical form used to compare URLs: http and https alike, no fragment, no trailing slash, lower-case
 * host.
 */
export function normalizeUrl(url: string): string {
  const candidate = /^www\./i.test(url) ? `https://${url}` : url;
  try {
    const parsed = new URL(candidate);
    parsed.hash = '';
    if (parsed.protocol === 'http:') parsed.protocol = 'https:';
    const text = parsed.href;
    return text.endsWith('/') ? text.slice(0, -1) : text;
  } catch {
    return url.trim();
  }
}

/** The numbers of a citation label (`1, 2`, `1-3`), or `null` when the label is not a citation. */
export function citationNumbers(label: string): number[] | null {
  if (!CITATION_LABEL.test(label)) return null;
  const numbers: number[] = [];
  for (const part of label.split(/\s*[,;]\s*/)) {
    const range = /^\s*(\d+)\s*[-–—]\s*(\d+)\s*$/.exec(part);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (to < from || to - from >= MAX_RANGE) return null;
      for (let n = from; n <= to; n++) numbers.push(n);
    } else numbers.push(Number(part.trim()));
  }
  return numbers;
}

type Step =
  | { readonly kind: 'need' }
  | { readonly kind: 'literal' }
  | { readonly kind: 'emit'; readonly consumed: number; readonly text: string; readonly dropSpace?: boolean };

const NEED: Step = { kind: 'need' };
const LITERAL: Step = { kind: 'literal' };

type ParsedBracket =
  | { readonly kind: 'need' }
  | { readonly kind: 'none' }
  | { readonly kind: 'bracket'; readonly label: string; readonly end: number }
  | { readonly kind: 'link'; readonly label: string; readonly url: string; readonly end: number }
  | { readonly kind: 'reference'; readonly label: string; readonly end: number };

/**
 * Finds the `]` closing the label opened at `open` (nested brackets allowed, as in `[Everest [1]](url)`);
 * `-1` = incomplete, `-2` = not a label.
 */
function closeLabel(s: string, open: number): number {
  let depth = 0;
  for (let k = open + 1; k < s.length; k++) {
    const char = s[k];
    if (char === '\n' || k - open > MAX_LABEL) return -2;
    if (char === '\\') k++;
    else if (char === '[') depth++;
    else if (char === ']') {
      if (depth === 0) return k;
      depth--;
    }
  }
  return -1;
}

/** Parses `[label]`, `[label](url "title")` or `[label][ref]` at `open`. */
function parseBracket(s: string, open: number, atEnd: boolean): ParsedBracket {
  const close = closeLabel(s, open);
  if (close === -2) return { kind: 'none' };
  if (close === -1) return atEnd ? { kind: 'none' } : { kind: 'need' };
  const label = s.slice(open + 1, close);
  const after = close + 1;
  if (after >= s.length) return atEnd ? { kind: 'bracket', label, end: after } : { kind: 'need' };
  const next = s[after];
  if (next === '(') {
    let depth = 0;
    for (let m = after + 1; m < s.length; m++) {
      const char = s[m];
      if (char === '\n' || m - after > MAX_DESTINATION) return { kind: 'bracket', label, end: after };
      if (char === '(') depth++;
      else if (char === ')') {
        if (depth === 0) {
          const inner = s.slice(after + 1, m).trim();
          const url = (inner.split(/\s+/)[0] ?? '').replace(/^<|>$/g, '');
          return { kind: 'link', label, url, end: m + 1 };
        }
        depth--;
      }
    }
    return atEnd ? { kind: 'bracket', label, end: after } : { kind: 'need' };
  }
  if (next === '[' && citationNumbers(label) === null) {
    const refClose = closeLabel(s, after);
    if (refClose === -1 && !atEnd) return { kind: 'need' };
    if (refClose >= 0) {
      const reference = s.slice(after + 1, refClose);
      // "[text][2]" is text followed by a citation, not a reference link.
      if (citationNumbers(reference) === null) return { kind: 'reference', label, end: refClose + 1 };
    }
  }
  return { kind: 'bracket', label, end: after };
}

const LABEL_IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const LABEL_BRACKET = /\[([^[\]]*)\](?:\([^)]*\))?/g;
const LABEL_URL = /(?:https?:\/\/|www\.)[^\s\]]+/gi;

function stripTags(text: string): string {
  return text.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g, (tag, name: string) =>
    HTML_ELEMENTS.has(name.toLowerCase()) ? '' : tag,
  );
}

/**
 * Creates the streaming citation and link filter for one answer.
 *
 * @example
 * const filter = createCitationFilter({ sources: ['https://a.test', 'https://b.test'] });
 * const text = filter.push('B says so [2], [7].') + filter.end(); // 'B says so [1].'
 * filter.cited; // ['https://b.test']
 */
export function createCitationFilter(options: CitationFilterOptions): CitationFilter {
  const sources: readonly string[] = options.sources;
  if (!Array.isArray(options.sources)) throw new TypeError('sources must be an array of URLs');
  const renumber = (options.citations ?? 'renumber') === 'renumber';
  const sourceByUrl = new Map<string, number>();
  sources.forEach((url, index) => {
    const key = normalizeUrl(url);
    if (!sourceByUrl.has(key)) sourceByUrl.set(key, index + 1);
  });
  /** Prompt number → output number. */
  const numbering = new Map<number, number>();
  const cited: string[] = [];

  let pending = '';
  let mode: 'text' | 'fence' = 'text';
  let fence = { char: '`', length: 3 };
  let atLineStart = true;
  let previous = '';
  let out = '';
  let heldSpace = '';
  /** Set when something was removed after a space: a space right after it would double it. */
  let collapseNextSpace = false;

  const write = (text: string): void => {
    if (text.length === 0) return;
    if (collapseNextSpace && heldSpace.length > 0) text = text.replace(/^[ \t]+/, '');
    collapseNextSpace = false;
    if (text.length === 0) return;
    const trailing = /[ \t]+$/.exec(text);
    if (trailing === null) {
      out += heldSpace + text;
      heldSpace = '';
    } else if (trailing.index === 0) {
      heldSpace += text;
    } else {
      out += heldSpace + text.slice(0, trailing.index);
      heldSpace = trailing[0];
    }
  };

  /** Output citations for prompt source numbers; empty when none is valid. */
  const citationText = (numbers: readonly number[]): string => {
    const seen = new Set<number>();
    let text = '';
    for (const n of numbers) {
      if (!Number.isInteger(n) || n < 1 || n > sources.length) continue;
      let assigned = numbering.get(n);
      if (assigned === undefined) {
        assigned = cited.push(sources[n - 1] ?? '');
        numbering.set(n, assigned);
      }
      if (seen.has(assigned)) continue;
      seen.add(assigned);
      text += `[${assigned}]`;
    }
    return text;
  };

  /** Citation for a URL if it is one of the sources ('' otherwise, or in `keep` mode). */
  const citationForUrl = (url: string): string => {
    const n = sourceByUrl.get(normalizeUrl(url));
    return n !== undefined && renumber ? citationText([n]) : '';
  };

  const citation = (label: string, consumed: number): Step => {
    if (!renumber) return { kind: 'emit', consumed, text: `[${label}]` };
    const text = citationText(citationNumbers(label) ?? []);
    return text ? { kind: 'emit', consumed, text } : { kind: 'emit', consumed, text: '', dropSpace: true };
  };

  /** The visible text of a link label: no tags, images or URLs; citations inside it are processed. */
  const labelText = (label: string): string =>
    stripTags(label)
      .replace(LABEL_IMAGE, '')
      .replace(LABEL_BRACKET, (_match, inner: string) => {
        const numbers = citationNumbers(inner);
        if (numbers === null) return inner;
        return renumber ? citationText(numbers) : `[${inner}]`;
      })
      .replace(LABEL_URL, '')
      .replace(/\s+/g, ' ')
      .trim();

  const lineStart = (s: string, i: number, atEnd: boolean): Step | null => {
    const rest = s.slice(i);
    const newline = rest.indexOf('\n');
    if (newline === -1 && !atEnd && PARTIAL_LINE_START.test(rest)) return NEED;
    const fenceMatch = FENCE_OPEN.exec(rest);
    if (fenceMatch !== null && !(fenceMatch[1]?.startsWith('`') && fenceMatch[2]?.includes('`'))) {
      if (newline === -1 && !atEnd) return rest.length > MAX_DESTINATION ? null : NEED;
      const marker = fenceMatch[1] ?? '```';
      mode = 'fence';
      fence = { char: marker[0] ?? '`', length: marker.length };
      const line = fenceMatch[0];
      return { kind: 'emit', consumed: line.length, text: line };
    }
    if (REFERENCE_DEFINITION.test(rest)) {
      // "[1]: https://…" lists and reference definitions: the sources are reported separately.
      if (newline === -1 && !atEnd) return rest.length > MAX_DESTINATION ? null : NEED;
      return { kind: 'emit', consumed: newline === -1 ? rest.length : newline + 1, text: '' };
    }
    return null;
  };

  const codeSpan = (s: string, i: number, atEnd: boolean): Step => {
    let runEnd = i;
    while (s[runEnd] === '`') runEnd++;
    if (runEnd === s.length && !atEnd) return NEED;
    const length = runEnd - i;
    for (let k = runEnd; k < s.length;) {
      const char = s[k];
      if (char === '\n') break;
      if (char === '`') {
        let close = k;
        while (s[close] === '`') close++;
        if (close === s.length && !atEnd) return NEED;
        if (close - k === length) return { kind: 'emit', consumed: close - i, text: s.slice(i, close) };
        k = close;
      } else k++;
    }
    const closed = s.indexOf('\n', runEnd) !== -1;
    if (!closed && !atEnd && s.length - i <= MAX_CODE_SPAN) return NEED;
    // An unclosed run of backticks is literal text.
    return { kind: 'emit', consumed: length, text: s.slice(i, runEnd) };
  };

  const bracket = (s: string, i: number, atEnd: boolean): Step => {
    const parsed = parseBracket(s, i, atEnd);
    if (parsed.kind === 'need') return NEED;
    if (parsed.kind === 'none') return LITERAL;
    const consumed = parsed.end - i;
    if (parsed.label.startsWith('^')) return { kind: 'emit', consumed, text: '', dropSpace: true };
    const isCitation = citationNumbers(parsed.label) !== null;
    if (parsed.kind === 'bracket') return isCitation ? citation(parsed.label, consumed) : LITERAL;
    if (parsed.kind === 'reference') {
      const label = labelText(parsed.label);
      return { kind: 'emit', consumed, text: label, dropSpace: label.length === 0 };
    }
    // A link: "[2](url)" is a citation; a link to a source becomes its text and a citation; others, text.
    if (isCitation) return citation(parsed.label, consumed);
    const label = labelText(parsed.label);
    const cite = citationForUrl(parsed.url);
    if (label.length === 0) return { kind: 'emit', consumed, text: cite, dropSpace: cite.length === 0 };
    return { kind: 'emit', consumed, text: cite ? `${label} ${cite}` : label };
  };

  const image = (s: string, i: number, atEnd: boolean): Step => {
    if (i + 1 >= s.length) return atEnd ? LITERAL : NEED;
    if (s[i + 1] !== '[') return LITERAL;
    const parsed = parseBracket(s, i + 1, atEnd);
    if (parsed.kind === 'need') return NEED;
    // Images are dropped: a source is a page, and an image URL would be one the model made up.
    if (parsed.kind === 'link') return { kind: 'emit', consumed: parsed.end - i, text: '', dropSpace: true };
    return LITERAL;
  };

  const angle = (s: string, i: number, atEnd: boolean): Step => {
    const rest = s.slice(i, i + MAX_COMMENT + 4);
    if (rest.startsWith('<!--')) {
      const close = s.indexOf('-->', i + 4);
      if (close !== -1) return { kind: 'emit', consumed: close + 3 - i, text: '' };
      if (atEnd) return { kind: 'emit', consumed: s.length - i, text: '' };
      return s.length - i > MAX_COMMENT ? LITERAL : NEED;
    }
    if (!atEnd && '<!--'.startsWith(rest)) return NEED;
    // Reasoning that local models (e.g. via Ollama) write inline is not part of the answer.
    const thinking = THINKING.exec(rest);
    if (thinking !== null) {
      const closeTag = new RegExp(`</${thinking[1] ?? ''}>`, 'gi');
      closeTag.lastIndex = i + thinking[0].length;
      const close = closeTag.exec(s);
      if (close !== null) return { kind: 'emit', consumed: close.index + close[0].length - i, text: '' };
      return atEnd ? { kind: 'emit', consumed: s.length - i, text: '' } : NEED;
    }
    const autolink = AUTOLINK.exec(rest);
    if (autolink !== null) {
      const cite = citationForUrl(autolink[1] ?? '');
      return { kind: 'emit', consumed: autolink[0].length, text: cite, dropSpace: cite.length === 0 };
    }
    const tag = TAG.exec(rest);
    if (tag !== null) {
      if (!HTML_ELEMENTS.has((tag[1] ?? '').toLowerCase())) return LITERAL;
      return { kind: 'emit', consumed: tag[0].length, text: '' };
    }
    if (!atEnd && rest.length <= MAX_TAG && PARTIAL_TAG.test(rest)) return NEED;
    return LITERAL;
  };

  const bareUrl = (s: string, i: number, atEnd: boolean): Step => {
    const rest = s.slice(i, i + MAX_DESTINATION + 1);
    const match = BARE_URL.exec(rest);
    if (match === null) {
      const lower = rest.toLowerCase();
      return !atEnd && URL_PREFIXES.some((prefix) => prefix.startsWith(lower)) ? NEED : LITERAL;
    }
    if (i + match[0].length >= s.length && !atEnd && match[0].length <= MAX_DESTINATION) return NEED;
    let url = match[0].replace(/[.,;:!?*_~'"]+$/, '');
    while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0))
      url = url.slice(0, -1).replace(/[.,;:!?*_~'"]+$/, '');
    if (/^(?:https?:\/\/|www\.)$/i.test(url)) return LITERAL;
    const cite = citationForUrl(url);
    return { kind: 'emit', consumed: url.length, text: cite, dropSpace: cite.length === 0 };
  };

  const fenceLine = (s: string, i: number, atEnd: boolean): Step => {
    const newline = s.indexOf('\n', i);
    if (newline === -1 && !atEnd) return NEED;
    const line = s.slice(i, newline === -1 ? s.length : newline + 1);
    const close = new RegExp(`^ {0,3}\\${fence.char}{${fence.length},}[ \\t]*\\n?$`);
    if (close.test(line)) mode = 'text';
    return { kind: 'emit', consumed: line.length, text: line };
  };

  const process = (atEnd: boolean): void => {
    let i = 0;
    while (i < pending.length) {
      let step: Step | null;
      if (mode === 'fence') {
        step = fenceLine(pending, i, atEnd);
        if (step.kind === 'need') break;
      } else {
        step = atLineStart ? lineStart(pending, i, atEnd) : null;
        if (step?.kind === 'need') break;
        if (step === null) {
          atLineStart = false;
          const char = pending[i] ?? '';
          if (char === '\n') step = { kind: 'emit', consumed: 1, text: '\n' };
          else if (char === '`') step = codeSpan(pending, i, atEnd);
          else if (char === '[') step = bracket(pending, i, atEnd);
          else if (char === '!') step = image(pending, i, atEnd);
          else if (char === '<') step = angle(pending, i, atEnd);
          else if (/[hHwW]/.test(char) && !isWordChar(previous)) step = bareUrl(pending, i, atEnd);
          else step = LITERAL;
          if (step.kind === 'need') break;
        }
      }
      if (step.kind === 'literal') step = { kind: 'emit', consumed: 1, text: pending[i] ?? '' };
      if (step.dropSpace) heldSpace = '';
      if (step.text.length === 0 && step.consumed > 0) collapseNextSpace = heldSpace.length > 0;
      else write(step.text);
      const consumedText = pending.slice(i, i + step.consumed);
      i += step.consumed;
      previous = consumedText.at(-1) ?? previous;
      atLineStart = consumedText.endsWith('\n') || (atLineStart && step.consumed === 0);
    }
    pending = pending.slice(i);
  };

  const take = (): string => {
    const text = out;
    out = '';
    return text;
  };

  return {
    get cited() {
      return cited;
    },
    push(delta: string): string {
      pending += delta;
      process(false);
      return take();
    },
    end(): string {
      process(true);
      out += heldSpace;
      heldSpace = '';
      return take();
    },
  };
}

/**
 * Validates the citations of a complete answer: see {@link createCitationFilter}.
 * `sources` of the result lists the cited URLs in citation order (`[1]` is `sources[0]`).
 */
export function filterCitations(
  answer: string,
  sources: readonly string[],
): { readonly text: string; readonly sources: string[] } {
  const filter = createCitationFilter({ sources });
  const text = filter.push(answer) + filter.end();
  return { text, sources: [...filter.cited] };
}
