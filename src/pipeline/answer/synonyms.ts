/**
 * The synonyms a sentence may say a query word with: the operator's rules ({@link SynonymSet}: "access card"
 * for "badge") and WordNet's ("price" for "cost"), each at its share of the word's weight.
 */
import { hasPhrase, type SynonymSet } from '../../text/synonym-rules.ts';
import { synonymsOf } from '../../text/synonyms.ts';
import { tokenize } from '../../text/tokenize.ts';

/** What a sentence's words give a query term through a synonym: a share of the term's weight, 0 for none. */
export interface SynonymMatcher {
  /** The share a sentence with these words earns for `term` (the best of the rules' and WordNet's). */
  share(tokens: ReadonlySet<string>, term: string): number;
  /** The share from the operator's rules alone (used for a passage's title and heading). */
  ruleShare(tokens: ReadonlySet<string>, term: string): number;
  /** The words of the rules' synonyms of the query (for a BM25 score of them). */
  readonly ruleTerms: readonly string[];
  /** The share the rules give a sentence with these words for any query term (0 for none). */
  readonly ruleWeight: number;
}

/** How a {@link SynonymMatcher} weighs synonyms. */
export interface SynonymMatcherOptions {
  readonly locale: string | undefined;
  /** Share for a WordNet synonym; 0 looks none up. */
  readonly wordnetWeight: number;
  readonly rules: SynonymSet | undefined;
  /** Share for a synonym of the operator's rules. */
  readonly ruleWeight: number;
}

/**
 * The stems of the WordNet synonyms of each query term ("cost" → "price", "toll"), by the term's stem;
 * words of the question that are not query terms are left out.
 */
function wordnetSynonyms(
  query: string,
  terms: ReadonlyMap<string, number>,
  locale: string | undefined,
): Map<string, Set<string>> {
  const synonyms = new Map<string, Set<string>>();
  for (const word of tokenize(query, { locale, stem: false })) {
    const term = tokenize(word, { locale })[0];
    if (term === undefined || !terms.has(term)) continue;
    const stems = synonyms.get(term) ?? new Set<string>();
    for (const synonym of synonymsOf(word))
      for (const stem of tokenize(synonym, { locale }))
        if (stem !== term && !terms.has(stem)) stems.add(stem);
    synonyms.set(term, stems);
  }
  return synonyms;
}

/** The synonym matcher of one query whose terms weigh `terms`. */
export function querySynonymMatcher(
  query: string,
  terms: ReadonlyMap<string, number>,
  options: SynonymMatcherOptions,
): SynonymMatcher {
  const wordnet =
    options.wordnetWeight > 0
      ? wordnetSynonyms(query, terms, options.locale)
      : new Map<string, Set<string>>();
  const rules: ReadonlyMap<string, readonly (readonly string[])[]> =
    options.rules?.forQuery(query).byTerm ?? new Map<string, string[][]>();
  const ruleShare = (tokens: ReadonlySet<string>, term: string): number =>
    options.ruleWeight > 0 && hasPhrase(tokens, rules.get(term)) ? options.ruleWeight : 0;
  const ruleTerms = [...new Set([...rules.values()].flat(2))];
  return {
    ruleShare,
    ruleTerms,
    ruleWeight: options.ruleWeight,
    share(tokens, term) {
      const fromRules = ruleShare(tokens, term);
      if (fromRules >= options.wordnetWeight) return fromRules;
      const stems = wordnet.get(term);
      if (stems !== undefined) for (const stem of stems) if (tokens.has(stem)) return options.wordnetWeight;
      return fromRules;
    },
  };
}
