/**
 * Tests must pass in a fresh clone with nothing beside it: no test, no library source and no benchmark module
 * that a test imports may name the benchmarks' data folder outside the repository. The one exception is
 * `bench/lib/datasets.ts`, which holds that default for the benchmark entry points; the loaders have no default
 * folder, so a test reaches data only through the folder it passes (test/fixtures/datasets).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
const OUTSIDE = ['../shared', 'shared/datasets'];
const RESOLVER = 'bench/lib/datasets.ts';
const SOURCE = /\.(ts|js|mjs|cjs|json)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Relative `.ts` imports of a file (static, dynamic and re-exports), as repository paths. */
function relativeImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.ts)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

function benchModulesImportedBy(files: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = [...files];
  while (queue.length > 0) {
    for (const imported of relativeImports(queue.pop()!)) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      queue.push(imported);
    }
  }
  return [...seen].filter((file) => file.startsWith('bench/'));
}

describe('no test reads outside the repository', () => {
  const testFiles = filesUnder('test').filter((file) => file.endsWith('.ts') && file !== SELF);

  it('finds the bench modules the tests import (the scan sees what it should)', () => {
    const bench = benchModulesImportedBy(testFiles);
    expect(bench).toContain('bench/qa/corpus.ts');
    expect(bench).toContain(RESOLVER);
  });

  it('no test, src or test-imported bench file names the shared data folder', () => {
    const scanned = [...filesUnder('test'), ...filesUnder('src'), ...benchModulesImportedBy(testFiles)];
    const offenders = scanned
      .filter((file) => file !== RESOLVER && file !== SELF)
      .filter((file) => {
        const text = readFileSync(join(ROOT, file), 'utf8');
        return OUTSIDE.some((needle) => text.includes(needle));
      });
    expect(offenders).toEqual([]);
  });

  it('no test calls the data-folder resolver or reads its environment variable', () => {
    const offenders = testFiles.filter((file) =>
      /resolveDatasetsDir|CITEWISE_DATASETS/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
