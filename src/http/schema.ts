/**
 * Request schemas of the /v1 API (zod). The same schemas validate HTTP bodies and library calls.
 */
import { z } from 'zod';
import { AgentSearchError } from '../errors.ts';
import type { ChatMessage, ResponseType } from '../pipeline/types.ts';

/** Longest accepted prompt, in characters. */
export const MAX_PROMPT_CHARS = 10_000;
/** Most context messages accepted. */
export const MAX_CONTEXT_MESSAGES = 100;
/** Longest accepted context message, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;

const chatMessageSchema = z.object({
  role: z.string({ error: 'must be a string' }),
  content: z
    .string({ error: 'must be a string' })
    .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
});

/** `SearchRequest` of the spec (section 2.1). Unknown fields are ignored. */
export const searchRequestSchema = z.object(
  {
    prompt: z
      .string({ error: 'is required and must be a string' })
      .max(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`)
      .refine((s) => s.trim().length > 0, 'must not be empty'),
    context: z
      .array(chatMessageSchema, { error: 'must be an array of {role, content} messages' })
      .max(MAX_CONTEXT_MESSAGES, `must have at most ${MAX_CONTEXT_MESSAGES} messages`)
      .optional(),
    response_type: z.enum(['text', 'markdown'], { error: 'must be "text" or "markdown"' }).optional(),
    /** Extension: stream the answer as server-sent events. */
    stream: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be a JSON object' },
);

/** A search request as sent by a client (spec field names). */
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** A validated request with defaults applied and non-user messages removed. */
export interface NormalizedSearchRequest {
  readonly prompt: string;
  /** Only `role: "user"` messages, in order. */
  readonly context: readonly ChatMessage[];
  readonly responseType: ResponseType;
  /** Extension: answer as a `text/event-stream` (see {@link SearchStreamEvent}). */
  readonly stream: boolean;
}

/**
 * Events of a streamed search (`"stream": true`), sent as server-sent events named by `type`:
 * `sources` first, then `delta`s of answer text, then `done` with the full spec body — or `error` with the
 * spec's error body if the search fails after the stream started (the credits are refunded).
 */
export type SearchStreamEvent =
  | { readonly type: 'sources'; readonly sources: readonly string[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly body: SearchResponse }
  | { readonly type: 'error'; readonly error: { readonly description: string; readonly code: string } };

/** The spec's 200 body of `POST /v1/search`. */
export interface SearchResponse {
  answer: string;
  response_type: ResponseType;
  sources: string[];
  /** Milliseconds. */
  response_time: number;
}

/** The spec's 200 body of `GET /v1/balance`. */
export interface BalanceResponse {
  available_credits: number;
}

/**
 * Validates a request body; throws a 400 {@link AgentSearchError} naming the first invalid field,
 * e.g. `Invalid request: context[0].content must be a string`.
 */
export function parseSearchRequest(body: unknown): NormalizedSearchRequest {
  const result = searchRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue ? formatPath(issue.path) : '';
    const message = issue?.message ?? 'is invalid';
    const description = field ? `Invalid request: ${field} ${message}` : `Invalid request: body ${message}`;
    throw new AgentSearchError('invalid_request', description, { description });
  }
  const { prompt, context = [], response_type = 'markdown', stream = false } = result.data;
  return {
    stream,
    prompt,
    // The spec: only messages with role `user` are considered when building the context.
    context: context.filter((m) => m.role === 'user'),
    responseType: response_type,
  };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
