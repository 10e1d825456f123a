/**
 * A query's own evidence takes the best passage of each page it read, then a second passage of each page:
 * a hop's fact often stands in a page's second-best passage (the best one matched the name searched), and
 * the second passages come after every page's first, so that no page's best is pushed out for another's
 * second.
 */
import { describe, expect, it } from 'vitest';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { selectEvidence } from '../../src/pipeline/research/select.ts';
import type { SearchedQuery } from '../../src/pipeline/research/types.ts';
import type { ExtractedContent } from '../../src/pipeline/types.ts';

const page = (title: string, paragraphs: readonly string[]): ExtractedContent => {
  const text = paragraphs.join('\n\n');
  return { url: `https://wiki.test/${encodeURIComponent(title)}`, title, text, markdown: text };
};

/** A paragraph long enough to be a passage of its own (passages hold up to 120 words). */
const long = (sentence: string, more: string): string => `${sentence} ${more.repeat(6)}`.trim();

const GUILD = page('Harbour Guild', [
  long(
    'The Harbour Guild is the trade guild of the shipwrights of Kestrel.',
    'The Harbour Guild keeps the old slipways, trains its apprentices and holds the harbour fair. ',
  ),
  long(
    'Its hall was built in 1702 by the shipwright Mara Quill at the end of the north quay.',
    'The members still meet there on the first Monday of every month. ',
  ),
  long(
    'The garden grows lavender and roses.',
    'Its fountain was restored in 1988 with gifts from the town. ',
  ),
]);
const PORT = page('Port of Kestrel', [
  long(
    'The Port of Kestrel is a fishing port on the north coast, whose quays the Harbour Guild runs.',
    'Boats land cod, crab and mackerel on its quays at dawn. ',
  ),
  long(
    'Ferries leave for the islands twice a day in summer.',
    'In winter one ferry a day makes the crossing. ',
  ),
]);

describe('the evidence of a query', () => {
  it("takes each page's best passage, then a second passage of each page after them", async () => {
    const searched: SearchedQuery = {
      planned: {
        query: 'Harbour Guild hall built',
        thread: 0,
        kind: 'entity',
        focus: ['Harbour Guild'],
        results: 3,
      },
      hits: [],
      documents: [GUILD, PORT],
    };
    const { passages } = await selectEvidence(
      'Who built the hall of the Harbour Guild?',
      [[searched]],
      createBm25Ranker(),
      1_000,
    );
    const opening = passages.slice(0, 3).map((p) => `${p.title}: ${p.text.split('.')[0]}`);
    expect(opening).toEqual([
      'Harbour Guild: Its hall was built in 1702 by the shipwright Mara Quill at the end of the north quay',
      'Port of Kestrel: The Port of Kestrel is a fishing port on the north coast, whose quays the Harbour Guild runs',
      'Harbour Guild: The Harbour Guild is the trade guild of the shipwrights of Kestrel',
    ]);
  });
});
