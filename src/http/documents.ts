/**
 * The routes of the documents API, on the protocol layer of /v1 (same key, maintenance and error rules):
 *
 * - `POST /v1/documents` `{title?, content, format, url?, metadata?}` → 201 `{id, url}` (200 when the URL
 *   was already the account's: the document is replaced); content over `maxBodyBytes` (for `pdf`, its
 *   decoded bytes) → 413;
 * - `GET /v1/documents?limit=&cursor=` → the account's documents by URL, `{data, next_cursor}`;
 * - `GET /v1/documents/{id}` → the document with its content; another account's id is a 404;
 * - `DELETE /v1/documents/{id}` → 204.
 */
import { CitewiseError } from '../errors.ts';
import { admitKeyed } from './admission.ts';
import type { DocumentsService } from '../contract/documents.ts';
import {
  json,
  readJsonBody,
  withHeaders,
  type Caller,
  type ProtocolRequest,
  type ProtocolResponse,
  type ProtocolService,
  type RequestInfo,
} from './handler.ts';

const BASE = '/v1/documents';

/** Room for the other fields of `POST /v1/documents` besides the content. */
const ENVELOPE_BYTES = 64 * 1024;

/** The largest body of `POST /v1/documents`: content of `limit` bytes in base64, and the other fields. */
function base64Envelope(limit: number): number {
  return Math.ceil(limit / 3) * 4 + ENVELOPE_BYTES;
}

/** Whether a path (trailing slashes trimmed) is one of the documents routes. */
export function isDocumentsPath(path: string): boolean {
  return path === BASE || path.startsWith(`${BASE}/`);
}

/** The route label of a documents path, for metrics and logs (ids are not labels). */
export function documentsRouteOf(path: string): string {
  const rest = path.slice(BASE.length).split('/').filter(Boolean);
  return rest.length === 0 ? BASE : rest.length === 1 ? `${BASE}/{id}` : 'unmatched';
}

/** Serves one documents request; see the module comment. */
export async function routeDocuments(
  service: ProtocolService,
  documents: DocumentsService,
  request: ProtocolRequest,
  info: RequestInfo,
  caller: Caller,
): Promise<ProtocolResponse> {
  const method = request.method.toUpperCase();
  const [id, ...extra] = request.path.slice(BASE.length).split('/').filter(Boolean);
  if (extra.length > 0) throw new CitewiseError('not_found', `no route ${request.path}`);
  const allowed = id === undefined ? 'GET, POST' : 'GET, DELETE';
  const creates = id === undefined && method === 'POST';
  const admission = creates ? 'key+rate' : 'key';
  const admitted = await admitKeyed(service, request, caller, method, allowed, admission);
  const { key, headers: limitHeaders } = admitted;
  if (creates) {
    // The limit holds for the document's content (a PDF's decoded bytes): the body may carry it in base64.
    const body = await readJsonBody(request, base64Envelope(service.maxBodyBytes));
    const added = await documents.add(key.accountId, body, request.baseUrl, {
      maxContentBytes: service.maxBodyBytes,
    });
    return withHeaders(json(added.created ? 201 : 200, { id: added.id, url: added.url }, info), {
      ...limitHeaders,
      location: `${BASE}/${added.id}`,
    });
  }
  if (id === undefined) {
    const query = new URLSearchParams(request.query ?? '');
    const limit = query.get('limit') ?? undefined;
    const cursor = query.get('cursor') ?? undefined;
    return json(
      200,
      await documents.list(key.accountId, {
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
      }),
      info,
    );
  }
  if (method === 'DELETE') {
    await documents.remove(key.accountId, id);
    return { status: 204, headers: { 'x-request-id': info.requestId }, body: '' };
  }
  return json(200, await documents.get(key.accountId, id), info);
}
