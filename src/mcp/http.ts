/**
 * The MCP server over Streamable HTTP (stateless: one server per request), authenticated with the service's
 * own API keys: `Authorization: Bearer <API_KEY>`, exactly as for /v1. Mount it beside /v1, e.g. at `/mcp`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { engineBackend } from '../client/backend.ts';
import type { SearchEngine } from '../engine/index.ts';
import { CitewiseError, toCitewiseError } from '../errors.ts';
import { bearerToken, errorResponse, readJsonBody } from '../http/handler.ts';
import { fromNodeRequest, writeNodeResponse } from '../http/node.ts';
import { createMcpServer, type McpServerOptions } from './server.ts';

export { isLoopbackHost, LOOPBACK_HOST_NAMES } from './hosts.ts';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpHandlerOptions extends McpServerOptions {
  /**
   * Host names (case-insensitive, without port; IPv6 without brackets) accepted in the `Host` header and,
   * when a browser sends one, in `Origin`: DNS-rebinding protection, as the MCP transport spec asks.
   * `undefined` accepts any host (and does not check `Origin`); `serve` passes the loopback names
   * ({@link LOOPBACK_HOST_NAMES}) when it listens on a loopback address.
   * @default any host
   */
  readonly allowedHosts?: readonly string[];
}

/** The host name of a `Host` header or an `Origin` URL, lower case, without port or brackets. */
function hostNameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    const url = new URL(isOrigin ? value : `http://${value}`);
    return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

function forbiddenHost(what: 'Host' | 'Origin'): CitewiseError {
  return new CitewiseError('forbidden_host', `${what} not allowed`, {
    description: `Forbidden: this ${what} is not allowed for /mcp`,
  });
}

/** Throws 403 unless `Host` (and `Origin`, if sent) names an allowed host. */
function checkHosts(req: IncomingMessage, allowed: ReadonlySet<string> | undefined): void {
  if (!allowed) return;
  const host = hostNameOf(req.headers.host ?? '', false);
  if (!host || !allowed.has(host)) throw forbiddenHost('Host');
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const originHost = hostNameOf(origin, true);
  if (!originHost || !allowed.has(originHost)) throw forbiddenHost('Origin');
}

/**
 * Returns a `(req, res, parsedBody?)` handler of the MCP endpoint. It answers only POST (stateless mode has
 * no server-initiated stream); a missing or invalid key gets the spec's 401 body with `WWW-Authenticate`.
 * The body is read with the same limit, content checks and `Content-Encoding` support as /v1.
 */
export function createMcpHttpHandler(
  engine: SearchEngine,
  options: McpHttpHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void> {
  const allowedHosts = options.allowedHosts
    ? new Set(options.allowedHosts.map((host) => host.replace(/^\[|\]$/g, '').toLowerCase()))
    : undefined;
  return async (req, res, parsedBody) => {
    let apiKey: string | undefined;
    let body: unknown;
    try {
      checkHosts(req, allowedHosts);
      if (req.method !== 'POST') {
        throw new CitewiseError('method_not_allowed', `${req.method} /mcp`, { headers: { allow: 'POST' } });
      }
      apiKey = bearerToken(req.headers.authorization);
      const record = apiKey ? await engine.stores.keys.verify(apiKey).catch(() => null) : null;
      if (!apiKey || !record) throw new CitewiseError('invalid_api_key');
      body = await readJsonBody(fromNodeRequest(req, res, MCP_REQUEST_PATH, parsedBody), engine.maxBodyBytes);
    } catch (error) {
      // Whatever of the body was not read is unwanted.
      req.resume();
      writeNodeResponse(res, errorResponse(toCitewiseError(error)));
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
      await transport.handleRequest(req, res, body);
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

/** The path reported for MCP requests (the handler can be mounted anywhere). */
const MCP_REQUEST_PATH = '/mcp';
