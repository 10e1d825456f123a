/**
 * Express adapter (Express 4 and 5): mount the /v1 API under any path, with or without `express.json()`.
 *
 * ```ts
 * app.use('/api', agentSearchExpress(engine)); // → POST /api/v1/search, GET /api/v1/balance
 * ```
 *
 * It is returned as `[handler, errorHandler]`, which `app.use` accepts: the error handler turns
 * `express.json()` failures on our routes (malformed JSON, too large) into the spec's error body.
 * Requests outside `/v1` are passed on with `next()`.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { SearchEngine } from '../src/engine.ts';
import { AgentSearchError } from '../src/errors.ts';
import { errorResponse, isApiPath } from '../src/http/handler.ts';
import { fromNodeRequest, writeNodeResponse } from '../src/http/node.ts';

/** Returns the middleware pair to pass to `app.use(path?, …)`. */
export function agentSearchExpress(engine: SearchEngine): [RequestHandler, ErrorRequestHandler] {
  const handler: RequestHandler = (req, res, next) => {
    if (!isApiPath(req.path)) return next();
    // A body parser that ran before us (express.json()) leaves the parsed body in `req.body`.
    const parsed = req.body as unknown;
    engine
      .handle(fromNodeRequest(req, res, req.path, parsed))
      .then((response) => writeNodeResponse(res, response), next);
  };
  const errorHandler: ErrorRequestHandler = (error: { type?: string; status?: number }, req, res, next) => {
    if (!isApiPath(req.path) || typeof error?.type !== 'string' || !error.type.startsWith('entity.')) {
      return next(error);
    }
    const mapped =
      error.type === 'entity.too.large'
        ? new AgentSearchError('payload_too_large')
        : new AgentSearchError('invalid_request', error.type, {
            description: 'Invalid request: the body is not valid JSON',
          });
    writeNodeResponse(res, errorResponse(mapped));
  };
  return [handler, errorHandler];
}
