/**
 * The MCP server of citewise: tools `web_search`, `extract`, `research`, `add_document` and `get_balance`, on behalf of one API key, over any
 * MCP transport (stdio in `citewise mcp`, Streamable HTTP at `/mcp` in `citewise serve`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  describeSearchFailure,
  type CitewiseBackend,
  type DocumentsBackend,
  type ResearchBackend,
} from '../client/backend.ts';
import { DOCUMENT_FORMATS } from '../contract/documents.ts';
import { researchRequestSchema } from '../contract/research.ts';
import { MAX_EXTRACT_URLS, type ExtractResponse } from '../contract/extract.ts';
import { MAX_PROMPT_CHARS, type SearchResponse } from '../contract/search.ts';
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

  if (backend.research) registerResearchTool(server, backend.research);
  if (backend.documents) registerAddDocumentTool(server, backend.documents);

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

/** The tool `add_document`: adds a document to the account's own documents, which its searches then read. */
function registerAddDocumentTool(server: McpServer, documents: DocumentsBackend): void {
  server.registerTool(
    'add_document',
    {
      title: 'Add a document',
      description:
        "Adds a document to this account's own documents: later web_search calls of the account answer from " +
        'it too (no other account sees it). The same url again replaces the document.',
      inputSchema: {
        content: z.string().min(1).describe('The text of the document (a PDF file: its bytes in base64).'),
        format: z
          .enum(DOCUMENT_FORMATS)
          .describe('How content is written; html and pdf are extracted as a web page is.'),
        title: z.string().max(500).optional().describe('Its title (default: its first heading).'),
        url: z.string().url().optional().describe('The URL answers cite for it.'),
      },
      outputSchema: { id: z.string(), url: z.string() },
      annotations: { readOnlyHint: false, openWorldHint: false, idempotentHint: true },
    },
    async (input, extra): Promise<CallToolResult> => {
      try {
        const added = await documents.add(input, { signal: extra.signal });
        return {
          content: [{ type: 'text', text: `Added document ${added.id} (${added.url}).` }],
          structuredContent: { id: added.id, url: added.url },
        };
      } catch (error) {
        // The public description only (as describeSearchFailure), never internal details.
        const text = describeSearchFailure(error).replace(/^web search failed/, 'could not add the document');
        return { isError: true, content: [{ type: 'text', text }] };
      }
    },
  );
}

/**
 * The tool `research`: starts a research job, waits for it (the job runs in the background on the
 * service; a client that gives up cancels it, refunding its unused credits) and returns its answer.
 */
function registerResearchTool(server: McpServer, research: ResearchBackend): void {
  server.registerTool(
    'research',
    {
      title: 'Research',
      description:
        'Researches a question that needs several searches and readings (it runs as a background job and ' +
        'can take minutes), then answers with cited sources. Slower and costlier than web_search: use it ' +
        'for questions web_search could not answer in one go.',
      inputSchema: {
        prompt: z.string().min(1).max(MAX_PROMPT_CHARS).describe('The question, self-contained.'),
        // The fields of POST /v1/research, with its limits (one schema).
        max_credits: researchRequestSchema.shape.max_credits.describe('Most credits the research may spend.'),
        time_limit_ms: researchRequestSchema.shape.time_limit_ms.describe(
          'Most time the research may take, in milliseconds.',
        ),
      },
      outputSchema: {
        id: z.string(),
        status: z.string(),
        answer: z.string().optional(),
        sources: z.array(z.string()).optional(),
        credits_used: z.number(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: false },
    },
    async (input, extra): Promise<CallToolResult> => {
      let id: string | undefined;
      try {
        id = (await research.create(input, { signal: extra.signal })).id;
        const job = await research.wait(id, { signal: extra.signal });
        if (extra.signal.aborted) throw extra.signal.reason;
        const structured = {
          id: job.id,
          status: job.status,
          ...(job.answer === undefined ? {} : { answer: job.answer }),
          ...(job.sources === undefined ? {} : { sources: [...job.sources] }),
          credits_used: job.credits_used,
        };
        if (job.status !== 'completed') {
          const reason = job.error?.description ?? job.status;
          return {
            isError: true,
            content: [{ type: 'text', text: `research ${job.id} ${job.status}: ${reason}` }],
            structuredContent: structured,
          };
        }
        const text = formatSearchResult({
          answer: job.answer ?? '',
          sources: [...(job.sources ?? [])],
          response_type: job.response_type,
          response_time: 0,
        });
        return {
          content: [{ type: 'text', text: `${text}\n\n(research job ${job.id})` }],
          structuredContent: structured,
        };
      } catch (error) {
        // The client gave up: stop the job and refund what it held.
        if (id !== undefined && extra.signal.aborted) await research.cancel(id).catch(() => {});
        return toolError(error);
      }
    },
  );
}

/**
 * A failed call as a tool error the model can read, rather than a protocol error: MCP reserves those for
 * malformed calls.
 */
function toolError(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: describeSearchFailure(error) }] };
}
