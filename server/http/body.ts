// Request bodies: JSON only, strict (objects and arrays at the top), size-capped. A write with a
// body of any other media type is a 415, not a silent empty body.
import express, { type RequestHandler } from 'express';
import { ApiError } from './api-error.ts';
import { messages } from './messages.ts';

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/** One middleware, so reads (most requests) pass with a single method check. */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, strict: true, type: 'application/json' });
  return (req, res, next) => {
    if (BODYLESS.has(req.method)) return next();
    const length = req.get('content-length');
    const hasBody = (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json')) return next(new ApiError('UNSUPPORTED_MEDIA_TYPE', messages.unsupportedMediaType));
    parse(req, res, next);
  };
}
