/**
 * Webhooks of research jobs: a signed POST when a job ends, verified with the standardwebhooks package's own
 * verifier, retried after a failure; URLs refused by the SSRF guard unless allowed.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';
import { researchClient, type JobBody } from './support.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A webhook receiver on loopback answering each delivery with the next status of `statuses`. */
async function receiver(statuses: number[]) {
  const received: Received[] = [];
  let notify: () => void = () => {};
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
      notify();
    });
  });
  const running: ListeningServer = await listenOnLoopback(server);
  closers.push(() => running.close());
  return {
    url: `${running.baseUrl}/hooks/citewise?source=test`,
    received,
    /** Resolves once `count` deliveries arrived. */
    async waitFor(count: number) {
      while (received.length < count) await new Promise<void>((resolve) => (notify = resolve));
    },
  };
}

async function setup(allowPrivateHosts: readonly string[]) {
  const engine: SearchEngine = createSearchEngine({
    corpus: [CORPUS],
    jobs: { webhookSecret: SECRET, allowPrivateHosts, webhookBackoffMs: 10 },
  });
  const { key } = await engine.createKey({ credits: 100 });
  const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
  closers.push(
    () => engine.close(),
    () => server.close(),
  );
  return researchClient(server.baseUrl, key);
}

describe('research webhooks', () => {
  it('posts a Standard Webhooks signed body naming the event and the job, retrying after a failure', async () => {
    const hook = await receiver([500]);
    const api = await setup(['127.0.0.1']);
    const created = (await (
      await api.create({ prompt: 'What is green tea?', webhook: { url: hook.url } })
    ).json()) as JobBody;
    await hook.waitFor(2);
    const [failed, delivered] = hook.received as [Received, Received];
    // The retry is the same message: same id, same body.
    expect(delivered.headers['webhook-id']).toBe(failed.headers['webhook-id']);
    expect(delivered.body).toBe(failed.body);
    const payload = new Webhook(SECRET).verify(delivered.body, delivered.headers) as {
      type: string;
      timestamp: string;
      data: JobBody;
    };
    expect(payload.type).toBe('research.completed');
    expect(payload.data).toMatchObject({ id: created.id, status: 'completed' });
    expect(payload.data.credits_used).toBeGreaterThanOrEqual(1);
    expect(payload.data.answer).toMatch(/\S/);
    // A body changed on the way, or signed with another secret, does not verify.
    const tampered = delivered.body.replace('research.completed', 'research.failed');
    expect(() => new Webhook(SECRET).verify(tampered, delivered.headers)).toThrow();
    const otherSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(() => new Webhook(otherSecret).verify(delivered.body, delivered.headers)).toThrow();
  });

  it('says research.cancelled for a cancelled job', async () => {
    const hook = await receiver([]);
    const engine = createSearchEngine({
      corpus: [CORPUS],
      jobs: { webhookSecret: SECRET, allowPrivateHosts: ['127.0.0.1'], workers: 0 },
    });
    const { key } = await engine.createKey({ credits: 100 });
    closers.push(() => engine.close());
    const job = await engine.research.create({ prompt: 'q', webhook: { url: hook.url } }, { apiKey: key });
    await engine.research.cancel(job.id, { apiKey: key });
    await hook.waitFor(1);
    const payload = new Webhook(SECRET).verify(hook.received[0]!.body, hook.received[0]!.headers) as {
      type: string;
      data: JobBody;
    };
    expect(payload).toMatchObject({ type: 'research.cancelled', data: { id: job.id, status: 'cancelled' } });
  });

  it('refuses a loopback webhook unless its host is allowed', async () => {
    const hook = await receiver([]);
    const api = await setup([]);
    const response = await api.create({ prompt: 'q', webhook: { url: hook.url } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { description: string } }).error.description).toMatch(
      /webhook\.url is not allowed/,
    );
  });

  it('logs a delivery that failed with the HTTP status the last try got', async () => {
    const hook = await receiver([503, 502]);
    const errors: { err?: { message?: string }; jobId?: string }[] = [];
    const engine = createSearchEngine({
      corpus: [CORPUS],
      logger: {
        info: () => {},
        warn: () => {},
        error: (fields) => errors.push(fields),
      },
      jobs: {
        webhookSecret: SECRET,
        allowPrivateHosts: ['127.0.0.1'],
        webhookAttempts: 2,
        webhookBackoffMs: 10,
      },
    });
    const { key } = await engine.createKey({ credits: 100 });
    closers.push(() => engine.close());
    const job = await engine.research.create({ prompt: 'q', webhook: { url: hook.url } }, { apiKey: key });
    await engine.research.cancel(job.id, { apiKey: key });
    await hook.waitFor(2);
    while (!errors.some((e) => e.jobId === job.id)) await new Promise((resolve) => setTimeout(resolve, 20));
    const host = new URL(hook.url).host;
    expect(errors.find((e) => e.jobId === job.id)?.err?.message).toBe(
      `webhook to ${host} failed after 2 tries; the last got HTTP 502`,
    );
  });

  it('refuses a webhook secret that is not a Standard Webhooks secret', () => {
    expect(() => createSearchEngine({ jobs: { webhookSecret: 'hunter2' } })).toThrow(/whsec_/);
  });
});
