/**
 * `webSearchTool()`: citewise as an AI SDK tool for `generateText` / `streamText`, backed by an
 * in-process engine (with an API key) or by the HTTP client.
 */
import { tool } from 'ai';
import { describeSearchFailure, toBackend, type CitewiseBackend } from '../client/backend.ts';
import type { CitewiseClient } from '../client/client.ts';
import type { SearchEngine } from '../engine/index.ts';
import { toSearchRequest, webSearchToolInput } from './input.ts';

/** Options of {@link webSearchTool}. */
export interface WebSearchToolOptions {
  /** The key searches are charged to. Required with an engine; ignored with a client (it has its own). */
  readonly apiKey?: string;
  /** What the model reads about the tool. @default a description of a cited web search */
  readonly description?: string;
  /** Answer format when the model does not choose one. @default 'markdown' */
  readonly responseType?: 'text' | 'markdown';
}

/** What the tool returns to the model: the spec's search response. */
export interface WebSearchToolOutput {
  readonly answer: string;
  readonly sources: readonly string[];
  readonly response_type: string;
  readonly response_time: number;
}

const DEFAULT_DESCRIPTION =
  'Search the web for current or factual information. Returns an answer written from the pages read, ' +
  'with the URLs of its sources; cite them. Ask one self-contained question per call.';

/**
 * Returns an AI SDK tool that runs a web search. A failed search throws an Error whose message is safe to
 * show the model (the spec's description and retry hint), which the AI SDK reports as a tool error.
 *
 * ```ts
 * const { text } = await generateText({ model, tools: { web_search: webSearchTool(client) },
 *   stopWhen: isStepCount(3), prompt: 'Who won the last Tour de France?' });
 * ```
 */
export function webSearchTool(
  engineOrClient: SearchEngine | CitewiseClient | CitewiseBackend,
  options: WebSearchToolOptions = {},
) {
  const backend = toBackend(engineOrClient, options.apiKey);
  const defaultResponseType = options.responseType ?? 'markdown';
  if (defaultResponseType !== 'text' && defaultResponseType !== 'markdown') {
    throw new TypeError(`responseType must be "text" or "markdown", got ${String(options.responseType)}`);
  }
  return tool({
    description: options.description ?? DEFAULT_DESCRIPTION,
    inputSchema: webSearchToolInput,
    async execute(input, { abortSignal }): Promise<WebSearchToolOutput> {
      try {
        const result = await backend.search(
          toSearchRequest(input, defaultResponseType),
          abortSignal ? { signal: abortSignal } : {},
        );
        return {
          answer: result.answer,
          sources: result.sources,
          response_type: result.response_type,
          response_time: result.response_time,
        };
      } catch (error) {
        throw new Error(describeSearchFailure(error), { cause: error });
      }
    },
  });
}
