/**
 * Answer formatting: converting Markdown to plain text for `response_type: "text"` (the model is asked for
 * plain text, but its output is converted rather than trusted), and whitespace tidying. Both are streaming
 * filters, so that a streamed answer and the final answer are the same text.
 */
import { createCitationFilter, type CitationFilter, type StreamingFilter } from './citations.ts';
import type { ResponseType } from '../types.ts';

/** Chains filters: the output of each is the input of the next. */
export function pipeFilters(...filters: readonly StreamingFilter[]): StreamingFilter {
  return {
    push(delta: string): string {
      return filters.reduce((text, filter) => filter.push(text), delta);
    },
    end(): string {
      let text = '';
      for (const filter of filters) text = filter.push(text) + filter.end();
      return text;
    },
  };
}

/** Options of {@link createWhitespaceFilter}. */
export interface WhitespaceFilterOptions {
  /**
   * Also remove spaces before line breaks and collapse runs of blank lines into one (for plain text;
   * Markdown keeps trailing spaces, which are hard line breaks there).
   * @default false
   */
  readonly collapse?: boolean;
}

/** Drops leading and trailing whitespace of the whole text; optionally tidies whitespace runs. */
export function createWhitespaceFilter(options: WhitespaceFilterOptions = {}): StreamingFilter {
  const collapse = options.collapse ?? false;
  let started = false;
  let held = '';
  const tidy = (text: string): string =>
    collapse ? text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n') : text;
  return {
    push(delta: string): string {
      let text = held + delta;
      held = '';
      if (!started) {
        text = text.trimStart();
        if (text.length === 0) return '';
        started = true;
      }
      const trailing = /\s+$/u.exec(text);
      if (trailing !== null) {
        held = trailing[0];
        text = text.slice(0, trailing.index);
      }
      return tidy(text);
    },
    end(): string {
      held = '';
      return '';
    },
  };
}

const BLOCK_MARKER_CHARS = /^[ \t#>*+\-=_~`\d.)[\]xX]*$/;
const THEMATIC_OR_UNDERLINE = /^ {0,3}(?:=+|-+|(?:[-*_][ \t]*){3,})[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;
const QUOTE_MARKER = /^ {0,3}>[ \t]?/;
const LIST_MARKER = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const TASK_BOX = /^\[[ xX]\][ \t]+/;
const HEADING_MARKER = /^ {0,3}#{1,6}(?:[ \t]+|$)/;
const DELIMITER_ROW = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?$/;
const ESCAPABLE = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;

const isWordChar = (char: string): boolean => /[\p{L}\p{N}]/u.test(char);
const isSpace = (char: string): boolean => char === '' || /\s/u.test(char);

/**
 * Creates a streaming Markdown → plain text converter: headings, block quotes, list markers and task
 * boxes lose their markers, code fences and thematic breaks disappear (code keeps its lines), table rows
 * become their cells joined by ", " (the delimiter row is dropped), emphasis, strikethrough, backticks and
 * backslash escapes are removed. Bracketed text such as `[1]` citations is kept. Links and images are not
 * handled here: run the citation filter first (as {@link toPlainText} does).
 */
export function createPlainTextFilter(): StreamingFilter {
  return plainTextFilter(true);
}

/** `startAtLineStart: false` converts a fragment of a line (a table cell): no block markers. */
function plainTextFilter(startAtLineStart: boolean): StreamingFilter {
  let pending = '';
  let mode: 'text' | 'fence' = 'text';
  let fence = { char: '`', length: 3 };
  let atLineStart = startAtLineStart;
  let previous = '';
  /** Length of the backtick run that opened the current code span (0 = not in a code span). */
  let codeRun = 0;
  let out = '';

  /** Handles the start of a line: returns characters consumed, or -1 to wait for more text. */
  const lineStart = (s: string, i: number, atEnd: boolean): number => {
    const newline = s.indexOf('\n', i);
    const line = s.slice(i, newline === -1 ? s.length : newline);
    const complete = newline !== -1 || atEnd;
    const lineLength = newline === -1 ? line.length : line.length + 1;
    if (mode === 'fence') {
      if (!complete) return -1;
      const close = new RegExp(`^ {0,3}\\${fence.char}{${fence.length},}[ \\t]*$`);
      if (close.test(line)) mode = 'text';
      else out += s.slice(i, i + lineLength);
      return lineLength;
    }
    const trimmed = line.trimStart();
    if (!complete && (BLOCK_MARKER_CHARS.test(line) || trimmed.startsWith('|'))) return -1;
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch !== null && !(fenceMatch[1]?.startsWith('`') && fenceMatch[2]?.includes('`'))) {
      const marker = fenceMatch[1] ?? '```';
      mode = 'fence';
      fence = { char: marker[0] ?? '`', length: marker.length };
      return lineLength;
    }
    if (THEMATIC_OR_UNDERLINE.test(line) && line.trim().length > 0) return lineLength;
    if (trimmed.startsWith('|')) {
      if (!DELIMITER_ROW.test(trimmed)) {
        const cells = trimmed
          .replace(/^\|/, '')
          .replace(/(?<!\\)\|[ \t]*$/, '')
          .split(/(?<!\\)\|/)
          .map((cell) => convertInline(cell.trim()))
          .filter((cell) => cell.length > 0);
        out += cells.join(', ') + (newline === -1 ? '' : '\n');
      }
      return lineLength;
    }
    // Markers that open the line: quotes, list markers, task boxes, headings, in any nesting.
    let offset = 0;
    for (;;) {
      const rest = line.slice(offset);
      const marker =
        QUOTE_MARKER.exec(rest) ?? LIST_MARKER.exec(rest) ?? TASK_BOX.exec(rest) ?? HEADING_MARKER.exec(rest);
      if (marker === null || marker[0].length === 0) break;
      offset += marker[0].length;
    }
    const indentation = /^[ \t]*/.exec(line.slice(offset))?.[0].length ?? 0;
    return offset + indentation;
  };

  /** Handles one inline character at `i`: returns characters consumed, or -1 to wait for more text. */
  const inline = (s: string, i: number, atEnd: boolean): number => {
    const char = s[i] ?? '';
    if (char === '\n') {
      out += '\n';
      codeRun = 0;
      atLineStart = true;
      return 1;
    }
    if (char === '`') {
      let end = i;
      while (s[end] === '`') end++;
      if (end === s.length && !atEnd) return -1;
      const run = end - i;
      if (codeRun === 0) codeRun = run;
      else if (run === codeRun) codeRun = 0;
      else out += s.slice(i, end);
      return run;
    }
    if (codeRun > 0) {
      out += char;
      return 1;
    }
    if (char === '\\') {
      if (i + 1 >= s.length) return atEnd ? 1 : -1;
      const next = s[i + 1] ?? '';
      if (ESCAPABLE.test(next)) {
        out += next;
        return 2;
      }
      // A backslash before a line break is a hard break; elsewhere it is literal.
      if (next !== '\n') out += '\\';
      return 1;
    }
    if (char === '*' || char === '_' || char === '~') {
      let end = i;
      while (s[end] === char) end++;
      if (end === s.length && !atEnd) return -1;
      const run = end - i;
      const before = previous;
      const after = s[end] ?? '';
      const literal =
        (isSpace(before) && isSpace(after)) ||
        (char === '_' && isWordChar(before) && isWordChar(after)) ||
        (char === '~' && run === 1);
      if (literal) out += s.slice(i, end);
      return run;
    }
    out += char;
    return 1;
  };

  const convertInline = (text: string): string => {
    const cell = plainTextFilter(false);
    return (cell.push(text) + cell.end()).trim();
  };

  const process = (atEnd: boolean): void => {
    let i = 0;
    while (i < pending.length) {
      let consumed: number;
      if (atLineStart || mode === 'fence') {
        consumed = lineStart(pending, i, atEnd);
        if (consumed === -1) break;
        if (mode === 'fence' || (consumed > 0 && pending[i + consumed - 1] === '\n')) {
          i += consumed;
          atLineStart = true;
          previous = '';
          continue;
        }
        atLineStart = false;
        previous = '';
      } else {
        consumed = inline(pending, i, atEnd);
        if (consumed === -1) break;
        previous = pending[i + consumed - 1] ?? previous;
      }
      i += consumed;
    }
    pending = pending.slice(i);
  };

  return {
    push(delta: string): string {
      pending += delta;
      process(false);
      const text = out;
      out = '';
      return text;
    },
    end(): string {
      process(true);
      const text = out;
      out = '';
      return text;
    },
  };
}

/**
 * Converts Markdown to plain text with no Markdown syntax: links become their text, images, HTML tags and
 * reference definitions go, and block and inline syntax is removed as described in
 * {@link createPlainTextFilter}. Bracketed citations such as `[1]` are kept.
 *
 * @example
 * toPlainText('## Height\n\n**Everest** is *8,849 m* high [1].') // 'Height\n\nEverest is 8,849 m high [1].'
 */
export function toPlainText(markdown: string): string {
  const filter = pipeFilters(
    createCitationFilter({ sources: [], citations: 'keep' }),
    createPlainTextFilter(),
    createWhitespaceFilter({ collapse: true }),
  );
  return filter.push(markdown) + filter.end();
}

/** Options of {@link createAnswerFilter}. */
export interface AnswerFilterOptions {
  /** URLs of the numbered sources of the prompt: `[n]` refers to `sources[n - 1]`. */
  readonly sources: readonly string[];
  readonly responseType: ResponseType;
}

/**
 * The whole post-processing of a model answer, as one streaming filter: citation validation and
 * renumbering, link/image/HTML stripping ({@link createCitationFilter}), conversion to plain text for
 * `text` answers ({@link createPlainTextFilter}), and trimming. `cited` lists the cited URLs so far.
 */
export function createAnswerFilter(options: AnswerFilterOptions): CitationFilter {
  const citations = createCitationFilter({ sources: options.sources });
  const chain =
    options.responseType === 'text'
      ? pipeFilters(citations, createPlainTextFilter(), createWhitespaceFilter({ collapse: true }))
      : pipeFilters(citations, createWhitespaceFilter());
  return {
    get cited() {
      return citations.cited;
    },
    push: (delta) => chain.push(delta),
    end: () => chain.end(),
  };
}

/**
 * Post-processes a complete model answer (see {@link createAnswerFilter}).
 *
 * @example
 * formatAnswer('**Yes** [2].', { sources: ['https://a.test', 'https://b.test'], responseType: 'text' })
 * // → { answer: 'Yes [1].', sources: ['https://b.test'] }
 */
export function formatAnswer(
  text: string,
  options: AnswerFilterOptions,
): { answer: string; sources: string[] } {
  const filter = createAnswerFilter(options);
  const answer = filter.push(text) + filter.end();
  return { answer, sources: [...filter.cited] };
}
