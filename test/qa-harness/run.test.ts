import { describe, expect, it } from 'vitest';
import { formatReport, runQaBenchmark } from '../../bench/qa/run.ts';
import { formatSweep, parseConcurrencyLevels, plotSweep, sweepRow } from '../../bench/qa/sweep.ts';
import { FIXTURE_DATASETS } from './datasets.ts';

describe('bench:qa harness end to end (3 articles, real engine over HTTP)', () => {
  it('runs questions through POST /v1/search and measures every stage', async () => {
    const report = await runQaBenchmark({
      datasetsDir: FIXTURE_DATASETS,
      titles: ['Super_Bowl_50', 'Warsaw', 'Normans'],
      sample: 6,
      concurrency: 2,
      k: 2,
      maxTokens: 250,
      modelBaseUrl: 'fake',
    });
    expect(report.articles).toBe(3);
    expect(report.results).toHaveLength(6);
    for (const result of report.results) {
      expect(result.status).toBe(200);
      expect(result.goldSearchRank === null || result.goldSearchRank >= 1).toBe(true);
      // The passages were observed: their size is within the budget (plus blank-line separators).
      expect(result.passageTokens).toBeGreaterThan(0);
      expect(result.passageTokens).toBeLessThanOrEqual(260);
      expect(result.wholePageTokens).toBeGreaterThan(result.passageTokens);
      expect(result.timings.rank).toBeGreaterThanOrEqual(0);
      expect(result.timings.search).toBeGreaterThanOrEqual(0);
      // The benchmark asks for citations: every 200 carries the grounding check's counts.
      expect(result.grounding).not.toBeNull();
      expect(['full', 'partial', 'none']).toContain(result.grounding!.level);
      expect(result.grounding!.verified).toBeLessThanOrEqual(result.grounding!.citations);
    }
    // With only three articles the gold page is almost always fetched.
    expect(report.results.filter((r) => r.goldInDocs).length).toBeGreaterThanOrEqual(4);
    if (report.mode === 'extractive') {
      expect(report.notes.join(' ')).toMatch(/Model mode skipped/);
    } else {
      // The fake server recorded one prompt per question, holding the selected passages.
      for (const result of report.results) {
        expect(result.promptTokens).toBeGreaterThan(result.passageTokens);
        expect(typeof result.answerInPrompt).toBe('boolean');
      }
    }
    // The engine's process CPU time per search, and the load the web saw (it runs in another process).
    expect(report.cpu).toHaveLength(1);
    expect(report.cpu[0]!.msPerSearch).toBeGreaterThan(0);
    expect(report.traffic.pageRequests).toBeGreaterThan(0);
    expect(report.traffic.peakHostInFlight).toBeGreaterThanOrEqual(1);
    expect(report.traffic.maxFetchesOfOnePage).toBeGreaterThanOrEqual(1);
    const table = formatReport(report);
    expect(table).toMatch(/^CPU time per search .*: \d+\.\d ms \(pass 1/m);
    expect(table).toMatch(
      /^Politeness \(first pass, 1 host reached\): at the peak \d+ requests in one second/m,
    );
    expect(table).toContain('| **answer in context**');
    expect(table).toContain('| whole pages (top 2) |');
    expect(table).toMatch(
      /\| citations verified against their page \(\d+ citations\) \| (\d\.\d{3}|n\/a) \|/,
    );
    expect(table).toMatch(
      /\| answers with grounding full \/ partial \/ none \(\d+ answers with sources\) \| (\d\.\d{3}|n\/a) \/ (\d\.\d{3}|n\/a) \/ (\d\.\d{3}|n\/a) \|/,
    );
  });
});

describe('bench:qa concurrency sweep and hosts', () => {
  it('spreads the pages over N hosts, asks the sample twice with --passes 2, and tabulates and plots a sweep', async () => {
    const report = await runQaBenchmark({
      datasetsDir: FIXTURE_DATASETS,
      titles: ['Super_Bowl_50', 'Warsaw', 'Normans'],
      sample: 3,
      concurrency: 1,
      passes: 2,
      hosts: 2,
      realWeb: { medianMs: 1, sigma: 0, hangShare: 0 },
    });
    expect(report.results).toHaveLength(3);
    expect(report.cpu).toHaveLength(2);
    expect(report.traffic.hosts).toBeLessThanOrEqual(2);
    expect(formatReport(report)).toContain('real-web pages (2 hosts,');
    const rows = [sweepRow(report), { ...sweepRow(report), concurrency: 4 }];
    expect(formatSweep(rows)).toMatch(/^\| 4 \| \*\*\d\.\d{3}\*\* \| \*\*\d+ \/ \d+\*\* \|/m);
    expect(plotSweep(rows, 'SWEEP').subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(parseConcurrencyLevels('1,4,8,16')).toEqual([1, 4, 8, 16]);
    expect(() => parseConcurrencyLevels('1,x')).toThrow(RangeError);
  });
});
