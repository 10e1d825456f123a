/**
 * The multi-hop benchmark's data: HotpotQA (RPT samples), 2WikiMultiHopQA (MIGRES sample) and MuSiQue
 * (HippoRAG sample) questions with their Wikipedia paragraphs, read in place from `multihop-dev/` of the data
 * folder (see its README for the record formats). Every paragraph becomes part of one page per title (the
 * benchmarks' distractors included, pooled over all questions); each question keeps its supporting facts as
 * the sentences that must reach the answerer for its evidence to be complete.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitSentences } from '../../src/text/sentences.ts';
import type { Article } from './corpus.ts';
import { containsAnswer } from './metrics.ts';

/** The data folder `multihop-dev/` inside the datasets folder. */
export const MULTIHOP_DIR = 'multihop-dev';

/** The benchmarks of the multi-hop set. */
export const MULTIHOP_BENCHMARKS = ['hotpotqa', '2wiki', 'musique'] as const;
export type MultihopBenchmark = (typeof MULTIHOP_BENCHMARKS)[number];

/** One supporting fact: it is in the answerer's prompt when any of `sentences` is. */
export interface SupportingFact {
  readonly title: string;
  /** Alternatives (MuSiQue: every sentence of the hop's paragraph that holds the hop's answer). */
  readonly sentences: readonly string[];
  /** MuSiQue: the hop this fact answers, as "question → answer" (for traces). */
  readonly hop?: string;
}

/** One multi-hop question. */
export interface MultihopQuestion {
  readonly id: string;
  readonly benchmark: MultihopBenchmark;
  /** The benchmark's question type (HotpotQA bridge/comparison, 2Wiki's four, MuSiQue `2hop`…`4hop`). */
  readonly type: string;
  readonly question: string;
  readonly answers: readonly string[];
  readonly facts: readonly SupportingFact[];
}

/** The pooled local web and the questions asked over it. */
export interface MultihopData {
  readonly articles: readonly Article[];
  readonly questions: readonly MultihopQuestion[];
}

/** Collects paragraphs per title, each distinct paragraph once. */
class PagePool {
  readonly #pages = new Map<string, string[]>();
  add(title: string, paragraph: string): void {
    const text = paragraph.trim();
    if (!title.trim() || !text) return;
    const paragraphs = this.#pages.get(title) ?? [];
    if (!paragraphs.includes(text)) paragraphs.push(text);
    this.#pages.set(title, paragraphs);
  }
  articles(): Article[] {
    return [...this.#pages.entries()].map(([title, paragraphs]) => ({ title, paragraphs, split: 'dev' }));
  }
}

interface HotpotRecord {
  id: string;
  question: string;
  answer: string;
  type: string;
  supporting_facts: { title: string[]; sent_id: number[] };
  context: { title: string[]; sentences: string[][] };
}

function loadHotpot(dir: string, pool: PagePool): MultihopQuestion[] {
  const questions: MultihopQuestion[] = [];
  for (const file of ['hotpotqa-rpt-dev.jsonl', 'hotpotqa-rpt-train.jsonl']) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const record = JSON.parse(line) as HotpotRecord;
      const paragraphs = new Map<string, string[]>();
      record.context.title.forEach((title, i) => {
        const sentences = record.context.sentences[i] ?? [];
        paragraphs.set(title, sentences);
        // Sentences keep their leading spaces: joined with ''.
        pool.add(title, sentences.join(''));
      });
      const facts = record.supporting_facts.title.flatMap((title, i) => {
        const sentence = paragraphs.get(title)?.[record.supporting_facts.sent_id[i] ?? -1];
        return sentence?.trim() ? [{ title, sentences: [sentence.trim()] }] : [];
      });
      questions.push({
        id: `hotpotqa:${record.id}`,
        benchmark: 'hotpotqa',
        type: record.type,
        question: record.question,
        answers: [record.answer],
        facts,
      });
    }
  }
  return questions;
}

interface TwoWikiRecord {
  _id: string;
  type: string;
  question: string;
  answer: string;
  context: [string, string[]][];
  supporting_facts: [string, number][];
}

function loadTwoWiki(dir: string, pool: PagePool): MultihopQuestion[] {
  const questions: MultihopQuestion[] = [];
  for (const line of readFileSync(join(dir, '2wiki-migres.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as TwoWikiRecord;
    const paragraphs = new Map(record.context);
    for (const [title, sentences] of record.context) pool.add(title, sentences.join(' '));
    const facts = record.supporting_facts.flatMap(([title, sentId]) => {
      const sentence = paragraphs.get(title)?.[sentId];
      return sentence?.trim() ? [{ title, sentences: [sentence.trim()] }] : [];
    });
    questions.push({
      id: `2wiki:${record._id}`,
      benchmark: '2wiki',
      type: record.type,
      question: record.question,
      answers: [record.answer],
      facts,
    });
  }
  return questions;
}

interface MusiqueRecord {
  id: string;
  question: string;
  answer: string;
  answer_aliases?: string[];
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
  question_decomposition: { question: string; answer: string; paragraph_support_idx: number | null }[];
}

function loadMusique(dir: string, pool: PagePool): MultihopQuestion[] {
  const records = JSON.parse(
    readFileSync(join(dir, 'musique-hipporag-train.json'), 'utf8'),
  ) as MusiqueRecord[];
  return records.map((record) => {
    for (const paragraph of record.paragraphs) pool.add(paragraph.title, paragraph.paragraph_text);
    const facts = record.question_decomposition.flatMap((hop) => {
      const paragraph = record.paragraphs.find((p) => p.idx === hop.paragraph_support_idx);
      if (!paragraph) return [];
      const sentences = splitSentences(paragraph.paragraph_text).map((s) => s.trim());
      // The hop's evidence is a sentence of its paragraph that holds the hop's answer (any sentence when
      // none spells it out, e.g. an answer given in other words).
      const holding = sentences.filter((s) => containsAnswer(s, [hop.answer]));
      return [
        {
          title: paragraph.title,
          sentences: holding.length > 0 ? holding : sentences,
          hop: `${hop.question} → ${hop.answer}`,
        },
      ];
    });
    const hops = record.question_decomposition.length;
    return {
      id: `musique:${record.id}`,
      benchmark: 'musique' as const,
      type: `${hops}hop`,
      question: record.question,
      answers: [record.answer, ...(record.answer_aliases ?? [])],
      facts,
    };
  });
}

/** Loads the three benchmarks and pools their paragraphs into one page per title. */
export function loadMultihop(datasetsDir: string): MultihopData {
  const dir = join(datasetsDir, MULTIHOP_DIR);
  const pool = new PagePool();
  const questions = [...loadHotpot(dir, pool), ...loadTwoWiki(dir, pool), ...loadMusique(dir, pool)];
  // A question asked twice (the two HotpotQA samples overlap) is asked once.
  const seen = new Set<string>();
  const unique = questions.filter((q) => !seen.has(q.question) && seen.add(q.question));
  return { articles: pool.articles(), questions: unique };
}

/**
 * Letters and digits only, lower-cased: how facts are found in a prompt. The answerer's prompt may rewrite
 * punctuation (square brackets that look like citation markers, quotes, spacing), never words.
 */
export function compactText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Which of `facts` stand in `prompt` (given as {@link compactText}). */
export function factsInPrompt(facts: readonly SupportingFact[], compactPrompt: string): boolean[] {
  return facts.map((fact) =>
    fact.sentences.some((sentence) => compactPrompt.includes(compactText(sentence))),
  );
}
