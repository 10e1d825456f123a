/**
 * Figures of the reliability suite. Each test file records its figure; it is printed as one line when the
 * file finishes, and, when `RELIABILITY_FIGURES_DIR` is set (by `npm run test:reliability`), written there
 * so that report.ts can print the summary table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One row of the summary table. `mustBeZero` values fail the report when they are not 0. */
export interface Figure {
  readonly area: string;
  /** Measured values, in display order, e.g. `{ 'vectors tried': 44, 'connections reached': 0 }`. */
  readonly values: Readonly<Record<string, number | string>>;
  /** Names of the values that must be 0. */
  readonly mustBeZero: readonly string[];
}

export const FIGURES_DIR_VARIABLE = 'RELIABILITY_FIGURES_DIR';

/** Prints the figure line and stores it for the report. */
export function recordFigure(file: string, figure: Figure): void {
  const line = Object.entries(figure.values)
    .map(([name, value]) => `${name}: ${value}`)
    .join(' / ');
  console.log(`[reliability] ${figure.area} — ${line}`);
  const dir = process.env[FIGURES_DIR_VARIABLE];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${file}.json`), JSON.stringify(figure));
}

/** Resident set size in MiB, one decimal. */
export function rssMiB(): number {
  return Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
}

/** Used JS heap of this thread in MiB, one decimal. */
export function heapMiB(): number {
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10;
}
