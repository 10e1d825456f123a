/**
 * The protections of `citewise serve` as an operator starts it, not only the library pieces: a flood of idle
 * connections larger than the process's file-descriptor limit does not stop `/v1/balance` from answering
 * (`--max-connections` below `ulimit -n`), wave after wave; and `/mcp` refuses a rebound `Host` by default
 * when `serve` listens on loopback.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { postMcpToolsList } from '../support/mcp-request.ts';

/** util-linux `prlimit` sets the running `serve` process's file-descriptor limit. */
const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

/** The limit given to `serve`, the cap below it, and a flood well past the limit. */
const FD_LIMIT = 200;
const MAX_CONNECTIONS = 100;
const FLOOD_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const PER_ADDRESS = 75;

let dataDir: string;
let server: ServeProcess;
let key: string;
const opened: Socket[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'citewise-serve-limits-'));
  server = await startServe([
    '--data-dir',
    dataDir,
    '--max-connections',
    String(MAX_CONNECTIONS),
    '--max-connections-per-address',
    String(PER_ADDRESS),
  ]);
  key = server.firstKey() ?? '';
});

afterAll(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens `count` TCP connections from `localAddress` and leaves them silent. */
async function flood(port: number, count: number, localAddress: string): Promise<void> {
  const connecting: Array<Promise<unknown>> = [];
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => {});
    opened.push(socket);
    connecting.push(Promise.race([once(socket, 'connect'), once(socket, 'close')]));
  }
  await Promise.all(connecting);
}

/** The status of `GET /v1/balance`, or 0 when no answer came within 10 s. */
async function balanceStatus(): Promise<number> {
  try {
    const response = await fetch(`${server.baseUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${key}`, connection: 'close' },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

// First: the flood below leaves the process at its file-descriptor limit.
describe('serve on loopback: /mcp Host check by default', () => {
  const postMcp = async (host: string) => (await postMcpToolsList(server.baseUrl, key, { host })).status;

  it('answers a loopback Host and refuses a rebound one with 403, without --mcp-allowed-hosts', async () => {
    const { port } = new URL(server.baseUrl);
    expect(await postMcp(`127.0.0.1:${port}`)).toBe(200);
    expect(await postMcp(`localhost:${port}`)).toBe(200);
    expect(await postMcp(`attacker.example:${port}`)).toBe(403);
  });
});

describe.runIf(hasPrlimit)('serve under a connection flood past its file-descriptor limit', () => {
  it('keeps answering /v1/balance, wave after wave', { timeout: 90_000 }, async () => {
    const limited = spawnSync('prlimit', [
      '--pid',
      String(server.child.pid),
      `--nofile=${FD_LIMIT}:${FD_LIMIT}`,
    ]);
    expect(limited.status, limited.stderr.toString()).toBe(0);
    expect(await balanceStatus()).toBe(200);
    const port = Number(new URL(server.baseUrl).port);
    for (let wave = 0; wave < 2; wave++) {
      for (const address of FLOOD_ADDRESSES) await flood(port, PER_ADDRESS, address);
      expect(await balanceStatus(), `after wave ${wave + 1}`).toBe(200);
    }
  });
});
