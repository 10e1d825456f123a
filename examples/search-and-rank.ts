/**
 * Two stages without answering: search with a provider, then rank passages of the hits with BM25 under a
 * token budget — e.g. to feed your own model or prompt. The provider here is the local index over a folder
 * of Markdown (the project's docs by default); any provider (SearXNG, Brave, …) has the same interface.
 *
 *   node examples/search-and-rank.ts "how are credits charged" [folder]
 *
 * In your app, import from 'citewise' instead of '../src/index.ts'.
 */
import {
  DEFAULT_CORPUS,
  createLocalIndexProvider,
  rankPassages,
  type ExtractedContent,
  type Passage,
  type SearchProvider,
} from '../src/index.ts';

/** Searches `query`, then returns the best passages of the hits that fit `maxTokens`, best first. */
export async function searchAndRank(
  query: string,
  provider: SearchProvider,
  { limit = 5, maxTokens = 800 }: { limit?: number; maxTokens?: number } = {},
): Promise<Passage[]> {
  const signal = AbortSignal.timeout(10_000);
  const hits = await provider.search({ query, limit }, { signal, requestId: 'search-and-rank' });
  // The local index returns full text; with a web provider, fetch and extract the pages first (or rank snippets).
  const docs: ExtractedContent[] = hits.map((hit) => {
    const text = hit.content ?? hit.snippet ?? '';
    return { url: hit.url, title: hit.title, text, markdown: text };
  });
  return rankPassages(query, docs, { maxTokens });
}

if (import.meta.main) {
  const query = process.argv[2] ?? 'how are credits charged';
  const provider = createLocalIndexProvider({ paths: [process.argv[3] ?? DEFAULT_CORPUS] });
  try {
    for (const passage of await searchAndRank(query, provider)) {
      console.log(
        `${passage.score.toFixed(2)}  ${passage.title} — ${passage.url}\n    ${passage.text.slice(0, 160)}\n`,
      );
    }
  } finally {
    await provider.close?.();
  }
}
