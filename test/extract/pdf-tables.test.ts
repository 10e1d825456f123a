/**
 * Tables in PDFs (issue 45): a table printed to PDF by Chromium (test/fixtures/pdf-table/price-list.pdf)
 * becomes a Markdown table, so that each row is indexed and quoted with its header like a Markdown or HTML
 * table's; two columns of prose are not taken for a table.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { extractContent } from '../../src/pipeline/extract/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { pdfOfStreams } from '../support/pdf.ts';
import { apiClient, type ApiClient } from '../support/servers.ts';

const FOLDER = fileURLToPath(new URL('../fixtures/pdf-table/', import.meta.url));
const PRICE_LIST = readFileSync(new URL('../fixtures/pdf-table/price-list.pdf', import.meta.url));

describe('PDF tables', () => {
  it('a ruled table becomes a Markdown table under its header; the text keeps one row a line', async () => {
    const content = await extractContent(PRICE_LIST, {
      url: 'https://example.test/price-list.pdf',
      contentType: 'application/pdf',
    });
    expect(content?.markdown).toContain(
      [
        '| Product | Item number | Weight | Price |',
        '|---|---|---|---|',
        '| Kestrel 500 | KS-500 | 2.1 kg | EUR 1,890 |',
        '| Kestrel 50 | KS-050 | 0.6 kg | EUR 640 |',
      ].join('\n'),
    );
    expect(content?.text).toContain('Spare battery\tKS-B500\t0.4 kg\tEUR 149');
    // The prose around the table stays prose.
    expect(content?.markdown).toContain('Prices are in euros and include VAT.');
    expect(content?.markdown).toMatch(/\n\nOrders of more than ten drones get a discount of 8 percent\.$/);
  });

  it('two columns of prose side by side are not a table', async () => {
    const left = [
      'The ingest service reads every file of the shared folder',
      'once an hour and writes what it finds to the index, so',
      'that searches see new documents within the hour.',
    ];
    const right = [
      'Deploys of the web shop run on Tuesdays and Thursdays',
      'after the tests passed, and take about twelve minutes',
      'from the first build step to the last health check.',
    ];
    const stream = [
      'BT /F1 9 Tf',
      ...left.flatMap((line, i) => [
        `1 0 0 1 40 ${700 - i * 12} Tm (${line}) Tj`,
        `1 0 0 1 310 ${700 - i * 12} Tm (${right[i]}) Tj`,
      ]),
      'ET',
    ].join('\n');
    const content = await extractContent(pdfOfStreams([{ data: Buffer.from(stream, 'latin1') }]), {
      url: 'https://example.test/columns.pdf',
      contentType: 'application/pdf',
    });
    expect(content?.markdown).toContain('The ingest service reads every file of the shared folder');
    expect(content?.markdown).not.toContain('|');
  });
});

describe('a question naming a cell of a PDF table, over HTTP', () => {
  let engine: SearchEngine;
  let server: ListeningServer;
  let client: ApiClient;
  beforeAll(async () => {
    engine = createSearchEngine({ corpus: [FOLDER] });
    server = await listenOnLoopback(createServer(createNodeHandler(engine)));
    client = apiClient(server.baseUrl, (await engine.createKey({ credits: 100 })).key);
  });
  afterAll(async () => {
    await Promise.all([server.close(), engine.close()]);
  });

  it('is answered with the row, header kept, citing the PDF', async () => {
    const response = await client.post({ prompt: 'How much does the spare battery cost?' });
    expect(response.status).toBe(200);
    const { answer, sources } = (await response.json()) as { answer: string; sources: string[] };
    expect(answer).toMatch(
      /^Product: Spare battery; Item number: KS-B500; Weight: 0\.4 kg; Price: EUR 149 \[1\]\./,
    );
    expect(answer).not.toMatch(/EUR 640|EUR 1,890/);
    expect(sources[0]).toMatch(/\/price-list\.pdf$/);
  });
});
