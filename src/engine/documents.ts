/**
 * The documents of accounts (`/v1/documents`, `engine.documents`): an application adds its users'
 * documents, and the searches of its key read them with the operator's index. A document belongs to the
 * account of the key that added it; another account never sees it (a 404 like an unknown id). Each account
 * has a quota of documents and bytes; a document that would pass it is refused with
 * `document_quota_exceeded` and nothing is stored.
 */
import { CitewiseError } from '../errors.ts';
import { nonNegativeInteger } from '../options.ts';
import {
  DOCUMENTS_DEFAULTS,
  invalidDocumentRequest,
  parseAddDocument,
  type AddDocumentRequest,
  type DocumentView,
  type DocumentsService,
} from '../contract/documents.ts';
import { newDocumentId } from '../documents/common.ts';
import {
  DocumentQuotaError,
  type DocumentIndex,
  type DocumentSummary,
  type PutResult,
  type StoredDocument,
} from '../documents/types.ts';

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

function notFound(): CitewiseError {
  return new CitewiseError('not_found', 'no such document', { description: 'Not Found: no such document' });
}

/** The bytes of a `pdf` upload's base64 `content`; a 400 when it is not the base64 of a PDF. */
function pdfBytes(content: string): Uint8Array {
  const base64 = content.replace(/\s+/g, '');
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : undefined;
  if (bytes === undefined || bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw invalidDocumentRequest('content of a pdf document must be the base64 of a PDF file');
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
    throw invalidDocumentRequest(`the ${name} cannot be read (damaged or encrypted)`);
  }
  if (extracted === null || extracted.markdown.trim() === '')
    throw invalidDocumentRequest(`the ${name} has no readable text`);
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
          throw invalidDocumentRequest(`limit must be 1 to ${max}`);
      }
      if (query.cursor !== undefined && !/^[A-Za-z0-9_-]{1,4000}$/.test(query.cursor))
        throw invalidDocumentRequest('cursor is not one this API gave');
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
