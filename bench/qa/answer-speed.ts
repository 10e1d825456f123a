/**
 * `node bench/qa/answer-speed.ts --inputs FILE` — the answer stage alone: the extractive answerer timed on
 * recorded inputs (`node bench/qa/replay.ts --answer-inputs FILE` writes them: the passages of each question
 * as the pipeline handed them over). Measures CPU time (user + system), which other processes on a shared
 * machine disturb less than wall time: the first answer of each input in order (as a service meets them:
 * WordNet reads the synonyms of words it has not seen), then the best of `--repeat` more answers of each.
 * Prints p50 / p95 / mean ms and a digest of the answers, so that two versions of the code can be compared
 * answer for answer.
 *
 *   node bench/qa/answer-speed.ts --inputs FILE [--repeat 5]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import type { AnswerInput } from '../../src/pipeline/types.ts';
import { mean, percentile } from './metrics.ts';

const { values } = parseArgs({
  options: { inputs: { type: 'string' }, repeat: { type: 'string', default: '5' } },
});
if (values.inputs === undefined) throw new Error('--inputs FILE is required (see the header of this file)');
const repeat = Number(values.repeat);
const inputs = readFileSync(values.inputs, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as AnswerInput);
const answerer = createExtractiveAnswerer();
const call = { signal: new AbortController().signal, requestId: 'answer-speed' };
/** CPU time of one answer in ms (user + system): less disturbed by other processes than wall time. */
async function cpuMs(input: AnswerInput): Promise<{ ms: number; answer: string }> {
  const start = process.cpuUsage();
  const { answer } = await answerer.answer(input, call);
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, answer };
}
const digest = createHash('sha256');
// The first answer of each input, in order, as a service meets them (WordNet's lookups of new words included).
const first: number[] = [];
for (const input of inputs) {
  const { ms, answer } = await cpuMs(input);
  first.push(ms);
  digest.update(answer);
}
const best = inputs.map(() => Number.POSITIVE_INFINITY);
for (let r = 0; r < repeat; r++) {
  for (const [i, input] of inputs.entries()) best[i] = Math.min(best[i]!, (await cpuMs(input)).ms);
}
const ms = (value: number) => value.toFixed(2);
const figures = (values: number[]) =>
  `p50 ${ms(percentile(values, 50))} ms, p95 ${ms(percentile(values, 95))} ms, mean ${ms(mean(values))} ms`;
process.stdout.write(
  `answer stage CPU time on ${inputs.length} recorded inputs: first answer ${figures(first)}; ` +
    `best of ${repeat} more ${figures(best)}; answers digest ${digest.digest('hex').slice(0, 12)}\n`,
);
