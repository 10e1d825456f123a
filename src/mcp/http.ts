/**
 * The MCP server over Streamable HTTP (stateless: one server per request), authenticated with the service's
 * own API keys: `Authorization: Bearer <API_KEY>`, exactly as for /v1. Mount it beside /v1, e.g. at `/mcp`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { engineBackend } from '../client/backend.ts';
import type { SearchEngine } from '../engine.ts';
import { CitewiseError } from '../errors.ts';
import { bearerToken, errorResponse } from '../http/handler.ts';
import { writeNodeResponse } from '../http/node.ts';
import { createMcpServer, type McpServerOptions } from './server.ts';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpHandlerOptions extends McpServerOptions {
  /**
   * `Host` header values accepted (DNS-rebinding protection, advised by MCP for local servers).
   * @default any host
   */
  readonly allowedHosts?: readonly string[];
}

/**
 * Returns a `(req, res, parsedBody?)` handler of the MCP endpoint. It answers only POST (stateless mode has
 * no server-initiated stream); a missing or invalid key gets the spec's 401 body with `WWW-Authenticate`.
 */
export function createMcpHttpHandler(
  engine: SearchEngine,
  options: McpHttpHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void> {
  const allowedHosts = options.allowedHosts ? new Set(options.allowedHosts) : undefined;
  return async (req, res, parsedBody) => {
    if (allowedHosts && !allowedHosts.has(req.headers.host ?? '')) {
      writeNodeResponse(
        res,
        errorResponse(
          new CitewiseError('invalid_request', 'host not allowed', {
            description: 'Invalid request: Host not allowed',
          }),
        ),
      );
      return;
    }
    if (req.method !== 'POST') {
      writeNodeResponse(
        res,
        errorResponse(
          new CitewiseError('method_not_allowed', `${req.method} /mcp`, { headers: { allow: 'POST' } }),
        ),
      );
      return;
    }
    const apiKey = bearerToken(req.headers.authorization);
    const record = apiKey ? await engine.stores.keys.verify(apiKey).catch(() => null) : null;
    if (!apiKey || !record) {
      req.resume();
      writeNodeResponse(res, errorResponse(new CitewiseError('invalid_api_key')));
      return;
    }
    const server = createMcpServer(engineBackend(engine, apiKey), options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, parsedBody);
    } catch (error) {
      if (!res.headersSent) {
        writeNodeResponse(
          res,
          errorResponse(new CitewiseError('server_error', String(error), { cause: error })),
        );
      }
    }
  };
}
