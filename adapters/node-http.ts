/**
 * `node:http` adapter: a request listener serving the /v1 API.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { createSearchEngine } from 'citewise';
 * import { createNodeHandler } from 'citewise/node';
 * createServer(createNodeHandler(createSearchEngine())).listen(8787);
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SearchEngine } from '../src/engine/index.ts';
import { CitewiseError } from '../src/errors.ts';
import { errorResponse, stripBasePath } from '../src/http/handler.ts';
import { requestBaseUrl } from '../src/http/base-url.ts';
import { fromNodeRequest, writeNodeResponse } from '../src/http/node.ts';

export {
  CONNECTION_LIMIT_DEFAULTS,
  limitConnections,
  type ConnectionLimiter,
  type ConnectionLimitOptions,
} from '../src/http/connection-limits.ts';

/** Options of {@link createNodeHandler}. */
export interface NodeHandlerOptions {
  /** Path prefix the API is served under, e.g. `/api` for `/api/v1/search`. @default '' */
  readonly basePath?: string;
}

/** Returns a `(req, res)` listener for `http.createServer`. Every other path answers 404 in the spec shape. */
export function createNodeHandler(
  engine: SearchEngine,
  options: NodeHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const basePath = options.basePath ?? '';
  return (req, res) => {
    const path = stripBasePath(new URL(req.url ?? '/', 'http://localhost').pathname, basePath);
    if (path === null) return writeNodeResponse(res, errorResponse(new CitewiseError('not_found')));
    const protocol = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    const baseUrl = requestBaseUrl(protocol, req.headers.host, basePath);
    void engine
      .handle(fromNodeRequest(req, res, path, undefined, baseUrl))
      .then((response) => writeNodeResponse(res, response));
  };
}
