/**
 * `node scripts/hops.ts` (the contributing guide, "Layers"): one search and one research job over HTTP on
 * loopback, and the frames of src/ where the pipeline calls the answer stage. This checks that the script
 * measures what it says (a real run reaches the answerer by the route, the engine and the pipeline; a job
 * through the jobs module) and that it reads V8's frames as it should.
 */
import { describe, expect, it } from 'vitest';
import { formatHops, measureHops, sourceFrames } from '../../scripts/hops.ts';

describe('scripts/hops.ts', () => {
  it('reads the frames of src/ from a V8 stack, innermost first, skipping the others', () => {
    const root = new URL('../../', import.meta.url).pathname;
    const stack = [
      'Error: answer',
      `    at Object.answer (file://${root}scripts/hops.ts:10:5)`,
      `    at streamPipeline (file://${root}src/pipeline/run.ts:250:3)`,
      `    at async relay (${root}src/engine/money-path.ts:171:24)`,
      '    at async Promise.all (index 0)',
      `    at async file://${root}node_modules/ai/dist/index.js:1:1`,
      `    at file://${root}src/jobs/worker.ts:40:7`,
    ].join('\n');
    expect(sourceFrames(stack)).toEqual([
      { module: 'pipeline/run.ts', name: 'streamPipeline' },
      { module: 'engine/money-path.ts', name: 'async relay' },
      { module: 'jobs/worker.ts', name: '<anonymous>' },
    ]);
  });

  it('measures one search and one research job through the HTTP stack to their answer stage', async () => {
    const runs = await measureHops();
    expect(runs.map((run) => run.run)).toEqual(['search', 'research job']);
    const [search, job] = runs;
    // Innermost: the pipeline calling the answerer; outermost: the router for a search, the jobs for a job.
    expect(search?.frames[0]?.module).toBe('pipeline/run.ts');
    expect(search?.folders[0]).toBe('http');
    expect(search?.folders).toContain('engine');
    expect(job?.frames[0]?.module).toBe('pipeline/run.ts');
    expect(job?.folders[0]).toBe('jobs');
    for (const run of runs) {
      expect(run.modules.length).toBeLessThanOrEqual(run.frames.length);
      expect(run.folders.length).toBeLessThanOrEqual(run.modules.length);
      expect(run.modelCalls).toBeGreaterThanOrEqual(1);
    }
    const table = formatHops(runs).split('\n');
    expect(table).toHaveLength(4);
    expect(table[2]).toMatch(/^\| search \| \d+ \| \d+ \| \d+ \| http → .*pipeline \| \d+ \|$/);
  }, 60_000);
});
