/**
 * The SSRF guard: which URLs and addresses the fetcher may connect to.
 *
 * Only globally routable unicast addresses are allowed (ipaddr.js `range() === 'unicast'`, and for IPv6
 * only inside 2000::/3). The check runs twice: once before a request (fail fast, before a concurrency slot
 * is taken) and again at connection time inside the socket connector, on exactly the addresses the socket
 * will use — so a DNS answer that changes between the two (rebinding) or a redirect to an internal host
 * cannot reach a private address.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { FetchError } from './errors.ts';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves a host name to all of its addresses. Injectable so tests (and users with their own DNS) control
 * the answers. Must reject when the name does not resolve.
 */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The default resolver: the system resolver (`dns.lookup`, all answers, in the order given). */
export const systemResolver: HostResolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/** Explicit relaxations of the guard. Nothing is relaxed by default. */
export interface AddressPolicyOptions {
  /**
   * Hosts that may resolve to non-public addresses: exact names (case-insensitive) or IP literals.
   * `host:port` (`[::1]:8080` for IPv6) allows only that port; a bare host (`10.0.0.5`, `::1`,
   * `intranet`) allows every port of it. Redirects to other hosts or ports are still checked.
   * @default []
   */
  readonly allowPrivateHosts?: readonly string[];
  /**
   * Addresses or CIDR ranges (e.g. `10.1.2.0/24`, `::1`) that any host may connect to.
   * @default []
   */
  readonly allowPrivateAddresses?: readonly string[];
}

type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/** Parses an address, unwrapping IPv4-mapped IPv6; `undefined` when it is not an IP address. */
function parseAddress(address: string): ParsedAddress | undefined {
  const bare = stripBrackets(address);
  if (!ipaddr.isValid(bare)) return undefined;
  try {
    return ipaddr.process(bare);
  } catch {
    return undefined;
  }
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Host name as compared with the allow-list: lower case, no brackets, no trailing dot. */
function normalizeHost(host: string): string {
  const bare = stripBrackets(host.trim().toLowerCase());
  const withoutDot = bare.endsWith('.') ? bare.slice(0, -1) : bare;
  // Compare IP literals in canonical form, so `::1` and `0:0::1` are one entry.
  const parsed = ipaddr.isValid(withoutDot) ? parseAddress(withoutDot) : undefined;
  return parsed ? parsed.toString() : withoutDot;
}

/**
 * Classifies an address: `'unicast'` for a public address, else ipaddr.js's range name
 * (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`, `ipv4Mapped`…), `'unassigned'`
 * for IPv6 outside 2000::/3, or `'invalid'` when it is not an IP address.
 */
export function classifyAddress(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return 'invalid';
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return 'unassigned';
  return 'unicast';
}

/** True when the address is globally routable unicast (the only kind the guard allows by default). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'unicast';
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761), whatever DNS says. */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Decides whether a host may use a set of addresses. */
export interface AddressPolicy {
  /**
   * Throws a `blocked_address` FetchError unless every address is allowed for this host and port.
   * Without a port, a host allowed on any of its ports counts as allowed (for a DNS lookup, which knows
   * no port; see {@link AddressPolicy.withoutHostExceptions}).
   */
  assertAllowed(hostname: string, addresses: readonly string[], port?: number): void;
  /** Throws a `blocked_address` FetchError for names that are never public (`localhost`), unless allowed. */
  assertNameAllowed(hostname: string, port?: number): void;
  /** Whether `allowPrivateHosts` names this host for this port. */
  allowsHost(hostname: string, port: number): boolean;
  /** The same policy without the host exceptions (only `allowPrivateAddresses` still applies). */
  withoutHostExceptions(): AddressPolicy;
}

/** Every port of a host, for a bare allow-list entry. */
const ANY_PORT = 'any';

/**
 * Splits an allow-list entry into host and port: `host:port`, `[v6]:port`, `[v6]`, or a bare host (an
 * IPv6 literal has several colons, so a bare one never reads as `host:port`).
 */
export function parseHostEntry(entry: string): { host: string; port: number | typeof ANY_PORT } {
  const trimmed = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(trimmed);
  const single = !bracketed && /^([^:]*):([^:]*)$/.exec(trimmed);
  const host = bracketed ? bracketed[1]! : single ? single[1]! : trimmed;
  const portText = bracketed ? bracketed[2] : single ? single[2] : undefined;
  if (host === '') throw new TypeError(`allowPrivateHosts: no host in ${JSON.stringify(entry)}`);
  if (portText === undefined) return { host: normalizeHost(host), port: ANY_PORT };
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) {
    throw new TypeError(`allowPrivateHosts: invalid port in ${JSON.stringify(entry)} (expected 1-65535)`);
  }
  return { host: normalizeHost(host), port };
}

/** Builds the policy; throws TypeError on an invalid allow-list entry. */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  /** Allowed ports per host; `ANY_PORT` for a bare entry. */
  const hosts = new Map<string, Set<number | typeof ANY_PORT>>();
  for (const entry of options.allowPrivateHosts ?? []) {
    if (typeof entry !== 'string' || entry.trim() === '') {
      throw new TypeError(`allowPrivateHosts: expected non-empty host names, got ${JSON.stringify(entry)}`);
    }
    const { host, port } = parseHostEntry(entry);
    const ports = hosts.get(host) ?? new Set();
    ports.add(port);
    hosts.set(host, ports);
  }
  const hostAllowed = (host: string, port: number | undefined): boolean => {
    const ports = hosts.get(host);
    if (!ports) return false;
    return port === undefined || ports.has(ANY_PORT) || ports.has(port);
  };
  const ranges: [ParsedAddress, number][] = [];
  for (const entry of options.allowPrivateAddresses ?? []) {
    if (typeof entry !== 'string') throw new TypeError('allowPrivateAddresses: expected strings');
    try {
      if (entry.includes('/')) {
        ranges.push(ipaddr.parseCIDR(entry));
      } else {
        const parsed = ipaddr.parse(stripBrackets(entry));
        ranges.push([parsed, parsed.kind() === 'ipv4' ? 32 : 128]);
      }
    } catch (error) {
      throw new TypeError(`allowPrivateAddresses: invalid address or CIDR range ${JSON.stringify(entry)}`, {
        cause: error,
      });
    }
  }

  const inAllowedRange = (parsed: ParsedAddress): boolean =>
    ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));

  return {
    assertNameAllowed(hostname, port) {
      const host = normalizeHost(hostname);
      if (isLocalhostName(host) && !hostAllowed(host, port)) {
        throw new FetchError('blocked_address', `host ${host} is a local name`);
      }
    },
    allowsHost: (hostname, port) => hostAllowed(normalizeHost(hostname), port),
    withoutHostExceptions: () =>
      createAddressPolicy({ allowPrivateAddresses: options.allowPrivateAddresses ?? [] }),
    assertAllowed(hostname, addresses, port) {
      const host = normalizeHost(hostname);
      if (addresses.length === 0) {
        throw new FetchError('network_error', `host ${host} resolved to no address`);
      }
      if (hostAllowed(host, port)) return;
      for (const address of addresses) {
        const range = classifyAddress(address);
        if (range === 'unicast') continue;
        const parsed = parseAddress(address);
        if (parsed && inAllowedRange(parsed)) continue;
        throw new FetchError(
          'blocked_address',
          `host ${host} has a non-public address ${address} (${range})`,
        );
      }
    },
  };
}

/** Resolves a host (or takes its IP literal) and checks every address; returns the checked addresses. */
export async function resolveChecked(
  hostname: string,
  policy: AddressPolicy,
  resolver: HostResolver,
  port?: number,
): Promise<readonly ResolvedAddress[]> {
  const host = stripBrackets(hostname);
  policy.assertNameAllowed(host, port);
  const family = isIP(host);
  if (family !== 0) {
    policy.assertAllowed(host, [host], port);
    return [{ address: host, family: family === 6 ? 6 : 4 }];
  }
  let answers: readonly ResolvedAddress[];
  try {
    answers = await resolver(host);
  } catch (error) {
    throw new FetchError('network_error', `cannot resolve ${host}`, { cause: error });
  }
  policy.assertAllowed(
    host,
    answers.map((answer) => answer.address),
    port,
  );
  return answers;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net.connect`/`tls.connect` that resolves with the injected resolver and fails unless every
 * answer is allowed; the socket then connects only to the addresses that were checked.
 */
export function createGuardedLookup(policy: AddressPolicy, resolver: HostResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveChecked(hostname, policy, resolver).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted === 0 ? answers : answers.filter((answer) => answer.family === wanted);
        const first = usable[0];
        if (!first) {
          callback(new FetchError('network_error', `host ${hostname} has no IPv${wanted} address`), '', 0);
        } else if (options.all) {
          callback(
            null,
            usable.map((answer) => ({ address: answer.address, family: answer.family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** Options of {@link createGuardedConnector}. */
export interface GuardedConnectorOptions {
  readonly policy: AddressPolicy;
  readonly resolver: HostResolver;
  /** TCP + TLS connect timeout in ms. */
  readonly connectTimeoutMs: number;
  /** Offer HTTP/2 in TLS (ALPN). @default false */
  readonly allowH2?: boolean;
  /** The certificate authorities trusted (PEM), replacing Node's bundled list. @default Node's */
  readonly ca?: readonly string[];
}

/** The port a URL (or a connection's options) goes to: its own, else the protocol's default. */
export function effectivePort(port: string | number | undefined, protocol: string): number {
  const explicit = Number(port);
  if (port !== undefined && port !== '' && Number.isInteger(explicit) && explicit > 0) return explicit;
  return protocol === 'https:' ? 443 : 80;
}

/**
 * An undici connector that enforces the policy at connection time: IP-literal hosts are checked here
 * (Node does not call `lookup` for them), names go through {@link createGuardedLookup}. A DNS lookup knows
 * no port, so a name allowed only on other ports is resolved with the host exceptions left out.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connectorWith = (policy: AddressPolicy) =>
    buildConnector({
      timeout: options.connectTimeoutMs,
      allowH2: options.allowH2 ?? false,
      lookup: createGuardedLookup(policy, options.resolver),
      ...(options.ca ? { ca: [...options.ca] } : {}),
    });
  const lenient = connectorWith(options.policy);
  const strict = connectorWith(options.policy.withoutHostExceptions());
  return (connectOptions, callback) => {
    const host = stripBrackets(connectOptions.hostname);
    const port = effectivePort(connectOptions.port, connectOptions.protocol);
    try {
      options.policy.assertNameAllowed(host, port);
      if (isIP(host) !== 0) options.policy.assertAllowed(host, [host], port);
    } catch (error) {
      callback(error as Error, null);
      return;
    }
    (options.policy.allowsHost(host, port) ? lenient : strict)(connectOptions, callback);
  };
}
