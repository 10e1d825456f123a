/**
 * The QA benchmark's data: SQuAD v1.1 articles (dev + train, 490) and dev questions, optionally the HotpotQA
 * sample's intro paragraphs, read in place from a data folder (the benchmarks resolve it with
 * `bench/lib/datasets.ts`; tests pass `test/fixtures/datasets`). Also the seeded random generator every
 * deterministic choice of the harness uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The data folders the loaders read: `squad/` always, `hotpotqa-sample/` with `hotpot`. */
export const SQUAD_DIR = 'squad';
export const HOTPOT_DIR = 'hotpotqa-sample';

/** One page of the local web. */
export interface Article {
  /** Wikipedia title with underscores, e.g. `Sky_(United_Kingdom)`. */
  readonly title: string;
  /** Verbatim paragraphs. */
  readonly paragraphs: readonly string[];
  readonly split: 'dev' | 'train' | 'hotpot';
}

/** One dev v1.1 question. */
export interface Question {
  readonly id: string;
  readonly question: string;
  /** Annotators' answers (duplicates kept). */
  readonly answers: readonly string[];
  readonly title: string;
  readonly paragraphIndex: number;
  /** `/wiki/` + encodeURIComponent(title). */
  readonly goldPath: string;
}

interface SquadFile {
  readonly data: readonly { title: string; paragraphs: readonly { context: string }[] }[];
}

/** Options of {@link loadArticles}. */
export interface LoadArticlesOptions {
  /** The data folder holding `squad/` (and `hotpotqa-sample/`); no default, so a test never reads outside the repository. */
  readonly datasetsDir: string;
  /** Include the 442 train articles (distractors). @default true */
  readonly train?: boolean;
  /** Include the HotpotQA sample's pages (one per unique title). @default false */
  readonly hotpot?: boolean;
  /** Keep only these titles (tests load a few articles). @default all */
  readonly titles?: readonly string[];
}

/** The articles of the local web: dev first (official order), then train, then HotpotQA pages. */
export function loadArticles(options: LoadArticlesOptions): Article[] {
  const dir = options.datasetsDir;
  const wanted = options.titles ? new Set(options.titles) : null;
  const keep = (title: string) => wanted === null || wanted.has(title);
  const articles: Article[] = [];
  const seen = new Set<string>();
  const add = (article: Article) => {
    if (seen.has(article.title) || !keep(article.title)) return;
    seen.add(article.title);
    articles.push(article);
  };
  const dev = JSON.parse(readFileSync(join(dir, SQUAD_DIR, 'dev-v1.1.json'), 'utf8')) as SquadFile;
  for (const entry of dev.data) {
    add({ title: entry.title, paragraphs: entry.paragraphs.map((p) => p.context), split: 'dev' });
  }
  if (options.train ?? true) {
    const train = JSON.parse(
      gunzipSync(readFileSync(join(dir, SQUAD_DIR, 'train-v1.1.json.gz'))).toString('utf8'),
    ) as SquadFile;
    for (const entry of train.data) {
      add({ title: entry.title, paragraphs: entry.paragraphs.map((p) => p.context), split: 'train' });
    }
  }
  if (options.hotpot) for (const article of loadHotpotPages(dir)) add(article);
  return articles;
}

type HotpotContext = readonly (readonly [string, readonly string[]])[];

/** One page per unique HotpotQA paragraph title (sentences joined; later ones carry their leading space). */
function loadHotpotPages(dir: string): Article[] {
  const base = join(dir, HOTPOT_DIR);
  const records: { context: HotpotContext }[] = [
    ...(JSON.parse(readFileSync(join(base, 'hotpot_dev_distractor_v1.first53.json'), 'utf8')) as {
      context: HotpotContext;
    }[]),
    ...readFileSync(join(base, 'amor-hotpotqa-distractor-100.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { context: HotpotContext }),
  ];
  const pages = new Map<string, Article>();
  for (const record of records) {
    for (const [title, sentences] of record.context) {
      const key = title.replaceAll(' ', '_');
      if (!pages.has(key)) pages.set(key, { title: key, paragraphs: [sentences.join('')], split: 'hotpot' });
    }
  }
  return [...pages.values()];
}

/** Every dev v1.1 question, in file order. */
export function loadDevQuestions(datasetsDir: string): Question[] {
  return readFileSync(join(datasetsDir, SQUAD_DIR, 'questions-dev-v1.1.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const raw = JSON.parse(line) as {
        id: string;
        question: string;
        answers: string[];
        title: string;
        paragraph_index: number;
        gold_path: string;
      };
      return {
        id: raw.id,
        question: raw.question,
        answers: raw.answers,
        title: raw.title,
        paragraphIndex: raw.paragraph_index,
        goldPath: raw.gold_path,
      };
    });
}

/** Path of an article's page: `/wiki/` + encodeURIComponent(title). */
export function articlePath(title: string): string {
  return `/wiki/${encodeURIComponent(title)}`;
}

/** A seeded pseudo-random generator (mulberry32): same seed, same sequence. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

/** Creates a {@link Random} from a numeric or string seed. */
export function createRandom(seed: number | string): Random {
  let state = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}

/** FNV-1a 32-bit hash of a string (seeds per-page choices). */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A fixed sample of `size` questions stratified over the articles: each article gets a share proportional
 * to its number of questions (largest remainder, at least one), so the sample mirrors the full dev set;
 * within an article the questions are a seeded shuffle. Duplicate question texts are skipped so that each
 * query identifies one question. Returned in a seeded interleaved order.
 */
export function sampleQuestions(questions: readonly Question[], size: number, seed: number): Question[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a positive integer');
  const seenText = new Set<string>();
  const byTitle = new Map<string, Question[]>();
  for (const question of questions) {
    const text = question.question.trim();
    if (seenText.has(text)) continue;
    seenText.add(text);
    const list = byTitle.get(question.title) ?? [];
    list.push(question);
    byTitle.set(question.title, list);
  }
  const total = [...byTitle.values()].reduce((sum, list) => sum + list.length, 0);
  const target = Math.min(size, total);
  const strata = [...byTitle.entries()].map(([title, list]) => {
    const exact = (list.length / total) * target;
    return { title, list, take: Math.max(1, Math.floor(exact)), remainder: exact - Math.floor(exact) };
  });
  let allocated = strata.reduce((sum, s) => sum + s.take, 0);
  for (const stratum of [...strata].sort(
    (a, b) => b.remainder - a.remainder || (a.title < b.title ? -1 : 1),
  )) {
    if (allocated >= target) break;
    if (stratum.take < stratum.list.length) {
      stratum.take++;
      allocated++;
    }
  }
  const random = createRandom(seed);
  const chosen = strata.flatMap((s) => random.shuffle(s.list).slice(0, s.take));
  return random.shuffle(chosen);
}
