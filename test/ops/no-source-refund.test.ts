/**
 * A search that found no source at all is not charged: its credits are refunded and the answer says that
 * nothing relevant was found (JSON and streamed, through every adapter).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSearchEngine } from '../../src/engine/index.ts';
import { ADAPTERS, apiClient, closedAfterEachTest } from '../support/servers.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const NOTHING = 'zqxv frobnicated wibblequux';

const running = closedAfterEachTest();

for (const [adapterName, startAdapter] of Object.entries(ADAPTERS)) {
  describe(`no source, no charge via ${adapterName}`, () => {
    async function start() {
      const engine = createSearchEngine({ corpus: [CORPUS] });
      const { key } = await engine.createKey({ credits: 10 });
      const server = await startAdapter(engine);
      running.push({ engine, server });
      return { ...apiClient(server.baseUrl, key) };
    }

    it('refunds a search that found nothing, and charges one that found its source', async () => {
      const { post, balance } = await start();
      const empty = await post({ prompt: NOTHING, include: ['usage'] });
      expect(empty.status).toBe(200);
      const body = (await empty.json()) as { answer: string; sources: string[]; usage: object };
      expect(body.sources).toEqual([]);
      expect(body.answer).toMatch(/sources do not contain an answer/);
      expect(body.usage).toEqual({ credits_charged: 0, credits_remaining: 10 });
      expect(await balance()).toBe(10);

      const found = await post({ prompt: 'How tall is Mount Etna?' });
      expect(((await found.json()) as { sources: string[] }).sources).toHaveLength(1);
      expect(await balance()).toBe(9);
    });

    it('refunds a streamed search that found nothing', async () => {
      const { post, balance } = await start();
      const response = await post({ prompt: NOTHING, stream: true });
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('event: done');
      expect(text).toContain('"sources":[]');
      expect(await balance()).toBe(10);
    });
  });
}
