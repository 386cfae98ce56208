import crypto from 'node:crypto';
import type { RequestHandler } from 'express';

// A caller's own trace id is kept when it is safe to echo back; otherwise we mint one.
const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A fresh request id, `req_` and 32 hex digits. */
export const mintRequestId = (): string => `req_${crypto.randomUUID().replace(/-/g, '')}`;

/** Also sets the headers every response carries, to keep the per-request middleware chain short. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : mintRequestId();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set first thing by `requestId`; echoed as X-Request-Id and in error envelopes. */
      id: string;
    }
  }
}
