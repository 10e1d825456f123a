import { describe, expect, it } from 'vitest';
import { formatAnswer, toPlainText } from '../../src/pipeline/answer/index.ts';

/** Markdown syntax that must not survive in a `text` answer. */
const MARKDOWN_SYNTAX = [
  /^\s{0,3}#{1,6}\s/m, // headings
  /\*\*|__|~~|`/, // strong, strikethrough, code
  /(^|\s)[*_][^\s*_][^*_]*[*_](\s|$|[.,])/m, // emphasis
  /^\s*[-*+]\s/m, // bullets
  /^\s*\d+[.)]\s/m, // ordered lists
  /^\s*>/m, // quotes
  /^\s*\|/m, // tables
  /^\s*(?:-{3,}|={3,}|\*{3,})\s*$/m, // rules, setext underlines
  /\]\(|!\[/, // links, images
  /<\/?[a-z]+[^>]*>/i, // HTML
];

const rich = `# Mount Everest

**Mount Everest** is *the* highest mountain [1]. It is _very_ high and ~~short~~ tall.

## Facts

- Height: **8,849 m** [1]
- Location: Nepal and China [2]
  - Nested: *Khumbu*
1. First ascent in 1953
2) Second item

> A quote with \`code\` inside.

| Name | Height |
|------|-------:|
| Everest | 8,849 m |
| K2 | 8,611 m |

\`\`\`bash
echo "**not emphasis**" | grep x
\`\`\`

***

Setext heading
==============

See [the survey](https://survey.test) and ![photo](https://img.test/p.png). Escaped \\*star\\* and 2 * 3 and snake_case_name.
<b>bold html</b>`;

describe('toPlainText', () => {
  const text = toPlainText(rich);

  it('leaves no Markdown syntax at all', () => {
    // Code and backslash-escaped characters are literal text, not syntax.
    const withoutCode = text.replace('echo "**not emphasis**" | grep x', '').replace('*star*', 'star');
    for (const pattern of MARKDOWN_SYNTAX) expect(withoutCode).not.toMatch(pattern);
  });

  it('keeps the words, citations, code lines and table cells', () => {
    expect(text).toContain(
      'Mount Everest\n\nMount Everest is the highest mountain [1]. It is very high and short tall.',
    );
    expect(text).toContain(
      'Height: 8,849 m [1]\nLocation: Nepal and China [2]\nNested: Khumbu\nFirst ascent in 1953\nSecond item',
    );
    expect(text).toContain('A quote with code inside.');
    expect(text).toContain('Name, Height\nEverest, 8,849 m\nK2, 8,611 m');
    expect(text).toContain('echo "**not emphasis**" | grep x');
    expect(text).toContain('Setext heading');
    expect(text).toContain('See the survey and. Escaped *star* and 2 * 3 and snake_case_name.');
    expect(text).toContain('bold html');
    expect(text).not.toMatch(/\n{3,}/);
  });

  it('returns plain text unchanged', () => {
    const plain = 'Everest is 8,849 metres high [1].\n\nIt was first climbed in 1953 [2].';
    expect(toPlainText(plain)).toBe(plain);
  });
});

describe('formatAnswer', () => {
  const sources = ['https://survey.test', 'https://b.test/'];

  it('text: converts the Markdown a model wrote and validates the citations', () => {
    const result = formatAnswer('## Answer\n\n**Yes** [2], per [the survey](https://survey.test) [9].', {
      sources,
      responseType: 'text',
    });
    expect(result).toEqual({
      answer: 'Answer\n\nYes [1], per the survey [2].',
      sources: ['https://b.test/', 'https://survey.test'],
    });
  });

  it('markdown: keeps rich Markdown but not invented links', () => {
    const result = formatAnswer('## Answer\n\n- **Yes** [2]\n- [more](https://evil.test) `x`\n', {
      sources,
      responseType: 'markdown',
    });
    expect(result.answer).toBe('## Answer\n\n- **Yes** [1]\n- more `x`');
    expect(result.sources).toEqual(['https://b.test/']);
  });

  it('trims surrounding whitespace', () => {
    expect(formatAnswer('\n\n  Yes [1].  \n\n', { sources, responseType: 'markdown' }).answer).toBe(
      'Yes [1].',
    );
  });
});
