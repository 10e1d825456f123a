/** Worker entry of {@link profileInWorker}: the profile in a thread of its own, as extraction workers run. */
import { parentPort, workerData } from 'node:worker_threads';
import { profilePages, type ProfilePage } from './extract-profile.ts';
import { heapMiB } from './gc.ts';

parentPort?.postMessage(await profilePages(workerData as ProfilePage[], heapMiB));
