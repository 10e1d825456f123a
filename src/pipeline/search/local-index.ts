/**
 * The local full-text index: Markdown, text and HTML files from folders, split into sections at headings,
 * scored with BM25 in memory. `createLocalIndexProvider` exposes it as the `local` search provider (the
 * embedded default: it needs no network and no keys); `LocalIndex` is the index itself, with documents
 * that can be added and removed at any time and a JSON form for persistence.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallOptions, SearchHit, SearchProvider, SearchQuery } from '../types.ts';
import { Bm25Index, type Bm25Options } from '../rank/bm25.ts';
import { extractContent } from '../extract/index.ts';
import { markdownToText, splitMarkdownSections, stripInlineMarkdown } from '../../text/markdown.ts';
import { splitSentences } from '../../text/sentences.ts';
import { tokenize, tokenizeQuery } from '../../text/tokenize.ts';

/** A document to add to a {@link LocalIndex}. */
export interface LocalDocumentInput {
  /** Identity of the document and the URL returned in hits. Adding the same URL again replaces it. */
  readonly url: string;
  /** Markdown (or plain text when `format` is `text`). */
  readonly content: string;
  /**
   * How `content` is split into sections: `markdown` splits at headings, `text` keeps one section.
   * @default 'markdown'
   */
  readonly format?: 'markdown' | 'text';
  /** Title; defaults to the first level-1 heading, else the first heading, else the URL's last path segment. */
  readonly title?: string;
  /** ISO 8601 date, passed through to hits. */
  readonly publishedAt?: string;
}

/** A document as stored in the index. */
export interface LocalDocument {
  readonly url: string;
  readonly title: string;
  readonly content: string;
  readonly format: 'markdown' | 'text';
  readonly publishedAt?: string;
  readonly sections: readonly { readonly heading?: string; readonly text: string }[];
}

/** One result of {@link LocalIndex.search}: a document, scored by its best section. */
export interface LocalIndexHit {
  readonly url: string;
  readonly title: string;
  /** Excerpt of the best section, starting at its sentence that shares most terms with the query. */
  readonly snippet: string;
  /** The whole document (Markdown for Markdown and HTML files, plain text for text files). */
  readonly content: string;
  /** BM25 score of the best section. */
  readonly score: number;
  /** Heading of the best section. */
  readonly heading?: string;
  readonly publishedAt?: string;
}

/** Options of {@link LocalIndex}. */
export interface LocalIndexOptions {
  /** BM25 parameters. */
  readonly bm25?: Bm25Options;
  /**
   * Maximum characters of a hit's snippet.
   * @default 300
   */
  readonly snippetLength?: number;
  /** Locale for lower-casing and sentence splitting. */
  readonly locale?: string;
}

/** JSON form of a {@link LocalIndex} (documents only; the inverted index is rebuilt on load). */
export interface SerializedLocalIndex {
  readonly version: 1;
  readonly documents: readonly LocalDocument[];
}

const SECTION_SEPARATOR = '\u0000';

function titleFromUrl(url: string): string {
  let last = url.replace(/[?#].*$/, '').replace(/\/+$/, '');
  last = last.slice(last.lastIndexOf('/') + 1);
  try {
    last = decodeURIComponent(last);
  } catch {
    // keep it encoded
  }
  return (
    last
      .replace(/\.[^.]+$/, '')
      .replace(/[-_]+/g, ' ')
      .trim() || url
  );
}

/**
 * In-memory BM25 index over sections of documents. A section is the text under one heading, indexed with
 * the document title and its heading; a document scores as its best section.
 */
export class LocalIndex {
  readonly #bm25: Bm25Index;
  readonly #documents = new Map<string, LocalDocument>();
  readonly #options: LocalIndexOptions;
  readonly #snippetLength: number;

  constructor(options: LocalIndexOptions = {}) {
    const snippetLength = options.snippetLength ?? 300;
    if (!Number.isInteger(snippetLength) || snippetLength < 20)
      throw new RangeError('snippetLength must be an integer ≥ 20');
    this.#bm25 = new Bm25Index(options.bm25);
    this.#options = options;
    this.#snippetLength = snippetLength;
  }

  /** Number of documents. */
  get size(): number {
    return this.#documents.size;
  }

  has(url: string): boolean {
    return this.#documents.has(url);
  }

  getDocument(url: string): LocalDocument | undefined {
    return this.#documents.get(url);
  }

  /** URLs of all documents, in insertion order. */
  urls(): string[] {
    return [...this.#documents.keys()];
  }

  /**
   * Adds a document, replacing the one with the same URL.
   * @throws TypeError when `url` or `content` is not a string.
   */
  addDocument(input: LocalDocumentInput): LocalDocument {
    if (typeof input?.url !== 'string' || input.url.length === 0)
      throw new TypeError('url must be a non-empty string');
    if (typeof input.content !== 'string') throw new TypeError('content must be a string');
    const format = input.format ?? 'markdown';
    if (format !== 'markdown' && format !== 'text')
      throw new TypeError("format must be 'markdown' or 'text'");

    let sections: { heading?: string; text: string; level: number }[];
    if (format === 'markdown') {
      sections = splitMarkdownSections(input.content).map((section) => ({
        ...(section.heading === undefined ? {} : { heading: section.heading }),
        level: section.level,
        text: markdownToText(section.markdown),
      }));
    } else {
      sections = [{ text: input.content.trim(), level: 0 }];
    }
    const title =
      input.title?.trim() ||
      sections.find((s) => s.level === 1 && s.heading)?.heading ||
      sections.find((s) => s.heading)?.heading ||
      titleFromUrl(input.url);
    const document: LocalDocument = {
      url: input.url,
      title: stripInlineMarkdown(title),
      content: input.content,
      format,
      ...(input.publishedAt === undefined ? {} : { publishedAt: input.publishedAt }),
      sections: sections
        .filter((s) => s.text.length > 0 || s.heading !== undefined)
        .map((s) => (s.heading === undefined ? { text: s.text } : { heading: s.heading, text: s.text })),
    };
    this.#insert(document);
    return document;
  }

  #insert(document: LocalDocument): void {
    this.removeDocument(document.url);
    this.#documents.set(document.url, document);
    const locale = this.#options.locale;
    document.sections.forEach((section, i) => {
      const tokens = tokenize(`${document.title}\n${section.heading ?? ''}\n${section.text}`, { locale });
      this.#bm25.add(`${document.url}${SECTION_SEPARATOR}${i}`, tokens);
    });
  }

  /** Removes a document; returns whether it was indexed. */
  removeDocument(url: string): boolean {
    const document = this.#documents.get(url);
    if (document === undefined) return false;
    document.sections.forEach((_, i) => this.#bm25.remove(`${url}${SECTION_SEPARATOR}${i}`));
    this.#documents.delete(url);
    return true;
  }

  /** Documents matching the query, best first, at most `limit`. Documents sharing no term with the query are not returned. */
  search(query: string, limit = 10): LocalIndexHit[] {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
    if (limit === 0) return [];
    const locale = this.#options.locale;
    const queryTokens = tokenizeQuery(query, { locale });
    const best = new Map<string, { section: number; score: number }>();
    for (const match of this.#bm25.search(queryTokens)) {
      const separator = match.id.lastIndexOf(SECTION_SEPARATOR);
      const url = match.id.slice(0, separator);
      if (!best.has(url))
        best.set(url, { section: Number(match.id.slice(separator + 1)), score: match.score });
      if (best.size >= limit) break;
    }
    const querySet = new Set(queryTokens);
    const hits: LocalIndexHit[] = [];
    for (const [url, { section, score }] of best) {
      const document = this.#documents.get(url);
      const bestSection = document?.sections[section];
      if (document === undefined || bestSection === undefined) continue;
      const hit: LocalIndexHit = {
        url,
        title: document.title,
        snippet: this.#snippet(bestSection.text || bestSection.heading || '', querySet),
        content: document.content,
        score,
        ...(bestSection.heading === undefined ? {} : { heading: bestSection.heading }),
        ...(document.publishedAt === undefined ? {} : { publishedAt: document.publishedAt }),
      };
      hits.push(hit);
    }
    return hits;
  }

  #snippet(text: string, queryTokens: ReadonlySet<string>): string {
    const sentences = splitSentences(text, this.#options.locale);
    let start = 0;
    let bestOverlap = 0;
    sentences.forEach((sentence, i) => {
      const overlap = new Set(
        tokenize(sentence, { locale: this.#options.locale }).filter((t) => queryTokens.has(t)),
      ).size;
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        start = i;
      }
    });
    const excerpt = sentences.slice(start).join(' ');
    if (excerpt.length <= this.#snippetLength) return excerpt;
    const cut = excerpt.slice(0, this.#snippetLength - 1);
    const space = cut.lastIndexOf(' ');
    return `${space > this.#snippetLength / 2 ? cut.slice(0, space) : cut}…`;
  }

  /** JSON form: the documents with their sections. */
  toJSON(): SerializedLocalIndex {
    return { version: 1, documents: [...this.#documents.values()] };
  }

  /**
   * Rebuilds an index from {@link LocalIndex.toJSON} output.
   * @throws TypeError when the data is not a serialised local index of a known version.
   */
  static fromJSON(data: unknown, options: LocalIndexOptions = {}): LocalIndex {
    const serialized = data as Partial<SerializedLocalIndex> | null;
    if (
      serialized === null ||
      typeof serialized !== 'object' ||
      serialized.version !== 1 ||
      !Array.isArray(serialized.documents)
    ) {
      throw new TypeError('not a serialised LocalIndex (version 1)');
    }
    const index = new LocalIndex(options);
    for (const raw of serialized.documents as readonly unknown[]) {
      const document = raw as Partial<LocalDocument> | null;
      const valid =
        typeof document?.url === 'string' &&
        typeof document.title === 'string' &&
        typeof document.content === 'string' &&
        (document.format === 'markdown' || document.format === 'text') &&
        Array.isArray(document.sections) &&
        document.sections.every(
          (section) => typeof (section as { text?: unknown } | null)?.text === 'string',
        );
      if (!valid) throw new TypeError('invalid document in serialised LocalIndex');
      index.#insert(document as LocalDocument);
    }
    return index;
  }
}

/** Options of {@link createLocalIndexProvider}. */
export interface LocalIndexProviderOptions extends LocalIndexOptions {
  /** Folders (or single files) to index, recursively. Hidden entries and `node_modules` are skipped. */
  readonly paths: readonly string[];
  /**
   * When set, a document's URL is `baseUrl` + its path relative to its folder (e.g.
   * `https://example.com/docs/` + `api-keys.md`); otherwise its `file://` URL.
   */
  readonly baseUrl?: string;
  /**
   * File extensions indexed (lower-case, with the dot).
   * @default ['.md', '.markdown', '.txt', '.html', '.htm']
   */
  readonly extensions?: readonly string[];
  /**
   * Larger files are skipped.
   * @default 5_000_000
   */
  readonly maxFileBytes?: number;
}

/** The `local` search provider, with access to its index. */
export interface LocalIndexProvider extends SearchProvider {
  readonly id: 'local';
  /** The index; empty until {@link LocalIndexProvider.load} (or the first search) has completed. */
  readonly index: LocalIndex;
  /**
   * Reads the folders (once; later calls return the same promise). Rejects when a path cannot be read; a
   * failed load is retried by the next call.
   */
  load(): Promise<LoadReport>;
  /** Reads the folders again, adding, replacing and removing documents to match them. */
  reload(): Promise<LoadReport>;
}

/** What {@link LocalIndexProvider.load} indexed. */
export interface LoadReport {
  readonly documents: number;
  /** Files that could not be read or had no text, with the reason. */
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
}

const DEFAULT_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm'];

async function listFiles(root: string, extensions: ReadonlySet<string>): Promise<string[]> {
  const info = await stat(root);
  if (info.isFile()) return [root];
  const files: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && extensions.has(path.extname(entry.name).toLowerCase())) files.push(full);
    }
  };
  await walk(root);
  return files;
}

function documentUrl(file: string, root: string, baseUrl: string | undefined, rootIsFile: boolean): string {
  if (baseUrl === undefined) return pathToFileURL(file).href;
  const relative = rootIsFile ? path.basename(file) : path.relative(root, file);
  const encoded = relative.split(path.sep).map(encodeURIComponent).join('/');
  return `${baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`}${encoded}`;
}

/** Reads one file into a document input; `null` when it has no text. */
async function readDocument(file: string, url: string): Promise<LocalDocumentInput | null> {
  const extension = path.extname(file).toLowerCase();
  const raw = await readFile(file);
  if (extension === '.html' || extension === '.htm') {
    const content = await extractContent(raw, { url, contentType: 'text/html' });
    if (content === null || content.markdown.trim().length === 0) return null;
    return {
      url,
      content: content.markdown,
      format: 'markdown',
      ...(content.title ? { title: content.title } : {}),
    };
  }
  const text = new TextDecoder('utf-8').decode(raw).replace(/^\uFEFF/, '');
  if (text.trim().length === 0) return null;
  return { url, content: text, format: extension === '.txt' ? 'text' : 'markdown' };
}

/**
 * Creates the `local` search provider over Markdown, text and HTML files in `paths`. Files are read on
 * `load()` or on the first search. Hits carry the whole document as `content`, so the pipeline does not
 * fetch them; filters other than `includeDomains`/`excludeDomains` (matched against the URL's host, which
 * only `baseUrl` URLs have) are ignored.
 *
 * @throws TypeError when `paths` is empty or `baseUrl` is not an absolute URL.
 */
export function createLocalIndexProvider(options: LocalIndexProviderOptions): LocalIndexProvider {
  if (
    !Array.isArray(options?.paths) ||
    options.paths.length === 0 ||
    !options.paths.every((p) => typeof p === 'string')
  ) {
    throw new TypeError('paths must be a non-empty array of folder paths');
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl))
    throw new TypeError('baseUrl must be an absolute URL');
  const extensions = new Set((options.extensions ?? DEFAULT_EXTENSIONS).map((e) => e.toLowerCase()));
  const maxFileBytes = options.maxFileBytes ?? 5_000_000;
  if (!Number.isInteger(maxFileBytes) || maxFileBytes < 1)
    throw new RangeError('maxFileBytes must be a positive integer');
  const roots = options.paths.map((p) => path.resolve(p));
  const index = new LocalIndex(options);
  let loading: Promise<LoadReport> | undefined;

  const readAll = async (): Promise<LoadReport> => {
    const skipped: { file: string; reason: string }[] = [];
    const seen = new Set<string>();
    for (const root of roots) {
      const rootIsFile = (await stat(root)).isFile();
      for (const file of await listFiles(root, extensions)) {
        const url = documentUrl(file, root, options.baseUrl, rootIsFile);
        try {
          if ((await stat(file)).size > maxFileBytes) {
            skipped.push({ file, reason: `larger than ${maxFileBytes} bytes` });
            continue;
          }
          const document = await readDocument(file, url);
          if (document === null) skipped.push({ file, reason: 'no text' });
          else {
            index.addDocument(document);
            seen.add(url);
          }
        } catch (error) {
          skipped.push({ file, reason: error instanceof Error ? error.message : String(error) });
        }
      }
    }
    for (const url of index.urls()) if (!seen.has(url)) index.removeDocument(url);
    return { documents: index.size, skipped };
  };

  // A failed load is forgotten, so that the next search tries again (e.g. once the folder exists).
  const start = (): Promise<LoadReport> => {
    const attempt = readAll();
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
    return attempt;
  };

  const provider: LocalIndexProvider = {
    id: 'local',
    index,
    load() {
      loading ??= start();
      return loading;
    },
    reload() {
      loading = start();
      return loading;
    },
    async search(query: SearchQuery, call: CallOptions): Promise<SearchHit[]> {
      call.signal.throwIfAborted();
      await provider.load();
      call.signal.throwIfAborted();
      const include = query.filters?.includeDomains;
      const exclude = query.filters?.excludeDomains;
      const filtering = (include?.length ?? 0) > 0 || (exclude?.length ?? 0) > 0;
      const hits = index.search(query.query, filtering ? index.size : query.limit).filter((hit) => {
        if (!filtering) return true;
        const host = URL.canParse(hit.url) ? new URL(hit.url).hostname : '';
        const matches = (domain: string): boolean => host === domain || host.endsWith(`.${domain}`);
        if (include !== undefined && include.length > 0 && !include.some(matches)) return false;
        return !(exclude ?? []).some(matches);
      });
      return hits.slice(0, query.limit).map((hit) => ({
        url: hit.url,
        title: hit.title,
        snippet: hit.snippet,
        content: hit.content,
        score: hit.score,
        provider: 'local',
        ...(hit.publishedAt === undefined ? {} : { publishedAt: hit.publishedAt }),
      }));
    },
  };
  return provider;
}
