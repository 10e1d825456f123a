/** Worker entry of {@link profileInWorker}: the workers' linkedom settings, then the profile. */
import { parentPort, workerData } from 'node:worker_threads';
import { tuneLinkedomForWorkers } from '../../src/pipeline/extract/worker-dom.ts';
import { profilePages, type ProfilePage } from './extract-profile.ts';
import { heapMiB } from './gc.ts';

tuneLinkedomForWorkers();
parentPort?.postMessage(await profilePages(workerData as ProfilePage[], heapMiB));
