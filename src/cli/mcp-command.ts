/**
 * `citewise mcp`: the MCP server over stdio, for Claude Desktop-style clients. It runs the engine
 * in-process with the same settings as `serve` (data dir, stores, search providers, …) and searches as the
 * owner of `--api-key`; with `--url` it forwards to a running service instead.
 *
 * Also the request listener of `serve`: /v1 API, MCP (Streamable HTTP) at `/mcp`, opt-in metrics path.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { pino } from 'pino';
import { createNodeHandler } from '../../adapters/node-http.ts';
import { engineBackend, type CitewiseBackend } from '../client/backend.ts';
import { createClient } from '../client/client.ts';
import type { Logger, SearchEngine } from '../engine/index.ts';
import { createMcpHttpHandler } from '../mcp/http.ts';
import { createMcpServer } from '../mcp/server.ts';
import type { Metrics } from '../observability/metrics.ts';
import {
  addSettingOptions,
  resolveMcpConfig,
  resolveServeConfig,
  type CommandFlags,
  type ServeConfig,
} from './config.ts';
import { MCP_SETTINGS, SERVE_SETTINGS, settingLabel } from './settings.ts';

/** Where the MCP endpoint of `serve` is mounted. */
export const MCP_PATH = '/mcp';

/** Opens the engine as `serve` does; `close` releases the engine and its stores. */
export type OpenEngine = (
  config: ServeConfig,
  logger: Logger,
) => Promise<{ readonly engine: SearchEngine; close(): Promise<void> }>;

/**
 * Registers `citewise mcp`: its own settings (`--api-key`, `--url`) and the engine settings of `serve`
 * (those not marked `serveOnly`), all from the settings table, so the two stay configured alike.
 */
export function registerMcpCommand(program: Command, openEngine: OpenEngine): void {
  const command = program
    .command('mcp')
    .description(
      'Run the MCP server (tools web_search, get_balance) over stdio, for Claude Desktop-style clients.',
    );
  addSettingOptions(command, MCP_SETTINGS);
  addSettingOptions(command, SERVE_SETTINGS, (_name, setting) => setting.serveOnly !== true);
  command.action(async (flags: CommandFlags) => runMcpStdio(flags, openEngine));
}

async function runMcpStdio(flags: CommandFlags, openEngine: OpenEngine): Promise<void> {
  const env = process.env;
  const { apiKey, url } = resolveMcpConfig(flags, env);
  if (!apiKey) throw new Error(`an API key is required: ${settingLabel(MCP_SETTINGS.apiKey)}`);
  let backend: CitewiseBackend;
  let close = async () => {};
  if (url) {
    backend = createClient({ baseUrl: url, apiKey });
  } else {
    const config = resolveServeConfig(flags, env);
    // stdout carries the protocol: logs go to stderr.
    const logger = pino(
      { level: config.logLevel, redact: ['req.headers.authorization', '*.apiKey', '*.key'] },
      pino.destination(2),
    );
    const opened = await openEngine(config, logger);
    close = () => opened.close();
    backend = engineBackend(opened.engine, apiKey);
  }
  // Fail now, with a readable message, rather than on the first tool call.
  try {
    await backend.balance();
  } catch (error) {
    await close();
    const description = (error as { description?: string }).description ?? String(error);
    throw new Error(`cannot use this API key: ${description}`, { cause: error });
  }
  const server = createMcpServer(backend);
  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => {});
    await close();
    process.exit(0);
  };
  transport.onclose = () => void shutdown();
  process.stdin.once('end', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  await server.connect(transport);
}

/** Options of {@link createServeListener}. */
export interface ServeListenerOptions {
  /** Serve Prometheus metrics at this path (no API key: keep it off public networks). @default off */
  readonly metricsPath?: string;
  readonly metrics?: Metrics;
  /** Host names accepted in `Host`/`Origin` at /mcp (see `McpHttpHandlerOptions.allowedHosts`). @default any host */
  readonly mcpAllowedHosts?: readonly string[];
  /**
   * Access log of the routes outside the engine's `handle()` (MCP, metrics), in the engine's format; the
   * engine logs its own routes. @default none
   */
  readonly logger?: Logger;
}

/** Logs one access line when the response is done (as the engine does for its routes). */
function logWhenDone(
  logger: Logger | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
): void {
  if (!logger) return;
  const startedAt = performance.now();
  res.once('close', () => {
    const durationMs = Math.round((performance.now() - startedAt) * 10) / 10;
    const method = req.method ?? 'GET';
    logger.info(
      { method, route, status: res.statusCode, durationMs, requestId: randomUUID(), keyId: null },
      'request',
    );
  });
}

/** The request listener of `serve`: `/v1` (and 404s), MCP at {@link MCP_PATH}, metrics at `metricsPath`. */
export function createServeListener(
  engine: SearchEngine,
  options: ServeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  if (options.metricsPath !== undefined && !options.metricsPath.startsWith('/')) {
    throw new TypeError(`metricsPath must start with "/", got ${options.metricsPath}`);
  }
  if (options.metricsPath !== undefined && !options.metrics) throw new TypeError('metricsPath needs metrics');
  const api = createNodeHandler(engine);
  const mcp = createMcpHttpHandler(
    engine,
    options.mcpAllowedHosts ? { allowedHosts: options.mcpAllowedHosts } : {},
  );
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
    if (path === MCP_PATH) {
      logWhenDone(options.logger, req, res, MCP_PATH);
      void mcp(req, res);
      return;
    }
    if (options.metrics && path === options.metricsPath) {
      logWhenDone(options.logger, req, res, options.metricsPath);
      options.metrics.handler(req, res);
      return;
    }
    api(req, res);
  };
}
