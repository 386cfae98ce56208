// Raw HTTP to a test server, for tests that set Host, Origin, Cookie and X-Forwarded-* exactly as
// a browser (or a forger) would; fetch would refuse or rewrite some of them.
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  text: string;
}

export function rawRequest(
  port: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface RawOpts {
  host?: string;
  headers?: Record<string, string>;
}

/**
 * Raw HTTP to one test server as a browser on a site sends it: `Host` 127.0.0.1 (or `host`) on the
 * server's port and, on writes, that site's own `Origin` and a JSON body. `Origin: ''` in
 * `headers` sends no Origin at all, as a forger might.
 */
export function rawClient(server: { url: string }) {
  const port = new URL(server.url).port;
  const hostOf = (host?: string) => (host ? `${host}:${port}` : `127.0.0.1:${port}`);
  const send = (method: string, path: string, json: unknown, opts: RawOpts = {}) => {
    const headers: Record<string, string> = {
      Host: hostOf(opts.host),
      Origin: `http://${hostOf(opts.host)}`,
      'Content-Type': 'application/json',
      ...opts.headers,
    };
    if (headers.Origin === '') delete headers.Origin;
    return rawRequest(port, method, path, headers, json === undefined ? undefined : JSON.stringify(json));
  };
  return {
    port,
    origin: (host?: string, proto = 'http') => `${proto}://${hostOf(host)}`,
    get: (path: string, opts: RawOpts = {}) =>
      rawRequest(port, 'GET', path, { Host: hostOf(opts.host), ...opts.headers }),
    post: (path: string, json: unknown, opts: RawOpts = {}) => send('POST', path, json, opts),
    delete: (path: string, opts: RawOpts = {}) => send('DELETE', path, undefined, opts),
  };
}

/**
 * `X-Forwarded-For` from another client address at each call (these servers trust one proxy
 * hop), so one test's per-IP limits never reach the next.
 */
export function clientAddresses(): () => Record<string, string> {
  let ip = 0;
  return () => ({ 'X-Forwarded-For': `203.0.113.${(++ip % 250) + 1}` });
}

/** name -> value of the cookies a response sets. */
export const cookieJar = (res: RawResponse): Record<string, string> =>
  Object.fromEntries(
    (res.headers['set-cookie'] ?? []).map((c) => {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      return [pair.slice(0, i), pair.slice(i + 1)];
    }),
  );

export interface RawExchange extends RawResponse {
  /** Milliseconds from the first byte written until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Writes `chunks` (exact bytes: a request cut short, one too large, or not HTTP at all) on a new
 * connection, each `gapMs` after the last, and reads until the server closes the connection.
 * Rejects if it is still open after `waitMs`.
 */
export function rawExchange(
  port: string,
  chunks: string[],
  opts: { gapMs?: number; waitMs?: number } = {},
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server kept the connection open for ${opts.waitMs ?? 10_000} ms; received ${JSON.stringify(received.slice(0, 200))}`,
        ),
      );
    }, opts.waitMs ?? 10_000);
    socket.on('data', (d) => {
      received += d;
    });
    socket.on('error', () => {
      /* a reset after the answer is a close too */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const [head, ...rest] = received.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const text = rest.join('\r\n\r\n');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body,
        text,
        closedAfterMs: Date.now() - started,
      });
    });
    socket.on('connect', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, opts.gapMs ?? 0));
        if (socket.destroyed) return;
        socket.write(chunk);
      }
    });
  });
}
