import { describe, expect, it } from 'vitest';
import { Bm25Index, scoreDocuments } from '../../src/text/bm25.ts';

describe('Bm25Index', () => {
  const build = () => {
    const index = new Bm25Index();
    index.add('cats', ['cat', 'sit', 'mat', 'cat']);
    index.add('dogs', ['dog', 'bark', 'loud']);
    index.add('both', ['cat', 'dog', 'friend', 'play', 'garden', 'sun', 'run']);
    return index;
  };

  it('matches the BM25 formula with Lucene idf', () => {
    const index = build();
    const k1 = 1.2;
    const b = 0.75;
    const avgdl = (4 + 3 + 7) / 3;
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const expected = (idf * 2 * (k1 + 1)) / (2 + k1 * (1 - b + (b * 4) / avgdl));
    expect(index.score('cats', ['cat'])).toBeCloseTo(expected, 12);
    expect(index.search(['cat'])[0]).toEqual({ id: 'cats', score: index.score('cats', ['cat']) });
  });

  it('ranks by term frequency, rarity and length, and omits documents without query terms', () => {
    const index = build();
    expect(index.search(['cat']).map((m) => m.id)).toEqual(['cats', 'both']);
    // "bark" is rarer than "cat", so the dog document wins a two-term query.
    expect(index.search(['bark', 'cat']).map((m) => m.id)[0]).toBe('dogs');
    expect(index.search(['unknown'])).toEqual([]);
  });

  it('counts repeated query terms once and breaks ties by id', () => {
    const index = build();
    expect(index.search(['cat', 'cat'])).toEqual(index.search(['cat']));
    const tie = new Bm25Index();
    tie.add('b', ['x']);
    tie.add('a', ['x']);
    expect(tie.search(['x']).map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('replaces and removes documents, updating statistics', () => {
    const index = build();
    expect(index.documentFrequency('cat')).toBe(2);
    index.add('cats', ['mouse']);
    expect(index.documentFrequency('cat')).toBe(1);
    expect(index.size).toBe(3);
    expect(index.remove('cats')).toBe(true);
    expect(index.remove('cats')).toBe(false);
    expect(index.size).toBe(2);
    expect(index.documentFrequency('mouse')).toBe(0);
    expect(index.averageLength).toBe(5);
    expect(index.search(['mouse'])).toEqual([]);
  });

  it('respects the limit and rejects bad parameters', () => {
    expect(build().search(['cat', 'dog'], 1)).toHaveLength(1);
    expect(() => new Bm25Index({ k1: -1 })).toThrow(RangeError);
    expect(() => new Bm25Index({ b: 2 })).toThrow(RangeError);
  });
});

describe('scoreDocuments', () => {
  it('gives exactly the scores and order of an index over the same documents', () => {
    // A seeded collection with repeated terms, empty documents and more than ten ids ("10" sorts before "9").
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const vocabulary = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const documents = Array.from({ length: 40 }, () =>
      Array.from({ length: Math.floor(next() * 12) }, () => vocabulary[Math.floor(next() * 8)]!),
    );
    const index = new Bm25Index({ k1: 1.5, b: 0.6 });
    documents.forEach((tokens, id) => index.add(String(id), tokens));
    for (const query of [['a'], ['b', 'c', 'b'], ['h', 'z'], ['z'], [], vocabulary]) {
      expect(scoreDocuments(documents, query, { k1: 1.5, b: 0.6 })).toEqual(index.search(query));
    }
    expect(scoreDocuments([], ['a'])).toEqual([]);
    expect(scoreDocuments([[], []], ['a'])).toEqual([]);
    expect(() => scoreDocuments([['a']], ['a'], { b: 2 })).toThrow(RangeError);
  });

  it('adds term proximity: query words standing together outrank the same words far apart', () => {
    // Same length, same query-term frequencies: plain BM25 ties them (broken by id), proximity does not.
    const apart = ['glacier', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'speed'];
    const together = ['x', 'x', 'x', 'x', 'glacier', 'speed', 'x', 'x', 'x', 'x'];
    const other = ['y', 'y', 'y', 'y', 'y', 'y', 'y', 'y', 'y', 'y'];
    const documents = [apart, together, other];
    const query = ['glacier', 'speed'];
    const plain = scoreDocuments(documents, query);
    expect(plain.map((m) => m.id)).toEqual(['0', '1']);
    expect(plain[0]!.score).toBe(plain[1]!.score);
    expect(scoreDocuments(documents, query, { proximity: 0 })).toEqual(plain);

    const near = scoreDocuments(documents, query, { proximity: 1 });
    expect(near.map((m) => m.id)).toEqual(['1', '0']);
    // Büttcher's accumulator: each term gets the other's idf / d², saturated like a term frequency with
    // weight min(1, idf); both documents have length 10 = avgdl.
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const saturate = (acc: number) => (Math.min(1, idf) * acc * 2.2) / (acc + 1.2);
    expect(near[0]!.score).toBeCloseTo(plain[0]!.score + 2 * saturate(idf / 1), 12);
    expect(near[1]!.score).toBeCloseTo(plain[0]!.score + 2 * saturate(idf / 81), 12);
    // Repeats of one term next to each other add nothing; the weight scales the proximity part.
    expect(
      scoreDocuments(
        [
          ['a', 'a', 'b'],
          ['a', 'b', 'x'],
        ],
        ['a'],
        { proximity: 1 },
      ),
    ).toEqual(
      scoreDocuments(
        [
          ['a', 'a', 'b'],
          ['a', 'b', 'x'],
        ],
        ['a'],
      ),
    );
    const half = scoreDocuments(documents, query, { proximity: 0.5 });
    expect(half[0]!.score - plain[0]!.score).toBeCloseTo((near[0]!.score - plain[0]!.score) / 2, 12);
    expect(() => scoreDocuments(documents, query, { proximity: -1 })).toThrow(RangeError);
  });
});
