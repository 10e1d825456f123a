/**
 * `citewise/mcp`: the MCP server (tools `web_search`, `extract` and `get_balance`).
 *
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createMcpServer } from 'citewise/mcp';
 * import { createClient } from 'citewise/client';
 * const server = createMcpServer(createClient({ baseUrl, apiKey }));
 * await server.connect(new StdioServerTransport());
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export { createMcpServer, formatSearchResult, type McpServerOptions } from './server.ts';
export { webSearchInputShape } from '../tools/input.ts';
export {
  createMcpHttpHandler,
  isLoopbackHost,
  LOOPBACK_HOST_NAMES,
  type McpHttpHandlerOptions,
} from './http.ts';
export { engineBackend, toBackend, type CitewiseBackend } from '../client/backend.ts';
