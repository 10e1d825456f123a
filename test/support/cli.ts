/** Runs the `citewise` command as a user would: real processes on loopback. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstKeyPath } from '../../src/cli/first-key.ts';

/** The package's bin script. */
export const CLI = fileURLToPath(new URL('../../bin/citewise.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runScript(CLI, args, env);
}

/** Runs a script with this Node to completion; `env` is added to (or overrides) the test's environment. */
export function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly baseUrl: string;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** The data directory `serve` runs on (from `--data-dir`, `CITEWISE_DATA_DIR` or the default). */
  readonly dataDir: string;
  /** The first-start key, read from `<data dir>/first-key.txt` (serve never prints it to a pipe), if any. */
  firstKey(): string | undefined;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `citewise serve --port 0 …` and resolves once it prints its address. */
export async function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], {
    env: { ...process.env, ...env },
  });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  const dataDirFlag = args.indexOf('--data-dir');
  const dataDir = resolve(
    (dataDirFlag >= 0 ? args[dataDirFlag + 1] : undefined) ?? env.CITEWISE_DATA_DIR ?? '.citewise',
  );
  const keyFile = firstKeyPath(dataDir);
  return {
    child,
    baseUrl,
    dataDir,
    output: () => output,
    firstKey: () => (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
