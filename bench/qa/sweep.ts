/**
 * bench:qa's concurrency sweep (`--concurrency 1,4,8,16`): one run per level, each on a fresh engine and a
 * fresh local web, then one table and one plot of p50 / p95 latency against answer-in-context per level.
 */
import { percentile } from './metrics.ts';
import { plotLatencyQuality, type PlotPoint } from './plot.ts';
import type { QaBenchmarkReport } from './run.ts';

/** The figures of one level of the sweep. */
export interface SweepRow {
  readonly concurrency: number;
  readonly answerInContext: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly cpuMsPerSearch: number;
  readonly peakHostRequestsPerSecond: number;
  readonly peakHostInFlight: number;
  readonly pageRequests: number;
  readonly wallSeconds: number;
}

/** Parses `--concurrency`: one level (`4`) or a list (`1,4,8,16`), each a positive integer. */
export function parseConcurrencyLevels(text: string): number[] {
  const levels = text.split(',').map((part) => Number(part.trim()));
  if (levels.length === 0 || !levels.every((level) => Number.isInteger(level) && level >= 1))
    throw new RangeError(`--concurrency must be a positive integer or a list like 1,4,8,16, got "${text}"`);
  return levels;
}

/** The row of one run. */
export function sweepRow(report: QaBenchmarkReport): SweepRow {
  const totals = report.results
    .map((r) => r.timings['client_total'] ?? Number.NaN)
    .filter((v) => !Number.isNaN(v));
  return {
    concurrency: report.options.concurrency,
    answerInContext: report.results.filter((r) => r.answerInPassages).length / report.results.length,
    p50Ms: percentile(totals, 50),
    p95Ms: percentile(totals, 95),
    cpuMsPerSearch: report.cpu[0]?.msPerSearch ?? Number.NaN,
    peakHostRequestsPerSecond: report.traffic.peakHostRequestsPerSecond,
    peakHostInFlight: report.traffic.peakHostInFlight,
    pageRequests: report.traffic.pageRequests,
    wallSeconds: report.wallSeconds,
  };
}

/** The sweep as one Markdown table. */
export function formatSweep(rows: readonly SweepRow[]): string {
  return [
    '| searches in flight | answer in context | p50 / p95 (ms, client) | CPU per search (ms) | peak requests to one host in 1 s | peak in flight to one host | page requests | wall time |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.concurrency} | **${row.answerInContext.toFixed(3)}** | **${row.p50Ms.toFixed(0)} / ${row.p95Ms.toFixed(0)}** | ${row.cpuMsPerSearch.toFixed(1)} | ${row.peakHostRequestsPerSecond} | ${row.peakHostInFlight} | ${row.pageRequests} | ${row.wallSeconds.toFixed(0)} s |`,
    ),
  ].join('\n');
}

/** The sweep as a plot: p50 and p95 against answer-in-context, one labelled point per level. */
export function plotSweep(rows: readonly SweepRow[], title: string): Buffer {
  const points: PlotPoint[] = rows.map((row) => ({
    label: `${row.concurrency} IN FLIGHT`,
    p50Ms: row.p50Ms,
    p95Ms: row.p95Ms,
    answerInContext: row.answerInContext,
  }));
  return plotLatencyQuality(points, { p50Ms: 1200, p95Ms: 2500, answerInContext: 0.95 }, title);
}
