import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  citationNumbers,
  createAnswerFilter,
  createCitationFilter,
  filterCitations,
  formatAnswer,
} from '../../src/pipeline/answer/index.ts';

const sources = ['https://a.test/one', 'https://b.test/two', 'https://c.test/'];

describe('filterCitations', () => {
  it('removes citations of sources that do not exist', () => {
    expect(filterCitations('Yes [1]. No [4]. Maybe [0].', sources)).toEqual({
      text: 'Yes [1]. No. Maybe.',
      sources: ['https://a.test/one'],
    });
  });

  it('renumbers in order of first citation and lists the cited URLs in that order', () => {
    const result = filterCitations('First [3]. Second [1]. Again [3]. Both [1][3].', sources);
    expect(result.text).toBe('First [1]. Second [2]. Again [1]. Both [2][1].');
    expect(result.sources).toEqual(['https://c.test/', 'https://a.test/one']);
  });

  it('splits grouped citations and ranges, dropping invalid members and duplicates', () => {
    expect(filterCitations('A [2, 9, 1]. B [1-3]. C [2,2].', sources)).toEqual({
      text: 'A [1][2]. B [2][1][3]. C [1].',
      sources: ['https://b.test/two', 'https://a.test/one', 'https://c.test/'],
    });
  });

  it('returns no sources when nothing is cited', () => {
    expect(filterCitations('The sources do not say.', sources)).toEqual({
      text: 'The sources do not say.',
      sources: [],
    });
  });

  it('strips invented links but keeps their text; links to sources become citations', () => {
    const result = filterCitations(
      'See [the survey](https://evil.test/x "t") and [page two](https://b.test/two/#top), or [2](https://b.test/two).',
      sources,
    );
    expect(result.text).toBe('See the survey and page two [1], or [1].');
    expect(result.sources).toEqual(['https://b.test/two']);
  });

  it('handles links whose text is a URL or contains citations', () => {
    const result = filterCitations(
      'At [https://evil.test/x](https://evil.test/x), [Everest [3]](https://evil.test) and [www.b.test](https://b.test/two).',
      sources,
    );
    expect(result.text).toBe('At, Everest [1] and [2].');
    expect(result.sources).toEqual(['https://c.test/', 'https://b.test/two']);
  });

  it('removes images, autolinks and bare URLs that are not sources', () => {
    const result = filterCitations(
      'Look ![chart](https://evil.test/c.png) here <https://evil.test/a> and https://evil.test/b. Also www.evil.test. Source: https://a.test/one.',
      sources,
    );
    expect(result.text).toBe('Look here and. Also. Source: [1].');
    expect(result.text).not.toMatch(/evil|https?:/);
  });

  it('strips raw HTML and comments but keeps placeholders and comparisons', () => {
    const result = filterCitations(
      'Use <b>bold</b> <script>alert(1)</script><!-- secret --> with <id> when x < 3 [1].',
      sources,
    );
    expect(result.text).toBe('Use bold alert(1) with <id> when x < 3 [1].');
  });

  it('drops inline reasoning of local models', () => {
    expect(filterCitations('<think>\nThe user wants [2]. <b>x</b>\n</think>\n\nYes [2].', sources)).toEqual({
      text: '\n\nYes [1].',
      sources: ['https://b.test/two'],
    });
    expect(filterCitations('<think>never finished', sources).text).toBe('');
  });

  it('drops reference definitions, reference links and footnotes', () => {
    const result = filterCitations(
      'Read [the guide][g] now[^1].\n\n[g]: https://evil.test\n[1]: https://a.test/one\nEnd [2].',
      sources,
    );
    expect(result.text).toBe('Read the guide now.\n\nEnd [1].');
  });

  it('leaves code spans and fenced code untouched', () => {
    const text =
      'Use `arr[1]` and `[x](http://e.test)` [1].\n\n```js\nconst y = arr[9]; // <b> https://e.test\n```\nDone [2].';
    expect(filterCitations(text, sources).text).toBe(text.replace('Done [2]', 'Done [2]'));
    expect(filterCitations(text, sources).sources).toEqual(['https://a.test/one', 'https://b.test/two']);
  });

  it('keeps ordinary brackets', () => {
    expect(filterCitations('He said [sic] it [1]; see [a] and [] too.', sources).text).toBe(
      'He said [sic] it [1]; see [a] and [] too.',
    );
  });
});

describe('citationNumbers', () => {
  it('parses lists and ranges, and refuses other labels', () => {
    expect(citationNumbers('1, 2;3')).toEqual([1, 2, 3]);
    expect(citationNumbers('2–4')).toEqual([2, 3, 4]);
    expect(citationNumbers('1-100')).toBeNull();
    expect(citationNumbers('sic')).toBeNull();
    expect(citationNumbers('')).toBeNull();
  });
});

/** Feeds `text` to a fresh filter in the given pieces. */
function streamInPieces(
  text: string,
  cuts: readonly number[],
  make: () => { push(d: string): string; end(): string },
) {
  const filter = make();
  const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let last = 0;
  for (const position of [...positions, text.length]) {
    out += filter.push(text.slice(last, position));
    last = position;
  }
  return out + filter.end();
}

const tricky = [
  'Everest is 8,849 m high [1]. It grows [2, 3] a bit [7].\n\n',
  'See [the page](https://evil.test/a(b)) and [B](https://b.test/two) ![img](https://evil.test/i.png).\n',
  '<b>Bold</b> <!-- c --> <https://c.test/> https://evil.test/x, http://a.test/one.\n',
  '```py\nx = a[1]  # <i>\n```\n',
  '[1]: https://a.test/one\n',
  '- item `code [2]` [3]\n| a | b |\n|---|---|\n| **1** | [2] |\n',
  '## Heading *em* [^note]\n> quote [1][2]\n',
  'Nested [Everest [3]](https://evil.test) [https://x.test](https://b.test/two) [a [b] c\n',
  '<think>plan [1] <b></think>After thinking [2].',
].join('');

describe('streaming filter', () => {
  it('gives the same text whatever the delta boundaries (every single cut)', () => {
    const whole = filterCitations(tricky, sources).text;
    for (let cut = 0; cut <= tricky.length; cut++) {
      expect(streamInPieces(tricky, [cut], () => createCitationFilter({ sources }))).toBe(whole);
    }
  });

  it('gives the same text for random splits, also in one-character deltas', () => {
    for (const responseType of ['text', 'markdown'] as const) {
      const whole = formatAnswer(tricky, { sources, responseType }).answer;
      const chars = createAnswerFilter({ sources, responseType });
      let out = '';
      for (const char of tricky) out += chars.push(char);
      expect(out + chars.end()).toBe(whole);
      fc.assert(
        fc.property(fc.array(fc.nat(tricky.length), { maxLength: 12 }), (cuts) => {
          expect(streamInPieces(tricky, cuts, () => createAnswerFilter({ sources, responseType }))).toBe(
            whole,
          );
        }),
        { numRuns: 150 },
      );
    }
  });

  it('holds back only incomplete constructs', () => {
    const filter = createCitationFilter({ sources });
    expect(filter.push('Everest is high')).toBe('Everest is high');
    expect(filter.push(' [')).toBe('');
    expect(filter.push('2')).toBe('');
    expect(filter.push('] and')).toBe(' [1] and');
    expect(filter.cited).toEqual(['https://b.test/two']);
    expect(filter.push(' [link](https://ev')).toBe('');
    expect(filter.push('il.test) done')).toBe(' link done');
    expect(filter.end()).toBe('');
  });

  it('drops a tag that spans lines also when a piece ends inside it', () => {
    // Found by the property below: the whole text dropped "<a\n>", the piece "<a\n" was let through.
    for (const responseType of ['text', 'markdown'] as const) {
      const whole = formatAnswer('<a\n>', { sources, responseType }).answer;
      expect(streamInPieces('<a\n>', [3], () => createAnswerFilter({ sources, responseType }))).toBe(whole);
    }
  });

  it('is split-invariant on arbitrary text (property)', () => {
    const alphabet = fc.constantFrom(
      '[',
      ']',
      '(',
      ')',
      '1',
      '2',
      '9',
      ',',
      ' ',
      '\n',
      '`',
      '<',
      '>',
      '!',
      'h',
      't',
      'p',
      's',
      ':',
      '/',
      'a',
      '.',
      '-',
      '*',
      '_',
      '#',
      '|',
      '~',
      'w',
      '\\',
    );
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, maxLength: 80 }),
        fc.array(fc.nat(80), { maxLength: 6 }),
        (text, cuts) => {
          for (const responseType of ['text', 'markdown'] as const) {
            const whole = formatAnswer(text, { sources, responseType }).answer;
            expect(streamInPieces(text, cuts, () => createAnswerFilter({ sources, responseType }))).toBe(
              whole,
            );
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
