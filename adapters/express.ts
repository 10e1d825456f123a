/**
 * Express adapter (Express 4 and 5): mount the /v1 API (with `/healthz`, `/readyz` and the corpus files
 * at `/docs/…`) under any path.
 *
 * ```ts
 * app.use('/api', citewiseExpress(engine)); // → POST /api/v1/search, GET /api/v1/balance
 * app.use(express.json()); // the application's own parser, after citewise
 * ```
 *
 * Mount it before `express.json()`: citewise then reads its own body, up to the engine's `maxBodyBytes`.
 * A parser that runs first consumes the body, and refuses (413) what is larger than its own limit (100 KB
 * by default); give it the engine's limit, `express.json({ limit: engine.maxBodyBytes })`, and the parsed
 * body is used.
 *
 * It is returned as `[handler, errorHandler]`, which `app.use` accepts: the error handler turns body-parser
 * failures on our routes (malformed JSON, too large) into the spec's error body. Requests outside our paths
 * (and `/docs/…` paths that are no corpus file) are passed on with `next()`.
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { SearchEngine } from '../src/engine/index.ts';
import { CitewiseError } from '../src/errors.ts';
import { errorResponse, isApiPath, passesOn, payloadTooLarge } from '../src/http/handler.ts';
import { requestBaseUrl } from '../src/http/base-url.ts';
import { fromNodeRequest, writeNodeResponse } from '../src/http/node.ts';

/** Returns the middleware pair to pass to `app.use(path?, …)`. */
export function citewiseExpress(engine: SearchEngine): [RequestHandler, ErrorRequestHandler] {
  const handler: RequestHandler = (req, res, next) => {
    if (!isApiPath(req.path, engine.tavilyPrefix)) return next();
    // A body parser that ran before us (express.json()) leaves the parsed body in `req.body`.
    const parsed = req.body as unknown;
    // Where this request reached the API (Express applies its `trust proxy` setting to `req.protocol`).
    const baseUrl = requestBaseUrl(req.protocol, req.get('host'), req.baseUrl);
    engine.handle(fromNodeRequest(req, res, req.path, parsed, baseUrl)).then((response) => {
      if (passesOn(req.path, response)) next();
      else writeNodeResponse(res, response);
    }, next);
  };
  // Body-parser failures (express.json() and friends) on our routes become spec errors: every client 4xx
  // they raise (bad JSON, too large, unsupported charset or encoding, a failed decompression…) is an
  // http-errors 4xx with a `type` or `expose: true`.
  const errorHandler: ErrorRequestHandler = (
    error: { type?: unknown; status?: unknown; expose?: unknown; limit?: unknown },
    req,
    res,
    next,
  ) => {
    const status = typeof error?.status === 'number' ? error.status : 0;
    const clientError =
      status >= 400 && status <= 499 && (typeof error.type === 'string' || error.expose === true);
    if (!isApiPath(req.path, engine.tavilyPrefix) || !clientError) return next(error);
    // The body was refused by the parser's limit: say which limit applied (the smaller of its and ours).
    const parserLimit = typeof error.limit === 'number' ? error.limit : engine.maxBodyBytes;
    const mapped =
      status === 413
        ? payloadTooLarge(Math.min(parserLimit, engine.maxBodyBytes))
        : status === 415
          ? new CitewiseError('unsupported_media_type', typeof error.type === 'string' ? error.type : 'body')
          : new CitewiseError('invalid_request', typeof error.type === 'string' ? error.type : 'body', {
              description:
                error.type === 'entity.parse.failed'
                  ? 'Invalid request: the body is not valid JSON'
                  : 'Invalid request: the body could not be read',
            });
    writeNodeResponse(res, errorResponse(mapped));
  };
  return [handler, errorHandler];
}
