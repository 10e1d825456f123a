/**
 * Where a folder build's CPU goes: builds the folder into a new SQLite index in this process (what
 * `citewise index` runs, without the CLI's start-up) and prints its wall time, the CPU time of the whole
 * process (the main thread, the read workers and SQLite) and of the main thread alone
 * (`process.threadCpuUsage`): the main thread writes the index, and on a loaded machine its CPU time, not the
 * wall time, says whether a change helped.
 *
 *   node bench/index/build-cpu.ts --folder DIR --data-dir DIR
 *
 * `--folder` is a corpus `bench/index/run.ts` generated in its `--work` folder; `--data-dir` must not hold an
 * index yet (it is left in place).
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildIndex, IndexStore } from '../../src/index-builder/index.ts';

const { values } = parseArgs({
  options: { folder: { type: 'string' }, 'data-dir': { type: 'string' } },
});
if (values.folder === undefined || values['data-dir'] === undefined)
  throw new Error('--folder DIR and --data-dir DIR are required');
const file = join(values['data-dir'], 'index.sqlite');
if (existsSync(file)) throw new Error(`${file} exists already: give a new --data-dir`);

const started = performance.now();
const cpu = process.cpuUsage();
const main = process.threadCpuUsage();
const store = await IndexStore.open(file);
const summary = await buildIndex({ store, sources: [values.folder] });
await store.close();
const seconds = ({ user, system }: { user: number; system: number }) => ((user + system) / 1e6).toFixed(1);
console.log(
  `${summary.added} added: wall ${((performance.now() - started) / 1000).toFixed(1)} s; CPU ` +
    `${seconds(process.cpuUsage(cpu))} s, of which the main thread ${seconds(process.threadCpuUsage(main))} s; ` +
    `load average ${loadavg()[0]!.toFixed(1)}`,
);
