/**
 * A raw MCP `tools/list` POST with headers fetch cannot set (Host), for the DNS-rebinding checks of /mcp.
 * The connection is closed after the answer.
 */
import { request as httpRequest } from 'node:http';

/** The tools citewise's MCP server lists, sorted by name. */
export const MCP_TOOL_NAMES = ['add_document', 'extract', 'get_balance', 'research', 'web_search'];

/** POSTs `tools/list` to `${baseUrl}/mcp` with the key and `headers` (which win over the defaults). */
export function postMcpToolsList(
  baseUrl: string,
  apiKey: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const url = new URL(`${baseUrl}/mcp`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
