/**
 * The hops of one research job, on the test corpus with the model-free answerer: the modules of `src/` it
 * runs in from `engine.research.create()` to its end (V8 precise coverage, after one job to warm up), and the
 * stack from the worker down to the answerer (src/ frames and modules). `--search` measures one
 * `engine.search()` of the same question instead, for comparison.
 *
 *   node scripts/job-hops.ts [--search]
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createSearchEngine } from '../src/engine/index.ts';
import { createExtractiveAnswerer } from '../src/pipeline/answer/extractive.ts';
import type { Answerer } from '../src/pipeline/types.ts';

const { values } = parseArgs({ options: { search: { type: 'boolean', default: false } } });
const root = fileURLToPath(new URL('../', import.meta.url));
const CORPUS = fileURLToPath(new URL('../test/fixtures/corpus/', import.meta.url));
const PROMPT = 'Where does green tea come from?';

const inner = createExtractiveAnswerer();
let stack = '';
const answerer: Answerer = {
  answer(input, call) {
    stack = new Error('answerer').stack ?? '';
    return inner.answer(input, call);
  },
};

const srcOf = (url: string) => {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const file = relative(root, path);
  return file.startsWith('src/') ? file : null;
};

const engine = createSearchEngine({ corpus: [CORPUS], answerer });
const { key } = await engine.createKey({ credits: 1_000 });
const once = async () => {
  if (values.search) return engine.search({ prompt: PROMPT, depth: 'research' }, { apiKey: key });
  const job = await engine.research.create({ prompt: PROMPT }, { apiKey: key });
  return engine.research.wait(job.id, { apiKey: key });
};
await once();

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage');
await once();
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await engine.close();

const modules = new Map<string, number>();
for (const script of result) {
  const file = srcOf(script.url);
  if (!file) continue;
  // Counters were reset when the measure began: a module's top level (run when it loaded) counts 0.
  const calls = script.functions.reduce((sum, fn) => sum + (fn.ranges[0]?.count ?? 0), 0);
  if (calls > 0) modules.set(file, calls);
}
const frames = stack
  .split('\n')
  .map((line) => /\((.+?):\d+:\d+\)$|at (?:async )?(\S+?):\d+:\d+$/.exec(line.trim()))
  .map((match) => (match ? srcOf(match[1] ?? match[2] ?? '') : null))
  .filter((file): file is string => file !== null);

const folderOf = (file: string) => file.split('/').slice(1, -1).join('/') || file.split('/')[1]!;
const byFolder = new Map<string, number>();
for (const file of modules.keys()) byFolder.set(folderOf(file), (byFolder.get(folderOf(file)) ?? 0) + 1);
console.log(`${values.search ? 'one search' : 'one research job'}: ${modules.size} modules of src/ entered`);
console.log(`  by folder: ${[...byFolder].map(([folder, n]) => `${folder} ${n}`).join(', ')}`);
console.log('  outside pipeline/ and text/ (the search stages and their text leaves):');
for (const [file, calls] of [...modules].sort((a, b) => a[0].localeCompare(b[0]))) {
  if (!/^src\/(pipeline|text)\//.test(file)) console.log(`    ${file}  ${calls} calls`);
}
console.log(`stack at the answerer: ${frames.length} src/ frames in ${new Set(frames).size} modules`);
for (const file of frames) console.log(`  ${file}`);
