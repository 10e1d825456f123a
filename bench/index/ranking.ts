/**
 * `npm run bench:index:ranking`: does a document index backend rank like today's in-memory BM25?
 *
 * Indexes the QA benchmark's 490 SQuAD articles (dev + train, `# Title` + paragraphs, one document each)
 * into the in-memory `LocalIndex` (the `local` provider's ranking before the document index), the SQLite
 * FTS5 index and, when `DATABASE_URL` is set, the PostgreSQL index, asks each the same stratified sample of
 * dev questions (`bench:qa`'s, seed 1) and prints the gold article's R@1 / R@5 / R@10 and MRR@10 per backend,
 * with the search time per question.
 *
 *   node bench/index/ranking.ts [--data DIR] [--sample 500] [--seed 1] [--postgres URL]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPostgresDocumentIndex } from '../../src/documents/postgres.ts';
import { createSqliteDocumentIndex } from '../../src/documents/sqlite.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { LocalIndex } from '../../src/pipeline/search/local-index.ts';
import { DATA_OPTION, resolveDatasetsDir } from '../lib/datasets.ts';
import { articlePath, loadArticles, loadDevQuestions, sampleQuestions, SQUAD_DIR } from '../qa/corpus.ts';

const { values } = parseArgs({
  options: {
    ...DATA_OPTION,
    sample: { type: 'string', default: '500' },
    seed: { type: 'string', default: '1' },
    postgres: { type: 'string' },
    ranking: { type: 'boolean' },
  },
});
const datasetsDir = resolveDatasetsDir(values.data, [SQUAD_DIR]);
const articles = loadArticles({ datasetsDir });
const questions = sampleQuestions(loadDevQuestions(datasetsDir), Number(values.sample), Number(values.seed));
const urlOf = (title: string) => `https://wiki.test${articlePath(title)}`;
const documents = articles.map((article) => ({
  url: urlOf(article.title),
  content: `# ${article.title.replace(/_/g, ' ')}\n\n${article.paragraphs.join('\n\n')}\n`,
}));

interface Backend {
  readonly name: string;
  search(query: string): Promise<string[]>;
  close(): Promise<void>;
}

async function documentIndexBackend(name: string, index: DocumentIndex): Promise<Backend> {
  for (const document of documents) await index.put(document);
  await index.flush();
  return {
    name,
    search: async (query) => (await index.search(query, { limit: 10 })).map((hit) => hit.url),
    close: () => index.close(),
  };
}

const backends: Backend[] = [];
const memory = new LocalIndex();
for (const document of documents) memory.addDocument(document);
backends.push({
  name: 'in-memory BM25 (LocalIndex, before)',
  search: async (query) => memory.search(query, 10).map((hit) => hit.url),
  close: async () => {},
});
const dir = mkdtempSync(join(tmpdir(), 'citewise-ranking-'));
backends.push(
  await documentIndexBackend(
    'SQLite FTS5 + BM25 (postings)',
    createSqliteDocumentIndex({ path: join(dir, 'index.sqlite') }),
  ),
);
const postgres = values.postgres ?? process.env.DATABASE_URL;
const schema = `bench_ranking_${process.pid}`;
if (postgres) {
  backends.push(
    await documentIndexBackend(
      'PostgreSQL tsvector + BM25',
      createPostgresDocumentIndex({ connectionString: postgres, schema }),
    ),
  );
}

const rows: string[] = [];
for (const backend of backends) {
  const ranks: (number | null)[] = [];
  const times: number[] = [];
  for (const question of questions) {
    const started = performance.now();
    const urls = await backend.search(question.question);
    times.push(performance.now() - started);
    const at = urls.indexOf(urlOf(question.title));
    ranks.push(at < 0 ? null : at + 1);
  }
  const recall = (k: number) =>
    (ranks.filter((rank) => rank !== null && rank <= k).length / ranks.length).toFixed(3);
  const mrr = (
    ranks.reduce<number>((sum, rank) => sum + (rank === null ? 0 : 1 / rank), 0) / ranks.length
  ).toFixed(3);
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  rows.push(
    `| ${backend.name} | ${recall(1)} | ${recall(5)} | ${recall(10)} | ${mrr} | ${p(0.5)} / ${p(0.95)} |`,
  );
}
for (const backend of backends) await backend.close();
if (postgres) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
rmSync(dir, { recursive: true, force: true });

console.log(
  `Gold article among the first 10 hits: ${questions.length} SQuAD dev questions (seed ${values.seed}) over ${articles.length} articles.\n`,
);
console.log('| backend | R@1 | R@5 | R@10 (gold@10) | MRR@10 | search ms p50 / p95 |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
