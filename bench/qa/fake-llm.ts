/**
 * A TEST DOUBLE of an OpenAI-compatible chat server — not a model. It speaks the wire format
 * (`POST /v1/chat/completions`, non-streaming JSON and `stream: true` server-sent events ending in
 * `data: [DONE]`; `GET /v1/models`), RECORDS every request it receives (to measure what context reached the
 * "model" and how many prompt tokens it cost), and answers deterministically: the sentence of the prompt
 * that shares the most words with the question, followed by the citation `[n]` of the numbered source it
 * sits in (or `[1]`). Usage numbers are estimates (characters / 4), not a tokenizer's count.
 *
 * Scripted misbehaviour for tests of retries and error handling: queue behaviours with {@link FakeLlm.script}
 * (each request takes the next one; the default behaviour answers normally) — HTTP 500, 429 with
 * `Retry-After`, a garbage (non-JSON) body, a slow answer, or a stream cut off midway.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../test/support/loopback-server.ts';

/** What the server does with one request. */
export type FakeLlmBehaviour =
  | { readonly kind: 'answer' }
  /** Answer with this text instead of the overlap sentence. */
  | { readonly kind: 'reply'; readonly text: string }
  | { readonly kind: 'status'; readonly status: number; readonly message?: string }
  | { readonly kind: 'rate-limit'; readonly retryAfterSeconds: number }
  /** 200 with a body that is not JSON (or, when streaming, an SSE event that is not JSON). */
  | { readonly kind: 'garbage' }
  /** Waits `delayMs` before answering normally (the client may abort first). */
  | { readonly kind: 'slow'; readonly delayMs: number }
  /** Streams the first half of the answer and then destroys the connection. */
  | { readonly kind: 'cut-stream' };

/** One recorded chat request. */
export interface RecordedRequest {
  readonly model: string;
  readonly messages: readonly { role: string; content: string }[];
  readonly stream: boolean;
  /** All message contents joined by newlines. */
  readonly promptText: string;
  /** `Math.ceil(promptText.length / 4)`. */
  readonly promptTokens: number;
  /** The raw JSON body. */
  readonly body: Record<string, unknown>;
  /** Behaviour applied to this request. */
  readonly behaviour: FakeLlmBehaviour['kind'];
}

/** Options of {@link createFakeLlm}. */
export interface FakeLlmOptions {
  /** Model ids listed by `GET /v1/models`. @default ['fake-overlap-1'] */
  readonly models?: readonly string[];
  /** Behaviours of the first requests, in order; later requests answer normally. @default [] */
  readonly script?: readonly FakeLlmBehaviour[];
  /** Characters per SSE content chunk. @default 16 */
  readonly chunkChars?: number;
  /** Keep at most this many recorded requests (oldest dropped). @default 100_000 */
  readonly maxRecorded?: number;
  /** @default 0 (any free port) */
  readonly port?: number;
}

/** A running fake OpenAI-compatible server. */
export interface FakeLlm {
  /** `http://127.0.0.1:PORT/v1`: the `baseURL` for `createOpenAICompatible`. */
  readonly baseUrl: string;
  /** Chat requests received so far, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Appends behaviours for the next requests. */
  script(...behaviours: FakeLlmBehaviour[]): void;
  /** Forgets recorded requests and pending scripted behaviours. */
  reset(): void;
  close(): Promise<void>;
}

const STOP_WORDS = new Set(
  'the and was were what which who whom when where how why did does that this for with from are its'.split(
    ' ',
  ),
);

/** Lower-case words of 3+ characters minus a few function words, cut to six letters as a crude stem. */
function words(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])
      .filter((word) => !STOP_WORDS.has(word))
      .map((word) => word.slice(0, 6)),
  );
}

/**
 * The deterministic "answer": the question is the last line ending in `?` in the user messages (else the
 * last user message); the answer is the other sentence of the prompt with the largest word overlap with it
 * (first one on ties), followed by `[n]` where `n` is the last `[n]` source marker before that sentence in
 * its message (else 1).
 */
export function overlapAnswer(messages: readonly { role: string; content: string }[]): string {
  const userLines = messages
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.split('\n'))
    .map((line) => line.trim())
    .filter(Boolean);
  const question = [...userLines].reverse().find((line) => line.endsWith('?')) ?? userLines.at(-1) ?? '';
  const questionWords = words(question);
  let best = { sentence: '', overlap: 0, citation: 1 };
  for (const message of messages) {
    let citation = 1;
    for (const line of message.content.split('\n')) {
      const marker = /^\s*(?:\[|Source\s+|<source[^>]*?\bid=")?(\d{1,3})(?:\]|"|:)/iu.exec(line);
      if (marker) citation = Number(marker[1]);
      // The question itself and short source header lines ("[2] Title") are not answers.
      if (line.trim() === question || (marker && line.trim().split(/\s+/).length <= 8)) continue;
      for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/u)) {
        const text = sentence.trim();
        if (text.length < 3) continue;
        let overlap = 0;
        for (const word of words(text)) if (questionWords.has(word)) overlap++;
        if (overlap > best.overlap) best = { sentence: text, overlap, citation };
      }
    }
  }
  if (!best.sentence) return 'The sources do not contain an answer to this question.';
  return `${best.sentence.replace(/^\[\d+\]\s*/u, '')} [${best.citation}]`;
}

function contentToText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function errorBody(message: string, type: string): unknown {
  return { error: { message, type, param: null, code: null } };
}

/** Starts the fake server on 127.0.0.1. */
export async function createFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const models = options.models ?? ['fake-overlap-1'];
  if (models.length === 0) throw new RangeError('createFakeLlm: models must not be empty');
  const chunkChars = options.chunkChars ?? 16;
  if (!Number.isInteger(chunkChars) || chunkChars < 1)
    throw new RangeError('createFakeLlm: chunkChars must be ≥ 1');
  const maxRecorded = options.maxRecorded ?? 100_000;
  const pending: FakeLlmBehaviour[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  let counter = 0;

  async function handleChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      sendJson(res, 400, errorBody('request body is not JSON', 'invalid_request_error'));
      return;
    }
    if (!Array.isArray(body.messages)) {
      sendJson(res, 400, errorBody('messages must be an array', 'invalid_request_error'));
      return;
    }
    const messages = (body.messages as unknown[]).map((m) => {
      const record = (m ?? {}) as { role?: unknown; content?: unknown };
      return {
        role: typeof record.role === 'string' ? record.role : 'user',
        content: contentToText(record.content),
      };
    });
    const stream = body.stream === true;
    const model = typeof body.model === 'string' ? body.model : models[0]!;
    const behaviour = pending.shift() ?? { kind: 'answer' };
    const promptText = messages.map((m) => m.content).join('\n');
    requests.push({
      model,
      messages,
      stream,
      promptText,
      promptTokens: Math.ceil(promptText.length / 4),
      body,
      behaviour: behaviour.kind,
    });
    if (requests.length > maxRecorded) requests.shift();

    switch (behaviour.kind) {
      case 'status':
        sendJson(res, behaviour.status, errorBody(behaviour.message ?? 'scripted failure', 'server_error'));
        return;
      case 'rate-limit':
        sendJson(res, 429, errorBody('Rate limit reached (scripted)', 'rate_limit_error'), {
          'retry-after': String(behaviour.retryAfterSeconds),
        });
        return;
      case 'garbage':
        if (stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end('data: {this is not json\n\n');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end('<html>definitely not json');
        }
        return;
      case 'slow':
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, behaviour.delayMs);
          res.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (res.destroyed || res.writableEnded) return;
        break;
      default:
        break;
    }

    const text = behaviour.kind === 'reply' ? behaviour.text : overlapAnswer(messages);
    const id = `chatcmpl-fake-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = {
      prompt_tokens: Math.ceil(promptText.length / 4),
      completion_tokens: Math.ceil(text.length / 4),
      total_tokens: Math.ceil(promptText.length / 4) + Math.ceil(text.length / 4),
    };
    if (!stream) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage,
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += chunkChars) pieces.push(text.slice(i, i + chunkChars));
    if (behaviour.kind === 'cut-stream') {
      for (const piece of pieces.slice(0, Math.ceil(pieces.length / 2)))
        res.write(chunk({ content: piece }, null));
      res.destroy();
      return;
    }
    for (const piece of pieces) res.write(chunk({ content: piece }, null));
    const includeUsage =
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    res.write(chunk({}, 'stop', includeUsage ? { usage } : {}));
    res.end('data: [DONE]\n\n');
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'citewise-test-double' })),
      });
      return;
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      handleChat(req, res).catch(() => {
        if (!res.headersSent) sendJson(res, 500, errorBody('fake server failure', 'server_error'));
        else res.destroy();
      });
      return;
    }
    sendJson(res, 404, errorBody(`no route ${req.method ?? ''} ${path}`, 'invalid_request_error'));
  });
  const listening = await listenOnLoopback(server, '/v1', options.port ?? 0);

  return {
    baseUrl: listening.baseUrl,
    requests,
    script(...behaviours) {
      pending.push(...behaviours);
    },
    reset() {
      requests.length = 0;
      pending.length = 0;
    },
    close: () => listening.close(),
  };
}
