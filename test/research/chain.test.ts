/**
 * Chains that do not name the next page, and answers that name the chain's end: a three-hop chain over
 * pages that do not name each other (plant → blender → repairs page → team → org chart table), and the
 * extractive answer opening with the sentence or table row that resolves the last hop, then the bridges,
 * each cited.
 */
import { describe, expect, it } from 'vitest';
import type { PipelineResult } from '../../src/pipeline/run.ts';
import { CHAIN_PAGES, handmadeWeb, PAGES, type HandmadeWeb, researchOver } from './web.ts';

/**
 * Research over a web where each search reads its best results only (the question's own search its first),
 * so that every page past the first is reached by a hop.
 */
async function research(web: HandmadeWeb, prompt: string): Promise<PipelineResult> {
  return researchOver(web, prompt, { questionResults: 1, entityResults: 2, leadResults: 2 });
}

/** The answer's sentences with the URL each cites. */
function citedSentences(result: PipelineResult): { text: string; url: string }[] {
  return [...result.answer.matchAll(/(.+?)\s\[(\d+)\][.!?]?\s*/gu)].map((m) => ({
    text: m[1]!.trim(),
    url: result.sources[Number(m[2]) - 1]!,
  }));
}

const QUESTION = 'Who leads the team that repairs the blender built at the Lyon plant?';

describe('a chain whose pages do not name each other', () => {
  it('follows three hops: the plant names the blender, a repairs page the team, the org chart its head', async () => {
    const web = handmadeWeb(CHAIN_PAGES);
    const result = await research(web, QUESTION);
    const steps = result.steps ?? [];
    // Each hop searched what the last one found, with what the question still asks.
    expect(steps[1]?.queries.some((q) => q.startsWith('Vortex 300'))).toBe(true);
    expect(steps[2]?.queries.some((q) => q.startsWith('Field Service'))).toBe(true);
    // The org chart is read by the last hop, not by the question's own search.
    expect(steps[0]?.pages).not.toContain(web.urlOf('Org chart'));
    expect(steps.flatMap((step) => step.pages)).toContain(web.urlOf('Org chart'));
    const evidence = result.passages.map((p) => p.text).join('\n');
    expect(evidence).toContain('builds the Vortex 300 blender');
    expect(evidence).toContain('handled by the Field Service team');
    expect(evidence).toContain('Marisol Achebe');
    expect(steps.at(-1)?.stopped).toBe('covered');
  });

  it('opens the extractive answer with the table row that resolves the last hop, then the bridges, each cited', async () => {
    const web = handmadeWeb(CHAIN_PAGES);
    const result = await research(web, QUESTION);
    const sentences = citedSentences(result);
    expect(sentences[0]).toEqual({
      text: 'Team: Field Service; Head: Marisol Achebe; Office: Grenoble',
      url: web.urlOf('Org chart'),
    });
    expect(sentences[1]?.url).toBe(web.urlOf('Lyon plant'));
    expect(sentences[1]?.text).toContain('builds the Vortex 300 blender');
    expect(sentences[2]?.url).toBe(web.urlOf('Repairs and warranty'));
    expect(sentences[2]?.text).toContain('handled by the Field Service team');
  });

  it("opens with the sentence that names the chain's end on a Wikipedia-like bridge", async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, 'Who is the child of the director of Love Affair?');
    const sentences = citedSentences(result);
    expect(sentences[0]?.text).toContain('their only child, Mary McCarey');
    expect(sentences[0]?.url).toBe(web.urlOf('Leo McCarey'));
    expect(sentences[1]?.text).toContain('directed by Leo McCarey');
    expect(sentences[1]?.url).toBe(web.urlOf('Love Affair (1939 film)'));
  });
});
