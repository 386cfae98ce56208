// The chrome proxy's network layer: one request to a customer's site (the upstream), through the
// webhooks' SSRF guard, with no visitor credential, no redirect followed, and two deadlines: the
// connection (DNS, TCP and TLS) and the whole response. The response body is handed over as
// received (still Content-Encoded) so non-HTML streams through untouched; html-body.ts decodes HTML.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Duplex, Readable } from 'node:stream';
import { createGuardedAgents, systemLookup, type LookupFn, type RefusalWording } from '../../webhooks/ssrf.ts';

export interface UpstreamClientOptions {
  /** SVC_ALLOW_PRIVATE_UPSTREAMS: loopback and private addresses allowed (development and tests). */
  allowPrivate: boolean;
  lookup?: LookupFn;
  /** Until the TCP (and TLS) connection is open, DNS included; a request waiting for a pooled socket is not counted. */
  connectTimeoutMs?: number;
  /** From the request's start until the body's last byte. */
  responseTimeoutMs?: number;
  /** Per origin, keep-alive. */
  maxSockets?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;
// Connections per landing origin: a cap on a runaway, not a throttle. Each is a few kilobytes, and a
// slow customer site with a thousand visitors waiting must not leave most of them queued until the
// 10 s deadline sends them to the built-in page (tests/bench/chrome-proxy.ts holds 1,000 at once).
export const DEFAULT_MAX_SOCKETS = 2048;

const UPSTREAM_WORDING: RefusalWording = {
  subject: 'upstream',
  requirement: "The community's landing URL must be reachable on the public internet.",
  devHint: 'For local development only, set SVC_ALLOW_PRIVATE_UPSTREAMS=true to allow private upstreams.',
};

export interface UpstreamClient {
  close(): void;
}

interface ClientState extends UpstreamClient {
  readonly agents: { http: http.Agent; https: https.Agent };
  readonly connectTimeoutMs: number;
  readonly responseTimeoutMs: number;
}

/**
 * Rides along in the request options to the agent's createConnection, which is only called when a
 * new connection is opened for this request: that is where the connect deadline starts, so time
 * spent queued behind maxSockets is not mistaken for an unreachable upstream.
 */
const CONNECTION_WATCH = Symbol('upstream connection watch');

interface ConnectionWatch {
  opening(): void;
  created(socket: Duplex): void;
  opened(): void;
}

type ConnectCallback = (err: Error | null, socket: Duplex) => void;

function watchConnections(agent: http.Agent, openedEvent: 'connect' | 'secureConnect'): void {
  const create = agent.createConnection;
  agent.createConnection = function (
    this: http.Agent,
    options: http.ClientRequestArgs,
    callback?: ConnectCallback,
  ): Duplex | null | undefined {
    const watch = (options as { [CONNECTION_WATCH]?: ConnectionWatch })[CONNECTION_WATCH];
    if (!watch) return create.call(this, options, callback);
    watch.opening();
    return create.call(this, options, (err: Error | null, socket: Duplex) => {
      if (!err && socket) {
        watch.created(socket);
        socket.once(openedEvent, () => watch.opened());
      }
      callback?.(err, socket);
    });
  } as typeof agent.createConnection;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const agents = createGuardedAgents(
    { allowPrivate: options.allowPrivate, lookup: options.lookup ?? systemLookup, wording: UPSTREAM_WORDING },
    { maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS },
  );
  watchConnections(agents.http, 'connect');
  watchConnections(agents.https, 'secureConnect');
  const state: ClientState = {
    agents,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
  return state;
}

export interface UpstreamRequest {
  /** http: or https: only. */
  url: URL;
  method: string;
  /** Exactly what is sent (built by upstreamRequestHeaders); Node adds Host and Connection. */
  headers: Record<string, string>;
  /** A non-GET visitor body, piped as is. */
  body?: Readable;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-case names; hop-by-hop headers (Connection and every name it lists, Keep-Alive, Proxy-Authenticate, Proxy-Authorization, TE, Trailer, Transfer-Encoding, Upgrade) and Set-Cookie removed. */
  headers: Record<string, string | string[]>;
  /**
   * The body as received (still Content-Encoded). When the whole-response deadline passes it is
   * destroyed with an UpstreamError('timeout'). A caller that does not want it must still resume()
   * or destroy() it, or its connection stays busy until the deadline.
   */
  body: Readable;
  /** Milliseconds from the request's start to the response headers (for Server-Timing). */
  headersMs: number;
}

export type UpstreamFailure = 'refused' | 'timeout' | 'unreachable' | 'protocol';

export class UpstreamError extends Error {
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamError';
  }
}

/** Hop-by-hop per RFC 9110 §7.6.1, plus Proxy-Connection, which old clients still send as one. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function responseHeaders(incoming: IncomingHttpHeaders): Record<string, string | string[]> {
  const dropped = new Set(HOP_BY_HOP);
  // The upstream's cookies belong to its own domain; forwarding them would set them on ours.
  dropped.add('set-cookie');
  const connection = incoming.connection;
  for (const value of Array.isArray(connection) ? connection : connection ? [connection] : []) {
    for (const name of value.split(',')) dropped.add(name.trim().toLowerCase());
  }
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !dropped.has(name)) out[name] = value;
  }
  return out;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'EADDRNOTAVAIL',
]);

function classify(err: unknown, url: URL): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  if (code === 'UNSAFE_RECEIVER') return new UpstreamError('refused', detail, { cause: err });
  if (code === 'ETIMEDOUT')
    return new UpstreamError('timeout', `${url.origin} did not accept the connection: ${detail}`, { cause: err });
  // Parser errors (HPE_*), TLS failures (a bad certificate) and anything unforeseen: the upstream
  // answered, but not with something we accept.
  if (code && UNREACHABLE_CODES.has(code))
    return new UpstreamError('unreachable', `${url.origin} is unreachable: ${detail}`, { cause: err });
  return new UpstreamError('protocol', `${url.origin} failed: ${detail}`, { cause: err });
}

/** A connection dropped by the server while idle in the pool fails at once; such a request is sent again. */
function isStaleKeepAlive(req: http.ClientRequest, err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

/**
 * Never follows redirects: a 3xx resolves like any response. Rejects with UpstreamError:
 * 'refused' (SSRF guard, bad scheme), 'timeout' (no connection within connectTimeoutMs, or no
 * headers by responseTimeoutMs), 'unreachable' (ECONNREFUSED, DNS failure, reset before headers),
 * 'protocol' (a malformed response, a TLS failure, the visitor's body failing).
 */
export function fetchUpstream(client: UpstreamClient, request: UpstreamRequest): Promise<UpstreamResponse> {
  const state = client as ClientState;
  const { url } = request;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(
      new UpstreamError('refused', `Refused upstream ${url.href}: only http: and https: URLs are fetched.`),
    );
  }
  const started = performance.now();
  const deadline = started + state.responseTimeoutMs;
  const idempotent = !request.body && (request.method === 'GET' || request.method === 'HEAD');
  return new Promise<UpstreamResponse>((resolve, reject) => {
    const attempt = (): void => {
      send(state, request, started, deadline).then(resolve, (failure: { req?: http.ClientRequest; err: unknown }) => {
        // Only a GET or HEAD is sent again: the server may have acted on anything else, and a
        // streamed body is gone anyway.
        if (failure.req && idempotent && isStaleKeepAlive(failure.req, failure.err) && performance.now() < deadline)
          return attempt();
        reject(classify(failure.err, url));
      });
    };
    attempt();
  });
}

function send(
  state: ClientState,
  request: UpstreamRequest,
  started: number,
  deadline: number,
): Promise<UpstreamResponse> {
  const { url } = request;
  const secure = url.protocol === 'https:';
  return new Promise<UpstreamResponse>((resolve, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let socket: Duplex | undefined;
    const fail = (err: unknown): void => {
      clearTimeout(connectTimer);
      if (settled) return;
      settled = true;
      clearTimeout(responseTimer);
      reject({ req, err });
    };

    // A request without a socket yet (its name still resolving) reports destroy() only once it
    // gets one, so a deadline settles the promise itself.
    const abort = (err: UpstreamError): void => {
      fail(err);
      req.destroy(err);
    };

    const watch: ConnectionWatch = {
      opening() {
        connectTimer = setTimeout(() => {
          const err = new UpstreamError(
            'timeout',
            `${url.origin} did not accept a connection within ${state.connectTimeoutMs} ms`,
          );
          // The socket may not be the request's yet (still being handed over): end it too, so a
          // connection to a black hole never reaches the pool.
          socket?.destroy(err);
          abort(err);
        }, state.connectTimeoutMs);
      },
      created(s) {
        socket = s;
      },
      opened() {
        clearTimeout(connectTimer);
      },
    };

    const options: http.RequestOptions & { [CONNECTION_WATCH]: ConnectionWatch } = {
      protocol: url.protocol,
      // Built from the parts rather than the URL so a user:password in the landing URL is never
      // turned into an Authorization header: what is sent is exactly request.headers.
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || (secure ? 443 : 80),
      path: url.pathname + url.search,
      method: request.method,
      headers: request.headers,
      agent: secure ? state.agents.https : state.agents.http,
      [CONNECTION_WATCH]: watch,
    };
    const req = (secure ? https : http).request(options);

    let response: http.IncomingMessage | undefined;
    const responseTimer = setTimeout(
      () => {
        const err = new UpstreamError(
          'timeout',
          response
            ? `${url.origin} did not finish the response within ${state.responseTimeoutMs} ms`
            : `${url.origin} did not answer within ${state.responseTimeoutMs} ms`,
        );
        if (response) response.destroy(err);
        else abort(err);
      },
      Math.max(0, deadline - performance.now()),
    );

    req.on('error', fail);
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      response = res;
      const done = (): void => clearTimeout(responseTimer);
      res.once('end', done);
      res.once('close', done);
      resolve({
        status: res.statusCode ?? 502,
        headers: responseHeaders(res.headers),
        body: res,
        headersMs: Math.round((performance.now() - started) * 10) / 10,
      });
    });

    if (request.body) {
      request.body.on('error', (err) =>
        req.destroy(new UpstreamError('protocol', `the request body failed: ${err.message}`, { cause: err })),
      );
      request.body.pipe(req);
    } else {
      req.end();
    }
  });
}

/**
 * What a visitor's request sends upstream. An allow-list, never a deny-list, so no credential can
 * slip through: Accept, Accept-Language, User-Agent, and for a body Content-Type and Content-Length;
 * never Cookie, Authorization, or anything else. Accept-Encoding is ours: 'gzip, deflate, br'.
 * X-Forwarded-For (the visitor's address appended to an existing X-Forwarded-For the app trusts: take the `for` given),
 * X-Forwarded-Proto and X-Forwarded-Host are set from `forwarded`.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  forwarded: { for: string; proto: 'http' | 'https'; host: string },
  hasBody: boolean,
): Record<string, string> {
  const names = hasBody
    ? ['accept', 'accept-language', 'user-agent', 'content-type', 'content-length']
    : ['accept', 'accept-language', 'user-agent'];
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = incoming[name];
    if (typeof value === 'string') out[name] = value;
    else if (Array.isArray(value)) out[name] = value.join(', ');
  }
  // Ours, not the visitor's: html-body.ts can undo exactly these.
  out['accept-encoding'] = 'gzip, deflate, br';
  out['x-forwarded-for'] = forwarded.for;
  out['x-forwarded-proto'] = forwarded.proto;
  out['x-forwarded-host'] = forwarded.host;
  return out;
}
