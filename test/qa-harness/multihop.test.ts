/**
 * `bench:qa --multihop` on a handmade sample of the multi-hop formats (test/fixtures/datasets/multihop-dev):
 * the loader pools pages per title and keeps each question's supporting sentences; the benchmark asks every
 * question over HTTP at each depth and finds the facts in the prompt the stand-in model received.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatMultihopReport, formatMultihopTrace, runMultihopBenchmark } from '../../bench/qa/multihop.ts';
import { compactText, factsInPrompt, loadMultihop } from '../../bench/qa/multihop-data.ts';

const DATA = fileURLToPath(new URL('../fixtures/datasets/', import.meta.url));

describe('the multi-hop data', () => {
  it('pools one page per title and keeps each question with its supporting facts', () => {
    const data = loadMultihop(DATA);
    expect(data.questions.map((q) => q.benchmark).sort()).toEqual([
      '2wiki',
      'hotpotqa',
      'hotpotqa',
      'musique',
    ]);
    const seattle = data.articles.find((a) => a.title === 'Seattle');
    expect(seattle?.paragraphs).toHaveLength(2);
    const musique = data.questions.find((q) => q.benchmark === 'musique')!;
    // A MuSiQue hop's fact is the sentence of its paragraph that holds the hop's answer.
    expect(musique.facts.map((f) => f.sentences)).toEqual([
      ['Pearl Jam is an American rock band formed in 1990 in Seattle, Washington.'],
      ['Average annual snowfall is 6.8 inches.'],
    ]);
    expect(musique.type).toBe('2hop');
  });

  it('finds a fact in a prompt whatever the punctuation and spacing, and only then', () => {
    const [question] = loadMultihop(DATA).questions;
    const fact = question!.facts[1]!.sentences[0]!;
    expect(
      factsInPrompt(question!.facts, compactText(`[1] ${fact.replaceAll(' ', '  ').replace('.', ' .')}`)),
    ).toEqual([false, true]);
  });
});

describe('runMultihopBenchmark', () => {
  it('asks each question at each depth and reports evidence per benchmark and type', async () => {
    const report = await runMultihopBenchmark({ datasetsDir: DATA, depths: ['standard', 'research'] });
    expect(report.results).toHaveLength(8);
    expect(report.results.every((r) => r.status === 200)).toBe(true);
    const research = report.results.filter((r) => r.depth === 'research');
    expect(research.every((r) => r.searches >= 2 && Array.isArray(r.steps))).toBe(true);
    // Research brings every fact of the handmade bridge into the prompt.
    expect(research.find((r) => r.id === 'hotpotqa:h1')?.evidenceComplete).toBe(true);
    const table = formatMultihopReport(report);
    expect(table).toContain('| **research** · all | 4 |');
    expect(table).toContain('hotpotqa comparison · standard');
    // Research results say, per fact, whether its page was read; the report counts the facts missed by it.
    expect(research.every((r) => r.factPagesRead?.length === r.facts.length)).toBe(true);
    expect(report.results.filter((r) => r.depth === 'standard').every((r) => !r.factPagesRead)).toBe(true);
    expect(table).toContain('| on a page read (not selected) | on a page never read |');
    // The trace shows each incomplete question's facts (a MuSiQue fact with its hop) and research rounds.
    const musique = research.find((r) => r.benchmark === 'musique')!;
    const trace = formatMultihopTrace({ ...report, results: [{ ...musique, evidenceComplete: false }] });
    expect(trace).toContain(`## ${musique.id} (2hop, research)`);
    expect(trace).toMatch(/: Pearl Jam: .* → Seattle/u);
    expect(trace).toMatch(/- round 1: `[^`]+`/u);
    expect(formatMultihopTrace(report)).not.toContain('## hotpotqa:h1 (bridge, research)');
  }, 60_000);
});
