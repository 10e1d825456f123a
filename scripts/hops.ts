/**
 * The hops of one search and one research job: how many of `src/`'s stack frames, modules and folders a
 * request passes through before its answer is written. It runs ONE `POST /v1/search` and ONE research job
 * (`POST /v1/research`, the in-process job queue, polled until it ends) through the real HTTP stack on
 * loopback: a small fixture web (the research tests' pages as HTML), a SearXNG-format search endpoint over
 * it, and the OpenAI-compatible stand-in model of the benchmarks (bench/qa/fake-llm.ts) as the engine's
 * `model`. The answer stage is the engine's default one for a model (`defaultAnswerer`: the model answerer
 * behind its circuit breaker), given as the engine's `answerer` inside a thin wrapper that takes
 * `new Error().stack` when the pipeline calls it (`answer` for a search, `stream` for a job): V8's async stack
 * traces name each awaiting caller. Nothing in `src/` is changed for the measurement.
 *
 *   node scripts/hops.ts [--frames]
 *
 * Prints a table (frames in src/, modules, folders, the folders in order) and, with `--frames`, every frame.
 * The frames are the chain of awaiting callers V8 keeps: a caller that does not await (the node:http
 * adapter's request listener, the job worker's start) ends the chain.
 *
 * It imports only modules whose paths the other branches of issue 47 keep (the package root, the stage
 * folders' indexes, `engine/stages.ts`), so that it runs on main before and after their merges.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createNodeHandler } from '../adapters/node-http.ts';
import { createFakeLlm } from '../bench/qa/fake-llm.ts';
import { createSearchEngine, ENGINE_DEFAULTS } from '../src/index.ts';
import { defaultAnswerer } from '../src/engine/stages.ts';
import type { Answerer } from '../src/pipeline/types.ts';
import { createPageFetcher } from '../src/pipeline/fetch/index.ts';
import { createSearxngProvider } from '../src/pipeline/search/providers/index.ts';
import { Bm25Index } from '../src/pipeline/rank/index.ts';
import { escapeHtml } from '../src/text/html-escape.ts';
import { tokenize, tokenizeQuery } from '../src/text/tokenize.ts';
import { PAGES } from '../test/research/web.ts';
import { listenOnLoopback, type ListeningServer } from '../test/support/loopback-server.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
// The stand-in model does not do JSON response formats; the AI SDK's warning about it is not the measure.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
/** The question both runs ask: a two-hop chain of the fixture web (film → director → child). */
export const HOPS_QUESTION = 'Who is the child of the director of Love Affair?';

/** One frame of a stack in `src/`. */
export interface SourceFrame {
  /** `pipeline/answer/model.ts` (relative to src/). */
  readonly module: string;
  /** The function, as V8 names it (`async runPipeline`), or `<anonymous>`. */
  readonly name: string;
}

/** What one run crossed on its way to the answer stage. */
export interface HopsRun {
  readonly run: 'search' | 'research job';
  /** The frames in src/ where the pipeline calls the answer stage, innermost first. */
  readonly frames: readonly SourceFrame[];
  /** Distinct modules of src/, in order of first appearance from the outside in. */
  readonly modules: readonly string[];
  /** Distinct top-level folders (or root modules) of src/, from the outside in. */
  readonly folders: readonly string[];
  /** Calls of the stand-in model during the run (the answer's, and the research planner's). */
  readonly modelCalls: number;
}

/** The frames of a V8 stack that sit in src/. */
export function sourceFrames(stack: string): SourceFrame[] {
  const frames: SourceFrame[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const match = /^\s*at (?:(.*?) \()?(?:file:\/\/)?([^()]+?):\d+:\d+\)?$/.exec(line);
    if (!match) continue;
    const path = relative(ROOT, match[2] ?? '');
    if (!path.startsWith(`src${sep}`)) continue;
    frames.push({ module: path.slice(4).split(sep).join('/'), name: match[1] ?? '<anonymous>' });
  }
  return frames;
}

/** Modules and folders of the frames, outside in. */
function crossed(frames: readonly SourceFrame[]): { modules: string[]; folders: string[] } {
  const outsideIn = [...frames].reverse();
  const modules = [...new Set(outsideIn.map((frame) => frame.module))];
  const folders = [...new Set(modules.map((module) => module.split('/')[0] ?? module))];
  return { modules, folders };
}

function page(title: string, text: string): string {
  const paragraphs = text
    .split('\n')
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p)}</p>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><article><h1>${escapeHtml(title)}</h1>${paragraphs.join('')}</article></main></body></html>`;
}

/** The fixture web (HTML pages) and a SearXNG-format search over it (BM25 on title and text). */
async function fixtureWeb(): Promise<{ web: ListeningServer; search: ListeningServer }> {
  const slug = (title: string) => `/wiki/${encodeURIComponent(title.replaceAll(' ', '_'))}`;
  const bySlug = new Map(PAGES.map((p) => [slug(p.title), p]));
  const web = await listenOnLoopback(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      const found = bySlug.get(req.url ?? '');
      if (!found) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(found.title, found.text));
    }),
  );
  const index = new Bm25Index();
  for (const p of PAGES) index.add(slug(p.title), tokenize(`${p.title}\n${p.text}`));
  const search = await listenOnLoopback(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      const results = index.search(tokenizeQuery(query), 10).map(({ id }) => ({
        url: `${web.baseUrl}${id}`,
        title: bySlug.get(id)?.title ?? '',
        content: bySlug.get(id)?.text.slice(0, 80) ?? '',
        engine: 'fixture',
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query, results }));
    }),
  );
  return { web, search };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Runs one search and one research job, and returns what each crossed to its answer stage. */
export async function measureHops(): Promise<HopsRun[]> {
  const previousLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const llm = await createFakeLlm();
  const { web, search } = await fixtureWeb();
  let stacks: string[] = [];
  let modelCalls = 0;
  const counting: typeof fetch = (input, init) => {
    modelCalls++;
    return fetch(input, init);
  };
  const model = createOpenAICompatible({ baseURL: llm.baseUrl, name: 'hops', fetch: counting })(
    'fake-overlap-1',
  );
  const answering = defaultAnswerer({ model }, ENGINE_DEFAULTS.modelFallback);
  const answerer: Answerer = {
    ...(answering.structuredOutput === undefined ? {} : { structuredOutput: answering.structuredOutput }),
    answer(input, call) {
      stacks.push(new Error('answer').stack ?? '');
      return answering.answer(input, call);
    },
    ...(answering.stream
      ? {
          stream: (input, call) => {
            stacks.push(new Error('stream').stack ?? '');
            return answering.stream!(input, call);
          },
        }
      : {}),
  };
  const engine = createSearchEngine({
    search: createSearxngProvider({ baseUrl: search.baseUrl }),
    fetcher: createPageFetcher({ allowPrivateHosts: ['127.0.0.1'] }),
    model,
    answerer,
  });
  const api = await listenOnLoopback(createServer(createNodeHandler(engine)));
  const runs: HopsRun[] = [];
  try {
    const { key } = await engine.createKey({ credits: 1000 });
    const post = (path: string, body: unknown) =>
      fetch(`${api.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const measure = (run: HopsRun['run']): HopsRun => {
      if (stacks.length !== 1)
        throw new Error(`${run}: the answer stage ran ${stacks.length} times, not once`);
      const frames = sourceFrames(stacks[0]!);
      const result = { run, frames, ...crossed(frames), modelCalls };
      stacks = [];
      modelCalls = 0;
      return result;
    };

    await json(await post('/v1/search', { prompt: HOPS_QUESTION }));
    runs.push(measure('search'));

    const created = await json(await post('/v1/research', { prompt: HOPS_QUESTION }));
    for (let polls = 0; ; polls++) {
      const job = await json(
        await fetch(`${api.baseUrl}/v1/research/${String(created.id)}`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      );
      if (job.status === 'completed') break;
      if (job.status === 'failed' || job.status === 'cancelled' || polls > 600)
        throw new Error(`research job ended ${String(job.status)}: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    runs.push(measure('research job'));
  } finally {
    Error.stackTraceLimit = previousLimit;
    await api.close();
    await engine.close();
    await Promise.all([web.close(), search.close(), llm.close()]);
  }
  return runs;
}

/** The table of the runs, and with `frames` each run's frames from the outside in. */
export function formatHops(runs: readonly HopsRun[], frames = false): string {
  const lines = [
    '| run | frames in src/ | modules | folders | folders crossed (outside in) | model calls |',
    '|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.run} | ${r.frames.length} | ${r.modules.length} | ${r.folders.length} | ${r.folders.join(' → ')} | ${r.modelCalls} |`,
    ),
  ];
  if (frames) {
    for (const r of runs) {
      lines.push('', `${r.run}, outside in:`);
      for (const frame of [...r.frames].reverse()) lines.push(`  ${frame.module}  ${frame.name}`);
    }
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { frames: { type: 'boolean', default: false } } });
  console.log(formatHops(await measureHops(), values.frames));
}
