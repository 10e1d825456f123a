/**
 * The job queue conformance suite on Redis (BullMQ) and PostgreSQL (pg-boss). Each test opens its own
 * queue (a fresh key prefix, a fresh pg-boss queue name), so runs never see each other's jobs. Under CI the
 * servers must be there; elsewhere the suites are skipped when none answers.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { reachablePostgres, reachableRedis, serverOrSkip } from '../multi-instance/servers.ts';
import { createPostgresJobQueue } from '../../src/stores/postgres/job-queue.ts';
import { createRedisJobQueue } from '../../src/stores/redis/job-queue.ts';
import { describeJobQueue } from '../../src/testing/index.ts';

const REDIS_URL = await reachableRedis();
const DATABASE_URL = await reachablePostgres();
const withRedis = serverOrSkip('Redis', REDIS_URL, 'REDIS_URL');
const withPostgres = serverOrSkip('PostgreSQL', DATABASE_URL, 'DATABASE_URL');

// Each suite is registered either way (skipped without its server), so the file always has tests to report:
// a file that registers none fails vitest ("No test suite found") on a machine with neither server.
describe.runIf(withRedis)('on Redis', () => {
  const prefix = `citewise-test-${randomBytes(4).toString('hex')}:`;
  describeJobQueue(
    'redis (BullMQ)',
    (scope) => createRedisJobQueue({ url: REDIS_URL!, prefix: `${prefix}${scope}:`, stalledCheckMs: 100 }),
    { leaseMs: 300, recoveryMs: 5_000 },
  );
});

describe.runIf(withPostgres)('on PostgreSQL', () => {
  // One schema for this run (its pg-boss schema beside it), dropped at the end.
  const schema = `jobs_test_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL! });
    await client.connect();
    await client.query(
      `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`,
    );
    await client.end();
  });
  describeJobQueue(
    'postgres (pg-boss)',
    (scope) =>
      createPostgresJobQueue({
        connectionString: DATABASE_URL!,
        schema,
        name: scope,
        heartbeatSeconds: 10,
        monitorSeconds: 1,
      }),
    { leaseMs: 300, recoveryMs: 30_000 },
  );
});
