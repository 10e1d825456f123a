import { describe, expect, it } from 'vitest';
import {
  createBm25Ranker,
  passageTokens,
  rankPassages,
  splitPassages,
} from '../../src/pipeline/rank/index.ts';
import type { ExtractedContent } from '../../src/pipeline/types.ts';

function doc(url: string, markdown: string, title = url): ExtractedContent {
  return { url, title, markdown, text: markdown };
}

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} is about ${topic} and nothing else matters here.`).join(
    ' ',
  );

describe('splitPassages', () => {
  it('never crosses a heading and remembers the nearest one', () => {
    const passages = splitPassages(
      doc('u', '# Title\n\nIntro.\n\n## Install\n\nRun npm install.\n\nThen start.\n\n## Use\n\nCall it.'),
    );
    expect(passages.map((p) => [p.heading, p.text])).toEqual([
      ['Title', 'Intro.'],
      ['Install', 'Run npm install.\n\nThen start.'],
      ['Use', 'Call it.'],
    ]);
  });

  it('keeps passages within maxWords, cutting long paragraphs at sentence boundaries', () => {
    const long = filler('rivers', 40); // 40 sentences of 10 words
    const passages = splitPassages(doc('u', `## Rivers\n\n${long}`), { maxWords: 120 });
    expect(passages.length).toBeGreaterThan(3);
    for (const p of passages) {
      expect(p.text.split(/\s+/).length).toBeLessThanOrEqual(120);
      expect(p.text).toMatch(/\.$/);
      expect(p.heading).toBe('Rivers');
    }
    expect(passages.map((p) => p.text).join(' ')).toBe(long);
  });

  it('merges at most maxBlocks short paragraphs and falls back to text when there is no Markdown', () => {
    const paragraphs = ['One.', 'Two.', 'Three.', 'Four.'].join('\n\n');
    expect(splitPassages(doc('u', paragraphs), { maxBlocks: 3 }).map((p) => p.text)).toEqual([
      'One.\n\nTwo.\n\nThree.',
      'Four.',
    ]);
    expect(splitPassages({ url: 'u', title: 't', text: 'Plain text only.', markdown: '' })[0]?.text).toBe(
      'Plain text only.',
    );
  });
});

describe('createBm25Ranker', () => {
  const docs = [
    doc(
      'https://a.test/volcano',
      `# Volcanoes\n\n## Eruptions\n\nVolcanic eruptions eject ash and lava.\n\n## Other\n\n${filler('rocks', 5)}\n\n## More eruptions\n\nEruptions of ash clouds disrupt flights.\n\n## Even more\n\nAsh eruptions can last weeks.\n\n## Last\n\nAsh eruptions again and eruptions.`,
    ),
    doc('https://b.test/ash', `# Weather\n\nSome volcanic ash fell. ${filler('weather', 3)}`),
    doc('https://c.test/bread', '# Bread\n\nBread needs flour and water.'),
  ];

  it('returns relevant passages best first with scores and headings, skipping irrelevant ones', async () => {
    const passages = await createBm25Ranker().rank('volcanic ash eruptions', docs, { maxTokens: 10_000 });
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((p) => p.url !== 'https://c.test/bread')).toBe(true);
    expect(passages.every((p) => p.score > 0)).toBe(true);
    expect(passages.find((p) => p.url === 'https://a.test/volcano')?.heading).toBeDefined();
  });

  it('gives other sources a turn after maxPerSource passages of one URL', async () => {
    const passages = await createBm25Ranker({ maxPerSource: 2 }).rank('ash eruptions', docs, {
      maxTokens: 10_000,
    });
    const firstThree = passages.slice(0, 3).map((p) => p.url);
    expect(firstThree.filter((u) => u === 'https://a.test/volcano')).toHaveLength(2);
    expect(firstThree).toContain('https://b.test/ash');
    // Without the cap, the volcano page takes the first three places.
    const uncapped = await createBm25Ranker({ maxPerSource: 10 }).rank('ash eruptions', docs, {
      maxTokens: 10_000,
    });
    expect(uncapped.slice(0, 3).every((p) => p.url === 'https://a.test/volcano')).toBe(true);
  });

  it('by default lets the best page keep its top passages (up to 10) before other sources', async () => {
    const strong = doc(
      'https://strong.test',
      Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\nGlacier melt ${i} feeds glacier rivers.`).join(
        '\n\n',
      ),
    );
    const weak = doc('https://weak.test', `# Weak\n\nA glacier. ${filler('weather', 6)}`);
    const passages = await createBm25Ranker().rank('glacier melt rivers', [strong, weak], {
      maxTokens: 10_000,
    });
    expect(passages.slice(0, 6).every((p) => p.url === 'https://strong.test')).toBe(true);
    expect(passages.at(-1)?.url).toBe('https://weak.test');
  });

  it('respects the token budget', async () => {
    const big = [
      doc(
        'https://big.test',
        Array.from({ length: 30 }, (_, i) => `## Part ${i}\n\n${filler('ash', 8)}`).join('\n\n'),
      ),
    ];
    for (const maxTokens of [150, 300, 1000]) {
      const passages = await rankPassages('ash', big, { maxTokens });
      const used = passages.reduce((sum, p) => sum + passageTokens(p), 0);
      expect(used).toBeLessThanOrEqual(maxTokens);
      expect(passages.length).toBeGreaterThan(0);
    }
    expect(await rankPassages('ash', big, { maxTokens: 5 })).toEqual([]);
  });

  it('skips near-duplicate passages', async () => {
    const text = 'Glaciers carve valleys slowly over thousands of years.';
    const copies = [doc('https://x.test', `# X\n\n${text}`), doc('https://y.test', `# X\n\n${text}`)];
    expect(await rankPassages('glaciers valleys', copies, { maxTokens: 1000 })).toHaveLength(1);
    expect(
      await rankPassages('glaciers valleys', copies, { maxTokens: 1000, duplicateThreshold: 1 }),
    ).toHaveLength(2);
  });

  it("weighs passages by their document's search position (searchOrderBoost)", async () => {
    // The second result's passage matches the query slightly better on words alone.
    const ordered = [
      doc(
        'https://first.test',
        '# A\n\nThe tallest glacier in the range moves slowly downhill every winter.',
      ),
      doc('https://second.test', '# B\n\nThe tallest glacier moves slowly.'),
    ];
    const urls = async (boost: number) =>
      (await rankPassages('tallest glacier', ordered, { maxTokens: 1000, searchOrderBoost: boost })).map(
        (p) => p.url,
      );
    expect(await urls(0)).toEqual(['https://second.test', 'https://first.test']);
    expect(await urls(0.5)).toEqual(['https://first.test', 'https://second.test']);
    const [first, second] = await rankPassages('tallest glacier', ordered, { maxTokens: 1000 });
    expect(first?.url).toBe('https://first.test'); // the default is 0.5
    expect(first!.score).toBeGreaterThan(second!.score);
  });

  it('ranks a passage where the query words stand together above one where they are far apart (proximity)', async () => {
    // The same words (stop words aside) in another order: plain BM25 ties them, only the distance between
    // "glacier" and "speed" differs. The duplicate check is off, as the word sets are the same.
    const pages = [
      doc(
        'https://apart.test',
        'The glacier of the northern valley is long and famous, and many visitors come to see the speed of its ice.',
      ),
      doc(
        'https://together.test',
        'Many visitors come to see the glacier speed of the northern valley; it is long and famous, and its ice.',
      ),
    ];
    const urls = async (proximity?: number) =>
      (
        await rankPassages('glacier speed', pages, {
          maxTokens: 1000,
          searchOrderBoost: 0,
          duplicateThreshold: 1,
          ...(proximity === undefined ? {} : { proximity }),
        })
      ).map((p) => p.url);
    expect(await urls(0)).toEqual(['https://apart.test', 'https://together.test']);
    expect(await urls()).toEqual(['https://together.test', 'https://apart.test']); // the default is 1
  });

  it('rejects bad options and budgets', async () => {
    expect(() => createBm25Ranker({ proximity: -1 })).toThrow(RangeError);
    expect(() => createBm25Ranker({ searchOrderBoost: -1 })).toThrow(RangeError);
    expect(() => createBm25Ranker({ searchOrderBoost: Number.NaN })).toThrow(RangeError);
    expect(() => createBm25Ranker({ maxPerSource: 0 })).toThrow(RangeError);
    expect(() => createBm25Ranker({ maxWords: 0 })).toThrow(RangeError);
    expect(() => createBm25Ranker({ duplicateThreshold: 2 })).toThrow(RangeError);
    expect(() => createBm25Ranker({ bm25: { k1: -1 } })).toThrow(RangeError);
    expect(() => createBm25Ranker({ bm25: { b: 1.5 } })).toThrow(RangeError);
    await expect(createBm25Ranker().rank('x', docs, { maxTokens: 0 })).rejects.toThrow(RangeError);
  });
});
