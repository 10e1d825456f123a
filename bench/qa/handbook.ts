/**
 * `npm run bench:qa -- --handbook` — questions over a company handbook of our own writing
 * (test/fixtures/handbook/: tables, code blocks, lists, pronoun sentences, a CSV rota) asked of the real
 * engine with the extractive answerer and the handbook as its corpus, over HTTP (node:http adapter).
 *
 * Prints, overall and per kind of question (table, code, prose, list, two pages): the share answered right
 * (a gold answer in the answer, no value of another row), the answers holding another row's value, and the
 * share of answer sentences off the question (sharing no content word with the question or with the
 * answer's first sentence).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine } from '../../src/engine/index.ts';
import { tokenize } from '../../src/text/index.ts';
import { containsAnswer } from './metrics.ts';

/** The handbook folder of the benchmark. */
export const HANDBOOK_DIR = fileURLToPath(new URL('../../test/fixtures/handbook/', import.meta.url));
/** Its questions with gold answers. */
export const HANDBOOK_QUESTIONS = fileURLToPath(
  new URL('../../test/fixtures/handbook-questions.json', import.meta.url),
);

/** The operator's synonym rules for the handbook (`--synonyms`): its company words. */
export const HANDBOOK_SYNONYMS = fileURLToPath(
  new URL('../../test/fixtures/handbook-synonyms.txt', import.meta.url),
);

/** One question of the handbook set. */
export interface HandbookQuestion {
  readonly question: string;
  readonly answer: readonly string[];
  readonly kind: 'table' | 'code' | 'prose' | 'list';
  readonly pages: readonly string[];
  readonly otherRows?: readonly string[];
  readonly twoPage?: boolean;
}

/** What was observed for one question. */
export interface HandbookResult {
  readonly question: HandbookQuestion;
  readonly answer: string;
  readonly sources: readonly string[];
  readonly right: boolean;
  readonly otherRow: boolean;
  readonly sentences: number;
  readonly offQuestion: number;
}

/** Options of {@link runHandbookBenchmark}. */
export interface HandbookBenchmarkOptions {
  /** @default {@link HANDBOOK_DIR} */
  readonly dir?: string;
  /** @default {@link HANDBOOK_QUESTIONS} */
  readonly questionsFile?: string;
  /** Synonym rules file; `false` asks without. @default {@link HANDBOOK_SYNONYMS} */
  readonly synonymsFile?: string | false;
  /** Progress lines go here. @default none */
  readonly log?: (line: string) => void;
  /** The depth every question is asked at (`research` follows a two-page question's second page). @default 'standard' */
  readonly depth?: 'standard' | 'deep' | 'research';
}

const CITATION = /\s*\[\d+\]/g;

/** The sentences of an extractive answer: each ends with its citation and punctuation. */
export function answerSentences(answer: string): string[] {
  return answer
    .split(/(?<=\[\d+\][.!?…]["'”’)]*)\s+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** Content words: tokens without stop words, stemmed. */
function contentWords(text: string): Set<string> {
  return new Set(tokenize(text.replace(CITATION, '')));
}

/**
 * Answer sentences after the first that share no content word with the question nor with the first
 * sentence (the first is on the question by construction: it is what the answerer chose).
 */
export function offQuestionSentences(question: string, answer: string): { sentences: number; off: number } {
  const sentences = answerSentences(answer);
  if (sentences.length === 0) return { sentences: 0, off: 0 };
  const asked = contentWords(question);
  const first = contentWords(sentences[0]!);
  let off = 0;
  for (const sentence of sentences.slice(1)) {
    const words = contentWords(sentence);
    if (![...words].some((word) => asked.has(word) || first.has(word))) off += 1;
  }
  return { sentences: sentences.length, off };
}

/** Asks every question of the set and scores the answers. */
export async function runHandbookBenchmark(
  options: HandbookBenchmarkOptions = {},
): Promise<HandbookResult[]> {
  const questions = (
    JSON.parse(readFileSync(options.questionsFile ?? HANDBOOK_QUESTIONS, 'utf8')) as {
      questions: HandbookQuestion[];
    }
  ).questions;
  const synonymsFile = options.synonymsFile ?? HANDBOOK_SYNONYMS;
  const engine = createSearchEngine({
    corpus: [options.dir ?? HANDBOOK_DIR],
    ...(synonymsFile === false ? {} : { synonyms: readFileSync(synonymsFile, 'utf8') }),
  });
  const server = createServer(createNodeHandler(engine));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  try {
    const { key } = await engine.createKey({ credits: 10_000 });
    const results: HandbookResult[] = [];
    for (const question of questions) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: question.question, depth: options.depth ?? 'standard' }),
      });
      const body = (await response.json()) as { answer?: string; sources?: string[] };
      const answer = body.answer ?? '';
      const otherRow = containsAnswer(answer, question.otherRows ?? []);
      const right = containsAnswer(answer, question.answer) && !otherRow;
      const { sentences, off } = offQuestionSentences(question.question, answer);
      results.push({
        question,
        answer,
        sources: body.sources ?? [],
        right,
        otherRow,
        sentences,
        offQuestion: off,
      });
      options.log?.(`${right ? 'ok  ' : 'MISS'} ${question.question}\n     ${answer.replace(/\n/g, ' ⏎ ')}`);
    }
    return results;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await engine.close();
  }
}

/** The benchmark's Markdown table: overall and per kind. */
export function formatHandbookReport(
  results: readonly HandbookResult[],
  depth: HandbookBenchmarkOptions['depth'] = 'standard',
): string {
  const groups: [string, readonly HandbookResult[]][] = [
    ['all', results],
    ...(['table', 'code', 'prose', 'list'] as const).map(
      (kind) => [kind, results.filter((r) => r.question.kind === kind)] as [string, HandbookResult[]],
    ),
    ['two pages', results.filter((r) => r.question.twoPage === true)],
  ];
  const share = (n: number, d: number) => (d === 0 ? '–' : (n / d).toFixed(3));
  const lines = [
    `### Handbook questions (extractive answerer, handbook as corpus, depth ${depth})`,
    '',
    '| questions | n | answered right | answers with another row’s value | answer sentences | off the question |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, group] of groups) {
    if (group.length === 0) continue;
    const sentences = group.reduce((sum, r) => sum + r.sentences, 0);
    const off = group.reduce((sum, r) => sum + r.offQuestion, 0);
    lines.push(
      `| ${name} | ${group.length} | ${share(group.filter((r) => r.right).length, group.length)} | ` +
        `${group.filter((r) => r.otherRow).length} | ${sentences} | ${share(off, sentences)} |`,
    );
  }
  return lines.join('\n');
}
