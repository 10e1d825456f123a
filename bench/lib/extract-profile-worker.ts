/** Worker entry of {@link profileInWorker}: the workers' linkedom settings, then the profile. */
import { parentPort, workerData } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tuneLinkedomForWorkers } from '../../src/pipeline/extract/worker-dom.ts';
import { profilePages, type ProfilePage } from './extract-profile.ts';

tuneLinkedomForWorkers();
// A forced GC before each heap reading, so that the memory line shows live data rather than garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
parentPort?.postMessage(await profilePages(workerData as ProfilePage[], heapMiB));
