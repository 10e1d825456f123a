/**
 * `citewise serve`'s webhook allow-list is its own: `--allow-private-hosts` opens a private host to the page
 * fetcher, never to a tenant's webhook; `--allow-webhook-hosts` opens it to webhooks. Real `serve`
 * processes, a webhook receiver on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';
import { researchClient } from './support.ts';

const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `serve` on a fresh data dir with the webhook secret in its environment, and a client with its first key. */
async function serveWith(args: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'citewise-webhook-hosts-'));
  closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const serve = await startServe(['--data-dir', dataDir, '--no-console', ...args], {
    CITEWISE_WEBHOOK_SECRET: SECRET,
  });
  closers.push(() => serve.stop());
  return researchClient(serve.baseUrl, serve.firstKey());
}

describe('webhook allow-list', { timeout: 120_000 }, () => {
  it('--allow-private-hosts does not open a host to webhooks; --allow-webhook-hosts does', async () => {
    let delivered = 0;
    const receiver = await listenOnLoopback(
      createServer((req, res) => {
        delivered++;
        req.resume();
        res.end();
      }),
    );
    closers.push(() => receiver.close());
    const webhook = { url: `${receiver.baseUrl}/hook` };

    const pagesOnly = await serveWith(['--allow-private-hosts', '127.0.0.1']);
    const refused = await pagesOnly.create({ prompt: 'What does GET /v1/balance return?', webhook });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { description: string } };
    expect(body.error.description).toContain('--allow-webhook-hosts');

    const webhooks = await serveWith(['--allow-webhook-hosts', '127.0.0.1']);
    const accepted = await webhooks.create({ prompt: 'What does GET /v1/balance return?', webhook });
    expect(accepted.status, await accepted.clone().text()).toBeLessThan(300);
    const { id } = (await accepted.json()) as { id: string };
    await webhooks.allEvents(id);
    while (delivered === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(delivered).toBe(1);
  });
});
