/**
 * Express and `express.json()`: mounted before the parser, or after a parser given the engine's limit (the
 * two ways the adapter documents), a valid 200 KB body is answered and a body over 1 MiB gets the service's
 * own 413. After a parser left at its 100 KB default, the 413 names the limit that refused the body.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { citewiseExpress } from '../../adapters/express.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { listenOnLoopback, type ListeningServer } from '../support/loopback-server.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));
const MIB = 1_048_576;

/** A valid search body of about `bytes` bytes (JSON allows the trailing whitespace). */
function bodyOf(bytes: number): string {
  const json = JSON.stringify({ prompt: 'How tall is Mount Etna?' });
  return json + ' '.repeat(bytes - json.length);
}

const running: { engine: SearchEngine; server: ListeningServer }[] = [];
afterEach(async () => {
  for (const { engine, server } of running.splice(0)) {
    await server.close();
    await engine.close();
  }
});

const MOUNTINGS: Record<string, (app: express.Express, engine: SearchEngine) => void> = {
  'before express.json()': (app, engine) => {
    app.use(citewiseExpress(engine));
    app.use(express.json());
  },
  'after express.json({ limit: engine.maxBodyBytes })': (app, engine) => {
    app.use(express.json({ limit: engine.maxBodyBytes }));
    app.use(citewiseExpress(engine));
  },
  'after express.json() with its default limit': (app, engine) => {
    app.use(express.json());
    app.use(citewiseExpress(engine));
  },
};

async function start(mount: (app: express.Express, engine: SearchEngine) => void) {
  const engine = createSearchEngine({ corpus: [CORPUS] });
  const { key } = await engine.createKey();
  const app = express();
  mount(app, engine);
  const server = await listenOnLoopback(createServer(app));
  running.push({ engine, server });
  const post = async (body: string) => {
    const response = await fetch(`${server.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: { description: string } } };
  };
  const balance = async () =>
    (
      (await (
        await fetch(`${server.baseUrl}/v1/balance`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { available_credits: number }
    ).available_credits;
  return { post, balance };
}

describe('Express body limits', () => {
  for (const name of ['before express.json()', 'after express.json({ limit: engine.maxBodyBytes })']) {
    it(`${name}: a valid 200 KB body is answered; over 1 MiB gets the service's 413`, async () => {
      const { post, balance } = await start(MOUNTINGS[name]!);
      const ok = await post(bodyOf(200_000));
      expect(ok.status).toBe(200);
      expect(await balance()).toBe(999);
      const tooLarge = await post(bodyOf(MIB + 1));
      expect(tooLarge).toEqual({
        status: 413,
        body: {
          error: {
            description: `Payload Too Large: the body must be at most ${MIB} bytes`,
            code: 'payload_too_large',
          },
        },
      });
      expect(await balance()).toBe(999);
    });
  }

  it('after express.json() with its default limit, the 413 names the 100 KB limit that refused the body', async () => {
    const { post } = await start(MOUNTINGS['after express.json() with its default limit']!);
    const refused = await post(bodyOf(200_000));
    expect(refused.status).toBe(413);
    expect(refused.body.error?.description).toBe('Payload Too Large: the body must be at most 102400 bytes');
  });
});
