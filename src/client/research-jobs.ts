/**
 * The research jobs of the typed client (`client.research`): `/v1/research` with the engine's shapes, so a
 * client and an in-process engine are interchangeable. `events` yields each event with its id; `wait`
 * follows the events (reconnecting from the last id when a connection drops) until the job ends.
 */
import type { ResearchEvent, ResearchJobList, ResearchListQuery } from '../contract/research.ts';
import type { ResearchJob, ResearchRequest } from '../contract/research.ts';
import { CitewiseConnectionError } from './errors.ts';
import { readServerSentEvents } from './sse.ts';

/** Options of one research call. */
export interface ResearchClientCallOptions {
  readonly signal?: AbortSignal;
}

/** `client.research`. */
export interface ResearchClient {
  /** `POST /v1/research`; with `idempotencyKey`, a retry returns the first job and never charges twice. */
  create(
    request: ResearchRequest,
    options?: ResearchClientCallOptions & { readonly idempotencyKey?: string },
  ): Promise<ResearchJob>;
  /** `GET /v1/research/{id}`. */
  get(id: string, options?: ResearchClientCallOptions): Promise<ResearchJob>;
  /** `GET /v1/research?status=&limit=&cursor=`. */
  list(query?: ResearchListQuery, options?: ResearchClientCallOptions): Promise<ResearchJobList>;
  /** `GET /v1/research/{id}/events`, after `lastEventId`; ends after the terminal event. */
  events(
    id: string,
    options?: ResearchClientCallOptions & { readonly lastEventId?: number },
  ): Promise<AsyncIterable<ResearchEvent>>;
  /** `POST /v1/research/{id}/cancel`. */
  cancel(id: string, options?: ResearchClientCallOptions): Promise<ResearchJob>;
  /** Follows the job's events until it ends, and returns it. */
  wait(id: string, options?: ResearchClientCallOptions): Promise<ResearchJob>;
}

/** What the research client needs from the client: one request, its error handling and timeout. */
export type SendRequest = (
  path: string,
  init: RequestInit,
  call: ResearchClientCallOptions | undefined,
  consume: (response: Response) => Promise<unknown>,
) => Promise<unknown>;

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Most reconnections of one `wait` in a row without a new event. */
const MAX_QUIET_RECONNECTS = 5;

/** Builds `client.research` on the client's `send`. */
export function createResearchClient(
  send: SendRequest,
  headers: Readonly<Record<string, string>>,
): ResearchClient {
  const path = (id: string, action = '') => `/v1/research/${encodeURIComponent(id)}${action}`;
  const json = (response: Response) => response.json();
  const get = (target: string, call?: ResearchClientCallOptions) =>
    send(target, { method: 'GET', headers: { ...headers, accept: 'application/json' } }, call, json);
  const post = (
    target: string,
    body: unknown,
    call?: ResearchClientCallOptions,
    extra: Record<string, string> = {},
  ) =>
    send(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...extra,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      call,
      json,
    );

  async function events(
    id: string,
    options: ResearchClientCallOptions & { readonly lastEventId?: number } = {},
  ) {
    const response = (await send(
      path(id, '/events'),
      {
        method: 'GET',
        headers: {
          ...headers,
          accept: 'text/event-stream',
          ...(options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) }),
        },
      },
      options,
      async (answer) => answer,
    )) as Response;
    return parse(response);
  }

  return {
    async create(request, options = {}) {
      const extra: Record<string, string> = options.idempotencyKey
        ? { 'idempotency-key': options.idempotencyKey }
        : {};
      return (await post('/v1/research', request, options, extra)) as ResearchJob;
    },
    async get(id, options) {
      return (await get(path(id), options)) as ResearchJob;
    },
    async list(query = {}, options) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query))
        if (value !== undefined) params.set(name, String(value));
      const search = params.size ? `?${params.toString()}` : '';
      return (await get(`/v1/research${search}`, options)) as ResearchJobList;
    },
    events,
    async cancel(id, options) {
      return (await post(path(id, '/cancel'), undefined, options)) as ResearchJob;
    },
    async wait(id, options = {}) {
      let last: number | undefined;
      for (let quiet = 0; quiet < MAX_QUIET_RECONNECTS; quiet++) {
        try {
          for await (const event of await events(id, {
            ...options,
            ...(last === undefined ? {} : { lastEventId: last }),
          })) {
            last = event.id;
            quiet = 0;
            if (TERMINAL.has(event.event)) return event.data as ResearchJob;
          }
        } catch (error) {
          // A dropped connection: resume after the last event seen. Anything else is the caller's.
          if (!(error instanceof CitewiseConnectionError) && !(error instanceof TypeError)) throw error;
        }
        if (options.signal?.aborted) break;
      }
      return (await get(path(id), options)) as ResearchJob;
    },
  };
}

async function* parse(response: Response): AsyncGenerator<ResearchEvent> {
  if (!response.body) return;
  const body = response.body;
  try {
    for await (const { event, data, id } of readServerSentEvents(body)) {
      yield { id: Number(id), event, data: JSON.parse(data) as unknown };
    }
  } finally {
    await body.cancel().catch(() => {});
  }
}
