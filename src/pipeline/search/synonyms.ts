/**
 * Search with the operator's synonyms: a query naming a phrase of a synonym rule is also searched rewritten
 * with the rule's other phrases ("lose my badge" → "lose my access card"), and the hits are fused by
 * reciprocal rank with the rewritten queries weighing less than the query as asked.
 */
import type { SynonymSet } from '../../text/synonym-rules.ts';
import { SYNONYM_RULES_DEFAULTS } from '../../text/synonym-rules.ts';
import type { SearchProvider } from '../types.ts';
import { fuseRankings } from './combine.ts';

/** Wraps `provider` so that queries are also searched with their synonyms; without rules, `provider` itself. */
export function withSynonymSearch(
  provider: SearchProvider,
  synonyms: SynonymSet | undefined,
): SearchProvider {
  if (synonyms === undefined || synonyms.size === 0) return provider;
  const wrapped: SearchProvider = {
    id: provider.id,
    async search(query, call) {
      const { rewrites } = synonyms.forQuery(query.query);
      if (rewrites.length === 0) return provider.search(query, call);
      const lists = await Promise.all(
        [query.query, ...rewrites].map(async (text, i) => ({
          providerId: i === 0 ? 'asked' : `synonym-${i}`,
          hits: await provider.search({ ...query, query: text }, call),
        })),
      );
      const weights = Object.fromEntries(
        lists.map((list, i) => [list.providerId, i === 0 ? 1 : SYNONYM_RULES_DEFAULTS.rewriteWeight]),
      );
      return fuseRankings(lists, { weights }).slice(0, query.limit);
    },
  };
  if (provider.close) {
    const close = provider.close.bind(provider);
    return { ...wrapped, close };
  }
  return wrapped;
}
