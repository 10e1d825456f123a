/**
 * The MCP server of citewise: tools `web_search`, `extract` and `get_balance`, on behalf of one API key, over any
 * MCP transport (stdio in `citewise mcp`, Streamable HTTP at `/mcp` in `citewise serve`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeSearchFailure, type CitewiseBackend } from '../client/backend.ts';
import { MAX_EXTRACT_URLS, type ExtractResponse } from '../http/extract.ts';
import type { SearchResponse } from '../http/schema.ts';
import { toSearchRequest, webSearchInputShape } from '../tools/input.ts';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-info.ts';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name announced to clients. @default 'citewise' */
  readonly name?: string;
  /** Server version announced to clients. @default the package version (PACKAGE_VERSION) */
  readonly version?: string;
}

const searchOutputShape = {
  answer: z.string(),
  response_type: z.string(),
  sources: z.array(z.string()),
  response_time: z.number(),
};

/** The answer followed by a numbered list of its sources: what a model reads. */
export function formatSearchResult(result: SearchResponse): string {
  if (result.sources.length === 0) return result.answer;
  const sources = result.sources.map((url, i) => `[${i + 1}] ${url}`).join('\n');
  return `${result.answer}\n\nSources:\n${sources}`;
}

/** The pages of an extract call as a model reads them: each page's title, URL and content, or its failure. */
export function formatExtractResult(result: ExtractResponse): string {
  return result.results
    .map((page) =>
      'error' in page
        ? `${page.url}\ncould not be read: ${page.error.message} (${page.error.code})`
        : `# ${page.title || page.url}\n${page.url}\n\n${page.content}`,
    )
    .join('\n\n---\n\n');
}

/** Creates an MCP server whose tools search and read the balance through `backend`. */
export function createMcpServer(backend: CitewiseBackend, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: options.name ?? PACKAGE_NAME, version: options.version ?? PACKAGE_VERSION },
    {
      instructions:
        'Use web_search to answer questions that need current or factual information from the web.',
    },
  );

  server.registerTool(
    'web_search',
    {
      title: 'Web search',
      description:
        'Searches the web, reads the best pages and answers the question with cited sources. ' +
        'Each call costs credits. Ask one self-contained question per call.',
      inputSchema: webSearchInputShape,
      outputSchema: searchOutputShape,
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: false },
    },
    async (input, extra): Promise<CallToolResult> => {
      try {
        const result = await backend.search(toSearchRequest(input), {
          signal: extra.signal,
        });
        const structured = {
          answer: result.answer,
          response_type: result.response_type,
          sources: result.sources,
          response_time: result.response_time,
        };
        return {
          content: [{ type: 'text', text: formatSearchResult(result) }],
          structuredContent: structured,
        };
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'extract',
    {
      title: 'Read web pages',
      description:
        `Reads up to ${MAX_EXTRACT_URLS} web pages and returns their main content as Markdown (or text), ` +
        'without menus and ads. Each page read costs credits; a page that fails costs a share of that.',
      inputSchema: {
        urls: z
          .array(z.url())
          .min(1)
          .max(MAX_EXTRACT_URLS)
          .describe('The http(s) URLs of the pages to read.'),
        format: z.enum(['markdown', 'text']).optional().describe('markdown (default) or plain text.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: false },
    },
    async (input, extra): Promise<CallToolResult> => {
      try {
        const result = await backend.extract(
          { urls: input.urls, ...(input.format ? { format: input.format } : {}) },
          { signal: extra.signal },
        );
        return { content: [{ type: 'text', text: formatExtractResult(result) }] };
      } catch (error) {
        return toolError(error);
      }
    },
  );

  server.registerTool(
    'get_balance',
    {
      title: 'Credit balance',
      description: 'Returns the credits still available to this account (each web_search costs credits).',
      outputSchema: { available_credits: z.number() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (): Promise<CallToolResult> => {
      try {
        const balance = await backend.balance();
        return {
          content: [{ type: 'text', text: `${balance.available_credits} credits available` }],
          structuredContent: { available_credits: balance.available_credits },
        };
      } catch (error) {
        return toolError(error);
      }
    },
  );
  return server;
}

/**
 * A failed call as a tool error the model can read, rather than a protocol error: MCP reserves those for
 * malformed calls.
 */
function toolError(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: describeSearchFailure(error) }] };
}
