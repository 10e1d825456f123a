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

/**
 * Runs a script with this Node to completion; `env` is added to (or overrides) the test's environment, and
 * `input` (if any) is written to its standard input.
 */
export function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    child.stdin.end(input ?? '');
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
  /** What was printed on stdout alone. */
  stdout(): string;
  /** The data directory `serve` runs on (from `--data-dir`, `CITEWISE_DATA_DIR` or the default). */
  readonly dataDir: string;
  /** The first-start key, read from `<data dir>/first-key.txt` (serve never prints it to a pipe), if any. */
  firstKey(): string | undefined;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The address `serve` listens on, from its JSON `ready` log line on stdout (logged at `info`: give
 * `--log-level info` or lower), or from the `listening on` line it writes to a terminal's stderr.
 */
export function servedUrl(output: string): string | undefined {
  return (
    /^\{.*"url":"(http:\/\/[^"]+)".*"msg":"ready"\}$/m.exec(output)?.[1] ??
    /listening on (http:\/\/\S+)/.exec(output)?.[1]
  );
}

/** Starts `citewise serve --port 0 --log-level info …` and resolves once it logs its address. */
export async function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = process.cwd(),
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log-level', 'info', ...args], {
    env: { ...process.env, ...env },
    cwd,
  });
  let output = '';
  let stdout = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
      const url = servedUrl(output);
      if (url) resolve(url);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  const dataDirFlag = args.indexOf('--data-dir');
  const dataDir = resolve(
    cwd,
    (dataDirFlag >= 0 ? args[dataDirFlag + 1] : undefined) ?? env.CITEWISE_DATA_DIR ?? '.citewise',
  );
  const keyFile = firstKeyPath(dataDir);
  return {
    child,
    baseUrl,
    dataDir,
    output: () => output,
    stdout: () => stdout,
    firstKey: () => (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
