/**
 * The per-account document quota holds under concurrent uploads (issue 44): many `POST /v1/documents` at
 * once, over real HTTP, never leave an account with more documents than its quota — on the in-memory
 * index, on SQLite, and on PostgreSQL with two engines (two instances) sharing one index. Every refusal is
 * the spec-shaped 403 `document_quota_exceeded`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node-http.ts';
import {
  createMemoryDocumentIndex,
  createPostgresDocumentIndex,
  createSqliteDocumentIndex,
} from '../../src/documents/index.ts';
import type { DocumentIndex } from '../../src/documents/types.ts';
import { createSearchEngine, type SearchEngine } from '../../src/engine/index.ts';
import { createMemoryCreditStore } from '../../src/stores/memory/credit-store.ts';
import { createMemoryKeyStore } from '../../src/stores/memory/key-store.ts';
import { reachablePostgres, serverOrSkip } from '../multi-instance/servers.ts';
import { listenOnLoopback } from '../support/loopback-server.ts';

const QUOTA = 3;
const UPLOADS = 12;

interface Instance {
  readonly baseUrl: string;
  readonly engine: SearchEngine;
  close(): Promise<void>;
}

/** Engines over `indexes` sharing one key and credit store, each served on loopback. */
async function instances(indexes: readonly DocumentIndex[]): Promise<Instance[]> {
  const keys = createMemoryKeyStore();
  const credits = createMemoryCreditStore();
  return Promise.all(
    indexes.map(async (index) => {
      const engine = createSearchEngine({
        keys,
        credits,
        rateLimiter: false,
        fetcher: false,
        extractor: false,
        documents: { index, maxDocuments: QUOTA },
      });
      const server = await listenOnLoopback(createServer(createNodeHandler(engine)));
      return {
        baseUrl: server.baseUrl,
        engine,
        async close() {
          await server.close();
          await engine.close();
        },
      };
    }),
  );
}

/** `UPLOADS` uploads at once, spread over the instances; the statuses and the account's list after. */
async function race(servers: readonly Instance[]) {
  const { key } = await servers[0]!.engine.createKey();
  const post = (i: number) =>
    fetch(`${servers[i % servers.length]!.baseUrl}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: `Upload number ${i} of the race.`, format: 'text' }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }));
  const answers = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => post(i)));
  const listed = await fetch(`${servers[0]!.baseUrl}/v1/documents?limit=100`, {
    headers: { authorization: `Bearer ${key}` },
  }).then((response) => response.json() as Promise<{ data: unknown[] }>);
  return { answers, listed: listed.data.length };
}

function expectQuotaHeld({ answers, listed }: Awaited<ReturnType<typeof race>>): void {
  expect(answers.filter((a) => a.status === 201)).toHaveLength(QUOTA);
  expect(listed).toBe(QUOTA);
  for (const refused of answers.filter((a) => a.status !== 201)) {
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: {
        code: 'document_quota_exceeded',
        description: expect.stringMatching(
          new RegExp(`^Forbidden: the account's document quota is used up \\(at most ${QUOTA} documents`),
        ) as unknown,
      },
    });
  }
}

const url = await reachablePostgres();

describe('the document quota under concurrent uploads (real HTTP)', () => {
  it('memory: one instance', async () => {
    const servers = await instances([createMemoryDocumentIndex()]);
    try {
      expectQuotaHeld(await race(servers));
    } finally {
      for (const server of servers) await server.close();
    }
  });

  it('SQLite: one instance on an index file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'citewise-quota-race-'));
    const servers = await instances([createSqliteDocumentIndex({ path: join(dir, 'index.sqlite') })]);
    try {
      expectQuotaHeld(await race(servers));
    } finally {
      for (const server of servers) await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(serverOrSkip('PostgreSQL', url, 'DATABASE_URL'))(
    'PostgreSQL: two instances sharing one index',
    async () => {
      const schema = `cw_quota_${randomBytes(4).toString('hex')}`;
      const open = () => createPostgresDocumentIndex({ connectionString: url!, schema, maxConnections: 4 });
      const servers = await instances([open(), open()]);
      try {
        expectQuotaHeld(await race(servers));
      } finally {
        for (const server of servers) await server.close();
        const admin = new pg.Client({ connectionString: url! });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    },
  );
});
