/**
 * Leads: the named things that what was read points to and the question depends on. "Love Affair is a 1939
 * film directed by Leo McCarey" gives the lead "Leo McCarey" for "Who is the child of the director of Love
 * Affair?": a name in a sentence that speaks of the question's relations ("directed" for "director"), on a
 * page about the thing being followed, close to the relation word. The research loop searches the best
 * leads next.
 */
import { ENGLISH_STOP_WORDS } from '../../text/tokenize.ts';
import { NAME_CONNECTORS } from '../query.ts';
import { DEMONYM } from './countries.ts';
import { matchesVocabulary, meaningStems } from './question.ts';
import {
  headingNames,
  isThing,
  leadUnits,
  lifespanIn,
  quoteOf,
  type LeadUnit,
  type TableCell,
} from './units.ts';

/** A document read for one line of research, with how much its leads count. */
export interface LeadSource {
  readonly url: string;
  readonly title: string;
  readonly text: string;
  /** The document's Markdown, when it has one: leads are read from its prose and tables (see units.ts). */
  readonly markdown?: string;
  /** Relevance of the document to what is being followed (e.g. from its search rank), > 0. */
  readonly weight: number;
}

/** A named thing worth searching next. */
export interface Lead {
  readonly name: string;
  readonly score: number;
  /** Where it was found. */
  readonly url: string;
  readonly title: string;
  /** The sentence it stands in (for a table cell, its row as "column: value; …"). */
  readonly sentence: string;
  /** The sentence as an answer quotes it: code kept, the sentences after it that open with a pronoun joined. */
  readonly quote?: string;
  /** For a table cell's value: its column's header. */
  readonly column?: string;
  /**
   * The lead is tied to the question, not only near it: its sentence holds one of the question's relation
   * words, it follows "by", it is itself such a word ("… Company"), or it stands in a list of places the
   * question asks about.
   */
  readonly related: boolean;
}

/** What leads are looked for. */
export interface LeadQuery {
  /** The things being followed (a side of a comparison, the previous lead): pages about them count most. */
  readonly focus: readonly string[];
  /** Relation stems and the words evidence writes for them ({@link relationVocabulary}). */
  readonly vocabulary: ReadonlySet<string>;
  /** True for a name already known (in the question, searched, or the title of a page read). */
  readonly known: (name: string) => boolean;
  /** True for a name that stands on too many of the pages read to be about any (a site's name). */
  readonly common?: (name: string) => boolean;
  /** Most sentences read per document. @default 30 */
  readonly maxSentences?: number;
  /**
   * The question asks for a place that holds another ("the state where…", "the country of…"): names in a
   * list of places ("Kirkwood, Missouri, United States") count more, the larger ones (later) most.
   * @default false
   */
  readonly containers?: boolean;
  /**
   * Words the question writes in lower case: such a word opening a sentence is a common word there
   * ("Repairs of the Vortex 300 are …" for "who repairs …"), not the start of a name. @default none
   */
  readonly commonWords?: ReadonlySet<string>;
}

/** How much more a document about the focus counts than one that is not. */
const ABOUT_FOCUS_WEIGHT = 4;
/** Most words in a name. */
const MAX_NAME_WORDS = 6;

const NOT_NAMES = new Set(
  (
    'january february march april may june july august september october november december ' +
    'monday tuesday wednesday thursday friday saturday sunday i he she it we they his her its their this ' +
    'that these those there here the a an in on at of for from with by as after before during since while ' +
    'when where which who what how however although though also but and or so then thus today yesterday ' +
    'many most some several other another each every both all none one two three first second third new ' +
    'besides despite unlike like following according no not yes'
  ).split(' '),
);

/** Lower-case words allowed inside a name ("Tower of London", "Leonardo da Vinci"). */
const CONNECTORS = NAME_CONNECTORS;

/** A name as compared: lower-case, accents folded, no qualifier in parentheses, no leading article. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s*\([^()]*\)\s*/gu, ' ')
    .replace(/['’]s\b/gu, '')
    .replace(/^(?:the|a|an)\s+/u, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * True when `title` is the title of the page about the name whose {@link nameKey} is `key`: the name itself,
 * or the name then a qualifier ("Seattle, Washington" for "seattle").
 */
export function titledBy(title: string, key: string): boolean {
  const titleKey = nameKey(title);
  return titleKey === key || titleKey.startsWith(`${key} `);
}

const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’.-]*[\p{L}\p{M}\p{N}]|[\p{L}\p{N}]|&/gu;

interface Token {
  readonly text: string;
  readonly index: number;
  /** Offset in the sentence. */
  readonly at: number;
  /** Punctuation stands between this token and the one before (a comma, a bracket, a quote). */
  readonly breakBefore: boolean;
}

function tokensOf(sentence: string): Token[] {
  const tokens: Token[] = [];
  let end = 0;
  for (const match of sentence.matchAll(TOKEN)) {
    const at = match.index ?? 0;
    tokens.push({
      text: match[0].replace(/['’]s$/u, ''),
      index: tokens.length,
      at,
      breakBefore: /[,;:()[\]"“”«»!?/–—]/u.test(sentence.slice(end, at)),
    });
    end = at + match[0].length;
  }
  return tokens;
}

/**
 * Words an adjective is not followed by: a verb's participle ("Missouri designed by …", "Delhi using …"),
 * so the word before them is a name.
 */
const NOT_AFTER_ADJECTIVE = /^\p{Ll}+(?:ed|ing)$/u;

/** Words of {@link NOT_NAMES} that open names when a capitalised word follows ("New York"). */
const NAME_OPENERS = new Set(['New']);

/** A year as a name's first word ("the 1936 Summer Olympics"). */
const YEAR = /^(?:1[5-9]\d{2}|20\d{2})$/u;

const isCapitalised = (word: string) => /^\p{Lu}/u.test(word) || /^\p{N}+\p{Lu}/u.test(word);

/** A name found in a sentence: its words and where they stand. */
interface Mention {
  readonly name: string;
  readonly first: number;
  readonly last: number;
  /** It opens the sentence (a capital that may only mark the sentence's start). */
  readonly initial: boolean;
}

/**
 * The names of a sentence: runs of capitalised words (with "of", "the", "de"… inside), broken at
 * punctuation, and quoted titles. A single word opening the sentence is kept only when it is not a common
 * word ({@link NOT_NAMES}); a single word followed by a lower-case word is an adjective ("American film").
 */
export function mentionsOf(sentence: string): Mention[] {
  const tokens = tokensOf(sentence);
  const mentions: Mention[] = [];
  let run: Token[] = [];
  const flush = () => {
    emit(run);
    run = [];
  };
  const emit = (part: Token[]) => {
    while (part.length > 0 && CONNECTORS.has(part.at(-1)!.text.toLowerCase())) part.pop();
    // "In the United States", "During the Reign of Terror", "From OpenPedia": the opening word is not a name.
    // "New" opens names ("New York", "New Jersey"): it is kept when a capitalised word follows.
    while (
      part.length > 1 &&
      ((NOT_NAMES.has(part[0]!.text.toLowerCase()) && !NAME_OPENERS.has(part[0]!.text)) ||
        CONNECTORS.has(part[0]!.text.toLowerCase()))
    )
      part.shift();
    // A year opens a name of two words or more ("the 2003 Italian Grand Prix"), not one ("the 2007 Thai film").
    if (part.length === 2 && YEAR.test(part[0]!.text)) part.shift();
    // A run longer than a name is a name joined to another, or to a title, by a connector ("Director of
    // The Frost Place Advanced Seminar"): each side of its first connector is read on its own, and one
    // word before it is a title ("Director", "Governor"), not a name.
    const split =
      part.length > MAX_NAME_WORDS
        ? part.findIndex((token, i) => i > 0 && CONNECTORS.has(token.text.toLowerCase()))
        : -1;
    if (split > 0) {
      if (split > 1) emit(part.slice(0, split));
      emit(part.slice(split + 1));
      return;
    }
    if (part.length > 0 && part.length <= MAX_NAME_WORDS) {
      const first = part[0]!;
      const last = part.at(-1)!;
      const name = sentence.slice(first.at, last.at + last.text.length);
      const next = tokens[last.index + 1];
      const single = part.length === 1;
      const adjective =
        single &&
        DEMONYM.test(first.text) &&
        next !== undefined &&
        !next.breakBefore &&
        /^\p{Ll}/u.test(next.text) &&
        !NOT_AFTER_ADJECTIVE.test(next.text) &&
        !ENGLISH_STOP_WORDS.has(next.text) &&
        !afterPlace(first);
      const common = single && NOT_NAMES.has(first.text.toLowerCase());
      if (!adjective && !common && !/^\d+$/u.test(name)) {
        mentions.push({ name, first: first.index, last: last.index, initial: first.index === 0 });
      }
    }
  };
  const yearOpensName = (token: Token): boolean => {
    const [before, next] = [tokens[token.index - 1], tokens[token.index + 1]];
    return (
      run.length === 0 &&
      YEAR.test(token.text) &&
      before?.text.toLowerCase() === 'the' &&
      next !== undefined &&
      !token.breakBefore &&
      !next.breakBefore &&
      isCapitalised(next.text)
    );
  };
  // A name right after "Kirkwood," is the next place of a list ("Kirkwood, Missouri"), not an adjective.
  const afterPlace = (token: Token) => {
    const before = tokens[token.index - 1];
    return (
      before !== undefined &&
      isCapitalised(before.text) &&
      /^,\s*$/u.test(sentence.slice(before.at + before.text.length, token.at))
    );
  };
  for (const token of tokens) {
    if (token.breakBefore) flush();
    const lower = token.text.toLowerCase();
    // A number right after a name is part of it ("Vortex 300", "Apollo 11"), never its start, except a
    // year after "the" that opens an event's name ("the 1936 Summer Olympics", "the 2003 Italian Grand Prix").
    if (
      isCapitalised(token.text) ||
      (run.length > 0 && !token.breakBefore && /^\p{N}+$/u.test(token.text)) ||
      yearOpensName(token)
    )
      run.push(token);
    else if (run.length > 0 && CONNECTORS.has(lower)) run.push(token);
    else flush();
  }
  flush();
  for (const match of sentence.matchAll(/["“]([^"“”]{2,80})["”]/gu)) {
    const title = (match[1] ?? '').trim();
    // A title starts with a capital or a digit and is short; anything else is quoted speech or stray quotes.
    // Titles of works are written in title case; quoted speech ("Tell me about Marie Curie") is not.
    const words = title.split(/\s+/u);
    if (words.length > 8 || /[,;?!]/u.test(title) || !isTitleCase(words)) continue;
    const at = (match.index ?? 0) + 1;
    const first = tokens.findIndex((t) => t.at >= at);
    if (title && first >= 0) mentions.push({ name: title, first, last: first, initial: false });
  }
  return mentions;
}

/**
 * Names standing in a list of places ("in Kirkwood, Missouri, United States"): each with its share of the
 * way along the list (the last, the largest place, 1), for lists of two or more.
 */
function placeLists(
  mentions: readonly Mention[],
  tokens: readonly Token[],
  sentence: string,
): Map<Mention, number> {
  const ordered = [...mentions].sort((a, b) => a.first - b.first);
  const lists: Mention[][] = [];
  for (const mention of ordered) {
    const list = lists.at(-1);
    const previous = list?.at(-1);
    if (list && previous) {
      const end = tokens[previous.last]!.at + tokens[previous.last]!.text.length;
      if (/^,\s*$/u.test(sentence.slice(end, tokens[mention.first]!.at))) {
        list.push(mention);
        continue;
      }
    }
    lists.push([mention]);
  }
  const share = new Map<Mention, number>();
  for (const list of lists) {
    if (list.length < 2) continue;
    list.forEach((mention, i) => share.set(mention, (i + 1) / list.length));
  }
  return share;
}

/** Defaults of {@link LeadQuery}. */
export const LEADS_DEFAULTS = {
  /** Sentences read per document. */
  maxSentences: 30,
} as const;

/** Words that introduce the maker or holder of something ("directed by X", "a single by X"). */
const AGENT_MARKERS = new Set(['by', 'of', 'for', 'in', 'from', 'to', 'at']);

/** Most words of a description between an agent marker and the name ("by the Norwegian playwright X"). */
const MAX_DESCRIPTION_WORDS = 4;

/**
 * The agent marker ({@link AGENT_MARKERS}) a name follows, directly ("directed by X") or across a short
 * description of it ("by the Norwegian playwright Henrik Ibsen", "by saxophonist Sonny Stitt"): articles,
 * lower-case words and nationalities, with no punctuation between.
 */
function agentMarker(tokens: readonly Token[], first: number): string | undefined {
  for (let i = first - 1; i >= 0 && first - 1 - i <= MAX_DESCRIPTION_WORDS; i--) {
    const token = tokens[i]!;
    const lower = token.text.toLowerCase();
    if (AGENT_MARKERS.has(lower)) return lower;
    if (tokens[i + 1]!.breakBefore) return undefined;
    const describes =
      ARTICLES.has(lower) ||
      (/^\p{Ll}/u.test(token.text) && !ENGLISH_STOP_WORDS.has(lower)) ||
      DEMONYM.test(token.text);
    if (!describes) return undefined;
  }
  return undefined;
}

/**
 * Where the description of a name set off by a comma after "by" starts ("shot … by Melbourne drug-dealer,
 * Dennis Allen": the token after "by"), when the name at `first` is such a name: a comma right before it,
 * a lower-case word (the description's noun) right before the comma, and "by" at most
 * {@link MAX_DESCRIPTION_WORDS} words back, across words of any case. Undefined otherwise.
 */
function appositiveAfterBy(tokens: readonly Token[], first: number, sentence: string): number | undefined {
  const name = tokens[first];
  const noun = tokens[first - 1];
  if (!name?.breakBefore || !noun || !/^\p{Ll}/u.test(noun.text)) return undefined;
  if (!/^\s*,\s*$/u.test(sentence.slice(noun.at + noun.text.length, name.at))) return undefined;
  for (let i = first - 2; i >= 0 && first - 1 - i <= MAX_DESCRIPTION_WORDS; i--) {
    if (tokens[i + 1]!.breakBefore) return undefined;
    if (tokens[i]!.text.toLowerCase() === 'by') return i + 1;
  }
  return undefined;
}

/** The articles: words a name's description or a relation's gap may hold without counting. */
export const ARTICLES: ReadonlySet<string> = new Set(['the', 'a', 'an']);

/** A lead as it is scored: its best sighting, and the sum over every sighting. */
type Scored = Lead & { total: number };

/** What one document's reading shares with each of its units. */
interface DocumentReading {
  readonly source: LeadSource;
  readonly titleKey: string;
  readonly focusKeys: readonly string[];
  readonly aboutFocus: boolean;
  readonly weight: number;
  /** Single words written with a capital somewhere other than a sentence's start. */
  readonly midSentence: ReadonlySet<string>;
}

/** Keeps the best sighting of a lead and adds its score to the lead's total. */
function record(best: Map<string, Scored>, key: string, lead: Lead): void {
  const previous = best.get(key);
  const total = (previous?.total ?? 0) + lead.score;
  if (!previous || lead.score > previous.score) best.set(key, { ...lead, total });
  else best.set(key, { ...previous, total });
}

/** True when `name` may not be a lead of this document (known, a site's name, its own title, not a thing). */
function excluded(name: string, key: string, reading: DocumentReading, query: LeadQuery): boolean {
  return (
    key.length < 2 ||
    key === reading.titleKey ||
    !isThing(name) ||
    query.known(name) ||
    query.common?.(name) === true ||
    reading.focusKeys.includes(key)
  );
}

/** Positions of the tokens that are relation words. */
function relationPositions(tokens: readonly Token[], vocabulary: ReadonlySet<string>): number[] {
  return tokens.flatMap((t, i) => {
    const stem = meaningStems(t.text)[0];
    return stem !== undefined && matchesVocabulary(stem, vocabulary) ? [i] : [];
  });
}

/**
 * An abbreviation given in brackets after the name it shortens ("the National Register Information System
 * (NRIS)", "Arlanda Airport (ARN)"): the name is the lead, not its letters.
 */
function isAbbreviation(mention: Mention, tokens: readonly Token[], sentence: string): boolean {
  if (mention.first !== mention.last || !/^\p{Lu}{2,6}$/u.test(mention.name)) return false;
  const token = tokens[mention.first]!;
  return (
    /\(\s*$/u.test(sentence.slice(0, token.at)) &&
    /^\s*[)/,;]/u.test(sentence.slice(token.at + token.text.length))
  );
}

const BORN = new Set(['born', 'birth']);
const DIED = new Set(['died', 'death', 'die']);

/**
 * The years of a biography's opening parenthesis that stand for "born" and "died" ("Steven Blankaart (24
 * October 1650, Middelburg – 23 February 1704, Amsterdam)": 1650 is the birth, 1704 the death), when the
 * question asks for either: the place after each year is then as near the relation as written words.
 */
function lifeDates(sentence: string, tokens: readonly Token[], vocabulary: ReadonlySet<string>): number[] {
  const born = [...BORN].some((word) => vocabulary.has(word));
  const died = [...DIED].some((word) => vocabulary.has(word));
  const span = born || died ? lifespanIn(sentence) : undefined;
  if (!span) return [];
  const { start, end, dash } = span;
  const years = tokens.filter((t) => t.at > start && t.at < end && /^\d{3,4}$/u.test(t.text));
  const birth = years.find((t) => t.at < dash);
  const death = years.find((t) => t.at > dash);
  return [...(born && birth ? [birth.index] : []), ...(died && death ? [death.index] : [])];
}

/** A sentence-opening name without its first word when the question writes that word in lower case. */
function withoutCommonStart(
  mention: Mention,
  commonWords: ReadonlySet<string> | undefined,
  tokens: readonly Token[],
): Mention | undefined {
  if (!mention.initial || !commonWords?.has(tokens[mention.first]!.text.toLowerCase())) return mention;
  let first = mention.first + 1;
  while (first <= mention.last && CONNECTORS.has(tokens[first]!.text.toLowerCase())) first++;
  if (first > mention.last) return undefined;
  const start = tokens[first]!;
  const end = tokens[mention.last]!;
  const name = mention.name.slice(
    start.at - tokens[mention.first]!.at,
    end.at - tokens[mention.first]!.at + end.text.length,
  );
  return { name, first, last: mention.last, initial: false };
}

/**
 * A name right before "as" and a name already known ("… and Bill Pullman as Jack, the brother …" for "the
 * character Jack from While You Were Sleeping"): a cast list's actor for the question's character, tied to
 * the question as a name after "by" is.
 */
function playsKnown(
  mention: Mention,
  mentions: readonly Mention[],
  tokens: readonly Token[],
  query: LeadQuery,
): boolean {
  const as = tokens[mention.last + 1];
  if (as?.text !== 'as' || as.breakBefore) return false;
  const role = mentions.find((m) => m.first === mention.last + 2);
  return role !== undefined && query.known(role.name);
}

/** The leads of one prose sentence. */
function sentenceLeads(
  unit: LeadUnit,
  index: number,
  reading: DocumentReading,
  query: LeadQuery,
  best: Map<string, Scored>,
): void {
  const sentence = unit.sentence;
  const tokens = tokensOf(sentence);
  const relationAt = [
    ...relationPositions(tokens, query.vocabulary),
    ...lifeDates(sentence, tokens, query.vocabulary),
  ];
  const sentenceKey = nameKey(sentence);
  const mentionsFocus = reading.aboutFocus || reading.focusKeys.some((key) => sentenceKey.includes(key));
  const sentenceWeight =
    reading.weight * (1 + relationAt.length) * (mentionsFocus ? 2 : 1) * (1 / (1 + 0.25 * index));
  const mentions = mentionsOf(sentence);
  // Names set off by a comma after "by", by where their description starts.
  const appositive = new Map<number, number>();
  for (const m of mentions) {
    const start = appositiveAfterBy(tokens, m.first, sentence);
    if (start !== undefined) appositive.set(m.first, start);
  }
  const places = query.containers ? placeLists(mentions, tokens, sentence) : new Map<Mention, number>();
  for (const found of mentions) {
    const mention = withoutCommonStart(found, query.commonWords, tokens);
    if (!mention) continue;
    const key = nameKey(mention.name);
    if (excluded(mention.name, key, reading, query)) continue;
    if (mention.initial && mention.first === mention.last && !reading.midSentence.has(key)) continue;
    if (isAbbreviation(mention, tokens, sentence)) continue;
    const distance = Math.min(
      Infinity,
      ...relationAt.map((r) =>
        r < mention.first ? mention.first - r : r > mention.last ? r - mention.last : 0,
      ),
    );
    const nearness = distance === Infinity ? 0 : 1 / (1 + distance / 3);
    const ownRelation = meaningStems(mention.name).some((s) => matchesVocabulary(s, query.vocabulary));
    const before = appositive.has(mention.first) ? 'by' : agentMarker(tokens, mention.first);
    // The words describing such a name ("Melbourne" of "by Melbourne drug-dealer, Dennis Allen") are not the agent.
    const describing = [...appositive].some(
      ([nameAt, start]) => mention.first >= start && mention.last < nameAt,
    );
    let agent = before === undefined || describing ? 0 : before === 'by' ? 1 : 0.3;
    if (before === undefined && playsKnown(mention, mentions, tokens, query)) agent = 1;
    const place = places.get(mention) ?? 0;
    record(best, key, {
      name: mention.name,
      score: sentenceWeight * (0.5 + nearness + agent + (ownRelation ? 1 : 0) + place),
      url: reading.source.url,
      title: reading.source.title,
      sentence,
      quote: quoteOf(unit),
      related: relationAt.length > 0 || agent >= 1 || ownRelation || place > 0,
    });
  }
}

/** Most words of a cell taken whole as a lead; a longer cell gives the names in it. */
const MAX_CELL_WORDS = 6;

/**
 * A cell that is one name ("Marisol Achebe", "Head of Field Service"): short, opening with a capital, with
 * no punctuation that joins clauses; any other cell is a description, whose names are read like a sentence's.
 */
function isCellName(value: string): boolean {
  const words = value.split(/\s+/u);
  return words.length <= MAX_CELL_WORDS && !/[,;:()—–]/u.test(value) && isTitleCase(words);
}

/** Every word capitalised (or a number), but the small words names keep in lower case ("Head of Sales"). */
function isTitleCase(words: readonly string[]): boolean {
  return (
    words.length > 0 &&
    /^[\p{Lu}\p{N}]/u.test(words[0]!) &&
    words.every(
      (word) => /^[\p{Lu}\p{N}"“'(]/u.test(word) || CONNECTORS.has(word.toLowerCase()) || word.length <= 3,
    )
  );
}

/**
 * The names in a cell that describes ("Directory of the SQLite database"): its capital at the start marks
 * the cell's start, not a name, unless the page writes that word with a capital elsewhere too.
 */
function descriptionNames(cell: string, midSentence: ReadonlySet<string>): string[] {
  return mentionsOf(cell).flatMap((mention) => {
    if (!mention.initial) return [mention.name];
    const [first, ...rest] = mention.name.split(/\s+/u);
    if (first === undefined || midSentence.has(nameKey(first))) return [mention.name];
    while (rest.length > 0 && CONNECTORS.has(rest[0]!.toLowerCase())) rest.shift();
    return rest.length > 0 ? [rest.join(' ')] : [];
  });
}

/**
 * The leads of one table row: each cell's value (or the names in a long cell), with its column. A cell
 * whose column or own words are relation words is near the relation; one elsewhere in a row that holds
 * one, half as near.
 */
function rowLeads(
  unit: LeadUnit & { readonly cells: readonly TableCell[] },
  index: number,
  reading: DocumentReading,
  query: LeadQuery,
  best: Map<string, Scored>,
): void {
  const related = (text: string) => meaningStems(text).some((s) => matchesVocabulary(s, query.vocabulary));
  const rowRelated = unit.cells.some((cell) => related(cell.value) || related(cell.column));
  const rowKey = nameKey(unit.sentence);
  const mentionsFocus = reading.aboutFocus || reading.focusKeys.some((key) => rowKey.includes(key));
  const relationCount = unit.cells.filter((cell) => related(cell.value) || related(cell.column)).length;
  const rowWeight = reading.weight * (1 + relationCount) * (mentionsFocus ? 2 : 1) * (1 / (1 + 0.25 * index));
  for (const cell of unit.cells) {
    const value = cell.value.replace(/[.;,]+$/u, '');
    const names = isCellName(value) ? [value] : descriptionNames(cell.value, reading.midSentence);
    for (const name of names) {
      const key = nameKey(name);
      if (/^[\p{N}\s.,:%/-]+$/u.test(name) || excluded(name, key, reading, query)) continue;
      if (NOT_NAMES.has(key)) continue;
      const ownRelation = related(name);
      const nearness = related(cell.column) || ownRelation ? 1 : rowRelated ? 0.5 : 0;
      record(best, key, {
        name,
        score: rowWeight * (0.5 + nearness + (ownRelation ? 1 : 0)),
        url: reading.source.url,
        title: reading.source.title,
        sentence: unit.sentence,
        quote: quoteOf(unit),
        ...(cell.column ? { column: cell.column } : {}),
        related: rowRelated,
      });
    }
  }
}

/**
 * The leads of `sources`, best first: each named thing scored over the sentences it stands in by the
 * document's weight (pages about the focus count {@link ABOUT_FOCUS_WEIGHT} times more), the relation words
 * of the sentence (more, and nearer the name, is better; a name that is itself a relation word, like "the
 * Olympia Brewing Company" for "the company", more still), a name right after "by" or "of", and how early
 * it comes in the document (introductions name the relations of a subject). A table gives its cells'
 * values as leads, each with its column. Only things are leads ({@link isThing}).
 */
export function findLeads(sources: readonly LeadSource[], query: LeadQuery): Lead[] {
  const maxSentences = query.maxSentences ?? LEADS_DEFAULTS.maxSentences;
  const focusKeys = query.focus.map(nameKey).filter(Boolean);
  const best = new Map<string, Scored>();
  for (const source of sources) {
    const titleKey = nameKey(source.title);
    const aboutFocus = focusKeys.some(
      (key) => key === titleKey || (key.length > 3 && titleKey.startsWith(key)),
    );
    const units = leadUnits(source.text, source.markdown, maxSentences);
    // A capital at a sentence's start proves nothing: such a single word counts if the page writes it
    // with a capital elsewhere too.
    const midSentence = new Set(
      units.flatMap((unit) =>
        unit.cells
          ? []
          : mentionsOf(unit.sentence)
              .filter((m) => !m.initial)
              .map((m) => nameKey(m.name)),
      ),
    );
    // A heading written as a name ("## Aftercare") proves its words are one, as a capital mid-sentence does.
    for (const heading of headingNames(source.markdown))
      if (isTitleCase(heading.split(/\s+/u))) midSentence.add(nameKey(heading));
    const reading: DocumentReading = {
      source,
      titleKey,
      focusKeys,
      aboutFocus,
      weight: source.weight * (aboutFocus ? ABOUT_FOCUS_WEIGHT : 1),
      midSentence,
    };
    units.forEach((unit, index) => {
      if (unit.cells) rowLeads({ ...unit, cells: unit.cells }, index, reading, query, best);
      else sentenceLeads(unit, index, reading, query, best);
    });
  }
  return [...foldShortNames(best).values()]
    .map(({ total, ...lead }) => ({ ...lead, score: total }))
    .sort((a, b) => b.score - a.score);
}

/** A name of capitalised words only ("Neil Young"), no "of" or "the" inside ("Head of Aftercare"). */
const isPersonal = (name: string) => name.split(/\s+/u).every((word) => isCapitalised(word));

/**
 * A one-word name that is the last word of a longer name of capitalised words found too ("Young" after "Neil
 * Young") is how the text goes on to call that thing: its sightings count for the longer name (the best scored, when several
 * end with it), and it is no lead of its own.
 */
function foldShortNames(best: Map<string, Scored>): Map<string, Scored> {
  const folded = new Map(best);
  for (const [key, short] of best) {
    if (key.includes(' ')) continue;
    let into: [string, Scored] | undefined;
    for (const [longKey, long] of folded)
      if (longKey.endsWith(` ${key}`) && isPersonal(long.name) && (!into || long.total > into[1].total))
        into = [longKey, long];
    if (!into) continue;
    folded.delete(key);
    folded.set(into[0], { ...into[1], total: into[1].total + short.total });
  }
  return folded;
}
