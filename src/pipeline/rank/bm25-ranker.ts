/**
 * The default passage ranker: BM25 over the passages of all fetched pages, diversity across sources, and
 * greedy packing into a token budget.
 */
import { fraction, nonNegativeNumber, positiveInteger } from '../../options.ts';
import type { ExtractedContent, Passage, PassageRanker, TokenBudget } from '../types.ts';
import {
  checkBm25Options,
  scoreDocuments,
  type Bm25Options,
  type ScoreDocumentsOptions,
} from '../../text/bm25.ts';
import { splitPassages, type PassageChunk } from './passages.ts';
import { tokenize, tokenizeQuery } from '../../text/tokenize.ts';
import { estimateTokens } from '../../text/tokens.ts';

/** Options of {@link createBm25Ranker}. */
export interface Bm25RankerOptions {
  /**
   * Upper bound of words per passage.
   * @default 120
   */
  readonly maxWords?: number;
  /**
   * Maximum number of blocks (paragraphs, lists, ...) merged into one passage.
   * @default 3
   */
  readonly maxBlocks?: number;
  /**
   * Passages taken from one URL before passages of other URLs get a turn; the remaining budget is then
   * filled best first regardless of source. A loose cap: the page that answers usually holds several of
   * the best passages (on bench:qa at 2,000 tokens and 5 pages, 3 gave answer-in-context 0.866 and 10 gave
   * 0.888; at 4,000 tokens over up to 40 pages, 10 gave 0.948 and 20 gave 0.954; over 1,200 dev questions
   * replayed with 10 pages read first, 20 gave 0.9608 and 40 gave 0.9625, and over 1,200 train questions
   * 0.9417 and 0.9450).
   * @default 40
   */
  readonly maxPerSource?: number;
  /**
   * Passages scoring at or below this are never selected (0 drops passages sharing no term with the query).
   * @default 0
   */
  readonly minScore?: number;
  /**
   * A passage whose word set overlaps a selected passage's by at least this Jaccard similarity is skipped as
   * a near-duplicate (pages often repeat the same text). 1 disables the check.
   * @default 0.8
   */
  readonly duplicateThreshold?: number;
  /**
   * Index the page title and the passage's heading with its text, so that passages under a matching
   * heading or title rank higher.
   * @default true
   */
  readonly indexHeadings?: boolean;
  /**
   * Weight of the search engine's order: documents are taken to arrive best first (the pipeline passes
   * them in search-result order), and the BM25 score of a passage of the document at position `i` (from 0)
   * is multiplied by `1 + searchOrderBoost / (1 + i)` — ×1.5 for the first result, ×1.25 for the second,
   * ×1.01 for the fortieth. The search engine judged whole pages, which a passage score cannot see. On
   * bench:qa over 4,000 questions (4,000 tokens, up to 40 pages) 0.5 raised answer-in-context by 0.3–0.5
   * points over 0; 1 and 2 gained less. 0 ignores the order.
   * @default 0.5
   */
  readonly searchOrderBoost?: number;
  /**
   * Weight of term proximity added to the BM25 score of a passage (see
   * {@link ScoreDocumentsOptions.proximity}): passages where the query's words stand close together rank
   * higher than passages that mention them far apart (its effect on answer-in-context is measured in
   * docs/benchmarks.md, "Retrieval and passage selection"). 0 gives plain BM25.
   * @default 1
   */
  readonly proximity?: number;
  /** BM25 parameters. */
  readonly bm25?: Bm25Options;
  /** Locale for sentence splitting and lower-casing; defaults to each document's `lang`. */
  readonly locale?: string;
}

/** A passage with its index terms (text, then title and heading) and the word set of its text. */
interface PreparedChunk {
  readonly chunk: PassageChunk;
  readonly tokens: readonly string[];
  readonly tokenSet: Set<string>;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Tokens a passage costs in the budget: its heading line plus its text. */
export function passageTokens(passage: { readonly text: string; readonly heading?: string }): number {
  return estimateTokens(passage.heading === undefined ? passage.text : `${passage.heading}\n${passage.text}`);
}

/** Defaults of {@link Bm25RankerOptions}. */
export const BM25_RANKER_DEFAULTS = {
  maxPerSource: 40,
  duplicateThreshold: 0.8,
  searchOrderBoost: 0.5,
  proximity: 1,
  minScore: 0,
} as const;

/**
 * Creates the BM25 passage ranker.
 *
 * `rank(query, docs, { maxTokens })` splits every document into passages (see {@link splitPassages}),
 * scores them with BM25 plus term proximity against the query over the collection of all passages, and
 * returns the best ones, best first, whose total {@link passageTokens} fit `maxTokens`. At most
 * `maxPerSource` passages of one URL are taken before the other URLs get a turn, and near-duplicates are
 * skipped.
 *
 * @throws RangeError on invalid options; `rank` throws RangeError when `maxTokens` is not a positive number.
 */
export function createBm25Ranker(options: Bm25RankerOptions = {}): PassageRanker {
  const maxPerSource = positiveInteger(
    'maxPerSource',
    options.maxPerSource,
    BM25_RANKER_DEFAULTS.maxPerSource,
  );
  const minScore = options.minScore ?? BM25_RANKER_DEFAULTS.minScore;
  const duplicateThreshold = fraction(
    'duplicateThreshold',
    options.duplicateThreshold,
    BM25_RANKER_DEFAULTS.duplicateThreshold,
  );
  const indexHeadings = options.indexHeadings ?? true;
  const searchOrderBoost = nonNegativeNumber(
    'searchOrderBoost',
    options.searchOrderBoost,
    BM25_RANKER_DEFAULTS.searchOrderBoost,
  );
  const scoring: ScoreDocumentsOptions = {
    ...options.bm25,
    proximity: nonNegativeNumber('proximity', options.proximity, BM25_RANKER_DEFAULTS.proximity),
  };
  if (typeof minScore !== 'number' || Number.isNaN(minScore))
    throw new RangeError('minScore must be a number');
  // Validate the remaining options now rather than on the first request.
  checkBm25Options(options.bm25 ?? {});
  splitPassages({ url: '', title: '', text: '', markdown: '' }, options);

  // Splitting and tokenizing dominate the cost; a document ranked twice in one request (the pipeline
  // re-ranks when it reads more results) is prepared once.
  const prepared = new WeakMap<ExtractedContent, PreparedChunk[]>();
  const prepare = (doc: ExtractedContent): PreparedChunk[] => {
    let chunks = prepared.get(doc);
    if (chunks === undefined) {
      const locale = options.locale ?? doc.lang;
      chunks = splitPassages(doc, options).map((chunk) => {
        const text = tokenize(chunk.text, { locale });
        const extra = indexHeadings ? tokenize(`${chunk.title} ${chunk.heading ?? ''}`, { locale }) : [];
        return { chunk, tokens: [...text, ...extra], tokenSet: new Set(text) };
      });
      prepared.set(doc, chunks);
    }
    return chunks;
  };

  return {
    async rank(query: string, docs: readonly ExtractedContent[], budget: TokenBudget): Promise<Passage[]> {
      const maxTokens = budget.maxTokens;
      if (typeof maxTokens !== 'number' || !(maxTokens > 0))
        throw new RangeError('maxTokens must be a positive number');

      const chunks: PassageChunk[] = [];
      const chunkTokens: (readonly string[])[] = [];
      const tokenSets: Set<string>[] = [];
      const orderWeights: number[] = [];
      for (const [position, doc] of docs.entries()) {
        const orderWeight = 1 + searchOrderBoost / (1 + position);
        for (const { chunk, tokens, tokenSet } of prepare(doc)) {
          chunkTokens.push(tokens);
          chunks.push(chunk);
          tokenSets.push(tokenSet);
          orderWeights.push(orderWeight);
        }
      }
      const queryTokens = tokenizeQuery(query, { locale: options.locale });
      const ranked = scoreDocuments(chunkTokens, queryTokens, scoring)
        .filter((match) => match.score > minScore)
        .map((match) => ({ id: match.id, score: match.score * (orderWeights[Number(match.id)] ?? 1) }))
        .sort((a, b) => b.score - a.score);

      const selected: { chunk: PassageChunk; score: number; tokens: Set<string> }[] = [];
      const perSource = new Map<string, number>();
      let remaining = maxTokens;
      const tryTake = (chunkIndex: number, score: number): boolean => {
        const chunk = chunks[chunkIndex];
        const tokens = tokenSets[chunkIndex];
        if (chunk === undefined || tokens === undefined) return false;
        const cost = passageTokens(chunk);
        if (cost > remaining) return false;
        if (duplicateThreshold < 1 && selected.some((s) => jaccard(s.tokens, tokens) >= duplicateThreshold))
          return true;
        selected.push({ chunk, score, tokens });
        perSource.set(chunk.url, (perSource.get(chunk.url) ?? 0) + 1);
        remaining -= cost;
        return true;
      };

      // First pass: best first, at most maxPerSource per URL; the rest waits for a second pass.
      const deferred: { chunkIndex: number; score: number }[] = [];
      for (const match of ranked) {
        const chunkIndex = Number(match.id);
        const url = chunks[chunkIndex]?.url ?? '';
        if ((perSource.get(url) ?? 0) >= maxPerSource) deferred.push({ chunkIndex, score: match.score });
        else tryTake(chunkIndex, match.score);
      }
      for (const { chunkIndex, score } of deferred) tryTake(chunkIndex, score);

      return selected.map(({ chunk, score }) => {
        const passage: Passage = { url: chunk.url, title: chunk.title, text: chunk.text, score };
        return chunk.heading === undefined ? passage : { ...passage, heading: chunk.heading };
      });
    },
  };
}

/** Options of {@link rankPassages}: the token budget plus the ranker's options. */
export interface RankPassagesOptions extends Bm25RankerOptions, TokenBudget {}

/**
 * Ranks the passages of `docs` for `query` and returns the best that fit `maxTokens`, best first.
 * A standalone shortcut for `createBm25Ranker(options).rank(query, docs, { maxTokens })`.
 *
 * @example
 * const passages = await rankPassages('create an API key', [page], { maxTokens: 1500 });
 */
export async function rankPassages(
  query: string,
  docs: readonly ExtractedContent[],
  options: RankPassagesOptions,
): Promise<Passage[]> {
  return createBm25Ranker(options).rank(query, docs, { maxTokens: options.maxTokens });
}
