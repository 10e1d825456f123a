/**
 * What a research question asks, read without a model: the things it names (quoted titles and capitalised
 * names), the sides of a comparison or conjunction ("Which film came out first, X or Y?", "Are X and Y both
 * …?"), and the relation words that the answer's evidence should contain ("director", "born", "label").
 */
import { salientEntities } from '../query.ts';
import { escapeRegExp } from '../../text/regexp.ts';
import { ENGLISH_STOP_WORDS, stem } from '../../text/tokenize.ts';
import { countriesIn, DEMONYM } from './countries.ts';

/** A question as the model-free research planner reads it. */
export interface QuestionAnalysis {
  /** The question as asked (trimmed). */
  readonly question: string;
  /** Named things of the question, quoted titles first, longest name kept when one holds another. */
  readonly entities: readonly string[];
  /**
   * The things compared or joined ("X or Y", "X and Y both"), two or more, each searched on its own; empty
   * for a question about one thing.
   */
  readonly sides: readonly string[];
  /**
   * Stems of the question's words that are neither stop words nor part of a name: what each hop's
   * evidence is scored against ("direct", "born", "child").
   */
  readonly relations: readonly string[];
  /** The words of {@link relations} as the question writes them, in order. */
  readonly relationWords: readonly string[];
}

/** Question words and fillers that say nothing of the evidence. */
const FILLER = new Set(
  (
    'which whose whom who what when where why how many much name named called also both either neither ' +
    'first earlier later last latest older younger same different one ones person people thing kind type ' +
    'is are was were do does did has have had been tell give find'
  ).split(' '),
);

/** Relation words and the words the evidence uses for them (stems of both count). */
const RELATED_WORDS: Readonly<Record<string, readonly string[]>> = {
  child: ['son', 'daughter', 'children', 'child'],
  children: ['son', 'daughter', 'child'],
  son: ['child', 'children'],
  daughter: ['child', 'children'],
  father: ['son', 'daughter', 'parent'],
  mother: ['son', 'daughter', 'parent'],
  parent: ['father', 'mother'],
  spouse: ['wife', 'husband', 'married', 'marry'],
  wife: ['married', 'spouse'],
  husband: ['married', 'spouse'],
  director: ['directed', 'directing'],
  directed: ['director'],
  producer: ['produced'],
  composer: ['composed', 'music'],
  performer: ['performed', 'singer', 'band', 'recorded', 'by'],
  singer: ['sung', 'sang', 'recorded'],
  founder: ['founded', 'established'],
  founded: ['established', 'founder', 'formed'],
  born: ['birth'],
  birthday: ['born', 'birth'],
  birthplace: ['born', 'birth'],
  birth: ['born'],
  die: ['died', 'death', 'dead'],
  died: ['death', 'dead'],
  death: ['died'],
  owner: ['owned', 'owns', 'subsidiary'],
  owned: ['owner', 'subsidiary'],
  author: ['written', 'wrote', 'novel'],
  writer: ['written', 'wrote'],
  located: ['situated', 'city', 'town'],
  nationality: ['american', 'british', 'citizen', 'national'],
  country: ['nation'],
  label: ['records', 'released'],
  publisher: ['published'],
  published: ['publisher'],
  headquarters: ['headquartered', 'based'],
  capital: ['seat'],
  population: ['inhabitants', 'residents'],
  lead: ['head', 'led', 'manager'],
  head: ['lead', 'led', 'manager'],
  built: ['build', 'made', 'produced', 'manufactured'],
  made: ['build', 'built', 'produced', 'manufactured'],
  repair: ['repairs', 'fix', 'service'],
  cost: ['price', 'priced', 'costs'],
  price: ['cost', 'costs'],
};

const QUOTED = /["“”«»]([^"“”«»]{2,120})["“”«»]/gu;

/** Stems of `text`'s words that carry meaning (no stop words, no fillers). */
export function meaningStems(text: string): string[] {
  const stems: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)) {
    const word = match[0].replace(/['’]s$/u, '');
    if (word.length < 2 || ENGLISH_STOP_WORDS.has(word) || FILLER.has(word)) continue;
    stems.push(stem(word));
  }
  return [...new Set(stems)];
}

const NAME_WORD = String.raw`\p{Lu}[\p{L}\p{M}\p{N}'’.\-]*`;
/** A capitalised name with a parenthesised qualifier: "The Zone (2017 Film)", "James Stanley (Bishop)". */
const QUALIFIED_NAME = new RegExp(
  String.raw`(${NAME_WORD}(?:\s+(?:${NAME_WORD}|of|the|de|da|del|von|van|and|&|\d+))*)\s*\(([^()]{1,60})\)`,
  'gu',
);

/** A title abbreviated with a period inside a name ("Mr. Cool", "St. Louis", "Dr. No"). */
const TITLE_ABBREVIATION = /\b(Mr|Mrs|Ms|Dr|St|Mt|Ft|Jr|Sr|Gen|Col|Capt|Lt|Sgt|Rev|Prof)\.(?=\s+\p{Lu})/gu;

/** A name without a possessive ending ("Henrik Selberg's" → "Henrik Selberg"). */
function withoutPossessive(name: string): string {
  return name.replace(/['’]s$/u, '').trim();
}

/** Named things of `question`: quoted titles, qualified names, then capitalised names, none inside another. */
export function questionEntities(question: string): string[] {
  const quoted = [...question.matchAll(QUOTED)].map((m) => (m[1] ?? '').trim()).filter(Boolean);
  // "The Oddventures of Mr. Cool" is one name: a title's period does not end a sentence.
  const rest = question.replace(QUOTED, ' ').replace(TITLE_ABBREVIATION, '$1');
  const qualified = [...rest.matchAll(QUALIFIED_NAME)].map((m) =>
    `${withoutPossessive(m[1] ?? '')} (${(m[2] ?? '').trim()})`.trim(),
  );
  const plain = rest.replace(QUALIFIED_NAME, ' , ');
  const names = salientEntities(plain)
    .map(withoutPossessive)
    .filter((name) => name.length > 1 && !FILLER.has(name.toLowerCase()));
  const all = [...new Set([...quoted, ...qualified, ...names])];
  return all.filter(
    (name, i) => !all.some((other, j) => j !== i && other.length > name.length && other.includes(name)),
  );
}

/**
 * The sides of a comparison or conjunction: "…, X or Y?", "X or Y, which …?", "Are X and Y both …?",
 * "Which is older, X or Y?". Each side is a named thing of the question found on that side of the `or` /
 * `and` (or the whole stretch of words there when no name is found).
 */
function comparisonSides(question: string, entities: readonly string[]): string[] {
  const body = question.replace(/[?.!]+\s*$/u, '');
  const orAt = body.search(/\s(?:or|vs\.?|versus)\s/iu);
  const andAt = body.search(/\sand\s/iu);
  const isConjunction = orAt < 0;
  const joined = isConjunction ? andAt : orAt;
  if (joined < 0) return [];
  if (
    isConjunction &&
    !/^(?:are|were|is|was|do|does|did|have|has|can)\b|\bboth\b|\bsame\b|\bcommon\b/iu.test(body)
  )
    return [];
  // "…, X or Y": the two stretches after the last comma (titles may hold lower-case words).
  const comma = body.lastIndexOf(',', joined);
  if (comma >= 0 && !isConjunction) {
    const pair = body
      .slice(comma + 1)
      .split(/\s(?:or|vs\.?|versus)\s/iu)
      .map((side) => side.trim());
    if (pair.length === 2 && pair.every((side) => side.length > 1 && side.split(/\s+/u).length <= 12))
      return pair;
  }
  const at = (name: string) => body.indexOf(name);
  const before = entities.filter((name) => at(name) >= 0 && at(name) + name.length <= joined + 1);
  const after = entities.filter((name) => at(name) > joined);
  const left = before.at(-1);
  const right = after[0];
  return left !== undefined && right !== undefined ? [left, right] : [];
}

/**
 * A people's word written before a lower-case word ("the 2009 American science fiction film", "what
 * Scottish team"): it says what kind of thing is asked for, it names no page to search.
 */
function isPeoplesAdjective(name: string, question: string): boolean {
  if (/\s/u.test(name) || !DEMONYM.test(name) || countriesIn(name).length === 0) return false;
  return new RegExp(`(?<![\\p{L}])${escapeRegExp(name)}\\s+\\p{Ll}`, 'u').test(question);
}

/** Reads a research question (see {@link QuestionAnalysis}). */
export function analyzeQuestion(question: string): QuestionAnalysis {
  const trimmed = question.trim();
  const written = questionEntities(trimmed);
  const entities = written.filter((name) => !isPeoplesAdjective(name, trimmed));
  const sides = comparisonSides(trimmed, entities);
  // A name's words are not relations, but the same word outside it is: "the state where …" keeps "state"
  // beside "the United States". A name not written as such (a title's period dropped) removes its words.
  let unnamed = trimmed;
  const unplaced: string[] = [];
  for (const name of [...written].sort((a, b) => b.length - a.length)) {
    if (unnamed.includes(name)) unnamed = unnamed.split(name).join(' , ');
    else unplaced.push(...meaningStems(name));
  }
  const relations = meaningStems(unnamed).filter((s) => !unplaced.includes(s));
  const relationWords = [
    ...new Set(
      (trimmed.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => {
        const stem = meaningStems(word)[0];
        return stem !== undefined && relations.includes(stem) && !/^\p{Lu}/u.test(word);
      }),
    ),
  ];
  return { question: trimmed, entities, sides, relations, relationWords };
}

/**
 * The stems that evidence of `relations` may use: each relation's own stem, and the stems of the words
 * the evidence usually writes for it ("director" ← "directed", "child" ← "son", "daughter").
 */
export function relationVocabulary(relations: readonly string[]): ReadonlySet<string> {
  const vocabulary = new Set<string>(relations);
  for (const relation of relations) {
    for (const [word, related] of Object.entries(RELATED_WORDS)) {
      if (stem(word) !== relation) continue;
      for (const other of related) vocabulary.add(stem(other));
    }
  }
  return vocabulary;
}

/** True when `token` (a stem) matches one of `vocabulary`, or shares its first six letters (derivations). */
export function matchesVocabulary(token: string, vocabulary: ReadonlySet<string>): boolean {
  if (vocabulary.has(token)) return true;
  if (token.length < 6) return false;
  const prefix = token.slice(0, 6);
  for (const word of vocabulary) if (word.length >= 6 && word.slice(0, 6) === prefix) return true;
  return false;
}
