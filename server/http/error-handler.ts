// The last middleware: every error leaves as the spec's envelope, and nothing else leaves.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError } from './api-error.ts';
import { loggablePath } from './logger.ts';
import { asApiError } from './refusals.ts';
import { messages } from '../shared/messages.ts';

/** body-parser and the router tag their errors with `type`/`status`; map them to our codes. */
function fromFrameworkError(
  err: { type?: string; status?: number; statusCode?: number },
  bodyLimit: string,
): ApiError | null {
  if (err instanceof URIError) {
    // The router could not percent-decode a path parameter (`/events/%E0%A4`). refuseUnreadableUrl
    // answers these first, naming the parameter; this is the net under it.
    return new ApiError('INVALID_INPUT', messages.badPathEncoding('path'), { field: 'path' });
  }
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('MALFORMED_JSON', messages.malformedJson);
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', messages.payloadTooLarge(bodyLimit));
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', messages.unsupportedMediaType);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('INVALID_INPUT', messages.unreadableBody);
  }
  // Any other client error a framework layer raised is still the client's: never a 500.
  const status = err.status ?? err.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new ApiError('INVALID_INPUT', messages.badRequest);
  return null;
}

export function errorHandler(logger: Logger, bodyLimit: string): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    // mountRoute translates refusals itself; this catches those thrown by routes mounted without it.
    const err = asApiError(thrown);
    const apiError = err instanceof ApiError ? err : fromFrameworkError(err ?? {}, bodyLimit);
    const final = apiError ?? new ApiError('INTERNAL', messages.internal);
    if (!apiError) {
      logger.error({ err, requestId: req.id, path: loggablePath(req.path) }, 'unhandled error');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [k, v] of Object.entries(final.headers ?? {})) res.setHeader(k, v);
    res.status(final.status).json(final.toEnvelope(String(req.id)));
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new ApiError('NOT_FOUND', messages.routeNotFound(req.method, req.path)));
};
