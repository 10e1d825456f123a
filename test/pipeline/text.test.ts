import { describe, expect, it } from 'vitest';
import {
  estimateTokens,
  markdownToText,
  parseMarkdownBlocks,
  splitMarkdownSections,
  splitSentences,
  stem,
  stripInlineMarkdown,
  tokenize,
  tokenizeQuery,
} from '../../src/text/index.ts';

describe('tokenize', () => {
  it('lower-cases, splits on non-letters and drops stop words', () => {
    expect(tokenize('How do I create an API key?')).toEqual(['creat', 'api', 'key']);
    expect(tokenize('--rate-limit 60/1m')).toEqual(['rat', 'limit', '60', '1m']);
  });

  it('applies NFKC so compatibility forms match their plain forms', () => {
    expect(tokenize('Ｆｕｌｌ ﬁle')).toEqual(tokenize('full file'));
  });

  it('keeps non-Latin words whole and lower-cases them', () => {
    expect(tokenize('Größe Москва')).toEqual(['große', 'москва']);
  });

  it('folds the diacritics of Latin words, so a name typed without them matches, and keeps other marks', () => {
    expect(tokenize('Aschenbrödel, Tekezé River, Akinoshū')).toEqual(
      tokenize('Aschenbrodel, Tekeze River, Akinoshu'),
    );
    expect(tokenize('Zürich café')).toEqual(['zurich', 'caf']);
    // Devanagari vowel signs and Greek accents are not Latin diacritics: they stay.
    expect(tokenize('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    expect(tokenize('Ελληνικά')).toEqual(['ελληνικά']);
  });

  it('tokenizes the ASCII words of a page with a few other letters as an all-ASCII page', () => {
    const ascii = "Creating the team's API keys: 2015 NFL season, don't stop";
    expect(tokenize(`${ascii} — Beyoncé’s ﬁle`)).toEqual([...tokenize(ascii), 'beyonc', 'fil']);
  });

  it('splits scripts without spaces into words', () => {
    const tokens = tokenize('東京都に住んでいます');
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens).toContain('東京');
    expect(tokenize('สวัสดีครับ').length).toBeGreaterThan(1);
  });

  it('drops possessive apostrophes and can keep stop words or skip stemming', () => {
    expect(tokenize("the user's keys", { removeStopWords: false, stem: false })).toEqual([
      'the',
      'user',
      'keys',
    ]);
  });

  it('gives ASCII text the same tokens as the Unicode path', () => {
    // The ASCII fast path must agree with the general one: the same text with a non-ASCII character
    // appended (a word of its own) takes the Unicode path.
    const text =
      "Don't stop: the user's 3 API-keys, e-mail_2x o'clock '90s x'y'z rock'n'roll... 2.5 ISO-8601";
    expect([...tokenize(text), 'ж']).toEqual(tokenize(`${text} ж`));
    expect([...tokenize(text, { removeStopWords: false, stem: false }), 'ж']).toEqual(
      tokenize(`${text} ж`, { removeStopWords: false, stem: false }),
    );
  });

  it('scans mixed text into the words the Unicode word pattern finds', () => {
    // The words of text holding non-ASCII characters are scanned by hand, the pattern deciding only where a
    // non-ASCII character starts or may continue a word: they must be the pattern's words, in every case.
    const pattern = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+)*/gu;
    const reference = (text: string) =>
      tokenize(
        [...text.normalize('NFKC').toLowerCase().matchAll(pattern)].map(([word]) => word).join(' ж '),
        {
          removeStopWords: false,
          stem: false,
        },
      ).filter((word) => word !== 'ж');
    const pieces = ['a', 'Z', '9', 'é', 'e\u0301', 'q\u0301', 'ß', 'ﬁ', '’', "'", ' ', '-', '—', '_', 'İ'];
    pieces.push(
      'Ω',
      'ά',
      'क़',
      'ि',
      '½',
      'Ⅻ',
      '𝐀',
      '😀',
      '\ud800',
      '\udc00',
      'ﾊ',
      'don',
      "'t",
      '’s',
      '\u00a0',
    );
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 5000; n++) {
      let text = 'é ';
      for (let k = 1 + Math.floor(random() * 10); k > 0; k--)
        text += pieces[Math.floor(random() * pieces.length)];
      expect(tokenize(text, { removeStopWords: false, stem: false }), JSON.stringify(text)).toEqual(
        reference(text),
      );
    }
  });

  it('honours a locale for lower-casing', () => {
    expect(tokenize('KIZ', { locale: 'tr', stem: false })).toEqual(['kız']);
  });

  it('tokenizeQuery keeps stop words when nothing else is left', () => {
    expect(tokenize('Who is the Who?')).toEqual([]);
    expect(tokenizeQuery('Who is the Who?')).toEqual(['who', 'is', 'the', 'who']);
  });
});

describe('stem', () => {
  it('maps inflections of a word to one key', () => {
    const groups = [
      ['create', 'creates', 'created', 'creating'],
      ['key', 'keys'],
      ['limit', 'limits', 'limited', 'limiting'],
      ['revoke', 'revoked', 'revokes', 'revoking'],
      ['study', 'studies', 'studied'],
      ['stop', 'stops', 'stopped', 'stopping'],
      ['policy', 'policies'],
      ['call', 'calls', 'called'],
    ];
    for (const group of groups) expect(new Set(group.map(stem)).size, group.join()).toBe(1);
  });

  it('leaves short words, -ss/-us/-is words and non-ASCII words alone', () => {
    expect(stem('bus')).toBe('bus');
    expect(stem('class')).toBe('class');
    expect(stem('status')).toBe('status');
    expect(stem('analysis')).toBe('analysis');
    expect(stem('need')).toBe('need');
    expect(stem('größe')).toBe('größe');
  });
});

describe('splitSentences', () => {
  it("does not end a sentence at a name's middle initial, but does after a Roman numeral", () => {
    expect(
      splitSentences(
        'Iowa became a state when President James K. Polk signed the act. He served in World War I. The Hon. Mary Lee spoke.',
        'en',
      ),
    ).toEqual([
      'Iowa became a state when President James K. Polk signed the act.',
      'He served in World War I.',
      'The Hon. Mary Lee spoke.',
    ]);
  });

  it('splits with Intl.Segmenter and undoes splits after abbreviations', () => {
    expect(splitSentences('Run it, e.g. now. Dr. Smith agreed! Is it done? Yes.', 'en')).toEqual([
      'Run it, e.g. now.',
      'Dr. Smith agreed!',
      'Is it done?',
      'Yes.',
    ]);
  });

  it('joins lines of a paragraph and splits paragraphs', () => {
    expect(splitSentences('First line\ncontinues here.\n\nSecond paragraph')).toEqual([
      'First line continues here.',
      'Second paragraph',
    ]);
  });

  it('does not end a sentence at a quoted question that goes on', () => {
    expect(splitSentences('The prompt "How tall is it?" searches for the tower. Next.', 'en')).toEqual([
      'The prompt "How tall is it?" searches for the tower.',
      'Next.',
    ]);
  });

  it('never cuts a code span, a link or an image, and ends a sentence before one opening with code', () => {
    expect(
      splitSentences('Open a ticket with `helpdesk new --urgent?` when you cannot work. Then wait.', 'en'),
    ).toEqual(['Open a ticket with `helpdesk new --urgent?` when you cannot work.', 'Then wait.']);
    // ICU ends a sentence after "!" and "?": inside `![…](…)` and `listenOnLoopback(server, mountPath?)`.
    expect(splitSentences('![Done! It works](done.png) Next one.', 'en')).toEqual([
      '![Done! It works](done.png) Next one.',
    ]);
    expect(
      splitSentences('`listenOnLoopback(server, mountPath?)` makes a `node:http` server listen.', 'en'),
    ).toEqual(['`listenOnLoopback(server, mountPath?)` makes a `node:http` server listen.']);
    // ICU keeps going into a lower-case code span ("… removes). `provider.index` is …").
    expect(
      splitSentences('It re-reads them (adds, removes). `provider.index` is the index. Use e.g. `x` too.'),
    ).toEqual(['It re-reads them (adds, removes).', '`provider.index` is the index.', 'Use e.g. `x` too.']);
  });

  it('segments other languages and survives an invalid locale tag', () => {
    expect(splitSentences('Das ist gut. Wirklich gut.', 'de')).toEqual(['Das ist gut.', 'Wirklich gut.']);
    expect(splitSentences('これは文です。これも文です。', 'ja')).toEqual([
      'これは文です。',
      'これも文です。',
    ]);
    expect(splitSentences('One. Two.', 'not a locale!')).toEqual(['One.', 'Two.']);
  });
});

describe('estimateTokens', () => {
  it('is characters / 4 rounded up, counting code points', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('😀😀😀😀')).toBe(1);
  });
});

describe('markdown helpers', () => {
  const doc = [
    '# Title',
    '',
    'Intro with **bold** and a [link](https://example.com).',
    '',
    '## Section *one*',
    '',
    '- item one',
    '- item two',
    '  continued',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '```sh',
    '# not a heading',
    '```',
    '',
    'Setext heading',
    '--------------',
    '',
    '> quoted',
  ].join('\n');

  it('parses blocks, keeping fenced code whole', () => {
    expect(parseMarkdownBlocks(doc).map((b) => b.kind)).toEqual([
      'heading',
      'paragraph',
      'heading',
      'list',
      'table',
      'code',
      'heading',
      'quote',
    ]);
    expect(parseMarkdownBlocks(doc)[3]?.items).toEqual(['item one', 'item two continued']);
    expect(parseMarkdownBlocks(doc)[5]?.text).toBe('# not a heading');
  });

  it('splits sections at headings, with stripped heading text', () => {
    const sections = splitMarkdownSections(doc);
    expect(sections.map((s) => [s.heading, s.level])).toEqual([
      ['Title', 1],
      ['Section one', 2],
      ['Setext heading', 2],
    ]);
    expect(sections[1]?.markdown).toContain('# not a heading');
  });

  it('strips inline syntax but keeps words, identifiers and code contents', () => {
    expect(
      stripInlineMarkdown(
        'Use **bold**, _it_, `keys revoke <id>`, [docs](x.md), ![alt](a.png), <b>x</b>, as_key_1 and 2\\*3',
      ),
    ).toBe('Use bold, it, keys revoke <id>, docs, alt, x, as_key_1 and 2*3');
  });

  it('leaves out HTML comments, front matter and HTML tags, but not comments in code', () => {
    const page = [
      '---',
      'title: Holidays',
      'tags: [people]',
      '---',
      '# Holidays',
      '',
      '<!-- Generated. Do not edit: change the code and regenerate. -->',
      'Everyone gets 27 days. <!-- check with HR --> Book them early.',
      '',
      '<!--',
      'Internal: the server is upd.example.',
      '-->',
      '<details><summary>More</summary>',
      '',
      'A `<!--` in code stays, and so does `-->`.',
      '',
      '</details>',
      '',
      '```html',
      '<!-- a comment in a code block -->',
      '```',
    ].join('\n');
    const text = markdownToText(page);
    expect(text).not.toMatch(/Do not edit|check with HR|upd\.example|title:|<\/?details>|<summary>/);
    expect(text).toContain('Everyone gets 27 days. Book them early.');
    expect(text).toContain('More');
    expect(text).toContain('A <!-- in code stays, and so does -->.');
    expect(text).toContain('<!-- a comment in a code block -->');
    expect(splitMarkdownSections(page)[0]?.heading).toBe('Holidays');
  });

  it('converts Markdown to plain text', () => {
    const text = markdownToText(doc);
    expect(text).not.toMatch(/\*\*|`|\]\(|^## |^\s*[-*] |^\|/m);
    expect(text).toContain('Intro with bold and a link.');
    expect(text).toContain('item two continued');
    // Table rows keep their header: each row is a statement of its own.
    expect(text).toMatch(/^a: 1; b: 2$/m);
    expect(text).not.toContain('---');
  });
});
