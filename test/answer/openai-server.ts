/**
 * A tiny OpenAI-compatible HTTP server on 127.0.0.1 (port 0) for tests: `/v1/chat/completions` (JSON and
 * SSE streaming) and `/v1/embeddings`. It records every request body and answers from a handler, and can
 * be told to fail the next requests with a status code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopbackServer } from '../support/loopback-server.ts';

/** The recorded body of a chat request. */
export interface ChatRequestBody {
  readonly model: string;
  readonly stream?: boolean;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  readonly max_tokens?: number;
  readonly [key: string]: unknown;
}

export interface OpenAiServer {
  /** Base URL, e.g. `http://127.0.0.1:1234/v1`. */
  readonly baseUrl: string;
  readonly chatRequests: ChatRequestBody[];
  readonly authorization: (string | undefined)[];
  /** Answers the next `count` requests with `status` (and an OpenAI-style error body). */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

export interface OpenAiServerOptions {
  /** The assistant's reply for a chat request. */
  readonly reply: (body: ChatRequestBody) => string;
  /** Characters per streamed delta. @default 5 */
  readonly chunkSize?: number;
  /** Embedding of one input. */
  readonly embed?: (text: string) => number[];
  /** Awaited after the first streamed piece of text, e.g. to hold the rest until the caller hangs up. */
  readonly afterFirstChunk?: (res: ServerResponse) => Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const chatRequests: ChatRequestBody[] = [];
  const authorization: (string | undefined)[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const chunkSize = options.chunkSize ?? 5;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    authorization.push(req.headers.authorization);
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 };
      res.writeHead(failures.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'temporarily unavailable', type: 'server_error' } }));
      return;
    }
    if (req.url === '/v1/embeddings') {
      const inputs = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
      const embed = options.embed ?? (() => [1, 0]);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
      return;
    }
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const chat = body as unknown as ChatRequestBody;
    chatRequests.push(chat);
    const text = options.reply(chat);
    const base = { id: 'chatcmpl-test', created: 1_700_000_000, model: chat.model };
    if (!chat.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown): boolean => res.write(`data: ${JSON.stringify(data)}\n\n`);
    send({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    for (let i = 0; i < text.length; i += chunkSize) {
      send({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { content: text.slice(i, i + chunkSize) }, finish_reason: null }],
      });
      if (i === 0) await options.afterFirstChunk?.(res);
    }
    send({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    });
    res.end('data: [DONE]\n\n');
  };

  const server = await startLoopbackServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return {
    baseUrl: `${server.origin}/v1`,
    chatRequests,
    authorization,
    failNext(count, status) {
      failures = { count, status };
    },
    close: () => server.close(),
  };
}
