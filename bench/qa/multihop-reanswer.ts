/**
 * `node bench/qa/multihop-reanswer.ts --inputs FILE [--data DIR] [--dump FILE]` — answers again, with the
 * extractive answerer of the code checked out, the inputs a multi-hop run gave its answerer
 * (`npm run bench:qa -- --multihop --extractive --answer-inputs FILE`), and prints how many answers hold a
 * gold answer, overall and per benchmark. Research is not run again: two versions of the answering code are
 * compared on the very same evidence, in a second, where a full run takes a minute and, on a loaded machine,
 * may read other pages under its deadlines. `--dump FILE` writes each question's id, benchmark, type,
 * question, answer and whether it holds a gold answer (JSON), to compare two versions answer by answer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { containsAnswer } from './metrics.ts';
import { loadMultihop, MULTIHOP_DIR } from './multihop-data.ts';

const { values } = parseArgs({
  options: { inputs: { type: 'string' }, dump: { type: 'string' }, ...DATA_OPTION },
});
if (values.inputs === undefined) throw new Error('--inputs FILE is required (written by --answer-inputs)');
const data = loadMultihop(resolveDatasetsDir(values.data, [MULTIHOP_DIR]));
const byQuestion = new Map(data.questions.map((q) => [q.question, q]));
const inputs = readFileSync(values.inputs, 'utf8')
  .split('\n')
  .filter((line) => line.trim().length > 0)
  .map((line) => JSON.parse(line) as AnswerInput);
const answerer = createExtractiveAnswerer();
interface Reanswered {
  readonly id: string;
  readonly benchmark: string;
  readonly type: string;
  readonly question: string;
  readonly answer: string;
  readonly answerInAnswer: boolean;
}
const results: Reanswered[] = [];
for (const input of inputs) {
  const question = byQuestion.get(input.prompt);
  if (question === undefined) throw new Error(`not a multi-hop question: ${input.prompt}`);
  const output = await answerer.answer(input, {
    signal: new AbortController().signal,
    requestId: question.id,
  });
  results.push({
    id: question.id,
    benchmark: question.benchmark,
    type: question.type,
    question: question.question,
    answer: output.answer,
    answerInAnswer: containsAnswer(output.answer, question.answers),
  });
}
const held = (rows: readonly Reanswered[]) => rows.filter((r) => r.answerInAnswer).length;
const lines = ['| questions | n | answer holds the gold |', '|---|---|---|'];
lines.push(`| all | ${results.length} | ${held(results)} |`);
for (const benchmark of new Set(results.map((r) => r.benchmark))) {
  const rows = results.filter((r) => r.benchmark === benchmark);
  lines.push(`| ${benchmark} | ${rows.length} | ${held(rows)} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
if (values.dump) writeFileSync(values.dump, JSON.stringify(results, null, 2));
