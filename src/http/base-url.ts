/** Where a client reached the API, from the request an adapter received (see `ProtocolRequest.baseUrl`). */

/**
 * `<protocol>://<host><mount path>` when it makes a valid http(s) URL, else `undefined` (a missing or
 * malformed `Host` header). `protocol` is `http` or `https` (an adapter's view, e.g. Express's
 * `req.protocol`), `mountPath` the path the API is mounted at (`''` at the root).
 */
export function requestBaseUrl(
  protocol: string,
  host: string | undefined,
  mountPath: string,
): string | undefined {
  if (!host || !/^https?$/.test(protocol) || /[\s/\\@?#]/.test(host)) return undefined;
  const candidate = `${protocol}://${host}${mountPath.replace(/\/+$/, '')}`;
  if (!URL.canParse(candidate)) return undefined;
  const parsed = new URL(candidate);
  return parsed.search || parsed.hash ? undefined : parsed.href.replace(/\/+$/, '');
}
