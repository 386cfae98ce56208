// CORS for the public API: any origin may read with a publishable key, never with credentials,
// so a browser never attaches cookies to /v1 calls.
import type { RequestHandler } from 'express';

const ALLOWED_HEADERS =
  'X-API-Key, Content-Type, Idempotency-Key, X-Idempotency-Key, X-Request-Id, X-Svc-Auth-Token, X-Svc-Member-Token';
const EXPOSED_HEADERS =
  'X-Request-Id, X-Total-Count, X-Total-Count-Accuracy, Link, X-Next-Cursor, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed';

export const publicCors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PATCH, PUT, DELETE, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};
