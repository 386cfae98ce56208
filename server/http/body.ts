// Request bodies: JSON only, strict (objects and arrays at the top), size-capped. A write with a
// body of any other media type is a 415, not a silent empty body.
import express, { type Request, type Response } from 'express';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/**
 * Reads and parses the body of a write. Called by the route pipeline after authentication, so
 * a request without valid credentials is refused before any of its body is read.
 */
export function jsonBodyReader(limit: string): (req: Request, res: Response) => Promise<void> {
  const parse = express.json({ limit, strict: true, type: 'application/json' });
  return (req, res) =>
    new Promise((resolve, reject) => {
      if (BODYLESS.has(req.method)) return resolve();
      const length = req.get('content-length');
      const hasBody = (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
      if (hasBody && !req.is('application/json'))
        return reject(new ApiError('UNSUPPORTED_MEDIA_TYPE', messages.unsupportedMediaType));
      parse(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
}
