/**
 * OpenAI-compatible chat completions, `POST /v1/chat/completions` and `GET /v1/models`: clients that speak the
 * OpenAI chat API (the `openai` SDK, the AI SDK's OpenAI-compatible provider, chat UIs) get citewise's answer
 * as the assistant message, with Perplexity's additive `citations` and `search_results`, and the sources as
 * OpenAI's `url_citation` annotations (what the AI SDK reads as sources). A translation onto
 * `/v1/search`: same keys, credits, limits; errors in OpenAI's shape.
 */
import { z } from 'zod';
import { CitewiseError, ERROR_TABLE, type ErrorCode } from '../../errors.ts';
import { estimateTokens } from '../../text/tokens.ts';
import {
  parseBody,
  parseSearchRequest,
  type NormalizedSearchRequest,
  type SearchResponse,
} from '../../contract/search.ts';

/**
 * The model ids served, one per depth: `citewise` is a standard search, `citewise-research` the research
 * depth (several rounds, priced per query: like Perplexity's deep-research model).
 */
export const CHAT_MODELS = ['citewise', 'citewise-research'] as const;

const contentPart = z.object({ type: z.string(), text: z.string().optional() });
const chatMessage = z.object({
  role: z.string({ error: 'is required' }),
  content: z.union([z.string(), z.array(contentPart), z.null()], {
    error: 'must be a string or an array of content parts',
  }),
});

/** The request fields used; the others (`temperature`, `max_tokens`, `tools`, …) are accepted and ignored. */
const chatRequestSchema = z.object(
  {
    model: z.string({ error: 'is required' }),
    messages: z.array(chatMessage, { error: 'must be an array of messages' }).min(1, 'must not be empty'),
    stream: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be a JSON object' },
);

/** A chat request as citewise runs it. */
export interface ChatPlan {
  readonly model: string;
  readonly search: NormalizedSearchRequest;
  readonly stream: boolean;
  /** Estimated tokens of the messages that were used (characters / 4). */
  readonly promptTokens: number;
}

/**
 * Translates a chat request: the last user message is the prompt, earlier user messages the context;
 * system and assistant messages are ignored, as the service specification's context rule says. Text
 * content parts are joined; any other part (an image) is a 400.
 */
export function parseChatRequest(body: unknown): ChatPlan {
  const data = parseBody(chatRequestSchema, body);
  if (!(CHAT_MODELS as readonly string[]).includes(data.model)) {
    throw new CitewiseError('not_found', `model ${data.model}`, {
      description: `The model '${data.model}' does not exist; GET /v1/models lists ${CHAT_MODELS.join(', ')}`,
    });
  }
  const userTexts = data.messages.flatMap((message, index) => {
    if (message.role !== 'user') return [];
    if (message.content === null) return [];
    if (typeof message.content === 'string') return [message.content];
    const other = message.content.find((part) => part.type !== 'text');
    if (other) throw invalid(`messages[${index}].content has a ${other.type} part; only text parts are read`);
    return [message.content.map((part) => part.text ?? '').join('\n')];
  });
  const prompt = userTexts.at(-1);
  if (prompt === undefined) throw invalid('messages must contain a user message');
  const context = userTexts.slice(0, -1).map((content) => ({ role: 'user', content }));
  const stream = data.stream ?? false;
  const depth = data.model === 'citewise-research' ? 'research' : 'standard';
  const search = parseSearchRequest({ prompt, context, stream, depth, include: ['search_results'] });
  return {
    model: data.model,
    search,
    stream,
    promptTokens: estimateTokens(userTexts.join('\n')),
  };
}

/** Perplexity's `search_results` entry. */
export interface ChatSearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** `usage`: token counts estimated as characters / 4 (the prompt: the user messages used). */
export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

function usageOf(plan: ChatPlan, answer: string): ChatUsage {
  const completion = estimateTokens(answer);
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: completion,
    total_tokens: plan.promptTokens + completion,
  };
}

function searchResultsOf(response: SearchResponse): ChatSearchResult[] {
  return (response.search_results ?? []).map(({ title, url, snippet }) => ({ title, url, snippet }));
}

/** OpenAI's `url_citation` annotation, which OpenAI's clients read as the answer's sources. */
export interface ChatUrlCitation {
  readonly type: 'url_citation';
  readonly url_citation: {
    readonly url: string;
    readonly title: string;
    /** Where the source's first `[n]` marker starts in the answer (UTF-16 offsets, as in JavaScript). */
    readonly start_index: number;
    readonly end_index: number;
  };
}

/**
 * One `url_citation` per source, in `[n]` order, spanning the first `[n]` of the answer: the AI SDK's
 * OpenAI provider (`@ai-sdk/openai`) turns them into the URL sources of `generateText` and `streamText`.
 */
export function urlCitationsOf(response: SearchResponse): ChatUrlCitation[] {
  const titles = new Map((response.search_results ?? []).map(({ url, title }) => [url, title]));
  return response.sources.map((url, i) => {
    const marker = `[${i + 1}]`;
    const at = response.answer.indexOf(marker);
    const start = at === -1 ? 0 : at;
    return {
      type: 'url_citation' as const,
      url_citation: {
        url,
        title: titles.get(url) || url,
        start_index: start,
        end_index: at === -1 ? 0 : start + marker.length,
      },
    };
  });
}

/** The `chat.completion` body of a finished search. */
export function chatCompletion(plan: ChatPlan, response: SearchResponse, requestId: string) {
  return {
    id: `chatcmpl-${requestId}`,
    object: 'chat.completion' as const,
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: response.answer,
          annotations: urlCitationsOf(response),
        },
        finish_reason: 'stop' as const,
      },
    ],
    usage: usageOf(plan, response.answer),
    citations: response.sources,
    search_results: searchResultsOf(response),
  };
}

/** One event of a streamed search, as the engine produces it. */
type StreamEvent =
  | { readonly type: 'step' }
  | { readonly type: 'sources'; readonly sources: readonly string[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly body: SearchResponse }
  | { readonly type: 'error'; readonly error: { readonly description: string; readonly code: string } };

/**
 * The SSE frames of a streamed chat completion: `chat.completion.chunk`s, the first with the assistant role
 * and `citations` (the source URLs), then the answer text, then a last chunk with `finish_reason`, the
 * sources as `delta.annotations` (`url_citation`s), `usage`, `citations` and `search_results`; then
 * `data: [DONE]`. A failure after the start is sent as
 * `data: {"error": …}` (its `type` as for the code's HTTP status) and the stream ends (the search is refunded).
 */
export async function* chatCompletionChunks(
  plan: ChatPlan,
  events: AsyncIterable<StreamEvent>,
  requestId: string,
): AsyncGenerator<string> {
  const base = {
    id: `chatcmpl-${requestId}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
  };
  const frame = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  for await (const event of events) {
    // Research steps have no chat-completion form.
    if (event.type === 'step') continue;
    if (event.type === 'sources') {
      yield frame({
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
        citations: event.sources,
      });
    } else if (event.type === 'delta') {
      yield frame({ ...base, choices: [{ index: 0, delta: { content: event.text }, finish_reason: null }] });
    } else if (event.type === 'done') {
      const annotations = urlCitationsOf(event.body);
      yield frame({
        ...base,
        choices: [{ index: 0, delta: annotations.length ? { annotations } : {}, finish_reason: 'stop' }],
        usage: usageOf(plan, event.body.answer),
        citations: event.body.sources,
        search_results: searchResultsOf(event.body),
      });
      yield 'data: [DONE]\n\n';
    } else {
      yield frame({
        error: {
          message: event.error.description,
          type: errorType(statusOf(event.error.code)),
          param: null,
          code: event.error.code,
        },
      });
    }
  }
}

/** The list of `GET /v1/models`. */
export function modelList() {
  return {
    object: 'list' as const,
    data: CHAT_MODELS.map((id) => ({ id, object: 'model' as const, created: 0, owned_by: 'citewise' })),
  };
}

/** OpenAI's error body for one of ours: same status, `{error: {message, type, param, code}}`. */
export function openAiErrorBody(error: CitewiseError) {
  return {
    error: { message: error.description, type: errorType(error.status), param: null, code: error.code },
  };
}

/** The HTTP status a streamed error's code would have had before the stream started (500 if unknown). */
function statusOf(code: string): number {
  return Object.hasOwn(ERROR_TABLE, code) ? ERROR_TABLE[code as ErrorCode].status : 500;
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 433) return 'insufficient_quota';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function invalid(message: string): CitewiseError {
  const description = `Invalid request: ${message}`;
  return new CitewiseError('invalid_request', description, { description });
}
