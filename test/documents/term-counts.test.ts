/**
 * The SQLite search re-scores its candidate sections from term counts taken without tokenizing whole
 * sections: they must be exactly the counts (and in the order) of tokenizing them, on any text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sectionTokens } from '../../src/documents/analyze.ts';
import { engineTerm } from '../../src/documents/common.ts';
import { termCounter } from '../../src/documents/term-counts.ts';
import { tokenizeQuery } from '../../src/text/tokenize.ts';

/** What tokenizing gives: each wanted term's count, in the order the terms first stand in the section. */
function tokenized(terms: readonly string[], title: string, text: string): [string, number][] {
  const wanted = new Set(terms);
  const counts = new Map<string, number>();
  for (const token of sectionTokens(title, { text })) {
    const term = engineTerm(token);
    if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return [...counts];
}

const termsOf = (query: string) => [...new Set(tokenizeQuery(query).map(engineTerm))];

const TRICKY = [
  "Kipling's poems: O'Neil's rock'n'roll, don't, x'80 and ab''cd; the dog's bone, the dogs' bones.",
  'She studies; he studied; they are studying. Stopped, stopping, called, calling, creates, created.',
  'Tekezé River, Aschenbrödel, naïve café — ﬁnance ＦＵＬＬ width, İstanbul and ΟΔΟΣ.',
  'Numbers 1,000 and 5 and 18-year-olds; a b c x; e\u0301t\u00e9 and e\u0301 alone; NBSP\u00a0joined.',
  '東京タワーは高い。 Bangkok กรุงเทพมหานคร, words’ curly’s quotes, it’s',
  "Possessive 's at start, trailing apostrophe' here, and 'quoted words' and rock''n",
];

describe('term counts of a section', () => {
  it.each([
    ['kipling poem neil rock roll dont dog bone', 0],
    ['study studies stop call creat x 80 cd', 1],
    ['tekeze river aschenbrodel naive cafe finance full istanbul', 2],
    ['1 000 5 18 year old b c x ete e nbsp joined', 3],
    ['東京 bangkok words curly quote it', 4],
    ['possessive start trailing apostrophe quoted word rock n s', 5],
  ])('counts %s as tokenizing does', (query, i) => {
    const terms = termsOf(query);
    const text = TRICKY[i]!;
    const counted = termCounter(terms)('A title: words', { text });
    expect([...counted]).toEqual(tokenized(terms, 'A title: words', text));
  });

  it('counts as tokenizing does on real paragraphs, for the words of other paragraphs', () => {
    const { data } = JSON.parse(
      readFileSync(new URL('../fixtures/datasets/squad/dev-v1.1.json', import.meta.url), 'utf8'),
    ) as { data: { title: string; paragraphs: { context: string; qas: { question: string }[] }[] }[] };
    const paragraphs = data.flatMap((article) =>
      article.paragraphs.map((p) => ({ title: article.title, text: p.context, questions: p.qas })),
    );
    let compared = 0;
    for (const [i, paragraph] of paragraphs.entries()) {
      // The paragraph's own questions, and a neighbour's words (terms it may hold only in part).
      const queries = [
        ...paragraph.questions.map((q) => q.question),
        paragraphs[(i + 1) % paragraphs.length]!.text.slice(0, 300),
      ];
      for (const query of queries) {
        const terms = termsOf(query);
        const counted = termCounter(terms)(paragraph.title, { text: paragraph.text });
        expect([...counted]).toEqual(tokenized(terms, paragraph.title, paragraph.text));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it('counts words made of random letters, digits, apostrophes and accents as tokenizing does', () => {
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const alphabet = ['a', 'e', 'i', 's', 'd', 'n', 'g', 'y', '1', "'", '’', 'é', ' ', ' ', '\n', '-', 'S'];
    for (let round = 0; round < 1000; round++) {
      const text = Array.from({ length: 120 }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const words = text.split(/\s+/).filter(Boolean).slice(0, 8).join(' ');
      const terms = termsOf(`${words} ${words.toUpperCase()}`);
      const counted = termCounter(terms)('', { text });
      expect([...counted], text).toEqual(tokenized(terms, '', text));
    }
  });
});
