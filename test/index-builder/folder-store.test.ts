import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireIndexLock,
  buildIndex,
  IndexStore,
  indexFilePath,
  openDataDirIndex,
} from '../../src/index-builder/index.ts';
import { createLocalIndexProvider, LocalIndex } from '../../src/pipeline/search/local-index.ts';
import { tinyPdf } from '../support/pdf.ts';

const call = () => ({ signal: new AbortController().signal, requestId: 't' });
const withoutIds = (hits: readonly { id: string }[]) => hits.map(({ id: _id, ...hit }) => hit);

describe('folders and the persisted store', () => {
  let dir: string;
  let docs: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-index-'));
    docs = join(dir, 'docs');
    mkdirSync(join(docs, 'guide'), { recursive: true });
    mkdirSync(join(docs, '.hidden'));
    writeFileSync(
      join(docs, 'alpacas.md'),
      '# Alpacas\n\nAlpacas hum when they are curious.\n\n## Wool\n\nTheir fleece has no lanolin.\n',
    );
    writeFileSync(join(docs, 'notes.txt'), 'Bison can run at fifty kilometres per hour.\n');
    writeFileSync(
      join(docs, 'guide', 'cheetah.html'),
      '<html><head><title>Cheetahs</title></head><body><article><h1>Cheetahs</h1><p>Cheetahs cannot roar; they purr and chirp instead. They are the fastest land animals and hunt by day.</p></article></body></html>',
    );
    writeFileSync(
      join(docs, 'guide', 'dingo.pdf'),
      tinyPdf(['Dingoes howl rather than bark.'], 'Dingo facts'),
    );
    writeFileSync(join(docs, '.hidden', 'secret.md'), '# Hidden\n\nElephants never forget.\n');
    writeFileSync(join(docs, 'image.png'), new Uint8Array([0x89, 0x50]));
    writeFileSync(join(docs, 'empty.md'), '   \n');
    file = indexFilePath(join(dir, 'data'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes Markdown, text, HTML and PDF files of a folder, skipping hidden and other files', async () => {
    const store = await IndexStore.open(file);
    const summary = await buildIndex({ store, sources: [docs] });
    const url = (path: string) => pathToFileURL(join(docs, path)).href;
    expect((await store.urls()).sort()).toEqual(
      [url('alpacas.md'), url('guide/cheetah.html'), url('guide/dingo.pdf'), url('notes.txt')].sort(),
    );
    expect(summary).toMatchObject({ added: 4, skipped: { no_text: 1 } });
    expect((await store.search('dingoes howl', 1))[0]?.url).toBe(url('guide/dingo.pdf'));
    expect((await store.search('cheetahs purr', 1))[0]?.title).toBe('Cheetahs');
    expect((await store.search('fleece lanolin', 1))[0]?.heading).toBe('Wool');
    expect((await store.index.get(url('notes.txt')))?.format).toBe('text');
    expect(await store.search('elephants', 5)).toEqual([]);
  });

  it('files read on worker threads give the index that reading them in this thread gives', async () => {
    const inThread = await IndexStore.open(join(dir, 'thread', 'index.sqlite'));
    const onWorkers = await IndexStore.open(join(dir, 'workers', 'index.sqlite'));
    const first = await buildIndex({ store: inThread, sources: [docs], maxReadWorkers: 0 });
    const second = await buildIndex({
      store: onWorkers,
      sources: [docs],
      maxReadWorkers: 2,
      readWorkersFrom: 0,
    });
    expect(second).toEqual(first);
    expect(second).toMatchObject({ added: 4, skipped: { no_text: 1 } });
    const documents = async (store: IndexStore) =>
      (await store.index.list()).documents.map(({ url, title, hash, format, bytes }) => ({
        url,
        title,
        hash,
        format,
        bytes,
      }));
    expect(await documents(onWorkers)).toEqual(await documents(inThread));
    // A first build stats each file where it reads it: its version is recorded all the same.
    for (const { url } of (await onWorkers.index.list()).documents) {
      const info = statSync(fileURLToPath(url));
      const version = `${Math.floor(info.mtimeMs)}:${info.size}`;
      expect((await onWorkers.record(url))?.fileVersion).toBe(version);
      expect((await inThread.record(url))?.fileVersion).toBe(version);
    }
    for (const query of ['dingoes howl', 'cheetahs purr', 'fleece lanolin', 'bison'])
      expect(withoutIds(await onWorkers.search(query))).toEqual(withoutIds(await inThread.search(query)));
    // Nothing changed: nothing is read again.
    const again = await buildIndex({
      store: onWorkers,
      sources: [docs],
      maxReadWorkers: 2,
      readWorkersFrom: 0,
    });
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 4 });
    await inThread.close();
    await onWorkers.close();
  });

  it('include/exclude patterns apply to paths relative to the folder', async () => {
    const store = await IndexStore.open(file);
    await buildIndex({ store, sources: [docs], include: ['guide/'], exclude: ['**/*.pdf'] });
    expect(await store.urls()).toEqual([pathToFileURL(join(docs, 'guide', 'cheetah.html')).href]);
  });

  it('persists on disk and round-trips: documents, sources and records survive a reopen', async () => {
    const store = await IndexStore.open(file);
    await buildIndex({ store, sources: [docs], label: 'zoo' });
    await store.close();
    expect(readdirSync(join(dir, 'data')).filter((name) => !name.startsWith('index.sqlite'))).toEqual([]);

    const reopened = await IndexStore.open(file);
    expect(await reopened.urls()).toHaveLength(4);
    expect(await reopened.sources()).toEqual([
      expect.objectContaining({ source: docs, kind: 'folder', label: 'zoo', documents: 4 }),
    ]);
    expect((await reopened.search('bison', 1))[0]?.url).toBe(pathToFileURL(join(docs, 'notes.txt')).href);
    expect(await reopened.record(pathToFileURL(join(docs, 'notes.txt')).href)).toMatchObject({
      source: docs,
      fileVersion: expect.stringMatching(/^\d+:\d+$/) as unknown,
    });
    await reopened.close();
  });

  it('re-indexing updates changed files in place, keeps unchanged ones, and drops deleted ones', async () => {
    const store = await IndexStore.open(file);
    await buildIndex({ store, sources: [docs] });
    await store.save();

    writeFileSync(join(docs, 'notes.txt'), 'Bison are the heaviest land animals of North America.\n');
    rmSync(join(docs, 'guide', 'dingo.pdf'));
    const again = await IndexStore.open(file);
    const summary = await buildIndex({ store: again, sources: [docs] });
    expect(summary).toMatchObject({ added: 0, updated: 1, unchanged: 2, removed: 1 });
    expect(await again.size()).toBe(3);
    expect((await again.search('heaviest bison', 1))[0]?.content).toMatch(/North America/);
    expect(await again.search('fifty kilometres', 5)).toEqual([]);

    // Files are not read again when their modification time and size are unchanged (--rebuild forces it).
    const alpacas = join(docs, 'alpacas.md');
    const seconds = statSync(alpacas).mtimeMs / 1000;
    writeFileSync(alpacas, readFileSync(alpacas, 'utf8').replace('curious', 'CURIOUS'));
    utimesSync(alpacas, seconds, seconds);
    expect(await buildIndex({ store: again, sources: [docs] })).toMatchObject({ unchanged: 3, updated: 0 });
    expect((await again.search('alpacas', 1))[0]?.content).toContain('curious');
    await again.close();
    await store.close();
    const rebuilt = await IndexStore.open(file, { fresh: true });
    await buildIndex({ store: rebuilt, sources: [docs] });
    expect((await rebuilt.search('alpacas', 1))[0]?.content).toContain('CURIOUS');
  });

  it('--rebuild semantics: a fresh store starts empty; removeByPrefix removes by URL prefix', async () => {
    const store = await IndexStore.open(file);
    await buildIndex({ store, sources: [docs] });
    await store.close();
    const fresh = await IndexStore.open(file, { fresh: true });
    expect(await fresh.size()).toBe(0);
    expect(await fresh.sources()).toEqual([]);

    await buildIndex({ store: fresh, sources: [docs] });
    const removed = await fresh.removeByPrefix(`${pathToFileURL(join(docs, 'guide')).href}/`);
    expect(removed).toHaveLength(2);
    expect(await fresh.size()).toBe(2);
    expect(await fresh.removeByPrefix(pathToFileURL(docs).href)).toHaveLength(2);
    expect(await fresh.sources()).toEqual([]);
    await fresh.close();
  });

  it('a missing source is reported, others are still indexed', async () => {
    const store = await IndexStore.open(file);
    const summary = await buildIndex({ store, sources: [join(dir, 'nope'), join(docs, 'alpacas.md')] });
    expect(summary.sourceErrors.map((e) => e.source)).toEqual([join(dir, 'nope')]);
    expect(summary.sourceErrors[0]?.message).toMatch(/ENOENT/);
    expect(await store.size()).toBe(1);
    expect((await store.sources())[0]).toMatchObject({ kind: 'file', documents: 1 });
  });

  it('refuses a file that is not an index, and a second writer while the lock is held', async () => {
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'index.json'), '{"hello":1}');
    await expect(openDataDirIndex(join(dir, 'data'))).rejects.toThrow(/not an citewise index/);
    expect(existsSync(join(dir, 'data', 'index.json'))).toBe(true);

    const lock = await acquireIndexLock(file);
    await expect(acquireIndexLock(file)).rejects.toThrow(/another citewise index run/);
    await lock.release();
    // A lock left by a process that is gone is taken over.
    writeFileSync(`${file}.lock`, '2147483646');
    const taken = await acquireIndexLock(file);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(String(process.pid));
    await taken.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('the local search provider with a persisted index file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'citewise-provider-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // A legacy index file (a serialised LocalIndex), which library users may still pass as `indexFiles`.
  const writeIndex = async (file: string, docs: Record<string, string>) => {
    const index = new LocalIndex();
    for (const [url, content] of Object.entries(docs)) index.addDocument({ url, content });
    writeFileSync(`${file}.tmp`, JSON.stringify(index.toJSON()));
    renameSync(`${file}.tmp`, file);
  };

  it('searches the file with the corpus folders and picks up a rewritten file on the next search', async () => {
    const folder = join(dir, 'corpus');
    mkdirSync(folder);
    writeFileSync(join(folder, 'owls.md'), '# Owls\n\nOwls turn their heads far around.\n');
    const file = join(dir, 'index.json');
    const provider = createLocalIndexProvider({ paths: [folder], indexFiles: [file] });

    // No file yet: only the folder.
    expect((await provider.search({ query: 'owls', limit: 5 }, call())).map((h) => h.title)).toEqual([
      'Owls',
    ]);
    await writeIndex(file, {
      'https://example.test/penguins': '# Penguins\n\nPenguins propose with pebbles.',
    });
    const hits = await provider.search({ query: 'penguins pebbles', limit: 5 }, call());
    expect(hits.map((h) => h.url)).toEqual(['https://example.test/penguins']);

    await writeIndex(file, { 'https://example.test/quokkas': '# Quokkas\n\nQuokkas smile a lot.' });
    expect(await provider.search({ query: 'penguins', limit: 5 }, call())).toEqual([]);
    expect((await provider.search({ query: 'quokkas', limit: 5 }, call()))[0]?.url).toBe(
      'https://example.test/quokkas',
    );
    expect((await provider.search({ query: 'owls', limit: 5 }, call())).length).toBe(1);

    // A corrupt file keeps what the last good version gave.
    writeFileSync(file, '{ not json');
    expect((await provider.search({ query: 'quokkas', limit: 5 }, call())).length).toBe(1);
    // A deleted file empties its part.
    rmSync(file);
    expect(await provider.search({ query: 'quokkas', limit: 5 }, call())).toEqual([]);
  });

  it('works with index files only, and reports an unreadable one on load', async () => {
    const file = join(dir, 'index.json');
    await writeIndex(file, { 'https://example.test/r': '# Ravens\n\nRavens solve puzzles.' });
    const provider = createLocalIndexProvider({ paths: [], indexFiles: [file] });
    expect((await provider.load()).documents).toBe(1);
    expect(() => createLocalIndexProvider({ paths: [] })).toThrow(TypeError);

    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '[]');
    const report = await createLocalIndexProvider({ paths: [], indexFiles: [broken] }).load();
    expect(report.skipped.map((s) => s.file)).toEqual([broken]);
    expect(report.skipped[0]?.reason).toMatch(/not a serialised LocalIndex/);
  });
});
