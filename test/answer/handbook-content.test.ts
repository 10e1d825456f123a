/**
 * Answers from the documents people have (issue 45): tables, code blocks, sentences that say "it", words
 * that differ, and CSV and Word files. Asked over HTTP of an engine answering from test/fixtures/handbook/
 * (and test/fixtures/office/), with the default extractive answerer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { buildIndex, IndexStore, indexFilePath } from '../../src/index-builder/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { apiClient, type ApiClient } from '../support/servers.ts';

const HANDBOOK = fileURLToPath(new URL('../fixtures/handbook/', import.meta.url));
const OFFICE = fileURLToPath(new URL('../fixtures/office/', import.meta.url));

const running: { engine: SearchEngine; server: ListeningServer }[] = [];

async function serve(corpus: string[], options: { synonymWeight?: number } = {}): Promise<ApiClient> {
  const engine = createSearchEngine({
    corpus,
    ...(options.synonymWeight === undefined
      ? {}
      : { answerer: createExtractiveAnswerer({ synonymWeight: options.synonymWeight }) }),
  });
  const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
  const { key } = await engine.createKey({ credits: 1_000 });
  running.push({ engine, server });
  return apiClient(server.baseUrl, key);
}

let handbook: ApiClient;
let office: ApiClient;

beforeAll(async () => {
  handbook = await serve([HANDBOOK]);
  office = await serve([OFFICE]);
});

afterAll(async () => {
  for (const { engine, server } of running) await Promise.all([server.close(), engine.close()]);
});

async function ask(client: ApiClient, prompt: string, responseType?: 'text' | 'markdown') {
  const response = await client.post({ prompt, ...(responseType ? { response_type: responseType } : {}) });
  expect(response.status).toBe(200);
  return (await response.json()) as { answer: string; sources: string[] };
}

describe('tables are content', () => {
  it('a question naming a cell is answered with its row, header kept, and cites the table', async () => {
    const { answer, sources } = await ask(handbook, 'Which office does Tomasz Wren work in?');
    expect(answer).toContain(
      'Role: Chief Financial Officer; Name: Tomasz Wren; Team: Finance; Office: Gdańsk [1].',
    );
    expect(sources[0]).toMatch(/\/org-chart\.md$/);
    expect(answer).not.toMatch(/Zurich|Lisbon/);
  });

  it('the row whose cell the question names whole, not a row that only contains its words', async () => {
    const { answer } = await ask(handbook, 'What is the item number of the Kestrel 50?');
    expect(answer).toContain('Product: Kestrel 50; Item number: KS-050');
    expect(answer).not.toMatch(/KS-500|KS-B500/);
  });

  it('the next hop through a table: the team a page names, then its head in the org chart', async () => {
    const { answer, sources } = await ask(handbook, 'Who leads the team that handles warranty claims?');
    expect(answer).toMatch(/^Aftercare handles warranty claims/);
    expect(answer).toContain(
      'Role: Head of Aftercare; Name: Inês Carvalho; Team: Aftercare; Office: Lisbon [2].',
    );
    expect(sources).toEqual([
      expect.stringMatching(/\/teams\.md$/),
      expect.stringMatching(/\/org-chart\.md$/),
    ]);
    expect(answer).not.toMatch(/Mateusz Kowal|Rui Sampaio/);
  });

  it('an HTML table keeps every cell, times and "Email" included', async () => {
    const { answer, sources } = await ask(handbook, 'What are the phone support hours?');
    expect(answer).toContain('Channel: Phone; Hours: Monday to Friday, 8:00 to 18:00; Reply within: at once');
    expect(sources[0]).toMatch(/\/support\.html$/);
  });
});

describe('code is content', () => {
  it('"how do I" is answered with the command verbatim, in a code span, with the sentence leading into it', async () => {
    const { answer } = await ask(handbook, 'How do I restart the ingest service?', 'markdown');
    expect(answer.split(' [1].')[0]).toBe(
      'If the dashboard shows an ingest lag above five minutes, restart the service on the ingest host: `sudo systemctl restart harbour-ingest`',
    );
  });

  it('a <pre> block of an HTML page too, without backticks in a text answer', async () => {
    const { answer } = await ask(handbook, 'How do I look up the warranty of a serial number?', 'text');
    expect(answer).toContain('run the support tool: harbour-support warranty --serial KS5-2026-00417 [1].');
  });
});

describe('sentences keep their subject', () => {
  it('"It weighs…" comes with the sentence naming the Kestrel 500, and the Kestrel 50\'s never follows', async () => {
    const { answer } = await ask(handbook, 'How much does the Kestrel 500 weigh?');
    expect(answer).toMatch(
      /^The Kestrel 500 is our survey drone for farms and building sites\. It weighs 2\.1 kg and flies for 42 minutes/,
    );
    expect(answer).not.toContain('0.6 kg');
  });

  it('"It also approves…" says which team approves', async () => {
    const { answer } = await ask(handbook, 'Who approves purchases above EUR 5,000?');
    expect(answer).toMatch(
      /Finance pays suppliers[^[]*\. It also approves any purchase above EUR 5,000 \[1\]/,
    );
  });
});

describe('words that differ', () => {
  it('"cost" finds the row under "Price" (WordNet synonyms, weighted below the exact word)', async () => {
    const { answer } = await ask(handbook, 'How much does the Kestrel 500 cost?');
    expect(answer).toMatch(
      /^Product: Kestrel 500; Item number: KS-500; Price: EUR 1,249; Warranty: 2 years \[1\]\./,
    );
    expect(answer).not.toMatch(/EUR 1,690|EUR 449|EUR 119/);
  });

  it('without synonyms the same question quotes a sentence that says "costs" about something else', async () => {
    const client = await serve([HANDBOOK], { synonymWeight: 0 });
    const { answer } = await ask(client, 'How much does the Kestrel 500 cost?');
    expect(answer).not.toMatch(/^Product: Kestrel 500;/);
  });
});

describe('office formats', () => {
  it('a CSV row is a table row, quoted with the header line', async () => {
    const { answer, sources } = await ask(handbook, 'Who is primary on call in week 49?');
    expect(answer).toContain('Week: 49; Starts: 2026-11-30; Primary: Ada Nowak; Secondary: Piotr Lis [1].');
    expect(sources[0]).toMatch(/\/on-call\.csv$/);
    expect((await fetch(sources[0]!)).headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rooms = await ask(office, 'How many seats does the Dry dock room have?');
    expect(rooms.answer).toContain('Room: Dry dock; Floor: 1; Seats: 30; Screen: yes, two');
  });

  it('a Word document is read with its table', async () => {
    const { answer, sources } = await ask(office, 'Where is the Renault Kangoo parked?');
    expect(answer).toContain('Car: Renault Kangoo; Plate: ZH 902 118; Parking space: P1-03');
    expect(sources[0]).toMatch(/\/company-cars\.docx$/);
    // The cited document is served, as every cited corpus file is.
    const served = await fetch(sources[0]!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/wordprocessingml/);
  });

  it('citewise index stores CSV and DOCX files as Markdown tables', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'citewise-office-'));
    try {
      const store = await IndexStore.open(indexFilePath(dir));
      const summary = await buildIndex({ store, sources: [OFFICE] });
      expect(summary).toMatchObject({ added: 2 });
      const docx = await store.index.get(pathToFileURL(join(OFFICE, 'company-cars.docx')).href);
      expect(docx?.content).toContain('| Renault Kangoo | ZH 902 118 | P1-03 |');
      const cars = await store.index.search('Kangoo parking space', { limit: 1 });
      expect(cars[0]?.url).toMatch(/company-cars\.docx$/);
      const rooms = await store.index.search('Lighthouse seats', { limit: 1 });
      expect(rooms[0]?.url).toMatch(/meeting-rooms\.csv$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
