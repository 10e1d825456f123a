/**
 * The job queue conformance suite on Redis (BullMQ) and PostgreSQL (pg-boss). Each test opens its own
 * queue (a fresh key prefix, a fresh pg-boss queue name), so runs never see each other's jobs. Under CI the
 * servers must be there; elsewhere the suites are skipped without REDIS_URL / DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { createPostgresJobQueue } from '../../src/jobs/postgres.ts';
import { createRedisJobQueue } from '../../src/jobs/redis.ts';
import { describeJobQueue } from '../../src/testing/index.ts';

const REDIS_URL = process.env['REDIS_URL'];
const DATABASE_URL = process.env['DATABASE_URL'];
const run = Boolean(process.env['CI']);

if (REDIS_URL) {
  const prefix = `citewise-test-${randomBytes(4).toString('hex')}:`;
  describeJobQueue(
    'redis (BullMQ)',
    (scope) => createRedisJobQueue({ url: REDIS_URL, prefix: `${prefix}${scope}:`, stalledCheckMs: 100 }),
    { leaseMs: 300, recoveryMs: 5_000 },
  );
} else describe.skipIf(!run)('redis (BullMQ) job queue: REDIS_URL is required under CI', () => {});

if (DATABASE_URL) {
  // One schema for this run (its pg-boss schema beside it), dropped at the end.
  const schema = `jobs_test_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
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
        connectionString: DATABASE_URL,
        schema,
        name: scope,
        heartbeatSeconds: 10,
        monitorSeconds: 1,
      }),
    { leaseMs: 300, recoveryMs: 30_000 },
  );
} else describe.skipIf(!run)('postgres (pg-boss) job queue: DATABASE_URL is required under CI', () => {});
