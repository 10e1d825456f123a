/**
 * The README's `npm test` on a stranger's machine: no REDIS_URL / DATABASE_URL, nothing answering on the
 * default ports, no Chromium, CI unset. Every suite that needs a server must still be collected (skipped
 * with a printed reason), never fail the run ("No test suite found", a probe that throws); under `CI=true`
 * a missing server must still fail. Only the files that ask for a server are collected, with a test name
 * pattern that matches no test (so none runs), which keeps this cheap.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../support/manual.ts';
import { freePort } from '../multi-instance/servers.ts';

/** Test files that decide at collection whether a server (Redis, PostgreSQL, Chromium) is there. */
function serverSuites(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) =>
      /\b(serverOrSkip|binariesOrSkip|chromiumOrSkip)\(/.test(readFileSync(join(ROOT, file), 'utf8')),
    )
    .sort();
}

/** `vitest run` of `files`, collecting only, with the environment of a machine that has none of the servers. */
async function collectWithoutServers(files: readonly string[], extra: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(VITEST|REDIS_URL$|DATABASE_URL$|CI$)/.test(name)) continue;
    env[name] = value;
  }
  const [redisPort, postgresPort] = [await freePort(), await freePort()];
  Object.assign(env, {
    CITEWISE_TEST_DEFAULT_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    CITEWISE_TEST_DEFAULT_DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${postgresPort}/postgres`,
    CHROMIUM_PATH: join(ROOT, 'no-chromium-here'),
    NO_COLOR: '1',
    ...extra,
  });
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--testNamePattern',
      'collect only: run no test',
      ...files,
    ],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe('a fresh clone with no Redis, PostgreSQL or Chromium', { timeout: 150_000 }, () => {
  it('collects every suite that needs a server, skipping it with a printed reason', async () => {
    const files = serverSuites();
    expect(files).toContain(join('test', 'jobs', 'distributed-queues.test.ts'));
    const { status, output } = await collectWithoutServers(files);
    expect(output).not.toMatch(/No test suite found|not allowed under CI|Error:/);
    expect(status, output).toBe(0);
    expect(output).toContain('Redis not reachable (set REDIS_URL); skipping its tests');
    expect(output).toContain('PostgreSQL not reachable (set DATABASE_URL); skipping its tests');
  });

  it('fails under CI=true when a server is missing', async () => {
    const { status, output } = await collectWithoutServers(
      [join('test', 'jobs', 'distributed-queues.test.ts')],
      { CI: 'true' },
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      'Redis not reachable (set REDIS_URL); skipping its tests — not allowed under CI',
    );
  });
});
