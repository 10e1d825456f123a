/**
 * The input a model gives the web search tool (MCP `web_search` and the AI SDK tool share it), and its
 * translation into a /v1 search request. The service validates the request again (a 400 becomes a tool
 * error the model can read), so these schemas only guide the model.
 */
import { z } from 'zod';
import {
  DOCUMENT_SCOPES,
  MAX_CONTEXT_MESSAGES,
  MAX_PROMPT_CHARS,
  type SearchRequest,
} from '../contract/search.ts';
import { SEARCH_DEPTHS } from '../pipeline/types.ts';

/** Fields of the tool input (a zod raw shape, as the MCP SDK takes it). */
export const webSearchInputShape = {
  prompt: z
    .string()
    .min(1)
    .max(MAX_PROMPT_CHARS)
    .describe('The question to answer from the web, as a complete, standalone question.'),
  context: z
    .array(z.string())
    .max(MAX_CONTEXT_MESSAGES)
    .optional()
    .describe(
      'Earlier user messages of the conversation, oldest first, to resolve references in the prompt.',
    ),
  response_type: z
    .enum(['text', 'markdown'])
    .optional()
    .describe('Format of the answer: markdown (default) or plain text.'),
  include_domains: z
    .array(z.string())
    .max(50)
    .optional()
    .describe('Only use pages from these domains, e.g. ["nodejs.org"].'),
  exclude_domains: z.array(z.string()).max(50).optional().describe('Never use pages from these domains.'),
  time_range: z
    .enum(['day', 'week', 'month', 'year'])
    .optional()
    .describe('Only pages published within this period, for recent events.'),
  depth: z
    .enum(SEARCH_DEPTHS)
    .optional()
    .describe(
      'fast: search snippets only; standard (default): read the best pages, more when they miss; deep: several sub-queries, every result read; research: several rounds that follow what was read, for questions needing several documents (who directed X and when were they born; compare X and Y). research is slower and costs a credit per query it sends.',
    ),
  documents: z
    .enum(DOCUMENT_SCOPES)
    .optional()
    .describe(
      "own: answer only from the documents the user's account added (its own files and notes), never the web; all (default): every source.",
    ),
};

/** The tool input schema. */
export const webSearchToolInput = z.object(webSearchInputShape);

/** Input of the web search tool. */
export type WebSearchToolInput = z.infer<typeof webSearchToolInput>;

/** The /v1 request of a tool input: context strings become `user` messages; absent fields stay absent. */
export function toSearchRequest(
  input: WebSearchToolInput,
  defaultResponseType?: 'text' | 'markdown',
): SearchRequest {
  const { prompt, context, response_type, include_domains, exclude_domains, time_range, depth, documents } =
    input;
  const responseType = response_type ?? defaultResponseType;
  return {
    prompt,
    ...(context?.length ? { context: context.map((content) => ({ role: 'user', content })) } : {}),
    ...(responseType ? { response_type: responseType } : {}),
    ...(include_domains?.length ? { include_domains } : {}),
    ...(exclude_domains?.length ? { exclude_domains } : {}),
    ...(time_range ? { time_range } : {}),
    ...(depth ? { depth } : {}),
    ...(documents ? { documents } : {}),
  };
}
