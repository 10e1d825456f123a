import { afterEach, describe, expect, it } from 'vitest';
import {
  createContentExtractor,
  createWorkerPool,
  type WorkerPool,
} from '../../src/pipeline/extract/index.ts';
import type { ContentExtractor, FetchedPage } from '../../src/pipeline/types.ts';

type Payload = { mode: 'echo' | 'fail' | 'crash' | 'exit' | 'spin' | 'sleep' | 'alloc'; value?: number };
const workerUrl = new URL('./fixtures/test-worker.ts', import.meta.url);

describe('createWorkerPool', () => {
  let pool: WorkerPool<Payload, { value: number }> | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('runs tasks and keeps the queue bounded', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 1, maxQueue: 1 });
    const spinning = pool.run({ mode: 'spin' }, { signal: AbortSignal.timeout(300) });
    const queued = pool.run({ mode: 'echo', value: 1 });
    await expect(pool.run({ mode: 'echo', value: 2 })).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(spinning).rejects.toThrow();
    await expect(queued).resolves.toMatchObject({ value: 1 });
  });

  it('rejects a task whose worker throws, and replaces the worker', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 1 });
    await expect(pool.run({ mode: 'crash' })).rejects.toThrow(/crashed: boom/);
    await expect(pool.run({ mode: 'exit' })).rejects.toThrow(/exited with code 3/);
    await expect(pool.run({ mode: 'echo', value: 7 })).resolves.toMatchObject({ value: 7 });
    expect(pool.stats.workers).toBe(1);
  });

  it('rejects tasks when the worker module cannot load, without respawning in a loop', async () => {
    pool = createWorkerPool<Payload, { value: number }>({
      workerUrl: new URL('./fixtures/broken-worker.ts', import.meta.url),
      size: 1,
    });
    await expect(pool.run({ mode: 'echo' })).rejects.toThrow(/cannot load/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.stats.workers).toBe(0);
    await expect(pool.run({ mode: 'echo' })).rejects.toThrow(/cannot load/);
  });

  it('passes task errors through without killing the worker', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 1 });
    await expect(pool.run({ mode: 'fail' })).rejects.toMatchObject({
      message: 'task failed',
      name: 'TypeError',
    });
    await expect(pool.run({ mode: 'echo', value: 1 })).resolves.toMatchObject({ value: 1 });
  });

  it('aborts a running task by terminating its worker, and a queued one by dequeuing it', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 1 });
    const controller = new AbortController();
    const queuedController = new AbortController();
    const running = pool.run({ mode: 'spin' }, { signal: controller.signal });
    const queued = pool.run({ mode: 'echo', value: 1 }, { signal: queuedController.signal });
    queuedController.abort(new Error('queued abort'));
    await expect(queued).rejects.toThrow('queued abort');
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
    await expect(pool.run({ mode: 'echo', value: 5 })).resolves.toMatchObject({ value: 5 });
    expect(pool.stats).toMatchObject({ running: 0, queued: 0, workers: 1 });
  });

  it("starts a task's time limit when it starts on a worker, not while it waits", async () => {
    pool = createWorkerPool<Payload, { value: number }>({
      workerUrl,
      size: 1,
      taskTimeoutMs: 500,
      signalsReady: true,
    });
    // The third waits 400 ms and runs 200: within its limit only if waiting does not count.
    const tasks = [1, 2, 3].map(() => pool!.run({ mode: 'sleep', value: 200 }));
    await expect(Promise.all(tasks)).resolves.toHaveLength(3);
    await expect(pool.run({ mode: 'sleep', value: 5_000 })).rejects.toMatchObject({ code: 'timeout' });
    await expect(pool.run({ mode: 'echo', value: 2 })).resolves.toMatchObject({ value: 2 });
  });

  it('gives an account at most its share of the workers: another account starts at once', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 2 });
    const done: string[] = [];
    const flood = [1, 2, 3].map((n) =>
      pool!.run({ mode: 'sleep', value: 300 }, { account: 'a' }).then(() => done.push(`a${n}`)),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.stats).toMatchObject({ running: 1, queued: 2 });
    await pool.run({ mode: 'echo', value: 1 }, { account: 'b' }).then(() => done.push('b'));
    await Promise.all(flood);
    expect(done).toEqual(['b', 'a1', 'a2', 'a3']);
  });

  it('terminates a worker whose buffers pass the memory limit; only its task fails', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 2, maxWorkerMemoryMb: 64 });
    const other = pool.run({ mode: 'sleep', value: 300 }, { account: 'b' });
    await expect(pool.run({ mode: 'alloc', value: 100 }, { account: 'a' })).rejects.toThrow(
      /used over 64 MiB/,
    );
    await expect(other).resolves.toMatchObject({ value: 300 });
    await expect(pool.run({ mode: 'alloc', value: 8 })).resolves.toMatchObject({ value: 8 });
  });

  it('rejects an already aborted signal without running', async () => {
    pool = createWorkerPool<Payload, { value: number }>({ workerUrl, size: 1 });
    await expect(
      pool.run({ mode: 'echo' }, { signal: AbortSignal.abort(new Error('early')) }),
    ).rejects.toThrow('early');
  });

  it('validates options', () => {
    expect(() => createWorkerPool({ workerUrl: 'x' as unknown as URL })).toThrow(TypeError);
    expect(() => createWorkerPool({ workerUrl, size: 0 })).toThrow(RangeError);
    expect(() => createWorkerPool({ workerUrl, maxQueue: -1 })).toThrow(RangeError);
  });
});

function htmlPage(body: string): FetchedPage {
  return {
    url: 'https://example.test/article',
    requestedUrl: 'https://example.test/article',
    status: 200,
    contentType: 'text/html',
    charset: 'utf-8',
    body: new TextEncoder().encode(body),
    headers: {},
  };
}

const ARTICLE = `<html><head><title>Pool page</title></head><body><article><p>${'Worker threads extract this paragraph of readable text. '.repeat(6)}</p></article></body></html>`;

describe('createContentExtractor', () => {
  let extractor: ContentExtractor | undefined;
  afterEach(async () => {
    await extractor?.close?.();
    extractor = undefined;
  });
  const call = (signal = new AbortController().signal) => ({ signal, requestId: 'test' });

  it('extracts on the .ts worker thread', async () => {
    extractor = createContentExtractor({ workers: 1 });
    const result = await extractor.extract(htmlPage(ARTICLE), call());
    expect(result?.title).toBe('Pool page');
    expect(result?.text).toContain('Worker threads extract this paragraph');
  });

  it('gives the same result in the calling thread with workers: 0', async () => {
    const inline = createContentExtractor({ workers: 0 });
    extractor = createContentExtractor({ workers: 1 });
    expect(await inline.extract(htmlPage(ARTICLE), call())).toEqual(
      await extractor.extract(htmlPage(ARTICLE), call()),
    );
  });

  it('refuses bodies over maxInputBytes', async () => {
    extractor = createContentExtractor({ workers: 0, maxInputBytes: 100 });
    await expect(extractor.extract(htmlPage(ARTICLE), call())).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('honours the call signal', async () => {
    extractor = createContentExtractor({ workers: 1 });
    await expect(
      extractor.extract(htmlPage(ARTICLE), call(AbortSignal.abort(new Error('client gone')))),
    ).rejects.toThrow('client gone');
  });

  it('maps its own time limit to a timeout error', async () => {
    extractor = createContentExtractor({ workers: 1, timeoutMs: 1 });
    const huge = htmlPage(`<html><body>${'<div><p>nested text block</p>'.repeat(20000)}</body></html>`);
    await expect(extractor.extract(huge, call())).rejects.toMatchObject({ code: 'timeout' });
  });

  it('validates options', () => {
    expect(() => createContentExtractor({ workers: -1 })).toThrow(RangeError);
    expect(() => createContentExtractor({ timeoutMs: 0 })).toThrow(RangeError);
  });
});
