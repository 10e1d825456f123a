/**
 * Leads are things: names, titles, terms and table cells' values, never markup, a table header, a code
 * token, an environment variable or a flag. Tables give their cells as leads with their column; code blocks
 * and code spans give none; no research query over the manual fixture or the handbook fixture holds any of
 * those; and research answers the handbook's two-page questions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { findLeads, type LeadSource } from '../../src/pipeline/research/leads.ts';
import { analyzeQuestion, relationVocabulary } from '../../src/pipeline/research/question.ts';
import { isThing } from '../../src/pipeline/research/units.ts';
import { parseMarkdownBlocks, tableRowCells } from '../../src/text/markdown.ts';

const source = (title: string, markdown: string): LeadSource => ({
  url: `https://docs.test/${encodeURIComponent(title)}`,
  title,
  text: markdown,
  markdown,
  weight: 1,
});

const leadsFor = (question: string, sources: LeadSource[], focus: string[] = []) =>
  findLeads(sources, {
    focus,
    vocabulary: relationVocabulary(analyzeQuestion(question).relations),
    known: () => false,
  });

/** Markup, a code token, an environment variable or a flag: what no lead and no research query holds. */
const NOT_A_THING =
  /[`*|#$<>{}[\]=\\]|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|(?:^|\s)--?[a-z]|\b[a-z]+\.[a-z]+\(|_/u;

describe('leads', () => {
  it("gives a table's cells as leads, each with its column, and never a header", () => {
    const orgChart = source(
      'Org chart',
      [
        '# Org chart',
        '',
        'Each team has one head.',
        '',
        '| Team | Head | Office |',
        '|---|---|---|',
        '| Field Service | Marisol Achebe | Lyon |',
        '| Sales | Dana Whitfield | Basel |',
      ].join('\n'),
    );
    const leads = leadsFor('Who heads the team that handles warranty claims?', [orgChart], ['Field Service']);
    expect(leads[0]).toMatchObject({ name: 'Marisol Achebe', column: 'Head' });
    expect(leads[0]?.sentence).toBe('Team: Field Service; Head: Marisol Achebe; Office: Lyon');
    const names = leads.map((lead) => lead.name);
    expect(names).toEqual(expect.arrayContaining(['Dana Whitfield', 'Basel']));
    for (const header of ['Team', 'Head', 'Office']) expect(names).not.toContain(header);
  });

  it('reads the names in a cell that describes, not the cell', () => {
    const settings = source(
      'Settings',
      [
        '| Flag | Meaning |',
        '|---|---|',
        '| `--store URL` | Where keys live: SQLite by default, or PostgreSQL |',
        '| `--data-dir DIR` | Directory of the SQLite database |',
      ].join('\n'),
    );
    const names = leadsFor('Where do the keys live?', [settings]).map((lead) => lead.name);
    expect(names).toEqual(expect.arrayContaining(['PostgreSQL', 'SQLite']));
    expect(names).not.toContain('Directory of the SQLite');
    expect(names.filter((name) => NOT_A_THING.test(name))).toEqual([]);
  });

  it('quotes a row in an answer with its code, though its leads hold none', () => {
    const orgChart = source(
      'Org chart',
      [
        '| Team | Head | Pager |',
        '|---|---|---|',
        '| Field Service | Marisol Achebe | `pager-4410` (see `oncall.md`) |',
      ].join('\n'),
    );
    const leads = leadsFor('Who heads the team that handles warranty claims?', [orgChart], ['Field Service']);
    expect(leads[0]).toMatchObject({ name: 'Marisol Achebe', column: 'Head' });
    for (const lead of leads) expect(lead.name).not.toMatch(NOT_A_THING);
    // What an answer quotes of the row: every cell, its code as written, no dash where the code was.
    expect(leads[0]?.quote).toBe(
      'Team: Field Service; Head: Marisol Achebe; Pager: pager-4410 (see oncall.md)',
    );
  });

  it('takes no lead from code: code blocks, code spans, environment variables, flags', () => {
    const page = source(
      'Running the service',
      [
        '# Running the service',
        '',
        'Start the service with `citewise serve --port 9000` and keep its keys in PostgreSQL, run by Redis Labs.',
        'The port comes from `CITEWISE_PORT` or from CITEWISE_HOST_PORT, set with --port; call `engine.search()` to ask.',
        'The `Content-Type` header and README.md are read by Node.js.',
        '',
        '```sh',
        'curl -H \'Content-Type: application/json\' -H "Authorization: Bearer $KEY" localhost:8787/v1/search',
        'CITEWISE_JOB_WORKERS=2 npx citewise serve --store postgres://localhost/db',
        '```',
        '',
        '| Flag | Environment variable | Default |',
        '|---|---|---|',
        '| `--port N` | `CITEWISE_PORT` | `8787` |',
      ].join('\n'),
    );
    const names = leadsFor('Which port does the service run on, and who runs its store?', [page]).map(
      (lead) => lead.name,
    );
    expect(names).toEqual(expect.arrayContaining(['PostgreSQL', 'Redis Labs', 'Node.js']));
    expect(names.filter((name) => NOT_A_THING.test(name) || !isThing(name))).toEqual([]);
    for (const name of ['Content-Type', 'Authorization', 'Bearer', 'H', 'README.md', 'Flag', 'Default'])
      expect(names).not.toContain(name);
  });

  it.each([
    ['Marisol Achebe', true],
    ['Head of Field Service', true],
    ['U.S. Route 66', true],
    ['Node.js', true],
    ['CITEWISE_PORT', false],
    ['--research-max-hops', false],
    ['engine.search()', false],
    ['README.md', false],
    ['Olympia Brewing *Company', false],
    ['Authorization: Bearer $KEY', false],
    ['Flag | Default', false],
  ])('isThing(%j) is %s', (name, expected) => {
    expect(isThing(name)).toBe(expected);
  });
});

const MANUAL = join(import.meta.dirname, '../fixtures/corpus/manual');

/** The header cells of every table of a corpus folder. */
function tableHeaders(folder: string): Set<string> {
  const headers = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.md'))) {
    for (const block of parseMarkdownBlocks(readFileSync(join(folder, file), 'utf8'))) {
      if (block.kind !== 'table') continue;
      for (const cell of tableRowCells(block.text.split('\n')[0] ?? '') ?? []) headers.add(cell.trim());
    }
  }
  return headers;
}

/** Research questions of the kind people ask a manual: two-part, how-to, and one it cannot answer. */
const MANUAL_QUESTIONS = [
  'Which environment variable sets the port, and what is its default?',
  'How do I revoke an API key, and what happens to its credits?',
  'Which status code does a search get when the rate limit is hit, and when can it try again?',
  'Where are the API keys stored, and how do I back them up?',
  'How are credits charged for a search, and how do I add more?',
  'Which flag changes the corpus folders of the service?',
];

const HANDBOOK = join(import.meta.dirname, '../fixtures/handbook');

interface HandbookQuestion {
  readonly question: string;
  readonly answer: readonly string[];
  readonly pages: readonly string[];
  readonly twoPage?: boolean;
}
const HANDBOOK_QUESTIONS = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/handbook-questions.json'), 'utf8')) as {
    questions: HandbookQuestion[];
  }
).questions;

describe('research queries over the manual', () => {
  const engines: SearchEngine[] = [];
  afterAll(async () => {
    for (const engine of engines) await engine.close();
  });

  it.each([
    ['the manual', MANUAL, MANUAL_QUESTIONS],
    ['the handbook', HANDBOOK, HANDBOOK_QUESTIONS.map((q) => q.question)],
  ])(
    'over %s hold no markup, table header, code token or environment variable',
    async (_name, folder, questions) => {
      const engine = createSearchEngine({ corpus: [folder], rateLimiter: false });
      engines.push(engine);
      const { key } = await engine.createKey({ credits: 10_000 });
      const headers = tableHeaders(folder);
      expect(headers.size).toBeGreaterThan(3);
      const followed: string[] = [];
      const leadPart = (query: string, prompt: string) => {
        const asked = new Set(prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
        return query
          .split(/\s+/u)
          .filter((word) => !asked.has(word.toLowerCase()))
          .join(' ');
      };
      for (const prompt of questions) {
        const result = await engine.search(
          { prompt, depth: 'research', include: ['steps'], response_type: 'text' },
          { apiKey: key },
        );
        const steps = result.steps ?? [];
        expect(steps.length).toBeGreaterThan(0);
        for (const query of steps.flatMap((step) => step.queries)) {
          if (query === prompt) continue;
          followed.push(query);
          expect(query, prompt).not.toMatch(NOT_A_THING);
          expect(headers.has(leadPart(query, prompt)), query).toBe(false);
        }
      }
      // Not vacuous: research searched more than the questions themselves.
      expect(followed.length).toBeGreaterThan(0);
    },
  );

  it("answers the handbook's two-page questions, citing both pages", async () => {
    const engine = createSearchEngine({ corpus: [HANDBOOK], rateLimiter: false });
    engines.push(engine);
    const { key } = await engine.createKey({ credits: 1_000 });
    const twoPage = HANDBOOK_QUESTIONS.filter((q) => q.twoPage);
    expect(twoPage.length).toBeGreaterThanOrEqual(3);
    for (const { question, answer, pages } of twoPage) {
      const result = await engine.search(
        { prompt: question, depth: 'research', response_type: 'text' },
        { apiKey: key },
      );
      expect(
        answer.some((gold) => result.answer.includes(gold)),
        `${question} → ${result.answer}`,
      ).toBe(true);
      for (const page of pages)
        expect(
          result.sources.some((url) => url.endsWith(`/${page}`)),
          page,
        ).toBe(true);
    }
  });
});
