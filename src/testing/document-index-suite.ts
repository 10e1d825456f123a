import { describe, expect, it } from 'vitest';
import { openedPerTest } from './helpers.ts';
import { DocumentQuotaError, type DocumentIndex } from '../documents/types.ts';

/** Makes a fresh, empty document index for one test. The suite closes it after the test. */
export type MakeDocumentIndex = () => Promise<DocumentIndex> | DocumentIndex;

const ALPACAS = {
  url: 'https://docs.test/alpacas',
  content: '# Alpacas\n\nAlpacas hum when they are curious.\n\n## Wool\n\nTheir fleece has no lanolin.\n',
};
const BISON = {
  url: 'https://docs.test/bison.txt',
  content: 'Bison can run at fifty kilometres per hour. Bison are heavy.',
  format: 'text' as const,
};
const CHEETAH = {
  url: 'https://docs.test/cheetah',
  title: 'Cheetahs',
  content: 'Cheetahs cannot roar; they purr and chirp instead. Cheetahs don’t climb well.',
  publishedAt: '2024-05-01',
};

/**
 * Runs the {@link DocumentIndex} conformance suite (vitest) against `makeIndex`. Call it at the top level
 * of a test file; every test gets a fresh index.
 */
export function describeDocumentIndex(name: string, makeIndex: MakeDocumentIndex): void {
  describe(`DocumentIndex conformance: ${name}`, () => {
    const open = openedPerTest(makeIndex);

    it('adds documents and finds them by their terms, best section first, with a snippet and heading', async () => {
      const index = await open();
      expect(await index.put(ALPACAS)).toBe('added');
      expect(await index.put(BISON)).toBe('added');
      expect(await index.put(CHEETAH)).toBe('added');
      const [hit] = await index.search('fleece lanolin');
      expect(hit).toMatchObject({
        url: ALPACAS.url,
        owner: '',
        title: 'Alpacas',
        heading: 'Wool',
        snippet: 'Their fleece has no lanolin.',
        content: ALPACAS.content,
      });
      expect(hit!.score).toBeGreaterThan(0);
      // Inflections meet (the tokenizer's stemmer), and a word with an apostrophe is found.
      expect((await index.search('purring cheetah'))[0]).toMatchObject({
        url: CHEETAH.url,
        title: 'Cheetahs',
        publishedAt: '2024-05-01',
      });
      expect((await index.search('don’t climb'))[0]?.url).toBe(CHEETAH.url);
      expect((await index.search('kilometres'))[0]).toMatchObject({ url: BISON.url, title: 'bison' });
      expect(await index.search('elephants')).toEqual([]);
      expect(await index.search('')).toEqual([]);
    });

    it('ranks by relevance and returns each document once, at most `limit`', async () => {
      const index = await open();
      await index.put({ url: 'u:1', content: 'Bison bison bison graze on the plains.', format: 'text' });
      await index.put({
        url: 'u:2',
        content: 'A bison was seen once near the river with geese.',
        format: 'text',
      });
      await index.put({ url: 'u:3', content: '# A\n\nbison\n\n## B\n\nbison\n\n## C\n\nbison' });
      await index.put({ url: 'u:4', content: 'Nothing about the animal here.', format: 'text' });
      const hits = await index.search('bison');
      expect(hits.map((hit) => hit.url).sort()).toEqual(['u:1', 'u:2', 'u:3']);
      expect(new Set(hits.map((hit) => hit.url)).size).toBe(hits.length);
      expect(hits[hits.length - 1]!.url).toBe('u:2');
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      expect(await index.search('bison', { limit: 1 })).toHaveLength(1);
      expect(await index.search('bison', { limit: 0 })).toEqual([]);
      await expect(index.search('bison', { limit: -1 })).rejects.toThrow(RangeError);
    });

    it('replaces a document by URL (updated / unchanged) and removes it', async () => {
      const index = await open();
      await index.put(ALPACAS, { source: '/docs', fileVersion: '1:10' });
      const first = await index.get(ALPACAS.url);
      expect(first).toMatchObject({
        url: ALPACAS.url,
        source: '/docs',
        fileVersion: '1:10',
        format: 'markdown',
      });
      expect(first!.id).toMatch(/^doc_/);
      expect(first!.sections.map((section) => section.heading)).toEqual(['Alpacas', 'Wool']);
      expect(await index.record(ALPACAS.url)).toMatchObject({
        source: '/docs',
        fileVersion: '1:10',
        hash: first!.hash,
      });
      expect(await index.put(ALPACAS, { source: '/docs', fileVersion: '1:10' })).toBe('unchanged');
      expect(
        await index.put({ ...ALPACAS, content: '# Alpacas\n\nAlpacas sing.' }, { source: '/docs' }),
      ).toBe('updated');
      expect((await index.get(ALPACAS.url))!.id).toBe(first!.id);
      expect(await index.search('lanolin')).toEqual([]);
      expect((await index.search('sing'))[0]?.url).toBe(ALPACAS.url);
      expect(await index.remove(ALPACAS.url)).toBe(true);
      expect(await index.remove(ALPACAS.url)).toBe(false);
      expect(await index.get(ALPACAS.url)).toBeUndefined();
      expect(await index.record(ALPACAS.url)).toBeUndefined();
      expect(await index.search('alpacas')).toEqual([]);
    });

    it('keeps owners apart: a search reads only the owners it names', async () => {
      const index = await open();
      await index.put(ALPACAS);
      await index.put(
        { url: 'https://docs.test/private', content: 'The alpaca password is saffron.' },
        {
          owner: 'acct_a',
          metadata: { team: 'zoo', level: 2 },
        },
      );
      await index.put(
        { url: 'https://docs.test/private', content: 'Acct b keeps its alpaca secret.' },
        { owner: 'acct_b' },
      );
      expect((await index.search('saffron')).length).toBe(0);
      expect((await index.search('saffron', { owners: ['acct_b'] })).length).toBe(0);
      const mine = await index.search('alpaca', { owners: ['', 'acct_a'] });
      expect(mine.map((hit) => [hit.owner, hit.url]).sort()).toEqual([
        ['', ALPACAS.url],
        ['acct_a', 'https://docs.test/private'],
      ]);
      const a = await index.get('https://docs.test/private', 'acct_a');
      expect(a).toMatchObject({ owner: 'acct_a', metadata: { team: 'zoo', level: 2 } });
      expect(await index.getById(a!.id, 'acct_a')).toMatchObject({ url: 'https://docs.test/private' });
      expect(await index.getById(a!.id, 'acct_b')).toBeUndefined();
      expect(await index.getById(a!.id, '')).toBeUndefined();
      expect(await index.remove('https://docs.test/private', 'acct_b')).toBe(true);
      expect(await index.get('https://docs.test/private', 'acct_a')).toBeDefined();
      expect(await index.usage('acct_a')).toEqual({
        documents: 1,
        bytes: Buffer.byteLength('The alpaca password is saffron.'),
      });
      expect(await index.usage('acct_b')).toEqual({ documents: 0, bytes: 0 });
      expect((await index.usage()).documents).toBe(1);
    });

    it('lists an owner’s documents by URL a page at a time, by source or URL prefix', async () => {
      const index = await open();
      for (let i = 0; i < 7; i++)
        await index.put(
          { url: `https://docs.test/p${i}`, content: `Page ${i} text.` },
          { source: i < 4 ? 'a' : 'b' },
        );
      await index.put({ url: 'https://docs.test/other', content: 'Someone else.' }, { owner: 'acct' });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await index.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.documents.length).toBeLessThanOrEqual(3);
        for (const document of page.documents) {
          expect(document).not.toHaveProperty('content');
          seen.push(document.url);
        }
        cursor = page.cursor;
      } while (cursor !== undefined);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `https://docs.test/p${i}`));
      expect((await index.list({ source: 'b' })).documents.map((d) => d.url)).toEqual([
        'https://docs.test/p4',
        'https://docs.test/p5',
        'https://docs.test/p6',
      ]);
      expect((await index.list({ urlPrefix: 'https://docs.test/p1' })).documents).toHaveLength(1);
      expect((await index.list({ owner: 'acct' })).documents.map((d) => d.url)).toEqual([
        'https://docs.test/other',
      ]);
    });

    it('refuses a put over the owner’s quota, and concurrent puts never pass it together', async () => {
      const index = await open();
      const quota = { maxDocuments: 3, maxBytes: 10_000 };
      const doc = (i: number) => ({ url: `https://docs.test/q${i}`, content: `Quota note number ${i}.` });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => index.put(doc(i), { owner: 'acct_q', quota })),
      );
      await index.flush();
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DocumentQuotaError);
      expect((await index.usage('acct_q')).documents).toBe(3);
      // Replacing a document of a full owner fits; other owners have their own quota.
      const first = outcomes.findIndex((o) => o.status === 'fulfilled');
      const replaced = { ...doc(first), content: 'Quota note, rewritten.' };
      expect(await index.put(replaced, { owner: 'acct_q', quota })).toBe('updated');
      expect(await index.put(doc(0), { owner: 'acct_r', quota })).toBe('added');
      // Bytes count too: the error says what the owner holds.
      const big = { url: 'https://docs.test/big', content: 'word '.repeat(3000) };
      const refused = await index.put(big, { owner: 'acct_r', quota }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DocumentQuotaError);
      expect((refused as DocumentQuotaError).usage.documents).toBe(1);
      expect(await index.get(big.url, 'acct_r')).toBeUndefined();
    });

    it('remembers sources with their document counts', async () => {
      const index = await open();
      await index.setSource({
        source: '/docs',
        kind: 'folder',
        label: 'zoo',
        indexedAt: '2026-01-01T00:00:00.000Z',
      });
      await index.setSource({
        source: 'https://site.test/',
        kind: 'site',
        indexedAt: '2026-01-02T00:00:00.000Z',
      });
      await index.put(ALPACAS, { source: '/docs' });
      await index.put(BISON, { source: '/docs' });
      await index.put(CHEETAH);
      await index.put({ url: 'x', content: 'Not the operator’s.' }, { owner: 'acct', source: '/docs' });
      expect(await index.sources()).toEqual([
        {
          source: '/docs',
          kind: 'folder',
          label: 'zoo',
          indexedAt: '2026-01-01T00:00:00.000Z',
          documents: 2,
        },
        { source: 'https://site.test/', kind: 'site', indexedAt: '2026-01-02T00:00:00.000Z', documents: 0 },
        { source: '', kind: 'file', indexedAt: '', documents: 1 },
      ]);
      await index.removeSource('https://site.test/');
      expect((await index.sources()).map((s) => s.source)).toEqual(['/docs', '']);
    });

    it('keeps what was written after flush and across many writes', async () => {
      const index = await open();
      for (let i = 0; i < 40; i++)
        await index.put({ url: `u:${i}`, content: `Document number ${i} mentions quokka${i % 3}.` });
      await index.flush();
      expect((await index.usage()).documents).toBe(40);
      expect(await index.search('quokka1', { limit: 100 })).toHaveLength(13);
    });

    it('refuses bad arguments with TypeError', async () => {
      const index = await open();
      await expect(index.put({ url: '', content: 'x' })).rejects.toThrow(TypeError);
      await expect(index.put({ url: 'u', content: 3 as unknown as string })).rejects.toThrow(TypeError);
      await expect(index.put({ url: 'u', content: 'x', format: 'pdf' as 'text' })).rejects.toThrow(TypeError);
      await expect(index.search('x', { owners: 'acct' as unknown as string[] })).rejects.toThrow(TypeError);
    });
  });
}
