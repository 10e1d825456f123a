/**
 * What every {@link DocumentIndex} backend shares: argument checks, ids, list cursors, the query's terms
 * and how a stored document and its best section become a hit.
 */
import { randomBytes } from 'node:crypto';
import { tokenizeQuery } from '../text/tokenize.ts';
import {
  analyzeDocument,
  documentHash,
  sectionSnippet,
  sectionTokens,
  type AnalyzedDocument,
} from './analyze.ts';
import {
  DOCUMENT_INDEX_DEFAULTS,
  OPERATOR_OWNER,
  type DocumentHit,
  type DocumentInput,
  type DocumentListOptions,
  type DocumentSearchOptions,
  type DocumentUsage,
  type PutOptions,
  DocumentQuotaError,
} from './types.ts';

/** Random bytes new ids are cut from, drawn 256 ids at a time (a build makes one per document). */
let idBytes = Buffer.alloc(0);
let idOffset = 0;

/** A new document id: 10 random bytes, never reused. */
export function newDocumentId(): string {
  if (idOffset + 10 > idBytes.length) {
    idBytes = randomBytes(10 * 256);
    idOffset = 0;
  }
  idOffset += 10;
  return `doc_${idBytes.toString('hex', idOffset - 10, idOffset)}`;
}

/** The owner argument, checked. */
export function ownerOf(owner: string | undefined): string {
  if (owner === undefined) return OPERATOR_OWNER;
  if (typeof owner !== 'string') throw new TypeError('owner must be a string');
  return owner;
}

/** The URL argument, checked. */
export function urlOf(url: unknown): string {
  if (typeof url !== 'string' || url.length === 0) throw new TypeError('url must be a non-empty string');
  return url;
}

/** One section as a full-text engine indexes it: its {@link engineTerms} and its number of tokens. */
export interface IndexedSection {
  readonly terms: string;
  readonly length: number;
}

/**
 * What indexing a document needs from its text, computed once: the analysed document, its hash and size,
 * and its sections' terms. Plain data, so that a worker thread can compute it (see `index-builder/read-worker.ts`).
 */
export interface DocumentAnalysis {
  readonly document: AnalyzedDocument;
  readonly hash: string;
  readonly bytes: number;
  readonly sections: readonly IndexedSection[];
}

/** Analyses a document for indexing (throws as {@link analyzeDocument} does). */
export function analyzeForIndex(input: DocumentInput): DocumentAnalysis {
  const document = analyzeDocument(input);
  return {
    document,
    hash: documentHash(document),
    bytes: Buffer.byteLength(document.content),
    sections: document.sections.map((section) => {
      const tokens = sectionTokens(document.title, section);
      return { terms: engineTerms(tokens), length: tokens.length };
    }),
  };
}

// Analyses computed elsewhere (a worker thread) for an input object: `put` uses them instead of analysing
// the document again.
const analyses = new WeakMap<DocumentInput, DocumentAnalysis>();

/** Gives `put` the analysis of `input`, computed already (by {@link analyzeForIndex}, e.g. in a worker). */
export function withAnalysis<T extends DocumentInput>(input: T, analysis: DocumentAnalysis): T {
  analyses.set(input, analysis);
  return input;
}

/** A document to put, analysed, with its hash, size and the put options settled. */
export interface PreparedDocument {
  readonly document: AnalyzedDocument;
  /** The sections' terms, in the order of `document.sections`. */
  readonly sections: readonly IndexedSection[];
  readonly owner: string;
  readonly source: string;
  readonly hash: string;
  readonly bytes: number;
  readonly fileVersion: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  readonly id: string | undefined;
}

/**
 * Refuses a put that would leave its owner over `quota` ({@link PutOptions.quota}): `usage` is what the
 * owner holds now, `previousBytes` the size of the document it replaces (`undefined` for a new one).
 */
export function checkQuota(
  quota: PutOptions['quota'],
  usage: DocumentUsage,
  previousBytes: number | undefined,
  bytes: number,
): void {
  if (quota === undefined) return;
  const documents = usage.documents + (previousBytes === undefined ? 1 : 0);
  const total = usage.bytes - (previousBytes ?? 0) + bytes;
  if (documents > quota.maxDocuments || total > quota.maxBytes) throw new DocumentQuotaError(usage, quota);
}

/** Checks and analyses the arguments of `put`. */
export function prepareDocument(input: DocumentInput, options: PutOptions = {}): PreparedDocument {
  const analysis = analyses.get(input) ?? analyzeForIndex(input);
  const { document } = analysis;
  const source = options.source ?? '';
  if (typeof source !== 'string') throw new TypeError('source must be a string');
  if (options.fileVersion !== undefined && typeof options.fileVersion !== 'string')
    throw new TypeError('fileVersion must be a string');
  if (options.metadata !== undefined && (typeof options.metadata !== 'object' || options.metadata === null))
    throw new TypeError('metadata must be an object');
  return {
    document,
    sections: analysis.sections,
    owner: ownerOf(options.owner),
    source,
    hash: analysis.hash,
    bytes: analysis.bytes,
    fileVersion: options.fileVersion,
    metadata: options.metadata,
    id: options.id,
  };
}

/** The columns of a document's row, in the order both SQL stores insert them. */
export const DOCUMENT_ROW_COLUMNS =
  'id, owner, url, title, content, format, published_at, source, hash, indexed_at, file_version, bytes, metadata';

/**
 * The values of {@link DOCUMENT_ROW_COLUMNS} for a prepared document; a replaced document keeps its id
 * (`previousId`).
 */
export function documentRowValues(
  prepared: PreparedDocument,
  previousId: string | undefined,
): (string | number | null)[] {
  const { document } = prepared;
  return [
    previousId ?? prepared.id ?? newDocumentId(),
    prepared.owner,
    document.url,
    document.title,
    document.content,
    document.format,
    document.publishedAt ?? null,
    prepared.source,
    prepared.hash,
    new Date().toISOString(),
    prepared.fileVersion ?? null,
    prepared.bytes,
    prepared.metadata === undefined ? null : JSON.stringify(prepared.metadata),
  ];
}

/** The settled options of a search. */
export function searchOptions(query: string, options: DocumentSearchOptions = {}) {
  if (typeof query !== 'string') throw new TypeError('query must be a string');
  const limit = options.limit ?? DOCUMENT_INDEX_DEFAULTS.limit;
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  const owners = options.owners ?? [OPERATOR_OWNER];
  if (!Array.isArray(owners) || !owners.every((owner) => typeof owner === 'string'))
    throw new TypeError('owners must be an array of strings');
  const terms = [...new Set(tokenizeQuery(query))];
  return { limit, owners: new Set<string>(owners), terms };
}

/** The settled options of a list; the cursor is the last URL of the previous page. */
export function listOptions(options: DocumentListOptions = {}) {
  const limit = options.limit ?? DOCUMENT_INDEX_DEFAULTS.listLimit;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  let after = '';
  if (options.cursor !== undefined) {
    if (typeof options.cursor !== 'string') throw new TypeError('cursor must be a string');
    after = Buffer.from(options.cursor, 'base64url').toString('utf8');
  }
  return {
    owner: ownerOf(options.owner),
    source: options.source,
    urlPrefix: options.urlPrefix,
    after,
    limit,
  };
}

/** The cursor after `url`. */
export function cursorAfter(url: string): string {
  return Buffer.from(url, 'utf8').toString('base64url');
}

/**
 * A hit from a stored document, its best section and that section's score. Its snippet is cut when first
 * read (a getter): a search asked for 40 hits whose text the pipeline reads whole never pays for 40.
 */
export function hitOf(
  stored: { readonly id: string; readonly owner: string } & AnalyzedDocument,
  section: number,
  score: number,
  terms: readonly string[],
): DocumentHit {
  const best = stored.sections[section] ?? stored.sections[0];
  let snippet: string | undefined;
  return {
    id: stored.id,
    url: stored.url,
    owner: stored.owner,
    title: stored.title,
    get snippet() {
      snippet ??= sectionSnippet(
        best?.text || best?.heading || '',
        new Set(terms),
        DOCUMENT_INDEX_DEFAULTS.snippetLength,
      );
      return snippet;
    },
    content: stored.content,
    score,
    ...(best?.heading === undefined ? {} : { heading: best.heading }),
    ...(stored.publishedAt === undefined ? {} : { publishedAt: stored.publishedAt }),
  };
}

/**
 * Terms of a section for a full-text engine: the tokenizer's tokens without apostrophes (an engine's own
 * word splitting would cut "don't" in two), joined by spaces. Queries go through {@link engineTerm} too.
 */
export function engineTerms(tokens: readonly string[]): string {
  return tokens.map(engineTerm).join(' ');
}

/** One query or document token as the engines index it. */
export function engineTerm(token: string): string {
  // The tokenizer drops apostrophes already: most tokens are returned as they are, without a pattern.
  return token.includes("'") || token.includes('’') ? token.replace(/['’]/g, '') : token;
}
