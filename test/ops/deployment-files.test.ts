/**
 * The deployment recipe's files, checked as far as this machine allows (no image can be built or pulled
 * here): the Dockerfile is linted by dockerfile-utils and its instructions read with dockerfile-ast (the
 * official Node.js image of the major that package.json `engines` allows, a non-root user, the data
 * directory as a volume, the health check run against a real `serve`), its build context leaves data and
 * keys out, and the systemd unit passes `systemd-analyze verify` (skipped, saying why, without it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { REPO_ROOT } from '../support/manual.ts';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const DOCKERFILE = read('Dockerfile');
const dockerfile = DockerfileParser.parse(DOCKERFILE);
const instructions = dockerfile.getInstructions();
const words = (keyword: string) =>
  instructions
    .filter((instruction) => instruction.getKeyword() === keyword)
    .map((instruction) => instruction.getArguments().map((argument) => argument.getValue()));
const env = new Map(
  dockerfile
    .getENVs()
    .flatMap((instruction) => instruction.getProperties())
    .map((property) => [property.getName(), property.getValue() ?? '']),
);
const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };

const dirs: string[] = [];
let serve: ServeProcess | undefined;
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('Dockerfile', () => {
  it('passes the dockerfile-utils linter', () => {
    expect(validate(DOCKERFILE)).toEqual([]);
  });

  it('builds on the official Node.js image, runs as the non-root node user, keeps data in a volume', () => {
    const [from] = dockerfile.getFROMs();
    expect(from?.getImageName()).toBe('node');
    const major = /^(\d+)/.exec(from?.getImageTag() ?? '')?.[1];
    expect(semver.satisfies(`${major}.99.0`, engines.node), `node:${from?.getImageTag()}`).toBe(true);
    expect(words('USER').at(-1)).toEqual(['node']);
    const dataDir = env.get('CITEWISE_DATA_DIR');
    expect(dataDir).toBe('/data');
    expect(
      words('VOLUME')
        .flat()
        .map((value) => value.replace(/[[\]",]/g, '')),
    ).toContain(dataDir);
    expect(words('EXPOSE').flat()).toContain(env.get('CITEWISE_PORT'));
    expect(env.get('CITEWISE_HOST')).toBe('0.0.0.0');
    // Listening on every address of the container: sign-up is by invitation unless the operator opens it.
    expect(env.get('CITEWISE_SIGNUP')).toBe('invite-only');
    expect(DOCKERFILE).toMatch(/^CMD \["node", "bin\/citewise\.js", "serve"\]$/m);
  });

  it('copies only files that exist, and its build context leaves data, keys and dependencies out', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0 && !line.startsWith('#'));
    for (const entry of ['.git', 'node_modules', '.citewise', '**/.citewise', '.env', '*.tgz'])
      expect(ignored).toContain(entry);
    const sources = words('COPY').map((args) => args.slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources.flat()) {
      expect(existsSync(path.join(REPO_ROOT, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
  });

  it('has a health check that passes against a running serve', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'citewise-docker-'));
    dirs.push(dataDir);
    serve = await startServe(['--data-dir', dataDir]);
    const [check] = dockerfile.getHEALTHCHECKs();
    const command = JSON.parse(
      /CMD (\[.*\])$/m.exec(check?.getArgumentsContent()?.replace(/\\\n/g, '') ?? '')?.[1] ?? '[]',
    ) as string[];
    expect(command[0]).toBe('node');
    const port = new URL(serve.baseUrl).port;
    const script = command.map((part) => part.replace(`:${env.get('CITEWISE_PORT')}/`, `:${port}/`));
    const ok = spawnSync(process.execPath, script.slice(1), { encoding: 'utf8', timeout: 30_000 });
    expect(ok.status, ok.stderr).toBe(0);
    await serve.stop();
    const down = spawnSync(process.execPath, script.slice(1), { encoding: 'utf8', timeout: 30_000 });
    expect(down.status).toBe(1);
  });
});

const systemdAnalyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const noSystemd = systemdAnalyze.error
  ? `systemd-analyze is not installed (${systemdAnalyze.error.message})`
  : '';
if (noSystemd) process.stderr.write(`skipping the systemd unit check: ${noSystemd}\n`);

describe('deploy/citewise.service', () => {
  it.skipIf(noSystemd !== '')('passes systemd-analyze verify, without a warning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'citewise-unit-'));
    dirs.push(dir);
    // The unit names /usr/bin/node; verify checks that the command exists, so point it at this Node.js.
    const unit = read('deploy/citewise.service').replace(
      'ExecStart=/usr/bin/node ',
      `ExecStart=${process.execPath} `,
    );
    expect(unit).toContain(
      `ExecStart=${process.execPath} /srv/citewise/node_modules/citewise/bin/citewise.js serve`,
    );
    const file = path.join(dir, 'citewise.service');
    writeFileSync(file, unit);
    const verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: verified.status, stderr: verified.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  });

  it('is shown in docs/operations/docker-and-systemd.md as it is', () => {
    const shown = /```ini\n([\s\S]*?)```/.exec(read('docs/operations/docker-and-systemd.md'))?.[1] ?? '';
    const unit = read('deploy/citewise.service').split('\n');
    expect(shown.length).toBeGreaterThan(0);
    for (const line of shown.split('\n').filter(Boolean)) expect(unit, line).toContain(line);
  });

  it('runs serve as its own user, on loopback, with its data in the state directory', () => {
    const unit = read('deploy/citewise.service');
    expect(unit).toMatch(/^User=citewise$/m);
    expect(unit).toMatch(/^Environment=CITEWISE_HOST=127\.0\.0\.1$/m);
    expect(unit).toMatch(/^StateDirectory=citewise$/m);
    expect(unit).toMatch(/^Environment=CITEWISE_DATA_DIR=\/var\/lib\/citewise$/m);
    // serve waits up to 30 s for in-flight requests after SIGTERM: systemd must wait longer.
    expect(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1])).toBeGreaterThan(30);
  });
});
