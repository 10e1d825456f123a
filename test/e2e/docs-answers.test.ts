/**
 * The manual in docs/ is the default corpus: a `citewise serve` with embedded defaults (no search key, no
 * model, no --corpus) answers questions about itself from the right page, over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { apiClient, type ApiClient } from '../support/servers.ts';

interface SearchBody {
  answer: string;
  sources: string[];
}

describe('the default service answers from its manual (docs/)', () => {
  let dataDir: string;
  let server: ServeProcess;
  let client: ApiClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'citewise-docs-'));
    server = await startServe(['--data-dir', dataDir]);
    // A key of its own, so the test does not depend on how the first-start key is shown.
    const created = await runCli(['keys', 'create', '--data-dir', dataDir]);
    expect(created.code).toBe(0);
    client = apiClient(server.baseUrl, created.stdout.trim().split('\n').at(-1)!.trim());
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Sources are `<origin>/docs/<path>` URLs the service itself serves, never server file paths.
  it.each([
    ['How do I use Brave search?', '/guides/search-providers.md'],
    ['How do I run several instances?', '/guides/several-instances.md'],
    ['How do I create an API key?', '/getting-started/service.md'],
  ])('%s → cites docs%s', async (prompt, page) => {
    const response = await client.post({ prompt, response_type: 'text' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as SearchBody;
    expect(body.answer).toMatch(/\[1\]/);
    expect(body.sources.some((url) => url.endsWith(`/docs${page}`))).toBe(true);
    for (const url of body.sources) expect(url.startsWith(`${server.baseUrl}/docs/`), url).toBe(true);
  });
});
