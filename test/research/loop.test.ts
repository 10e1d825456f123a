/**
 * The research loop's decisions on small handmade pages: a bridge, a comparison with a second hop, a
 * three-hop chain, a dead end, a repeated query, pages never read twice, a time budget, and the model
 * planner's plans (used when good; malformed, empty, repeated or failed plans fall back to the rules).
 */
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createModelResearchPlanner } from '../../src/pipeline/research/model-planner.ts';
import { createRulesPlanner } from '../../src/pipeline/research/rules-planner.ts';
import type { ResearchPlanner } from '../../src/pipeline/research/types.ts';
import { runPipeline, type PipelineResult, type PipelineStages } from '../../src/pipeline/run.ts';
import type { PipelineRequest } from '../../src/pipeline/types.ts';
import { generated } from '../answer/helpers.ts';
import { handmadeWeb, PAGES, type HandmadeWeb } from './web.ts';

function request(prompt: string, extra: Partial<PipelineRequest> = {}): PipelineRequest {
  return { prompt, context: [], responseType: 'text', filters: {}, depth: 'research', ...extra };
}

/**
 * The question's own search reads its best result only, so that each page past it is reached by a hop
 * (a lead whose page that search already read needs no search of its own: see stop-rule.test.ts).
 */
const SETTINGS = {
  maxResults: 5,
  maxPassageTokens: 4000,
  pageTimeoutMs: 5000,
  research: { questionResults: 1 },
};

async function research(
  web: HandmadeWeb,
  prompt: string,
  options: { planner?: ResearchPlanner; fetched?: boolean; maxLatencyMs?: number } = {},
): Promise<PipelineResult> {
  const stages: PipelineStages = {
    search: web.search,
    ...(options.fetched ? { fetcher: web.fetcher, extractor: web.extractor } : {}),
    ranker: createBm25Ranker(),
    answerer: createExtractiveAnswerer(),
    ...(options.planner ? { researchPlanner: options.planner } : {}),
  };
  const extra = options.maxLatencyMs === undefined ? {} : { maxLatencyMs: options.maxLatencyMs };
  return runPipeline(request(prompt, extra), stages, SETTINGS, {
    signal: new AbortController().signal,
    requestId: 'research-test',
    deadline: Date.now() + 20_000,
  });
}

/** The text the answerer was given. */
const evidence = (result: PipelineResult) => result.passages.map((p) => p.text).join('\n');

describe('the research loop (model-free)', () => {
  it('follows a bridge: the film page names its director, whose page holds the answer', async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, 'Who is the child of the director of Love Affair?');
    const steps = result.steps ?? [];
    expect(steps[0]?.found.some((f) => f.startsWith('Leo McCarey'))).toBe(true);
    expect(steps[1]?.queries.some((q) => q.startsWith('Leo McCarey'))).toBe(true);
    // Both hops' evidence reach the answerer.
    expect(evidence(result)).toContain('directed by Leo McCarey');
    expect(evidence(result)).toContain('their only child, Mary McCarey');
    expect(result.searches).toBe(web.queries.length);
  });

  it("writes an extractive answer that cites each hop's page", async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, 'Who is the child of the director of Love Affair?');
    expect(result.answer).toContain('directed by Leo McCarey');
    expect(result.answer).toContain('Mary McCarey');
    expect(result.sources).toEqual(
      expect.arrayContaining([web.urlOf('Love Affair (1939 film)'), web.urlOf('Leo McCarey')]),
    );
  });

  it('splits a comparison and follows each side to its director', async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, "Which film's director was born first, Mord Em'ly or Ek Hi Bhool?");
    const first = result.steps?.[0];
    expect(first?.queries).toEqual(expect.arrayContaining(["Mord Em'ly", 'Ek Hi Bhool']));
    const text = evidence(result);
    expect(text).toContain('19 March 1875');
    expect(text).toContain('8 June 1938');
  });

  it('follows a three-hop chain: song → band → city', async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(
      web,
      'What is the average snowfall in the city where the performers of Brother were formed?',
    );
    const text = evidence(result);
    expect(text).toContain('rock band Pearl Jam');
    expect(text).toContain('formed in 1990 in Seattle');
    expect(text).toContain('6.8 inches');
    expect(result.steps?.length).toBeGreaterThanOrEqual(3);
  });

  it('stops at a dead end with what it has, saying why', async () => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, 'Who owns the Zyxwv Quarry?');
    const last = result.steps?.at(-1);
    expect(last?.stopped).toBe('no_leads');
    expect(evidence(result)).toContain('disused quarry');
  });

  it('never searches a query twice nor reads a page twice, whatever the planner proposes', async () => {
    const web = handmadeWeb(PAGES, { fetched: true });
    const repeating: ResearchPlanner = {
      first: async (analysis) => ({
        planner: 'rules',
        found: [],
        queries: [
          { query: analysis.question, thread: 0, kind: 'question', focus: [], results: 5 },
          { query: 'Leo McCarey', thread: 0, kind: 'entity', focus: ['Leo McCarey'], results: 3 },
          { query: 'leo  mccarey', thread: 0, kind: 'entity', focus: ['Leo McCarey'], results: 3 },
        ],
      }),
      next: async () => ({
        planner: 'rules',
        found: [],
        queries: [{ query: 'Leo McCarey', thread: 0, kind: 'lead', focus: ['Leo McCarey'], results: 3 }],
      }),
    };
    const result = await research(web, 'Who is the child of the director of Love Affair?', {
      planner: repeating,
      fetched: true,
    });
    expect(web.queries.filter((q) => q.toLowerCase().replace(/\s+/g, ' ') === 'leo mccarey')).toHaveLength(1);
    expect(new Set(web.fetches).size).toBe(web.fetches.length);
    expect(result.steps?.at(-1)?.stopped).toBe('no_leads');
  });

  it('answers with what it read when the time budget runs out', async () => {
    const web = handmadeWeb(PAGES);
    const rules = createRulesPlanner(SETTINGS.research);
    const slow: ResearchPlanner = {
      first: (analysis, signal) => rules.first(analysis, signal),
      next: async (state, signal) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        return rules.next(state, signal);
      },
    };
    const result = await research(web, 'Who is the child of the director of Love Affair?', {
      planner: slow,
      maxLatencyMs: 50,
    });
    expect(result.steps?.at(-1)?.stopped).toBe('time_limit');
    expect(result.answer.length).toBeGreaterThan(0);
  });
});

describe('the model planner', () => {
  const modelReplying = (...replies: (string | Error)[]) => {
    let call = 0;
    return new MockLanguageModelV4({
      doGenerate: async () => {
        const reply = replies[Math.min(call++, replies.length - 1)]!;
        if (reply instanceof Error) throw reply;
        return generated(reply);
      },
    });
  };
  const plannerWith = (model: MockLanguageModelV4) =>
    createModelResearchPlanner({
      model,
      fallback: createRulesPlanner(SETTINGS.research),
      settings: SETTINGS.research,
    });

  it("plans the rounds with the model's queries when they are good", async () => {
    const web = handmadeWeb(PAGES);
    const model = modelReplying(
      '{"queries": ["Love Affair 1939 film director"]}',
      '{"queries": ["Leo McCarey children"]}',
      '{"queries": [], "done": true}',
    );
    const result = await research(web, 'Who is the child of the director of Love Affair?', {
      planner: plannerWith(model),
    });
    const steps = result.steps ?? [];
    expect(steps.map((s) => s.planner)).toEqual(['model', 'model']);
    expect(steps[1]?.queries).toEqual(['Leo McCarey children']);
    expect(steps.at(-1)?.stopped).toBe('covered');
    expect(evidence(result)).toContain('Mary McCarey');
  });

  it.each([
    ['malformed', 'The director was Leo McCarey.'],
    ['empty', '{"queries": []}'],
    ['failed', new Error('model down')],
  ])('falls back to the rules when the plan is %s, and says so in the step', async (reason, reply) => {
    const web = handmadeWeb(PAGES);
    const result = await research(web, 'Who is the child of the director of Love Affair?', {
      planner: plannerWith(modelReplying(reply)),
    });
    const steps = result.steps ?? [];
    expect(steps[0]).toMatchObject({ planner: 'rules', fallback: reason });
    // The rules still find the second hop.
    expect(evidence(result)).toContain('Mary McCarey');
  });

  it('falls back when the model only repeats queries already searched', async () => {
    const web = handmadeWeb(PAGES);
    const question = 'Who is the child of the director of Love Affair?';
    const result = await research(web, question, {
      planner: plannerWith(
        modelReplying('{"queries": ["Love Affair"]}', `{"queries": ["Love Affair", "${question}"]}`),
      ),
    });
    expect(result.steps?.[1]).toMatchObject({ planner: 'rules', fallback: 'repeated' });
  });
});
