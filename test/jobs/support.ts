/** Helpers of the research job tests: HTTP calls with a key, and server-sent events read in full. */

/** One parsed server-sent event. */
export interface SseEvent {
  readonly id: number | undefined;
  readonly event: string;
  readonly data: unknown;
}

/** Parses a whole `text/event-stream` body (comments skipped). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').filter((line) => line && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) =>
        lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      const id = field('id');
      return {
        id: id === undefined ? undefined : Number(id),
        event: field('event') ?? 'message',
        data: JSON.parse(field('data') ?? 'null') as unknown,
      };
    });
}

/** Calls of `/v1/research` with one key. */
export function researchClient(baseUrl: string, key: string | undefined) {
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return {
    create: (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${baseUrl}/v1/research`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    get: (id: string) => fetch(`${baseUrl}/v1/research/${id}`, { headers: auth }),
    list: (query = '') => fetch(`${baseUrl}/v1/research${query}`, { headers: auth }),
    cancel: (id: string) => fetch(`${baseUrl}/v1/research/${id}/cancel`, { method: 'POST', headers: auth }),
    events: (id: string, lastEventId?: number) =>
      fetch(`${baseUrl}/v1/research/${id}/events`, {
        headers: { ...auth, ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
      }),
    /** Reads the job's whole event stream (it ends after the terminal event). */
    async allEvents(id: string, lastEventId?: number): Promise<SseEvent[]> {
      const response = await this.events(id, lastEventId);
      if (response.status !== 200) throw new Error(`events: ${response.status} ${await response.text()}`);
      return parseSse(await response.text());
    },
    balance: async () => {
      const response = await fetch(`${baseUrl}/v1/balance`, { headers: auth });
      return ((await response.json()) as { available_credits: number }).available_credits;
    },
  };
}

/** A job as the API returns it (the fields tests read). */
export interface JobBody {
  id: string;
  status: string;
  created_at: string;
  answer?: string;
  sources?: string[];
  steps?: unknown[];
  output?: unknown;
  credits_used: number;
  error?: { description: string };
  metadata?: Record<string, unknown>;
  response_type: string;
}
