/**
 * What `citewise serve` prints: on stdout JSON log lines only (the `ready` line carries the address; the
 * human "listening on" line goes to a terminal's stderr, see test/cli/cli.test.ts), and a warning when it
 * listens beyond loopback with the console's sign-up open to anyone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';

const dirs: string[] = [];
const running: ServeProcess[] = [];
const start = async (args: string[]) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'citewise-serve-output-'));
  dirs.push(dataDir);
  const serve = await startServe(['--data-dir', dataDir, ...args]);
  running.push(serve);
  return serve;
};
afterAll(async () => {
  await Promise.all(running.map((serve) => serve.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const logLines = (serve: ServeProcess) =>
  serve
    .stdout()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { level: number; msg: string; url?: string; host?: string });

const OPEN_SIGNUP = /sign-up is open to anyone/;

describe('citewise serve output', () => {
  it('prints JSON lines only on stdout; the ready line has the URL; no warning on loopback', async () => {
    const serve = await start([]);
    await fetch(`${serve.baseUrl}/healthz`);
    await expect.poll(() => logLines(serve).some((line) => line.msg === 'request')).toBe(true);
    const lines = logLines(serve); // throws on a line that is not JSON
    expect(lines.find((line) => line.msg === 'ready')?.url).toBe(serve.baseUrl);
    expect(serve.stdout()).not.toContain('listening on');
    // Not a terminal: no human line on stderr either.
    expect(serve.output()).not.toContain('listening on');
    expect(lines.some((line) => OPEN_SIGNUP.test(line.msg))).toBe(false);
  });

  it('warns at start when it listens beyond loopback with sign-up open, not when sign-up is limited', async () => {
    const open = await start(['--host', '0.0.0.0']);
    const warning = logLines(open).find((line) => OPEN_SIGNUP.test(line.msg));
    expect(warning).toMatchObject({ level: 40, host: '0.0.0.0' });
    expect(warning?.msg).toMatch(/1000 free credits.*--signup invite-only or --signup-domains/);

    for (const limit of [
      ['--signup', 'invite-only'],
      ['--signup-domains', 'example.com'],
      ['--no-console'],
    ]) {
      const limited = await start(['--host', '0.0.0.0', ...limit]);
      expect(
        logLines(limited).some((line) => OPEN_SIGNUP.test(line.msg)),
        limit.join(' '),
      ).toBe(false);
    }
  }, 120_000);
});
