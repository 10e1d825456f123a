import { describe, expect, it } from 'vitest';
import { formatReport, runQaBenchmark } from '../../bench/qa/run.ts';
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
    const table = formatReport(report);
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
