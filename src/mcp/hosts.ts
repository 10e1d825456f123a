/** Loopback host names, shared by the /mcp Host check and the CLI (without loading the MCP SDK). */

/** The names a client on this machine uses for a server bound to loopback. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** Whether an address or name to listen on is loopback only (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}
