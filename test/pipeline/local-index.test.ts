import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalIndexProvider, LocalIndex } from '../../src/pipeline/search/local-index.ts';

const call = () => ({ signal: new AbortController().signal, requestId: 'test' });

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'citewise-local-'));
  await mkdir(path.join(folder, 'guides', 'deep dir'), { recursive: true });
  await mkdir(path.join(folder, '.hidden'));
  await writeFile(
    path.join(folder, 'cooking.md'),
    '# Baking bread\n\nMix flour, water and yeast. Let the dough rise for two hours.\n\n## Oven\n\nBake at 230 degrees.\n',
  );
  await writeFile(
    path.join(folder, 'guides', 'volcanoes.md'),
    '# Volcanoes\n\nA volcano is an opening in the crust.\n\n## Eruptions\n\nEruptions happen when magma pressure rises. ' +
      'Explosive eruptions throw ash high into the sky.\n',
  );
  await writeFile(
    path.join(folder, 'guides', 'deep dir', 'tides.txt'),
    'Tides are caused by the gravity of the Moon.\n',
  );
  await writeFile(
    path.join(folder, 'guides', 'glaciers.html'),
    '<!doctype html><html><head><title>Glaciers | Earth</title></head><body><nav>Home About</nav><main><article>' +
      '<h1>Glaciers</h1><p>A glacier is a persistent body of dense ice that moves under its own weight. ' +
      'Glaciers form where snow accumulates faster than it melts over many years, often centuries.</p>' +
      '<h2>Movement</h2><p>Glaciers flow slowly downhill, deforming under the stress of their weight, ' +
      'and they carve valleys as they move across the land over thousands of years.</p></article></main></body></html>',
  );
  await writeFile(path.join(folder, '.hidden', 'secret.md'), '# Secret\n\nvolcano volcano volcano\n');
  await writeFile(path.join(folder, 'notes.json'), '{"volcano": true}');
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('createLocalIndexProvider', () => {
  it('indexes Markdown, text and HTML recursively, skipping hidden files and other extensions', async () => {
    const provider = createLocalIndexProvider({ paths: [folder] });
    const report = await provider.load();
    expect(report.documents).toBe(4);
    expect(
      provider.index
        .urls()
        .map((u) => path.basename(new URL(u).pathname))
        .sort(),
    ).toEqual(['cooking.md', 'glaciers.html', 'tides.txt'].concat('volcanoes.md').sort());
  });

  it('ranks the right document first, with file:// URLs, titles, snippets and content', async () => {
    const provider = createLocalIndexProvider({ paths: [folder] });
    const hits = await provider.search({ query: 'why do volcanoes erupt with ash?', limit: 5 }, call());
    expect(hits[0]?.url).toBe(pathToFileURL(path.join(folder, 'guides', 'volcanoes.md')).href);
    expect(hits[0]?.title).toBe('Volcanoes');
    expect(hits[0]?.snippet).toMatch(/^Explosive eruptions throw ash/);
    expect(hits[0]?.content).toContain('## Eruptions');
    expect(hits[0]?.provider).toBe('local');
    expect(hits.every((h) => !h.url.includes('secret'))).toBe(true);

    const bread = await provider.search({ query: 'how long should dough rise', limit: 1 }, call());
    expect(bread.map((h) => h.title)).toEqual(['Baking bread']);
  });

  it('uses baseUrl + relative path when given, the file name as title for text, <title>/h1 for HTML', async () => {
    const provider = createLocalIndexProvider({ paths: [folder], baseUrl: 'https://docs.example.com/kb' });
    const tides = await provider.search({ query: 'moon gravity tides', limit: 1 }, call());
    expect(tides[0]?.url).toBe('https://docs.example.com/kb/guides/deep%20dir/tides.txt');
    expect(tides[0]?.title).toBe('tides');
    const glaciers = await provider.search({ query: 'glacier ice moves', limit: 1 }, call());
    expect(glaciers[0]?.url).toBe('https://docs.example.com/kb/guides/glaciers.html');
    expect(glaciers[0]?.title).toMatch(/Glaciers/);
    expect(glaciers[0]?.content).not.toContain('<p>');
    expect(glaciers[0]?.content).toContain('persistent body of dense ice');
  });

  it('honours the limit, domain filters and the abort signal', async () => {
    const provider = createLocalIndexProvider({ paths: [folder], baseUrl: 'https://docs.example.com/' });
    expect(await provider.search({ query: 'the', limit: 5 }, call())).toEqual([]);
    expect(await provider.search({ query: 'glaciers volcano bread tides', limit: 2 }, call())).toHaveLength(
      2,
    );
    const excluded = await provider.search(
      { query: 'volcano', limit: 5, filters: { excludeDomains: ['example.com'] } },
      call(),
    );
    expect(excluded).toEqual([]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      provider.search({ query: 'volcano', limit: 5 }, { signal: controller.signal, requestId: 'x' }),
    ).rejects.toThrow('stop');
  });

  it('reload picks up new and deleted files', async () => {
    const extra = await mkdtemp(path.join(tmpdir(), 'citewise-reload-'));
    try {
      await writeFile(path.join(extra, 'a.md'), '# A\n\nAlpha particles.\n');
      const provider = createLocalIndexProvider({ paths: [extra] });
      expect((await provider.load()).documents).toBe(1);
      await writeFile(path.join(extra, 'b.md'), '# B\n\nBeta decay.\n');
      await rm(path.join(extra, 'a.md'));
      expect((await provider.reload()).documents).toBe(1);
      expect((await provider.search({ query: 'beta decay', limit: 5 }, call())).map((h) => h.title)).toEqual([
        'B',
      ]);
      expect(await provider.search({ query: 'alpha', limit: 5 }, call())).toEqual([]);
    } finally {
      await rm(extra, { recursive: true, force: true });
    }
  });

  it('rejects bad options and unreadable folders', async () => {
    expect(() => createLocalIndexProvider({ paths: [] })).toThrow(TypeError);
    expect(() => createLocalIndexProvider({ paths: [folder], baseUrl: 'not a url' })).toThrow(TypeError);
    const later = path.join(folder, 'later');
    const missing = createLocalIndexProvider({ paths: [later] });
    await expect(missing.search({ query: 'x', limit: 1 }, call())).rejects.toThrow(/ENOENT/);
    // The failure is not cached: once the folder exists, the next search loads it.
    await mkdir(later);
    await writeFile(path.join(later, 'x.md'), '# X\n\nXylophones.\n');
    expect((await missing.search({ query: 'xylophones', limit: 1 }, call())).map((h) => h.title)).toEqual([
      'X',
    ]);
  });
});

describe('LocalIndex', () => {
  it('adds, replaces and removes documents', () => {
    const index = new LocalIndex();
    index.addDocument({ url: 'https://a.test/x', content: '# X\n\nQuantum entanglement explained.' });
    expect(index.search('entanglement').map((h) => h.url)).toEqual(['https://a.test/x']);
    index.addDocument({
      url: 'https://a.test/x',
      content: 'Classical mechanics only.',
      format: 'text',
      title: 'Mechanics',
    });
    expect(index.size).toBe(1);
    expect(index.search('entanglement')).toEqual([]);
    expect(index.search('mechanics')[0]?.title).toBe('Mechanics');
    expect(index.removeDocument('https://a.test/x')).toBe(true);
    expect(index.search('mechanics')).toEqual([]);
    expect(() => index.addDocument({ url: '', content: 'x' })).toThrow(TypeError);
  });

  it('scores a document by its best section and reports that heading', () => {
    const index = new LocalIndex();
    index.addDocument({
      url: 'u:1',
      content:
        '# Guide\n\nGeneral words here.\n\n## Rate limits\n\nEach key may make sixty searches per minute.\n',
    });
    const [hit] = index.search('searches per minute');
    expect(hit?.heading).toBe('Rate limits');
    expect(hit?.snippet).toBe('Each key may make sixty searches per minute.');
  });

  it('round-trips through JSON', () => {
    const index = new LocalIndex();
    index.addDocument({ url: 'u:1', content: '# One\n\nApples and pears.' });
    index.addDocument({ url: 'u:2', content: '# Two\n\nPears and plums.', publishedAt: '2024-01-02' });
    const copy = LocalIndex.fromJSON(JSON.parse(JSON.stringify(index)));
    expect(copy.search('pears plums')).toEqual(index.search('pears plums'));
    expect(copy.search('plums')[0]?.publishedAt).toBe('2024-01-02');
    expect(() => LocalIndex.fromJSON({ version: 2, documents: [] })).toThrow(TypeError);
  });
});
