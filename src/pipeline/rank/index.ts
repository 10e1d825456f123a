/** Passage selection: BM25 index, passage splitting and the default ranker. */
export { Bm25Index } from '../../text/bm25.ts';
export type { Bm25Options, Bm25Match } from '../../text/bm25.ts';
export { splitPassages } from './passages.ts';
export type { PassageChunk, PassageSplitOptions } from './passages.ts';
export { createBm25Ranker, rankPassages, passageTokens } from './bm25-ranker.ts';
export type { Bm25RankerOptions, RankPassagesOptions } from './bm25-ranker.ts';
export { pageMentions, queryCoverage } from './coverage.ts';
