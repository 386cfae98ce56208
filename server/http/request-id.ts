import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
// `req.id` is typed by pino-http's augmentation of IncomingMessage.

// A caller's own trace id is kept when it is safe to echo back; otherwise we mint one.
const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${crypto.randomUUID().replace(/-/g, '')}`;
  req.id = id;
  res.setHeader('X-Request-Id', id);
  next();
};
