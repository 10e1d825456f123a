/**
 * The in-memory {@link DocumentIndex}: BM25 over sections, as the `local` search provider scores its
 * folders. For tests and small embedded uses; nothing survives the process.
 */
import { Bm25Index } from '../text/bm25.ts';
import { sectionTokens } from './analyze.ts';
import {
  checkQuota,
  cursorAfter,
  hitOf,
  listOptions,
  newDocumentId,
  ownerOf,
  prepareDocument,
  searchOptions,
  urlOf,
} from './common.ts';
import type {
  DocumentHit,
  DocumentIndex,
  DocumentSummary,
  DocumentUsage,
  IndexedSource,
  PutResult,
  SourceSummary,
  StoredDocument,
} from './types.ts';

const SEPARATOR = '\u0000';

function summaryOf(document: StoredDocument): DocumentSummary {
  const { content: _content, sections: _sections, ...summary } = document;
  return summary;
}

/** Creates an empty in-memory document index. */
export function createMemoryDocumentIndex(): DocumentIndex {
  const documents = new Map<string, StoredDocument>();
  const sources = new Map<string, IndexedSource>();
  const bm25 = new Bm25Index();
  const keyOf = (owner: string, url: string) => `${owner}${SEPARATOR}${url}`;

  const removeKey = (key: string): boolean => {
    const document = documents.get(key);
    if (document === undefined) return false;
    document.sections.forEach((_, i) => bm25.remove(`${key}${SEPARATOR}${i}`));
    documents.delete(key);
    return true;
  };

  // Documents and bytes of one owner (synchronous: a put checks its quota with no await in between).
  const usageOf = (of: string): DocumentUsage => {
    let count = 0;
    let bytes = 0;
    for (const document of documents.values()) {
      if (document.owner !== of) continue;
      count++;
      bytes += document.bytes;
    }
    return { documents: count, bytes };
  };
  return {
    async put(input, options = {}): Promise<PutResult> {
      const prepared = prepareDocument(input, options);
      const key = keyOf(prepared.owner, prepared.document.url);
      const previous = documents.get(key);
      const result: PutResult =
        previous === undefined ? 'added' : previous.hash === prepared.hash ? 'unchanged' : 'updated';
      if (
        result === 'unchanged' &&
        previous!.source === prepared.source &&
        previous!.fileVersion === prepared.fileVersion
      )
        return result;
      if (options.quota !== undefined)
        checkQuota(options.quota, usageOf(prepared.owner), previous?.bytes, prepared.bytes);
      removeKey(key);
      const stored: StoredDocument = {
        ...prepared.document,
        id: previous?.id ?? prepared.id ?? newDocumentId(),
        owner: prepared.owner,
        source: prepared.source,
        hash: prepared.hash,
        indexedAt: new Date().toISOString(),
        bytes: prepared.bytes,
        ...(prepared.fileVersion === undefined ? {} : { fileVersion: prepared.fileVersion }),
        ...(prepared.metadata === undefined ? {} : { metadata: structuredClone(prepared.metadata) }),
      };
      documents.set(key, stored);
      stored.sections.forEach((section, i) =>
        bm25.add(`${key}${SEPARATOR}${i}`, sectionTokens(stored.title, section)),
      );
      return result;
    },
    async get(url, owner) {
      return documents.get(keyOf(ownerOf(owner), urlOf(url)));
    },
    async getById(id, owner) {
      for (const document of documents.values())
        if (document.id === id && document.owner === owner) return document;
      return undefined;
    },
    async record(url, owner) {
      const document = documents.get(keyOf(ownerOf(owner), urlOf(url)));
      if (document === undefined) return undefined;
      const { source, hash, indexedAt, fileVersion } = document;
      return { source, hash, indexedAt, ...(fileVersion === undefined ? {} : { fileVersion }) };
    },
    async remove(url, owner) {
      return removeKey(keyOf(ownerOf(owner), urlOf(url)));
    },
    async search(query, options) {
      const { limit, owners, terms } = searchOptions(query, options);
      if (limit === 0 || terms.length === 0) return [];
      const hits: DocumentHit[] = [];
      const seen = new Set<string>();
      for (const match of bm25.search(terms)) {
        const cut = match.id.lastIndexOf(SEPARATOR);
        const key = match.id.slice(0, cut);
        const document = documents.get(key);
        if (document === undefined || seen.has(key) || !owners.has(document.owner)) continue;
        seen.add(key);
        hits.push(hitOf(document, Number(match.id.slice(cut + 1)), match.score, terms));
        if (hits.length >= limit) break;
      }
      return hits;
    },
    async list(options) {
      const { owner, source, urlPrefix, after, limit } = listOptions(options);
      const matching = [...documents.values()]
        .filter(
          (d) =>
            d.owner === owner &&
            d.url > after &&
            (source === undefined || d.source === source) &&
            (urlPrefix === undefined || d.url.startsWith(urlPrefix)),
        )
        .sort((a, b) => (a.url < b.url ? -1 : 1));
      const page = matching.slice(0, limit);
      return {
        documents: page.map(summaryOf),
        ...(matching.length > limit ? { cursor: cursorAfter(page.at(-1)!.url) } : {}),
      };
    },
    async usage(owner) {
      return usageOf(ownerOf(owner));
    },
    async setSource(source) {
      sources.set(source.source, { ...source });
    },
    async removeSource(source) {
      sources.delete(source);
    },
    async sources() {
      const counts = new Map<string, number>();
      for (const document of documents.values())
        if (document.owner === '') counts.set(document.source, (counts.get(document.source) ?? 0) + 1);
      return sourceSummaries([...sources.values()], counts);
    },
    async flush() {},
    async close() {},
  };
}

/** Sources with their counts, and the documents of no known source under `''`. */
export function sourceSummaries(
  sources: readonly IndexedSource[],
  counts: ReadonlyMap<string, number>,
): SourceSummary[] {
  const known = new Set(sources.map((source) => source.source));
  const summaries: SourceSummary[] = sources
    .map((source) => ({ ...source, documents: counts.get(source.source) ?? 0 }))
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  let orphans = 0;
  for (const [source, count] of counts) if (!known.has(source)) orphans += count;
  if (orphans > 0) summaries.push({ source: '', kind: 'file', indexedAt: '', documents: orphans });
  return summaries;
}
