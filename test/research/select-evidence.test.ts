/**
 * The evidence research hands the answerer keeps each hop's fact even when it shares few words with the
 * question: a query's own evidence takes up to two passages of each page it read (the page's best passage
 * for the query is often its introduction, the hop's fact the next one), and most of the budget goes to the
 * queries' own evidence before the rest is ranked for the question alone.
 */
import { describe, expect, it } from 'vitest';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { selectEvidence } from '../../src/pipeline/research/select.ts';
import type { SearchedQuery } from '../../src/pipeline/research/types.ts';
import type { ExtractedContent } from '../../src/pipeline/types.ts';

const QUESTION = 'Which river flows past the birthplace of the author of Dead Ernest?';

function page(title: string, paragraphs: readonly string[]): ExtractedContent {
  const text = paragraphs.join('\n\n');
  return { url: `https://wiki.test/${encodeURIComponent(title)}`, title, text, markdown: text };
}

/** The hop's page: an introduction that repeats the query's words, then the fact the chain needs. */
const HOP_PAGE = page('Marbury', [
  'Marbury is a market town in Essex, England. The town of Marbury grew around its wool market in the Middle Ages, and the Marbury town council still meets in the old market hall.',
  'Marbury town has a grammar school founded in 1553, a parish church with a tall spire, and a town museum that keeps the records of the Marbury wool trade and of the families of the town.',
  'The population of Marbury town was 9,412 at the last census. Most people of the town work in Colchester or in the light industry on the edge of Marbury.',
  'Marbury stands on the north bank of the Stour, which flows east to the sea at Harwich.',
]);

/** Pages of the question's own search: they share the question's words and say nothing of the chain. */
const RIVERS = [
  'Avon',
  'Severn',
  'Trent',
  'Wye',
  'Tees',
  'Tyne',
  'Ouse',
  'Exe',
  'Dart',
  'Tamar',
  'Test',
  'Kennet',
  'Wear',
  'Eden',
];
const WRITERS = [
  'a poet',
  'a novelist',
  'a playwright',
  'an essayist',
  'a diarist',
  'a critic',
  'a biographer',
];
const QUESTION_PAGES = RIVERS.map((river, i) =>
  page(`${river} (river)`, [
    `The ${river} flows past the birthplace of ${WRITERS[i % WRITERS.length]} born in ${1700 + i * 11}; the author wrote of the ${river} river in ${i + 2} books.`,
  ]),
);

function rounds(): SearchedQuery[][] {
  const question: SearchedQuery = {
    planned: { query: QUESTION, thread: 0, kind: 'question', focus: [], results: 10 },
    hits: [],
    documents: QUESTION_PAGES,
  };
  const hop: SearchedQuery = {
    planned: { query: 'Marbury town', thread: 0, kind: 'lead', focus: ['Marbury'], results: 4 },
    hits: [],
    documents: [HOP_PAGE],
  };
  return [[question], [hop]];
}

describe('the evidence research selects', () => {
  it("keeps a lead's page's second passage, the hop's fact, when the question's pages would fill the room", async () => {
    const { passages } = await selectEvidence(QUESTION, rounds(), createBm25Ranker(), 480);
    const texts = passages.map((passage) => passage.text);
    expect(texts.some((text) => text.includes('north bank of the Stour'))).toBe(true);
    expect(texts.some((text) => text.startsWith('Marbury is a market town'))).toBe(true);
  });
});
