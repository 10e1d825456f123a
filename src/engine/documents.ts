/**
 * The documents of accounts (`/v1/documents`, `engine.documents`): an application adds its users'
 * documents, and the searches of its key read them with the operator's index. A document belongs to the
 * account of the key that added it; another account never sees it (a 404 like an unknown id). Each account
 * has a quota of documents and bytes; a document that would pass it is refused with
 * `document_quota_exceeded` and nothing is stored.
 */
import { CitewiseError } from '../errors.ts';
import { nonNegativeInteger } from '../options.ts';
import { newDocumentId } from './common.ts';
import {
  DocumentQuotaError,
  type DocumentIndex,
  type DocumentSummary,
  type PutResult,
  type StoredDocument,
} from './types.ts';

/** Defaults of the documents API. */
export const DOCUMENTS_DEFAULTS = {
  /** Documents one account may hold. */
  maxDocuments: 1000,
  /** Bytes of content (UTF-8, after HTML extraction) one account may hold: 100 MiB. */
  maxBytes: 100 * 1024 * 1024,
  /** Documents of one list page, when `limit` is not given. */
  listLimit: 20,
  /** The largest `limit` of one list page. */
  maxListLimit: 100,
} as const;

/**
 * Turns an uploaded HTML page or PDF file into Markdown, or `null` when it holds no text; throws on a file it
 * cannot read. The engine passes the extractor of web pages (`extractContent`), so the documents read uploads
 * as the pipeline reads pages without importing it.
 */
export type DocumentExtractor = (
  input: string | Uint8Array,
  options: { readonly url: string; readonly contentType: string },
) => Promise<{ readonly markdown: string; readonly title?: string } | null>;

/** Options of {@link createDocumentsService}. */
export interface DocumentsServiceOptions {
  readonly index: DocumentIndex;
  /** @default 1000 */
  readonly maxDocuments?: number;
  /** @default 104_857_600 */
  readonly maxBytes?: number;
}

/**
 * The formats `POST /v1/documents` takes: `html` and `pdf` (its bytes in base64 in `content`) go through
 * the extractor of web pages and are stored as Markdown.
 */
export const DOCUMENT_FORMATS = ['markdown', 'text', 'html', 'pdf'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** What `POST /v1/documents` takes. */
export interface AddDocumentRequest {
  readonly title?: string;
  /** The text; for `pdf`, the file's bytes in base64. */
  readonly content: string;
  /** `html` and `pdf` are extracted as web pages are. */
  readonly format: DocumentFormat;
  /** The URL cited for it; adding the same URL again replaces the document. @default `<base>/v1/documents/<id>` */
  readonly url?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** A document as the API shows it. */
export interface DocumentView {
  readonly id: string;
  readonly url: string;
  readonly title: string;
  readonly format: 'markdown' | 'text';
  readonly bytes: number;
  readonly created_at: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Only when one document is read. */
  readonly content?: string;
}

/** The documents of accounts; every method takes the account the caller's key belongs to. */
export interface DocumentsService {
  /**
   * Adds (or replaces, by URL) a document. `maxContentBytes`: the most bytes of content (a PDF's decoded
   * bytes), else 413 `payload_too_large`. @default no limit
   */
  add(
    account: string,
    body: unknown,
    baseUrl?: string,
    limits?: { readonly maxContentBytes?: number },
  ): Promise<{ id: string; url: string; created: boolean }>;
  list(
    account: string,
    query: { limit?: string; cursor?: string },
  ): Promise<{ data: DocumentView[]; next_cursor: string | null }>;
  get(account: string, id: string): Promise<DocumentView>;
  remove(account: string, id: string): Promise<void>;
}

function invalid(description: string): CitewiseError {
  return new CitewiseError('invalid_request', description, {
    description: `Invalid request: ${description}`,
  });
}

function notFound(): CitewiseError {
  return new CitewiseError('not_found', 'no such document', { description: 'Not Found: no such document' });
}

/** The body of `POST /v1/documents`, checked field by field. */
export function parseAddDocument(body: unknown): AddDocumentRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalid('the body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const known = new Set(['title', 'content', 'format', 'url', 'metadata']);
  const unknown = Object.keys(fields).find((name) => !known.has(name));
  if (unknown !== undefined) throw invalid(`unknown field ${unknown}`);
  const { title, content, format, url, metadata } = fields;
  if (typeof content !== 'string' || content.trim() === '')
    throw invalid('content must be a non-empty string');
  if (typeof format !== 'string' || !(DOCUMENT_FORMATS as readonly string[]).includes(format))
    throw invalid(`format must be ${DOCUMENT_FORMATS.slice(0, -1).join(', ')} or ${DOCUMENT_FORMATS.at(-1)}`);
  if (title !== undefined && (typeof title !== 'string' || title.length > 500))
    throw invalid('title must be a string of at most 500 characters');
  if (url !== undefined) {
    if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw invalid('url must be an http(s) URL');
  }
  if (metadata !== undefined) {
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
      throw invalid('metadata must be a JSON object');
    if (JSON.stringify(metadata).length > 10_000)
      throw invalid('metadata must be at most 10000 characters of JSON');
  }
  return {
    content,
    format: format as DocumentFormat,
    ...(title === undefined ? {} : { title: title }),
    ...(url === undefined ? {} : { url: url }),
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, unknown> }),
  };
}

/** The bytes of a `pdf` upload's base64 `content`; a 400 when it is not the base64 of a PDF. */
function pdfBytes(content: string): Uint8Array {
  const base64 = content.replace(/\s+/g, '');
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : undefined;
  if (bytes === undefined || bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw invalid('content of a pdf document must be the base64 of a PDF file');
  // A plain Uint8Array, not a Buffer: the PDF reader (pdf.js) refuses Buffers.
  return new Uint8Array(bytes);
}

/** The stored text of an upload: Markdown and text as given; HTML and PDF through the page extractor. */
async function documentText(
  request: AddDocumentRequest,
  raw: Uint8Array,
  url: string,
  extract: DocumentExtractor,
): Promise<{ content: string; format: 'markdown' | 'text'; title: string | undefined }> {
  if (request.format === 'markdown' || request.format === 'text')
    return { content: request.content, format: request.format, title: request.title };
  const contentType = request.format === 'pdf' ? 'application/pdf' : 'text/html';
  const name = request.format === 'pdf' ? 'PDF' : 'HTML';
  let extracted: Awaited<ReturnType<DocumentExtractor>>;
  try {
    extracted = await extract(request.format === 'pdf' ? raw : request.content, { url, contentType });
  } catch {
    // A damaged or encrypted file is the caller's to fix, not a server error.
    throw invalid(`the ${name} cannot be read (damaged or encrypted)`);
  }
  if (extracted === null || extracted.markdown.trim() === '')
    throw invalid(`the ${name} has no readable text`);
  return {
    content: extracted.markdown,
    format: 'markdown',
    title: request.title ?? (extracted.title || undefined),
  };
}

function viewOf(document: DocumentSummary | StoredDocument, withContent: boolean): DocumentView {
  return {
    id: document.id,
    url: document.url,
    title: document.title,
    format: document.format,
    bytes: document.bytes,
    created_at: document.indexedAt,
    ...(document.metadata === undefined ? {} : { metadata: document.metadata }),
    ...(withContent && 'content' in document ? { content: document.content } : {}),
  };
}

/** Creates the documents service over a document index, reading HTML and PDF uploads with `extract`. */
export function createDocumentsService(
  options: DocumentsServiceOptions,
  extract: DocumentExtractor,
): DocumentsService {
  const { index } = options;
  const maxDocuments = nonNegativeInteger(
    'maxDocuments',
    options.maxDocuments,
    DOCUMENTS_DEFAULTS.maxDocuments,
  );
  const maxBytes = nonNegativeInteger('maxBytes', options.maxBytes, DOCUMENTS_DEFAULTS.maxBytes);
  const byId = async (account: string, id: string): Promise<StoredDocument> => {
    const document = /^doc_[0-9a-f]{20}$/.test(id) ? await index.getById(id, account) : undefined;
    if (document === undefined) throw notFound();
    return document;
  };

  return {
    async add(account, body, baseUrl, limits = {}) {
      const request = parseAddDocument(body);
      const id = newDocumentId();
      const url = request.url ?? `${(baseUrl ?? '').replace(/\/+$/, '')}/v1/documents/${id}`;
      const raw = request.format === 'pdf' ? pdfBytes(request.content) : Buffer.from(request.content);
      if (limits.maxContentBytes !== undefined && raw.byteLength > limits.maxContentBytes)
        throw new CitewiseError('payload_too_large', undefined, {
          description: `Payload Too Large: the content must be at most ${limits.maxContentBytes} bytes`,
        });
      const { content, format, title } = await documentText(request, raw, url, extract);
      // The quota is checked in the index's write, so two uploads at once cannot pass it together.
      const existing = await index.get(url, account);
      let result: PutResult;
      try {
        result = await index.put(
          { url, content, format, ...(title === undefined ? {} : { title }) },
          {
            owner: account,
            source: 'api',
            id,
            quota: { maxDocuments, maxBytes },
            ...(request.metadata ? { metadata: request.metadata } : {}),
          },
        );
      } catch (error) {
        if (!(error instanceof DocumentQuotaError)) throw error;
        const { usage } = error;
        const description =
          `Forbidden: the account's document quota is used up (at most ${maxDocuments} documents and ` +
          `${maxBytes} bytes; it holds ${usage.documents} documents and ${usage.bytes} bytes)`;
        throw new CitewiseError('document_quota_exceeded', description, { description });
      }
      await index.flush();
      return { id: existing?.id ?? id, url, created: result === 'added' };
    },
    async list(account, query) {
      let limit: number = DOCUMENTS_DEFAULTS.listLimit;
      if (query.limit !== undefined) {
        limit = Number(query.limit);
        const max = DOCUMENTS_DEFAULTS.maxListLimit;
        if (!/^\d{1,6}$/.test(query.limit) || limit < 1 || limit > max)
          throw invalid(`limit must be 1 to ${max}`);
      }
      if (query.cursor !== undefined && !/^[A-Za-z0-9_-]{1,4000}$/.test(query.cursor))
        throw invalid('cursor is not one this API gave');
      const page = await index.list({
        owner: account,
        limit,
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      });
      return {
        data: page.documents.map((document) => viewOf(document, false)),
        next_cursor: page.cursor ?? null,
      };
    },
    async get(account, id) {
      return viewOf(await byId(account, id), true);
    },
    async remove(account, id) {
      const document = await byId(account, id);
      await index.remove(document.url, account);
      await index.flush();
    },
  };
}
