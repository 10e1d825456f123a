/**
 * The SQLite index's write path alone, in one thread, by CPU time: the first `--documents` Markdown files of
 * a folder (a corpus `bench/index/run.ts` generated in its `--work` folder) are read and analysed
 * (`analyzeForIndex`, what the build's worker threads do), then put into a new index the way
 * `citewise index` puts them (one writer, batched transactions), then flushed and closed. CPU time
 * (`process.cpuUsage`: this thread and SQLite in it) is less inflated by a loaded machine than wall time.
 *
 *   node bench/index/write.ts --folder DIR [--documents 20000] [--work DIR] [--analyses FILE] [--batch N]
 *
 * `--analyses FILE` keeps the analyses in FILE (v8 serialised) and reuses them on the next run, to compare
 * write settings without analysing again. `--batch N`: writes per transaction (default: the index's,
 * `sqliteBatchSize`).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { analyzeForIndex, withAnalysis, type DocumentAnalysis } from '../../src/documents/common.ts';
import { readDocumentFile } from '../../src/pipeline/extract/read-file.ts';
import { createSqliteDocumentIndex } from '../../src/documents/sqlite.ts';
import { DOCUMENT_INDEX_DEFAULTS, type DocumentInput } from '../../src/documents/types.ts';

const { values } = parseArgs({
  options: {
    folder: { type: 'string' },
    documents: { type: 'string', default: '20000' },
    work: { type: 'string' },
    batch: { type: 'string', default: String(DOCUMENT_INDEX_DEFAULTS.sqliteBatchSize) },
    analyses: { type: 'string' },
  },
});
if (values.folder === undefined) throw new Error('--folder DIR is required');
const limit = Number(values.documents);

function files(folder: string): string[] {
  const found: string[] = [];
  for (const sub of readdirSync(folder).sort()) {
    const dir = join(folder, sub);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.md')) found.push(join(dir, name));
    if (found.length >= limit) break;
  }
  return found.slice(0, limit);
}

/** CPU seconds and wall seconds of `work`. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; cpu: number; wall: number }> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, cpu: (used.user + used.system) / 1e6, wall: (performance.now() - wall) / 1000 };
}

type Analysed = { input: DocumentInput; analysis: DocumentAnalysis }[];
const cached = values.analyses !== undefined && existsSync(values.analyses);
const read = await measured(async () => {
  if (cached) return deserialize(readFileSync(values.analyses!)) as Analysed;
  const analysed: Analysed = [];
  for (const file of files(values.folder!)) {
    const result = await readDocumentFile(file, pathToFileURL(file).href, { maxFileBytes: 10 * 1024 * 1024 });
    if (!('skip' in result))
      analysed.push({ input: result.document, analysis: analyzeForIndex(result.document) });
  }
  if (values.analyses !== undefined) writeFileSync(values.analyses, serialize(analysed));
  return analysed;
});
const work = values.work ?? mkdtempSync(join(tmpdir(), 'citewise-bench-write-'));
const file = join(work, `write-${process.pid}.sqlite`);
const written = await measured(async () => {
  const index = createSqliteDocumentIndex({ path: file, batchSize: Number(values.batch) });
  for (const { input, analysis } of read.value)
    await index.put(withAnalysis(input, analysis), { source: values.folder!, fileVersion: '1:1' });
  await index.close();
});
const bytes = readdirSync(work)
  .filter((name) => name.startsWith(`write-${process.pid}.sqlite`))
  .reduce((sum, name) => sum + statSync(join(work, name)).size, 0);
const n = read.value.length;
console.log(
  `${n} documents: ${cached ? 'analyses loaded' : 'read+analyse'} ${read.cpu.toFixed(2)} s CPU (${((1000 * read.cpu) / n).toFixed(3)} ms each); ` +
    `write ${written.cpu.toFixed(2)} s CPU (${((1000 * written.cpu) / n).toFixed(3)} ms each), ` +
    `${written.wall.toFixed(2)} s wall; on disk ${(bytes / 1024 / 1024).toFixed(1)} MB`,
);
for (const name of readdirSync(work))
  if (name.startsWith(`write-${process.pid}.sqlite`)) rmSync(join(work, name));
if (values.work === undefined) rmSync(work, { recursive: true, force: true });
