/**
 * The routes of research jobs, on the protocol layer of /v1 (same key, maintenance and error rules):
 *
 * - `POST /v1/research` → 202 with the job (200 when an `Idempotency-Key` repeat returns the first job);
 * - `GET /v1/research?status=&limit=&cursor=` → the account's jobs, newest first;
 * - `GET /v1/research/{id}` → the job; another account's job is a 404;
 * - `GET /v1/research/{id}/events` → `text/event-stream`, replaying after `Last-Event-ID`, ending after the
 *   terminal event;
 * - `POST /v1/research/{id}/cancel` → the job, cancelled (or as it ended), its unused credits refunded.
 */
import { CitewiseError } from '../../errors.ts';
import { admitKeyed } from '../admission.ts';
import type { ResearchEvent } from '../../contract/research.ts';
import type { ResearchService } from '../../jobs/research-jobs.ts';
import {
  checkIdempotencyKey,
  json,
  readJsonBody,
  sseResponse,
  withHeaders,
  type Caller,
  type ProtocolRequest,
  type ProtocolResponse,
  type ProtocolService,
  type RequestInfo,
} from '../handler.ts';

const BASE = '/v1/research';

/** How often an idle event stream sends a comment, so that proxies keep the connection open. */
const KEEP_ALIVE_MS = 15_000;

/** Whether a path (trailing slashes trimmed) is one of the research routes. */
export function isResearchPath(path: string): boolean {
  return path === BASE || path.startsWith(`${BASE}/`);
}

/** The route label of a research path, for metrics and logs (ids are not labels). */
export function researchRouteOf(path: string): string {
  const rest = path.slice(BASE.length).split('/').filter(Boolean);
  if (rest.length === 0) return BASE;
  if (rest.length === 1) return `${BASE}/{id}`;
  return rest.length === 2 && (rest[1] === 'events' || rest[1] === 'cancel')
    ? `${BASE}/{id}/${rest[1]}`
    : 'unmatched';
}

/** Serves one research request; see the module comment. */
export async function routeResearch(
  service: ProtocolService,
  research: ResearchService,
  request: ProtocolRequest,
  info: RequestInfo,
  caller: Caller,
): Promise<ProtocolResponse> {
  const method = request.method.toUpperCase();
  const [id, action, ...extra] = request.path.slice(BASE.length).split('/').filter(Boolean);
  const allowed =
    id === undefined
      ? 'GET, POST'
      : action === undefined || action === 'events'
        ? 'GET'
        : action === 'cancel'
          ? 'POST'
          : null;
  if (allowed === null || extra.length > 0) throw new CitewiseError('not_found', `no route ${request.path}`);
  const creates = id === undefined && method === 'POST';
  const admission = creates ? 'key+rate' : 'key';
  const admitted = await admitKeyed(service, request, caller, method, allowed, admission);
  const { key, headers: limitHeaders } = admitted;

  if (creates) {
    const body = await readJsonBody(request, service.maxBodyBytes);
    const idempotencyKey = request.header('idempotency-key');
    const { job, created } = await research.create(
      key,
      body,
      idempotencyKey === undefined ? undefined : checkIdempotencyKey(idempotencyKey),
    );
    const headers = {
      ...limitHeaders,
      location: `${BASE}/${job.id}`,
      ...(created ? {} : { 'idempotent-replayed': 'true' }),
    };
    return withHeaders(json(created ? 202 : 200, job, info), headers);
  }
  if (id === undefined) {
    const query = new URLSearchParams(request.query ?? '');
    const value = (name: string) => query.get(name) ?? undefined;
    const listed = await research.list(key, {
      ...(value('status') === undefined ? {} : { status: value('status') }),
      ...(value('limit') === undefined ? {} : { limit: value('limit') }),
      ...(value('cursor') === undefined ? {} : { cursor: value('cursor') }),
    });
    return json(200, listed, info);
  }
  if (action === 'cancel') return json(200, await research.cancel(key, id), info);
  if (action === undefined) return json(200, await research.get(key, id), info);
  const events = await research.events(key, id, {
    after: lastEventId(request.header('last-event-id')),
    signal: request.signal,
    countAsStream: true,
  });
  // Free to reopen (after Last-Event-ID): the first connection to go when the server runs out of them.
  return { ...sseResponse(keepAlive(frames(events)), info), yieldsConnection: true };
}

/** The `Last-Event-ID` header as a number (0 when absent); a 400 for anything else. */
function lastEventId(header: string | undefined): number {
  if (header === undefined || header.trim() === '') return 0;
  const value = Number(header.trim());
  if (!/^\d{1,15}$/.test(header.trim()) || !Number.isSafeInteger(value)) {
    const description = 'Invalid request: Last-Event-ID must be the id of an event (a non-negative integer)';
    throw new CitewiseError('invalid_request', description, { description });
  }
  return value;
}

async function* frames(events: AsyncIterable<ResearchEvent>): AsyncGenerator<string> {
  for await (const event of events) {
    yield `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
  }
}

/** Passes `chunks` on, and a `: keep-alive` comment whenever none came for {@link KEEP_ALIVE_MS}. */
async function* keepAlive(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  let pending = iterator.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<'tick'>(
        (resolve) => (timer = setTimeout(() => resolve('tick'), KEEP_ALIVE_MS)),
      );
      const next = await Promise.race([pending, tick]);
      clearTimeout(timer);
      if (next === 'tick') {
        yield ': keep-alive\n\n';
        continue;
      }
      if (next.done) return;
      yield next.value;
      pending = iterator.next();
    }
  } finally {
    // Not awaited: the events end by themselves once the request's signal aborts.
    void iterator.return?.()?.catch(() => {});
  }
}
