/**
 * The documents routes of the OpenAPI document (`/v1/documents…`), merged into it by openapi.ts with the
 * shared pieces it lends the research routes.
 */
import { CURSOR_PARAMETER, type OpenApiPieces } from './openapi-research.ts';
import { DOCUMENT_FORMATS, DOCUMENTS_DEFAULTS } from '../contract/documents.ts';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const EXAMPLE_DOCUMENT = {
  id: 'doc_4f1a2b3c4d5e6f708192',
  url: 'https://intranet.example/boiler',
  title: 'Boiler manual',
  format: 'markdown',
  bytes: 214,
  created_at: '2026-05-04T10:00:00.000Z',
  metadata: { team: 'facilities' },
};

const documentSchema = {
  type: 'object',
  required: ['id', 'url', 'title', 'format', 'bytes', 'created_at'],
  properties: {
    id: { type: 'string', description: 'The document id (`doc_…`).' },
    url: { type: 'string', description: 'What answers cite for it.' },
    title: { type: 'string' },
    format: {
      type: 'string',
      enum: ['markdown', 'text'],
      description: 'As stored (HTML is stored as Markdown).',
    },
    bytes: { type: 'integer', description: 'Bytes of its text (UTF-8), as counted by the quota.' },
    created_at: { type: 'string', description: 'When it was added or last replaced (ISO 8601).' },
    metadata: { type: 'object', additionalProperties: true },
    content: { type: 'string', description: 'Only when one document is read.' },
  },
};

/** The schemas and shared responses of the documents routes. */
export function documentsComponents(pieces: OpenApiPieces) {
  return {
    schemas: {
      AddDocumentRequest: {
        type: 'object',
        required: ['content', 'format'],
        additionalProperties: false,
        properties: {
          content: {
            type: 'string',
            minLength: 1,
            description:
              'The text; for `pdf`, the file in base64. At most the request size limit (1 MiB by default), a PDF counted by its decoded bytes; more is a 413.',
          },
          format: {
            type: 'string',
            enum: [...DOCUMENT_FORMATS],
            description:
              '`html` and `pdf` go through the page extractor (as pages fetched from the web) and are stored as Markdown.',
          },
          title: {
            type: 'string',
            maxLength: 500,
            description: 'Defaults to the first heading (HTML: its title).',
          },
          url: {
            type: 'string',
            format: 'uri',
            description:
              'What answers cite; the same URL again replaces the document. Default `<base>/v1/documents/{id}`.',
          },
          metadata: {
            type: 'object',
            additionalProperties: true,
            description: 'At most 10,000 characters of JSON.',
          },
        },
      },
      Document: documentSchema,
      DocumentList: {
        type: 'object',
        required: ['data', 'next_cursor'],
        properties: {
          data: { type: 'array', items: documentSchema },
          next_cursor: {
            type: ['string', 'null'],
            description: 'Pass as `cursor` for the next page; null on the last.',
          },
        },
      },
    },
    responses: {
      DocumentQuotaExceeded: pieces.errorResponse(
        'Forbidden: the document would take the account past its quota of documents or bytes; nothing is stored.',
        [
          {
            code: 'document_quota_exceeded',
            description:
              "Forbidden: the account's document quota is used up (at most 1000 documents and 104857600 bytes; it holds 1000 documents and 5242880 bytes)",
          },
        ],
      ),
    },
  };
}

/** The paths of the documents routes. */
export function documentsPaths(pieces: OpenApiPieces): Record<string, unknown> {
  const withRequestId = { 'X-Request-Id': pieces.headers.requestId };
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const reads = {
    '401': ref('Unauthorized'),
    '404': ref('NotFound'),
    '500': ref('ServerError'),
    '503': ref('ServiceUnavailable'),
  };
  const added = (description: string) => ({
    description,
    headers: { ...withRequestId, Location: { schema: { type: 'string' } } },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['id', 'url'],
          properties: { id: { type: 'string' }, url: { type: 'string' } },
        },
        examples: { added: { value: { id: EXAMPLE_DOCUMENT.id, url: EXAMPLE_DOCUMENT.url } } },
      },
    },
  });
  return {
    '/v1/documents': {
      post: {
        operationId: 'addDocument',
        summary: "Extension: add a document to the account's own documents, which its searches read",
        requestBody: {
          required: true,
          content: { 'application/json': { schema: schemaRef('AddDocumentRequest') } },
        },
        responses: {
          '201': added('Added.'),
          '200': added('The account already had a document at this `url`: replaced, same id.'),
          '400': ref('BadRequest'),
          '401': ref('Unauthorized'),
          '403': ref('DocumentQuotaExceeded'),
          '413': ref('PayloadTooLarge'),
          '415': ref('UnsupportedMediaType'),
          '429': ref('TooManyRequests'),
          '500': ref('ServerError'),
          '503': ref('ServiceUnavailable'),
        },
      },
      get: {
        operationId: 'listDocuments',
        summary: "Extension: the account's documents, by URL",
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: DOCUMENTS_DEFAULTS.maxListLimit,
              default: DOCUMENTS_DEFAULTS.listLimit,
            },
          },
          CURSOR_PARAMETER,
        ],
        responses: {
          '200': {
            description: 'A page of documents.',
            content: {
              'application/json': {
                schema: schemaRef('DocumentList'),
                examples: { page: { value: { data: [EXAMPLE_DOCUMENT], next_cursor: null } } },
              },
            },
          },
          '400': ref('BadRequest'),
          '401': ref('Unauthorized'),
          '500': ref('ServerError'),
          '503': ref('ServiceUnavailable'),
        },
      },
    },
    '/v1/documents/{id}': {
      get: {
        operationId: 'getDocument',
        summary: "Extension: one of the account's documents, with its content; another account's is a 404",
        parameters: [idParameter],
        responses: {
          '200': {
            description: 'The document.',
            content: { 'application/json': { schema: schemaRef('Document') } },
          },
          ...reads,
        },
      },
      delete: {
        operationId: 'deleteDocument',
        summary: "Extension: delete one of the account's documents; its searches stop finding it at once",
        parameters: [idParameter],
        responses: { '204': { description: 'Deleted.', headers: withRequestId }, ...reads },
      },
    },
  };
}
