/**
 * `npm start` in a checkout: `serve`'s stdout is JSON log lines only, so npm's run-script banner
 * (`> citewise@… start`) must not reach it. npm writes that banner to stdout unless its `json` setting is on
 * (then to stderr) or its log level is `silent` (which would also hide npm's own errors): the project's
 * `.npmrc` sets `json=true`. One real `npm start` through the npm that runs the tests (or the one on PATH).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { servedUrl } from '../support/cli.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** npm as the test runner got it: `npm_execpath` under `npm test`, else `npm` on PATH. */
function npmCommand(args: string[]): [string, string[]] {
  const cli = process.env['npm_execpath'];
  return cli && /npm-cli\.js$/.test(cli) ? [process.execPath, [cli, ...args]] : ['npm', args];
}

describe.skipIf(process.platform === 'win32')('npm start', { timeout: 120_000 }, () => {
  it('writes nothing but JSON lines on stdout (npm banner included)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'citewise-npm-start-'));
    const [command, args] = npmCommand(['start', '--', '--port', '0', '--data-dir', dataDir, '--no-console']);
    // Its own process group: npm, the shell and serve are stopped together.
    const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (servedUrl(stdout)) resolve();
        });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stdout}${stderr}`)));
      });
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
    const lines = stdout.split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(() => JSON.parse(line) as unknown, `stdout line ${JSON.stringify(line)}`).not.toThrow();
    // The banner went to stderr, where a person at a terminal still sees it.
    expect(stderr).toContain('> citewise@');
  });
});
