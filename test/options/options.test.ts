import { describe, expect, it } from 'vitest';
import {
  fraction,
  integerOption,
  nonNegativeInteger,
  nonNegativeNumber,
  positiveInteger,
  positiveNumber,
} from '../../src/options.ts';
import { createSearchEngine } from '../../src/engine/index.ts';
import { createExtractiveAnswerer } from '../../src/pipeline/answer/index.ts';
import { buildAnswerPrompt } from '../../src/pipeline/answer/prompt.ts';
import { LocalIndex } from '../../src/pipeline/search/local-index.ts';
import { createPageFetcher } from '../../src/pipeline/fetch/index.ts';
import { Bm25Index, createBm25Ranker } from '../../src/pipeline/rank/index.ts';
import { createUsageRecorder } from '../../src/stores/usage-recorder.ts';
import {
  createMemoryCreditStore,
  createMemoryIdempotencyStore,
  createMemoryRateLimiter,
} from '../../src/stores/memory/index.ts';
import { createPostgresStores } from '../../src/stores/postgres/index.ts';
import { createRedisStores } from '../../src/stores/redis/index.ts';
import { createSqliteStores } from '../../src/stores/sqlite/index.ts';

describe('option checks', () => {
  it('returns the value given, else the default', () => {
    expect(positiveInteger('n', 3, 5)).toBe(3);
    expect(positiveInteger('n', undefined, 5)).toBe(5);
    expect(nonNegativeInteger('n', 0, 5)).toBe(0);
    expect(integerOption('n', 7, 0, 7)).toBe(7);
    expect(positiveNumber('ms', 0.5, 1)).toBe(0.5);
    expect(nonNegativeNumber('ms', 0, 1)).toBe(0);
    expect(fraction('f', 1, 0.5)).toBe(1);
    expect(fraction('f', undefined, 0.5)).toBe(0.5);
  });

  it('throws TypeError for a value of the wrong type, naming the option and the value', () => {
    expect(() => positiveInteger('maxResults', '5', 5)).toThrow(
      new TypeError('maxResults must be a number, got "5"'),
    );
    expect(() => fraction('minQueryCoverage', true, 0.5)).toThrow(TypeError);
    expect(() => positiveNumber('retryDelayMs', {}, 1)).toThrow(
      new TypeError('retryDelayMs must be a number, got object'),
    );
  });

  it('throws RangeError for a number out of range, with one wording per kind', () => {
    expect(() => positiveInteger('maxResults', 0, 5)).toThrow(
      new RangeError('maxResults must be a positive integer, got 0'),
    );
    expect(() => nonNegativeInteger('maxRedirects', -1, 5)).toThrow(
      new RangeError('maxRedirects must be a non-negative integer, got -1'),
    );
    expect(() => integerOption('n', 2, 0, 3)).toThrow(new RangeError('n must be an integer ≥ 3, got 2'));
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => positiveInteger('n', bad, 1)).toThrow(RangeError);
    }
    expect(() => positiveNumber('ms', 0, 1)).toThrow(new RangeError('ms must be a positive number, got 0'));
    expect(() => positiveNumber('ms', Number.POSITIVE_INFINITY, 1)).toThrow(RangeError);
    expect(() => nonNegativeNumber('ms', -0.1, 1)).toThrow(
      new RangeError('ms must be a non-negative number, got -0.1'),
    );
    expect(() => fraction('f', 1.01, 0.5)).toThrow(new RangeError('f must be between 0 and 1, got 1.01'));
    expect(() => fraction('f', Number.NaN, 0.5)).toThrow(RangeError);
  });

  it('gives the same text for the same mistake in different factories', () => {
    const message = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(message(() => createSearchEngine({ pageTimeoutMs: 0 }))).toBe(
      'pageTimeoutMs must be a positive integer, got 0',
    );
    expect(message(() => createPageFetcher({ pageTimeoutMs: 0 }))).toBe(
      'pageTimeoutMs must be a positive integer, got 0',
    );
  });

  it('the ranking and answering stages, the local index and the usage recorder word mistakes the same way', () => {
    const cases: [() => unknown, Error][] = [
      [() => createBm25Ranker({ maxWords: 0 }), new RangeError('maxWords must be a positive integer, got 0')],
      [
        () => createBm25Ranker({ maxPerSource: '3' as never }),
        new TypeError('maxPerSource must be a number, got "3"'),
      ],
      [
        () => createBm25Ranker({ duplicateThreshold: 2 }),
        new RangeError('duplicateThreshold must be between 0 and 1, got 2'),
      ],
      [() => new Bm25Index({ k1: -1 }), new RangeError('k1 must be a non-negative number, got -1')],
      [() => new Bm25Index({ b: 2 }), new RangeError('b must be between 0 and 1, got 2')],
      [
        () => createExtractiveAnswerer({ maxSentences: 0 }),
        new RangeError('maxSentences must be a positive integer, got 0'),
      ],
      [
        () => createExtractiveAnswerer({ minSentences: 5, maxSentences: 4 }),
        new RangeError('minSentences must be ≤ maxSentences (4), got 5'),
      ],
      [
        () => buildAnswerPrompt({ query: 'q', passages: [] } as never, { maxContextMessages: -1 }),
        new RangeError('maxContextMessages must be a non-negative integer, got -1'),
      ],
      [
        () => new LocalIndex({ snippetLength: 10 }),
        new RangeError('snippetLength must be an integer ≥ 20, got 10'),
      ],
      [
        () => createUsageRecorder({} as never, { maxBatch: 10, maxPending: 5 }),
        new RangeError('maxPending must be an integer ≥ 10, got 5'),
      ],
    ];
    for (const [make, error] of cases) expect(make).toThrow(error);
  });

  it('the stores check their options with the same functions (checked before any connection is made)', () => {
    const redis = 'redis://127.0.0.1:1';
    const postgres = 'postgres://nobody@127.0.0.1:1/none';
    const cases: [() => unknown, Error][] = [
      [
        () => createMemoryCreditStore({ maxSettled: 1.5 }),
        new RangeError('maxSettled must be a positive integer, got 1.5'),
      ],
      [
        () => createMemoryRateLimiter({ maxKeys: 0 }),
        new RangeError('maxKeys must be a positive integer, got 0'),
      ],
      [
        () => createMemoryIdempotencyStore({ maxEntries: '9' as never }),
        new TypeError('maxEntries must be a number, got "9"'),
      ],
      [
        () => createSqliteStores({ path: ':memory:', busyTimeoutMs: 'x' as never }),
        new TypeError('busyTimeoutMs must be a number, got "x"'),
      ],
      [
        () => createSqliteStores({ path: ':memory:', busyTimeoutMs: 1.5 }),
        new RangeError('busyTimeoutMs must be a non-negative integer, got 1.5'),
      ],
      [
        () => createRedisStores({ url: redis, keyCacheSize: '5' as never }),
        new TypeError('keyCacheSize must be a number, got "5"'),
      ],
      [
        () => createRedisStores({ url: redis, keyCacheMs: -1 }),
        new RangeError('keyCacheMs must be a non-negative number, got -1'),
      ],
      [
        () => createRedisStores({ url: redis, commandTimeoutMs: 0 }),
        new RangeError('commandTimeoutMs must be a positive number, got 0'),
      ],
      [
        () => createRedisStores({ url: redis, settleRetryMs: -1 }),
        new RangeError('settleRetryMs must be a non-negative number, got -1'),
      ],
      [
        () => createPostgresStores({ connectionString: postgres, maxConnections: 0 }),
        new RangeError('maxConnections must be a positive integer, got 0'),
      ],
      [
        () => createPostgresStores({ connectionString: postgres, statementTimeoutMs: 0.5 }),
        new RangeError('statementTimeoutMs must be a positive integer, got 0.5'),
      ],
      [
        () => createPostgresStores({ connectionString: postgres, settleRetryMs: -1 }),
        new RangeError('settleRetryMs must be a non-negative number, got -1'),
      ],
    ];
    for (const [make, error] of cases) expect(make).toThrow(error);
  });
});
