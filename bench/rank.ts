/**
 * Benchmark of the embedded default pipeline's text stages on SQuAD v1.1 (dev articles, plus train articles as
 * distractors). Prints three tables:
 *
 *   1. Tokenizer variants (stop words, stemming) for paragraph retrieval with plain BM25 over the dev paragraphs.
 *   2. Article retrieval with the local index (dev + train articles, 490 in all): gold article in top 1 / 5.
 *   3. The pipeline without a model: local index top 5 → BM25 passage ranker (token budget) → extractive answerer:
 *      gold answer in the selected passages, gold answer in the extractive answer, "no answer" rate, tokens.
 *   4. The extractive answerer's `minCoverage` trade-off on the same passages.
 *
 *   node bench/rank.ts [--data DIR] [--questions N] [--budget TOKENS]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { createExtractiveAnswerer } from '../src/pipeline/answer/index.ts';
import { Bm25Index, createBm25Ranker, passageTokens } from '../src/pipeline/rank/index.ts';
import { LocalIndex } from '../src/pipeline/search/local-index.ts';
import { tokenize, tokenizeQuery, type TokenizeOptions } from '../src/text/index.ts';
import { DATA_OPTION, resolveDatasetsDir } from './lib/datasets.ts';

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    questions: { type: 'string', default: '1000' },
    budget: { type: 'string', default: '2000' },
  },
});

const squadDir = path.join(resolveDatasetsDir(values.data, ['squad']), 'squad');

interface SquadArticle {
  title: string;
  paragraphs: { context: string; qas: { question: string; answers: { text: string }[] }[] }[];
}
const dev = (
  JSON.parse(readFileSync(path.join(squadDir, 'dev-v1.1.json'), 'utf8')) as { data: SquadArticle[] }
).data;
const train = (
  JSON.parse(gunzipSync(readFileSync(path.join(squadDir, 'train-v1.1.json.gz'))).toString('utf8')) as {
    data: SquadArticle[];
  }
).data;

interface Question {
  question: string;
  answers: string[];
  article: string;
  paragraph: number;
}
const allQuestions: Question[] = dev.flatMap((article) =>
  article.paragraphs.flatMap((p, paragraph) =>
    p.qas.map((qa) => ({
      question: qa.question,
      answers: qa.answers.map((a) => a.text),
      article: article.title,
      paragraph,
    })),
  ),
);
// A fixed, evenly spread sample so that every run measures the same questions.
const sampleSize = Math.min(Number(values.questions), allQuestions.length);
const stride = allQuestions.length / sampleSize;
const sample = Array.from({ length: sampleSize }, (_, i) => allQuestions[Math.floor(i * stride)]!);

const pct = (n: number, d: number) => (d === 0 ? '-' : (n / d).toFixed(3));
function table(header: string[], rows: (string | number)[][]): void {
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log();
}

// 1. Tokenizer variants, paragraph retrieval over all dev paragraphs, all dev questions.
const paragraphs = dev.flatMap((article) =>
  article.paragraphs.map((p, i) => ({ id: `${article.title}#${i}`, text: p.context })),
);
const variants: [string, TokenizeOptions][] = [
  ['no stop words, no stemming', { removeStopWords: false, stem: false }],
  ['stop words only', { removeStopWords: true, stem: false }],
  ['stemming only', { removeStopWords: false, stem: true }],
  ['stop words + stemming (default)', { removeStopWords: true, stem: true }],
];
console.log(
  `## 1. Paragraph retrieval, BM25 over ${paragraphs.length} SQuAD dev paragraphs, ${allQuestions.length} questions\n`,
);
const rows1: (string | number)[][] = [];
for (const [label, options] of variants) {
  const index = new Bm25Index();
  for (const p of paragraphs) index.add(p.id, tokenize(p.text, options));
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const started = performance.now();
  for (const q of allQuestions) {
    const ranked = index.search(tokenizeQuery(q.question, options), 10).map((m) => m.id);
    const rank = ranked.indexOf(`${q.article}#${q.paragraph}`);
    if (rank === 0) at1++;
    if (rank >= 0 && rank < 5) at5++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  }
  const ms = (performance.now() - started) / allQuestions.length;
  rows1.push([
    label,
    pct(at1, allQuestions.length),
    pct(at5, allQuestions.length),
    (reciprocal / allQuestions.length).toFixed(3),
    ms.toFixed(2),
  ]);
}
table(['tokenizer', 'recall@1', 'recall@5', 'MRR@10', 'ms/query'], rows1);

// 2. Article retrieval with the local index over dev + train articles.
const local = new LocalIndex();
const articleUrl = (title: string) => `https://squad.local/wiki/${encodeURIComponent(title)}`;
for (const article of [...dev, ...train]) {
  const markdown = `# ${article.title.replace(/_/g, ' ')}\n\n${article.paragraphs.map((p) => p.context).join('\n\n')}`;
  local.addDocument({ url: articleUrl(article.title), content: markdown });
}
console.log(
  `## 2. Article retrieval, local index over ${local.size} articles, ${allQuestions.length} dev questions\n`,
);
{
  let at1 = 0;
  let at5 = 0;
  const started = performance.now();
  for (const q of allQuestions) {
    const urls = local.search(q.question, 5).map((h) => h.url);
    const rank = urls.indexOf(articleUrl(q.article));
    if (rank === 0) at1++;
    if (rank >= 0) at5++;
  }
  const ms = (performance.now() - started) / allQuestions.length;
  table(
    ['index', 'gold article @1', 'gold article @5', 'ms/query'],
    [
      [
        'LocalIndex (best section = whole article)',
        pct(at1, allQuestions.length),
        pct(at5, allQuestions.length),
        ms.toFixed(2),
      ],
    ],
  );
}

// 3. Pipeline without a model.
const budget = Number(values.budget);
console.log(
  `## 3. Local index top 5 → BM25 ranker (${budget} tokens) → extractive answerer, ${sample.length} dev questions\n`,
);
{
  const ranker = createBm25Ranker();
  const answerer = createExtractiveAnswerer();
  const call = { signal: new AbortController().signal, requestId: 'bench' };
  let inPassages = 0;
  let inAnswer = 0;
  let noAnswer = 0;
  let goldCited = 0;
  let passageTokenSum = 0;
  let pageTokenSum = 0;
  let rankMs = 0;
  let answerMs = 0;
  const prepared: { q: Question; passages: Awaited<ReturnType<typeof ranker.rank>> }[] = [];
  for (const q of sample) {
    const hits = local.search(q.question, 5);
    const docs = hits.map((h) => ({ url: h.url, title: h.title, text: h.content, markdown: h.content }));
    let t = performance.now();
    const passages = await ranker.rank(q.question, docs, { maxTokens: budget });
    rankMs += performance.now() - t;
    prepared.push({ q, passages });
    t = performance.now();
    const output = await answerer.answer(
      { prompt: q.question, context: [], query: q.question, responseType: 'text', passages },
      call,
    );
    answerMs += performance.now() - t;
    const context = passages.map((p) => p.text).join('\n');
    if (q.answers.some((a) => context.includes(a))) inPassages++;
    if (q.answers.some((a) => output.answer.includes(a))) inAnswer++;
    if (output.sources.length === 0) noAnswer++;
    if (output.sources.includes(articleUrl(q.article))) goldCited++;
    passageTokenSum += passages.reduce((sum, p) => sum + passageTokens(p), 0);
    pageTokenSum += docs.reduce((sum, d) => sum + Math.ceil(d.markdown.length / 4), 0);
  }
  const n = sample.length;
  table(
    ['metric', 'value'],
    [
      ['gold answer in selected passages', pct(inPassages, n)],
      ['gold answer in extractive answer', pct(inAnswer, n)],
      ['gold article cited', pct(goldCited, n)],
      ['"no answer" rate', pct(noAnswer, n)],
      ['passage tokens / query (mean)', Math.round(passageTokenSum / n)],
      ['whole-page tokens of the 5 hits / query (mean)', Math.round(pageTokenSum / n)],
      ['rank ms / query (mean)', (rankMs / n).toFixed(2)],
      ['answer ms / query (mean)', (answerMs / n).toFixed(2)],
    ],
  );

  console.log(
    `## 4. Extractive answerer: minCoverage trade-off on the same ${n} questions (all answerable)\n`,
  );
  const sweep: (string | number)[][] = [];
  for (const minCoverage of [0.2, 0.3, 0.4, 0.5, 0.6]) {
    const variant = createExtractiveAnswerer({ minCoverage });
    let contains = 0;
    let none = 0;
    for (const { q, passages } of prepared) {
      const output = await variant.answer(
        { prompt: q.question, context: [], query: q.question, responseType: 'text', passages },
        call,
      );
      if (q.answers.some((a) => output.answer.includes(a))) contains++;
      if (output.sources.length === 0) none++;
    }
    sweep.push([minCoverage === 0.4 ? '0.4 (default)' : minCoverage, pct(contains, n), pct(none, n)]);
  }
  table(['minCoverage', 'gold answer in answer', '"no answer" rate'], sweep);
}
