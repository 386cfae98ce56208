// Structured request logs. Headers are never logged (they carry API keys, cookies and bearer
// tokens), and query strings are dropped (they can carry e-mail addresses).
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { RequestHandler } from 'express';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    base: undefined,
    // Defence in depth: should anything ever log a header object, these paths are censored.
    redact: {
      paths: ['*.headers.authorization', '*.headers.cookie', '*.headers["x-api-key"]', '*.headers["set-cookie"]',
        '*.headers["x-svc-auth-token"]', '*.headers["x-svc-member-token"]', 'key', 'secret', 'password'],
      censor: '[redacted]',
    },
  }, destination);
}

export function requestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as { id: string }).id,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    wrapSerializers: false,
    quietReqLogger: true,
  }) as unknown as RequestHandler;
}
