/**
 * The research guide's first example, run as written: `citewise serve` of this checkout on its default
 * corpus (the built-in manual), the guide's curl request, and the answer, sources, steps and charge the guide
 * shows. The guide's answer is quoted with "…" where it leaves text out: each piece between them must stand
 * in the real answer, in order. The test fails when the guide and the service stop agreeing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { REPO_ROOT } from '../support/manual.ts';

const GUIDE = readFileSync(path.join(REPO_ROOT, 'docs/guides/research.md'), 'utf8');
const block = (lang: string) => new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(GUIDE)?.[1] ?? '';

interface Shown {
  answer: string;
  sources: string[];
  steps: { hop: number; planner: string; queries: string[]; stopped?: string }[];
  usage: { credits_charged: number };
}

const folder = mkdtempSync(path.join(tmpdir(), 'citewise-research-guide-'));
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--data-dir', folder]);
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe("the research guide's example on the default corpus", () => {
  it('answers, cites, steps and charges as the guide shows', { timeout: 60_000 }, async () => {
    const shown = JSON.parse(block('json')) as Shown;
    const body = /-d '(\{.*\})'/.exec(block('sh'))?.[1];
    expect(body, 'the guide shows a curl request with a JSON body').toBeDefined();

    const response = await fetch(`${serve.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.firstKey()!}`, 'content-type': 'application/json' },
      body: body!,
    });
    expect(response.status).toBe(200);
    const real = (await response.json()) as Shown;

    // Each quoted piece of the answer, in the guide's order.
    let from = 0;
    for (const piece of shown.answer.split('…').map((text) => text.trim().replace(/^[,.]\s*/, ''))) {
      if (piece.length < 3) continue;
      const at = real.answer.indexOf(piece, from);
      expect(at, `"${piece}" in ${real.answer}`).toBeGreaterThanOrEqual(0);
      from = at + piece.length;
    }
    const local = (url: string) => new URL(url).pathname;
    expect(real.sources.map(local)).toEqual(shown.sources.map(local));
    expect(
      real.steps.map(({ hop, planner, queries, stopped }) => ({ hop, planner, queries, stopped })),
    ).toEqual(shown.steps.map(({ hop, planner, queries, stopped }) => ({ hop, planner, queries, stopped })));
    expect(real.usage.credits_charged).toBe(shown.usage.credits_charged);
  });
});
