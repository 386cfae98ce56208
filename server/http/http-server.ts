// The Node HTTP server the app runs on, the same in main.ts and in the API tests: its timeouts,
// and the error envelope for requests Node refuses before Express ever sees them (headers over
// 16 KB, a request that is not HTTP, a client too slow to send its request).
import http, { STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';
import { mintRequestId } from './request-id.ts';

/**
 * How often Node looks for requests past their timeout. Its default (30 s) would let a stalled
 * request live up to 30 s beyond SVC_REQUEST_TIMEOUT_MS; a pass over the open connections each
 * second costs nothing worth counting.
 */
const TIMEOUT_CHECK_MS = 1000;

export function createHttpServer(config: Pick<Config, 'http'>, logger: Logger, app?: RequestListener): Server {
  const server = http.createServer({
    requestTimeout: config.http.requestTimeoutMs,
    headersTimeout: config.http.headersTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  });
  if (app) server.on('request', app);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, logger));
  return server;
}

/** What Node's parser or its timeouts refused, as one of our errors; null when nobody is listening. */
function clientErrorOf(err: NodeJS.ErrnoException): ApiError | null {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return null;
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', messages.headersTooLarge);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', messages.requestTimeout);
    default:
      return new ApiError('INVALID_INPUT', messages.badRequest);
  }
}

/**
 * The envelope written straight to the socket (there is no request or response object here), with
 * a request id of its own, then the connection closed: after a parse error or a timeout nothing
 * more can be read from it. A response already under way is left as it is.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  const error = clientErrorOf(err);
  if (!error || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = mintRequestId();
  logger.info({ requestId, code: err.code, status: error.status }, 'refused a request before routing');
  const body = JSON.stringify(error.toEnvelope(requestId));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
