/**
 * The operator's synonyms: company vocabulary that no dictionary links ("badge" ↔ "access card"), written as
 * rules in the Solr synonyms format that Elasticsearch and OpenSearch read too:
 *
 *   # a comment
 *   badge, access card, key card      (equivalent: each phrase stands for the others)
 *   PTO => paid time off, holiday     (one way: a question saying "PTO" also matches "holiday")
 *
 * Phrases are compared as the search compares words (lower case, stemmed, without stop words), so "badges"
 * matches "badge". Applied at query time only, so changing the rules needs no re-index.
 */
import { tokenize } from './tokenize.ts';
import { escapeRegExp } from './regexp.ts';

/** One rule: a question naming a phrase of `from` may be answered by a text naming a phrase of `to`. */
export interface SynonymRule {
  readonly from: readonly string[];
  readonly to: readonly string[];
}

/** Defaults of the synonym rules. */
export const SYNONYM_RULES_DEFAULTS = {
  /** Most rewritten queries searched for one query (one per phrase the rules offer, in rule order). */
  maxRewrites: 2,
  /**
   * What the hits of a rewritten query weigh in the fused results, as a share of the query as asked: a page
   * found by the synonym ranks below one found by the word itself.
   */
  rewriteWeight: 0.5,
} as const;

/** A phrase as the index sees it: its stemmed words. */
type Terms = readonly string[];

function phrases(side: string, line: number): string[] {
  const list = side
    .split(',')
    .map((phrase) => phrase.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  if (list.length === 0) throw new RangeError(`synonyms line ${line}: a side of "=>" names no phrase`);
  return list;
}

/**
 * Reads rules in the Solr synonyms format, one a line ("a, b, c" or "a, b => c"); blank lines and `#` comments
 * are skipped.
 *
 * @throws RangeError naming the line of a rule with no phrase, several "=>", or a single phrase.
 */
export function parseSynonymRules(lines: string | readonly string[]): SynonymRule[] {
  const all = typeof lines === 'string' ? lines.split(/\r?\n/) : lines.flatMap((l) => l.split(/\r?\n/));
  const rules: SynonymRule[] = [];
  all.forEach((raw, i) => {
    const text = raw.replace(/(?:^|\s)#.*$/, '').trim();
    if (text.length === 0) return;
    const sides = text.split('=>');
    if (sides.length > 2) throw new RangeError(`synonyms line ${i + 1}: more than one "=>"`);
    if (sides.length === 2) {
      rules.push({ from: phrases(sides[0] ?? '', i + 1), to: phrases(sides[1] ?? '', i + 1) });
      return;
    }
    const equivalent = phrases(text, i + 1);
    if (equivalent.length < 2)
      throw new RangeError(`synonyms line ${i + 1}: "${text}" names one phrase; write "a, b" or "a => b"`);
    rules.push({ from: equivalent, to: equivalent });
  });
  return rules;
}

/** Whether `sequence` holds `phrase` as consecutive terms, and where. */
function indexOfPhrase(sequence: Terms, phrase: Terms): number {
  if (phrase.length === 0) return -1;
  outer: for (let i = 0; i + phrase.length <= sequence.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (sequence[i + j] !== phrase[j]) continue outer;
    return i;
  }
  return -1;
}

/** A regular expression finding `phrase` in a query as written (any case, a plural ending on its last word). */
function phrasePattern(phrase: string): RegExp {
  const words = phrase.split(' ').map(escapeRegExp);
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join('\\s+')}(?:e?s)?(?![\\p{L}\\p{N}])`, 'iu');
}

/** What the rules say of one query. */
export interface QuerySynonyms {
  /**
   * For each stemmed query term inside a phrase a rule matched, the phrases (as stemmed terms) a text may
   * say instead: a text holding every term of one of them has the term's synonym.
   */
  readonly byTerm: ReadonlyMap<string, readonly Terms[]>;
  /** The query with a matched phrase replaced by a synonym, at most `maxRewrites`, in rule order. */
  readonly rewrites: readonly string[];
}

/** The operator's synonym rules, ready to apply to queries. */
export class SynonymSet {
  readonly #rules: readonly { from: readonly [string, Terms][]; to: readonly [string, Terms][] }[];
  readonly #locale: string | undefined;

  constructor(rules: readonly SynonymRule[], locale?: string) {
    this.#locale = locale;
    const terms = (phrase: string): [string, Terms] => [phrase, tokenize(phrase, { locale })];
    this.#rules = rules.map((rule) => ({
      from: rule.from.map(terms).filter(([, t]) => t.length > 0),
      to: rule.to.map(terms).filter(([, t]) => t.length > 0),
    }));
  }

  /** Rules in the set. */
  get size(): number {
    return this.#rules.length;
  }

  /** The synonyms of `query`'s phrases, and the query rewritten with them. */
  forQuery(query: string, maxRewrites: number = SYNONYM_RULES_DEFAULTS.maxRewrites): QuerySynonyms {
    const sequence = tokenize(query, { locale: this.#locale });
    const byTerm = new Map<string, Terms[]>();
    const rewrites: string[] = [];
    for (const rule of this.#rules) {
      for (const [phrase, terms] of rule.from) {
        if (indexOfPhrase(sequence, terms) < 0) continue;
        for (const [synonym, synonymTerms] of rule.to) {
          if (synonymTerms.join(' ') === terms.join(' ')) continue;
          for (const term of terms) {
            const list = byTerm.get(term) ?? [];
            if (!list.some((t) => t.join(' ') === synonymTerms.join(' '))) list.push(synonymTerms);
            byTerm.set(term, list);
          }
          const rewritten = query.replace(phrasePattern(phrase), synonym);
          if (rewritten !== query && rewrites.length < maxRewrites && !rewrites.includes(rewritten))
            rewrites.push(rewritten);
        }
      }
    }
    return { byTerm, rewrites };
  }
}

/** Whether `tokens` hold every term of one of `phrases`. */
export function hasPhrase(tokens: ReadonlySet<string>, phrases: readonly Terms[] | undefined): boolean {
  return phrases?.some((terms) => terms.every((term) => tokens.has(term))) ?? false;
}
