/**
 * A grounded verdict for a yes/no or "which of the two" question, read from each side's end sentence (see
 * comparison.ts): "Are X and Y from the same country?" → "No: United States for Jerome Storm, Chile for
 * Andrés Wood"; "Are X and Y both tennis players?" → "Yes: the sources say it of both"; "Which film came out
 * first, X or Y?" → "X — 1935, earlier than 1940 for Y". Only what the cited sentences say decides: when a side's
 * sentence does not hold what is asked, the verdict says it is not decided.
 */
import type { AnswerVerdict, ChainSentence } from '../types.ts';
import { stemsHeld } from './coverage.ts';
import { countriesIn } from './countries.ts';
import { nameKey } from './leads.ts';
import { meaningStems } from './question.ts';

/** One side of a comparison and the sentence that resolves it (with its page). */
export interface SideEnd {
  /** The side as the question names it. */
  readonly side: string;
  readonly end: ChainSentence;
  /** The end names the chain's subject (the side, or the lead a bridge led to) in every word. */
  readonly anchored: boolean;
  /** The end was reached through a bridge (the film's director's page). */
  readonly bridged: boolean;
  /** The bridge (its page title or its sentence) names the side: the chain starts at the side. */
  readonly bridgeNamesSide: boolean;
}

type Verdict = AnswerVerdict;

/** Every word of `name` stands in `text` ("Ulrich Walter" in "Prof. Dr. Ulrich Hans Walter (born…)"). */
export function namesEveryWord(text: string, name: string): boolean {
  const words = new Set(nameKey(text).split(' '));
  const own = nameKey(name).split(' ').filter(Boolean);
  return own.length > 0 && own.every((word) => words.has(word));
}

/** A question answered by yes or no ("Are…", "Is…", "Do both…", "Were…"). */
const YES_NO = /^(?:are|is|was|were|do|does|did|has|have|had|can|could)\b/iu;
/** "from the same country", "of the same nationality", "share the same nationality", "located in the same country". */
const SAME_COUNTRY = /\bsame\s+(?:country|nationality|citizenship)\b/iu;
/** Which of two came earlier ("first", "older", "earlier") or later ("younger", "more recently"). */
const EARLIER = /\b(?:first|earlier|earliest|older|oldest|before|sooner)\b/iu;
const LATER = /\b(?:later|latest|last|younger|youngest|recently|newer|newest|after)\b/iu;
/** The question compares people's lives ("born first", "died later", "lived longer"). */
const LIFE_WORD = /\b(?:born|died|die|death|lived)\b/iu;
/** Age words, of people when the question asks "who" or about a related person ("the director who is older"). */
const AGE_WORD = /\b(?:older|oldest|younger|youngest)\b/iu;
/** A sentence about a life: a birth, a death, or a span of years ("(3 March 1902 – 9 May 1961)"). */
const LIFE = /\b(?:born|died)\b|\d{3,4}\s*[–—-]\s*(?:\d|\p{L}+\s+\d)/u;
/** The question asks about deaths ("died first", "the director who died later"). */
const DEATH = /\b(?:died|die|dies|death|dead)\b/iu;
/**
 * A question about a thing related to each side ("the directors of films X and Y", "the film whose director
 * was born first"): each side's end must be that thing's sentence, reached through a bridge, not the side's
 * own (the film's country is not its director's).
 */
export const RELATED_THING =
  /\b(?:director|producer|composer|author|writer|performer|singer|founder|creator|father|mother|spouse|husband|wife|son|daughter|child)s?\b/iu;
/** Words of a yes/no question that say how, not what ("both", "also", "same", "described as a genus"). */
const NOT_A_CLASS = new Set(
  ['same', 'also', 'too', 'each', 'described', 'considered', 'regarded', 'classified', 'known'].flatMap((w) =>
    meaningStems(w),
  ),
);

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(${MONTHS.join('|')})`;
/** "17 May 1952", "May 17, 1952", "May 1952" or a year alone, each as a comparable day number. */
const DATE = new RegExp(
  `(?:(\\d{1,2})\\s+${MONTH}\\s+(\\d{3,4}))|(?:${MONTH}\\s+(?:(\\d{1,2}),?\\s+)?(\\d{3,4}))|(?<![\\p{L}\\p{N}])(1\\d{3}|20\\d{2})(?![\\p{L}\\p{N}])`,
  'giu',
);

/** A sentence's end: a period after a lower-case word, a number or a bracket ("Prof. Dr." go on). */
const SENTENCE_END = /(?<=(?:\b\p{Ll}{2,}|\d|\)|")[.!?])\s+(?=\p{Lu})/u;

interface Dated {
  /** As written. */
  readonly text: string;
  /** Comparable: years, months and days; `exact` is false for a year or month alone. */
  readonly value: number;
  readonly exact: boolean;
}

/** The dates of `text`, in order. */
function datesIn(text: string): Dated[] {
  const dates: Dated[] = [];
  for (const m of text.matchAll(DATE)) {
    const monthOf = (name: string | undefined) => (name ? MONTHS.indexOf(name.toLowerCase()) + 1 : 0);
    if (m[1] !== undefined)
      dates.push({ text: m[0], value: date(Number(m[3]), monthOf(m[2]), Number(m[1])), exact: true });
    else if (m[4] !== undefined)
      dates.push({
        text: m[0].replace(/,\s*$/u, ''),
        value: date(Number(m[6]), monthOf(m[4]), Number(m[5] ?? 0)),
        exact: m[5] !== undefined,
      });
    else dates.push({ text: m[0], value: date(Number(m[7]), 0, 0), exact: false });
  }
  return dates;
}

function date(year: number, month: number, day: number): number {
  return year * 10_000 + month * 100 + day;
}

/**
 * The date a side's sentence gives for what is compared: the second date of a life's span ("(3 March
 * 1902 – 9 May 1961)") or the date after "died" when the question is about deaths, else its first date
 * (a birth, a release, a founding).
 */
function comparedDate(end: string, death: boolean, life: boolean): Dated | undefined {
  // The sentence that names the subject: what a sentence after it dates is another thing ("Its star was
  // born in 1901").
  const text = end.split(SENTENCE_END)[0] ?? end;
  if (life && !LIFE.test(text)) return undefined;
  const dates = datesIn(text);
  if (!death) return dates[0];
  const died = /\b(?:died|death)\b/iu.exec(text);
  if (died) {
    const after = datesIn(text.slice(died.index));
    if (after[0]) return after[0];
  }
  const span = /[–—-]\s*$/u;
  return dates.find((d, i) => i > 0 && span.test(text.slice(0, text.indexOf(d.text)).trimEnd()));
}

/** Same day, or the same year when either is a year alone: too close to say which came first. */
function tooClose(a: Dated, b: Dated): boolean {
  if (a.exact && b.exact) return a.value === b.value;
  return Math.floor(a.value / 10_000) === Math.floor(b.value / 10_000);
}

/** "Which film came out first, X or Y?": the side whose date is earlier (or later), with both dates. */
function timeVerdict(question: string, ends: readonly SideEnd[], yesNo: boolean): Verdict | undefined {
  const earlier = EARLIER.test(question);
  if (earlier === LATER.test(question) || ends.length !== 2) return undefined;
  const death = DEATH.test(question);
  // A person's age or death is read from a sentence about a life, not from a film's year.
  const life =
    LIFE_WORD.test(question) ||
    (AGE_WORD.test(question) && (/^\s*who\b/iu.test(question) || RELATED_THING.test(question)));
  const [a, b] = ends as [SideEnd, SideEnd];
  const da = comparedDate(a.end.text, death, life);
  const db = comparedDate(b.end.text, death, life);
  const urls = [a.end.url, b.end.url];
  if (!da || !db || tooClose(da, db)) return yesNo ? undecided(urls) : undefined;
  const aFirst = da.value < db.value;
  const [win, lose, wd, ld] = aFirst === earlier ? [a, b, da, db] : [b, a, db, da];
  if (!yesNo)
    return {
      text: `${win.side} — ${wd.text}, ${earlier ? 'earlier' : 'later'} than ${ld.text} for ${lose.side}`,
      urls,
    };
  // "Is X older than Y?": yes when the question's first side is the one that came first (or later).
  return {
    text: `${win === a ? 'Yes' : 'No'}: ${a.side} ${da.text}, ${b.side} ${db.text}`,
    urls,
  };
}

/** "Are X and Y from the same country?": the country each side's sentence names first. */
function countryVerdict(ends: readonly SideEnd[]): Verdict {
  const urls = ends.map((e) => e.end.url);
  const found = ends.map((e) => countriesIn(e.end.text));
  if (found.some((countries) => countries.length === 0)) return undecided(urls);
  const firsts = found.map((countries) => countries[0]!);
  if (firsts.every((country) => country === firsts[0])) return { text: `Yes: ${firsts[0]} for both`, urls };
  // Different first countries, and no country shared at all: the sentences say they differ.
  if (
    found.every((countries, i) =>
      found.every((other, j) => i === j || !countries.some((c) => other.includes(c))),
    )
  )
    return {
      text: `No: ${ends.map((e, i) => `${firsts[i]} for ${e.side}`).join(', ')}`,
      urls,
    };
  return undecided(urls);
}

/** "Are X and Y both tennis players?": yes when each side's sentence holds what both are said to be. */
function classVerdict(question: string, ends: readonly SideEnd[]): Verdict | undefined {
  const sideStems = new Set(ends.flatMap((e) => meaningStems(e.side)));
  const wanted = meaningStems(question).filter((s) => !sideStems.has(s) && !NOT_A_CLASS.has(s));
  if (wanted.length === 0) return undefined;
  const urls = ends.map((e) => e.end.url);
  const holds = ends.every((e) => stemsHeld(wanted, e.end.text).length === wanted.length);
  return holds ? { text: 'Yes: the sources say it of both', urls } : undecided(urls);
}

function undecided(urls: readonly string[]): Verdict {
  return { text: 'Not decided: the sentences below do not settle it', urls };
}

/**
 * The verdict of a yes/no question about two or more sides, or of "which of X or Y" comparing when things
 * happened; undefined for other questions (the answer is then the sides' sentences alone).
 */
export function verdictOf(question: string, ends: readonly SideEnd[]): Verdict | undefined {
  if (ends.length < 2) return undefined;
  // "Was X or Y born first?" asks which, not whether.
  const yesNo = YES_NO.test(question.trim()) && !/\s(?:or|vs\.?|versus)\s/iu.test(question);
  // Only sentences about what is compared decide: each names its subject, and is the related thing's
  // sentence (reached through a bridge) when the question is about one, and names the side when not. Otherwise a yes/no question is not decided, and a "which"
  // question gets no verdict.
  const related = RELATED_THING.test(question);
  const about = (e: SideEnd) =>
    related ? e.anchored && e.bridged && e.bridgeNamesSide : namesEveryWord(e.end.text, e.side);
  if (!ends.every(about)) return yesNo ? undecided(ends.map((e) => e.end.url)) : undefined;
  if (yesNo && SAME_COUNTRY.test(question)) return countryVerdict(ends);
  // A yes/no question compares times only against another side ("Is X older than Y?").
  const time = !yesNo || /\bthan\b/iu.test(question) ? timeVerdict(question, ends, yesNo) : undefined;
  if (time || !yesNo) return time;
  return classVerdict(question, ends);
}
