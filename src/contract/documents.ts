/**
 * The documents API's wire contract (`/v1/documents`, `engine.documents`, the typed client, MCP and the
 * console): its limits, the formats an upload takes, the body of `POST /v1/documents` and its check, a
 * document as the API shows it, and the service's port. The service itself is `engine/documents.ts`.
 */
import { CitewiseError } from '../errors.ts';

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

/** A 400 `invalid_request` of the documents API. */
export function invalidDocumentRequest(description: string): CitewiseError {
  return new CitewiseError('invalid_request', description, {
    description: `Invalid request: ${description}`,
  });
}

/** The body of `POST /v1/documents`, checked field by field. */
export function parseAddDocument(body: unknown): AddDocumentRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidDocumentRequest('the body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const known = new Set(['title', 'content', 'format', 'url', 'metadata']);
  const unknown = Object.keys(fields).find((name) => !known.has(name));
  if (unknown !== undefined) throw invalidDocumentRequest(`unknown field ${unknown}`);
  const { title, content, format, url, metadata } = fields;
  if (typeof content !== 'string' || content.trim() === '')
    throw invalidDocumentRequest('content must be a non-empty string');
  if (typeof format !== 'string' || !(DOCUMENT_FORMATS as readonly string[]).includes(format))
    throw invalidDocumentRequest(
      `format must be ${DOCUMENT_FORMATS.slice(0, -1).join(', ')} or ${DOCUMENT_FORMATS.at(-1)}`,
    );
  if (title !== undefined && (typeof title !== 'string' || title.length > 500))
    throw invalidDocumentRequest('title must be a string of at most 500 characters');
  if (url !== undefined) {
    if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw invalidDocumentRequest('url must be an http(s) URL');
  }
  if (metadata !== undefined) {
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
      throw invalidDocumentRequest('metadata must be a JSON object');
    if (JSON.stringify(metadata).length > 10_000)
      throw invalidDocumentRequest('metadata must be at most 10000 characters of JSON');
  }
  return {
    content,
    format: format as DocumentFormat,
    ...(title === undefined ? {} : { title: title }),
    ...(url === undefined ? {} : { url: url }),
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, unknown> }),
  };
}
