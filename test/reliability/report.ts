/**
 * `npm run test:reliability`: runs the reliability suite (vitest, test/reliability) and prints the summary
 * table of the figures each file recorded. Exits non-zero when a test failed, a figure is missing, or a
 * figure that must be 0 is not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIGURES_DIR_VARIABLE, type Figure } from './figures.ts';

const EXPECTED = [
  'ssrf',
  'hostile-pages',
  'prompt-injection',
  'malformed-requests',
  'failing-upstreams',
  'lifecycle',
  'soak',
  'free-answers',
  'extraction-flood',
  'oversized-bodies',
];

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'citewise-reliability-'));
const vitest = join(root, 'node_modules', '.bin', 'vitest');
const run = spawnSync(vitest, ['run', 'test/reliability', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, [FIGURES_DIR_VARIABLE]: dir },
});

const figures = new Map<string, Figure>();
for (const file of readdirSync(dir)) {
  figures.set(file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8')) as Figure);
}
rmSync(dir, { recursive: true, force: true });

const problems: string[] = [];
const rows: string[][] = [];
for (const name of EXPECTED) {
  const figure = figures.get(name);
  if (!figure) {
    problems.push(`${name}: no figure recorded (did its tests run?)`);
    rows.push([name, '(missing)']);
    continue;
  }
  for (const key of figure.mustBeZero) {
    if (figure.values[key] !== 0)
      problems.push(`${figure.area}: ${key} = ${String(figure.values[key])}, must be 0`);
  }
  rows.push([
    figure.area,
    Object.entries(figure.values)
      .map(([key, value]) => `${key}: ${value}`)
      .join(' · '),
  ]);
}

const width = Math.max(...rows.map((row) => row[0]!.length), 4);
console.log(`\nReliability figures (node ${process.version}, ${new Date().toISOString()})\n`);
console.log(`| ${'Area'.padEnd(width)} | Figures |`);
console.log(`| ${'-'.repeat(width)} | ------- |`);
for (const [area, values] of rows) console.log(`| ${area!.padEnd(width)} | ${values} |`);
if (problems.length) console.log(`\nProblems:\n${problems.map((p) => `- ${p}`).join('\n')}`);
process.exitCode = run.status !== 0 || problems.length ? 1 : 0;
