/**
 * `serve` reads its corpus folders (and opens the document index) before it says `ready`, not in the first
 * search: that search is as quick as the next ones. Seen from outside: a corpus folder moved away once
 * `serve` is ready is still answered from, as it was read.
 */
import { cpSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { apiClient } from '../support/servers.ts';

const HANDBOOK = fileURLToPath(new URL('../fixtures/handbook/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'citewise-read-first-'));
let server: ServeProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('reads the corpus folders before it is ready', { timeout: 120_000 }, async () => {
  const corpus = join(dir, 'handbook');
  cpSync(HANDBOOK, corpus, { recursive: true });
  server = await startServe(['--data-dir', join(dir, 'data'), '--corpus', corpus]);
  renameSync(corpus, join(dir, 'moved'));
  const created = await runCli(['keys', 'create', '--data-dir', server.dataDir]);
  const client = apiClient(server.baseUrl, created.stdout.trim().split('\n').at(-1)!.trim());
  const response = await client.post({ prompt: 'What is the Wi-Fi password?' });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { answer: string; sources: string[] };
  expect(body.answer).toContain('`tide-pool-42`');
  expect(body.sources).toEqual([expect.stringMatching(/office\.md$/)]);
});
