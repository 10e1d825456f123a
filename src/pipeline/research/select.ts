/**
 * Evidence across hops under one token budget. Ranking every page read against the question alone loses
 * the middle of a chain: "Love Affair is a 1939 film directed by Leo McCarey" shares few words with "Who is
 * the child of the director of Love Affair?". So each query searched first gets a share of the budget for
 * its own best passages (ranked against the query and the question: the best of each page it read, then a
 * second of each page once every query's first are in), the passage where each followed lead was found is
 * kept, and what is left of the budget goes to the best passages for the question.
 */
import { passageTokens } from '../rank/bm25-ranker.ts';
import type { ExtractedContent, Passage, PassageRanker } from '../types.ts';
import type { SearchedQuery } from './types.ts';

/** Smallest share of the budget a query's own evidence gets, in tokens. */
const MIN_QUERY_TOKENS = 250;
/**
 * Share of the budget set aside for the queries' own evidence (the rest ranks for the question). A hop's
 * fact shares few words with the question; ranked for the question it loses its place to passages that
 * share more (on the multi-hop benchmark's second sample, 0.8 rather than 0.6 brought one more three-hop
 * question's facts all to the answerer, and changed no other question).
 */
const PER_QUERY_SHARE = 0.8;
/**
 * Most passages of one page in a query's own evidence. A hop's fact often stands in a page's second-best
 * passage (the best one matched the name searched). The second passages are taken after every page's first
 * ({@link selectEvidence}), so the order the answerer reads keeps each page's best first: taken in rank
 * order instead, a page's second passage had pushed another page's best out of the extractive answer.
 */
const MAX_PAGE_PASSAGES = 2;

/** Chooses the passages the answerer reads, best first, within `maxTokens`. */
export async function selectEvidence(
  question: string,
  rounds: readonly (readonly SearchedQuery[])[],
  ranker: PassageRanker,
  maxTokens: number,
): Promise<{ passages: Passage[]; documents: ExtractedContent[] }> {
  const queries = rounds.flat();
  const documents = uniqueDocuments(queries.flatMap((q) => q.documents));
  const chosen: Passage[] = [];
  const keys = new Set<string>();
  let used = 0;
  const take = (passage: Passage, limit: number): boolean => {
    const key = `${passage.url}\n${passage.text}`;
    if (keys.has(key)) return true;
    const cost = passageTokens(passage);
    if (used + cost > limit) return false;
    keys.add(key);
    chosen.push(passage);
    used += cost;
    return true;
  };

  const perQuery = Math.max(
    MIN_QUERY_TOKENS,
    Math.floor((maxTokens * PER_QUERY_SHARE) / Math.max(1, queries.length)),
  );
  const later: Passage[] = [];
  for (const searched of queries) {
    // The sentence that named the lead (on the page before) is part of this hop's evidence.
    const lead = searched.planned.lead;
    if (lead) {
      const source = documents.find((doc) => doc.url === lead.url);
      if (source) {
        const [bridge] = await ranker.rank(`${lead.sentence} ${question}`, [source], { maxTokens: perQuery });
        if (bridge) take(bridge, maxTokens);
      }
    }
    if (searched.documents.length === 0) continue;
    const own = await ranker.rank(`${searched.planned.query} ${question}`, searched.documents, {
      maxTokens: perQuery,
    });
    // The best passage of each page the query read (its pages are its evidence; the best page first).
    const perPage = new Map<string, number>();
    for (const passage of own) {
      const taken = perPage.get(passage.url) ?? 0;
      if (taken >= MAX_PAGE_PASSAGES) continue;
      perPage.set(passage.url, taken + 1);
      if (taken === 0) take(passage, maxTokens);
      else later.push(passage);
    }
  }
  for (const passage of later) take(passage, maxTokens);
  if (documents.length > 0) {
    for (const passage of await ranker.rank(question, documents, { maxTokens })) {
      if (!take(passage, maxTokens) && maxTokens - used < MIN_QUERY_TOKENS) break;
    }
  }
  return { passages: chosen, documents };
}

function uniqueDocuments(documents: readonly ExtractedContent[]): ExtractedContent[] {
  const byUrl = new Map<string, ExtractedContent>();
  for (const document of documents) if (!byUrl.has(document.url)) byUrl.set(document.url, document);
  return [...byUrl.values()];
}
