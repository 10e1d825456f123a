/**
 * The typed client when the service cannot be reached: every call throws its own
 * `CitewiseConnectionError` (code `connection_failed`, retryable), not fetch's bare `TypeError`.
 */
import { describe, expect, it } from 'vitest';
import { CitewiseConnectionError, createClient, describeSearchFailure } from '../../src/client/index.ts';
import { freePort } from '../multi-instance/servers.ts';

describe('client against a closed port', () => {
  it('search, searchStream and balance throw CitewiseConnectionError', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}`;
    const client = createClient({ baseUrl, apiKey: 'cw_whatever' });
    for (const call of [
      () => client.search({ prompt: 'anything' }),
      () => client.searchStream({ prompt: 'anything' }),
      () => client.balance(),
    ]) {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(CitewiseConnectionError);
      expect(error).toMatchObject({
        code: 'connection_failed',
        url: baseUrl,
        retryable: true,
        description: `Could not reach the citewise service at ${baseUrl}: ECONNREFUSED`,
      });
      // What an agent tool (MCP, AI SDK) tells the model.
      expect(describeSearchFailure(error)).toBe(
        `web search failed: Could not reach the citewise service at ${baseUrl}: ECONNREFUSED.`,
      );
    }
  });

  it("the caller's own abort stays an AbortError", async () => {
    const client = createClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'k' });
    const controller = new AbortController();
    controller.abort();
    await expect(client.balance({ signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
