/**
 * The garbage collector, exposed for the benchmarks. Each thread that imports this module gets its own
 * (the flag is process-wide; `gc` is looked up in the importing thread's context).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

/** A full collection of this thread's heap. */
export const collectGarbage = runInNewContext('gc') as () => void;

/** This thread's heap after a full collection, in MiB: live data rather than garbage. */
export function heapMiB(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
