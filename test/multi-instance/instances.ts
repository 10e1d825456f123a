/**
 * Several `citewise serve` processes for the multi-instance tests, and a small HTTP client for them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, servedUrl } from '../support/cli.ts';

/** One running `citewise serve`. */
export interface Instance {
  readonly baseUrl: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * How long one `serve` may take to start. Three starting at once (each loading the sources and warming its
 * extraction workers) took 13–16 s apiece on a 2-core machine at load 20, and more inside a busy test run.
 */
const START_TIMEOUT_MS = 90_000;

/** Starts `citewise serve --port 0 …args` and waits for its `ready` log line. */
export async function startInstance(args: readonly string[]): Promise<Instance> {
  // A data dir of its own, so nothing is written to the working directory (the stores are remote).
  const dataDir = mkdtempSync(join(tmpdir(), 'citewise-instance-'));
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info', ...args],
    { env: { ...process.env, CITEWISE_STORE: '', CITEWISE_LIMITS_STORE: '' } },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A process that failed to start may still hold store connections open: never leave it behind.
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`serve did not start within ${START_TIMEOUT_MS / 1000} s: ${output}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      const url = servedUrl(output);
      if (url) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(url);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`serve exited with ${code}: ${output}`));
    });
  });
  return {
    baseUrl,
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dataDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** Starts `count` instances in parallel. */
export async function startInstances(count: number, args: readonly string[]): Promise<Instance[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startInstance(args)));
  const instances = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(instances.map((instance) => instance.stop()));
    throw failure.reason;
  }
  return instances;
}

/** POST /v1/search; resolves with the status (never throws for HTTP errors). */
export async function search(
  baseUrl: string,
  key: string,
  prompt = 'How do I create an API key?',
): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** GET /v1/balance → available credits, or the HTTP status when not 200. */
export async function balance(baseUrl: string, key: string): Promise<number | { status: number }> {
  const response = await fetch(`${baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) {
    await response.arrayBuffer();
    return { status: response.status };
  }
  return ((await response.json()) as { available_credits: number }).available_credits;
}

/** Counts each status in a list. */
export function tally(statuses: readonly number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

/** Runs one `citewise` command to completion; rejects unless it exits 0. Returns its stdout. */
export function cli(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // Out of the checkout: a command given no --data-dir must not leave a .citewise in it (a later
    // `npm start` there would find a database and make no first key).
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, CITEWISE_STORE: '', CITEWISE_LIMITS_STORE: '' },
      cwd: tmpdir(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`citewise ${args[0]} exited ${code}: ${stderr}`)),
    );
  });
}

/**
 * Creates a key of a new account holding `credits` with `citewise keys create` (as the README provisions
 * one) and returns the key.
 */
export async function createKeyWithCli(store: string, account: string, credits: number): Promise<string> {
  return lastLine(
    await cli([
      'keys',
      'create',
      '--store',
      store,
      '--account',
      account,
      '--create-account',
      '--credits',
      String(credits),
    ]),
  );
}

/** The API key printed as the last line of `keys create`. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)!.trim();
}
