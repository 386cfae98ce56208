// Structured request logs: one JSON line per request with the request id, method, path, status
// and duration. Headers are never logged (they carry API keys, cookies and bearer tokens), and
// query strings are dropped (they can carry e-mail addresses). Written by hand on pino rather
// than with pino-http: this is on every request's path, and the generic middleware (a child
// logger per request, serializer wrapping) cost a measurable share of a small request.
import pino, { type Logger } from 'pino';
import type { RequestHandler } from 'express';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      // Defence in depth: should anything ever log one of these fields, it is censored.
      redact: { paths: ['key', 'secret', 'password', 'token', 'authorization', 'cookie'], censor: '[redacted]' },
    },
    // Buffered, asynchronous writes keep logging off the request's critical path; main.ts
    // flushes on shutdown.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * A request path as logs may keep it: an invite link's code (`/join/<code>`, a credential that
 * makes its bearer a member) is replaced, so anyone who reads the logs cannot join by it.
 */
export function loggablePath(path: string): string {
  return path.replace(/^\/join\/[^/?]+/, '/join/[redacted]');
}

export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const q = req.originalUrl.indexOf('?');
      logger[level](
        {
          req: {
            id: req.id,
            method: req.method,
            path: loggablePath(q === -1 ? req.originalUrl : req.originalUrl.slice(0, q)),
            remoteAddress: req.ip,
          },
          res: { statusCode: status },
          responseTime: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request completed',
      );
    });
    next();
  };
}
