// Raw HTTP to a test server, for tests that set Host, Origin, Cookie and X-Forwarded-* exactly as
// a browser (or a forger) would; fetch would refuse or rewrite some of them.
import http from 'node:http';

export interface RawResponse { status: number; headers: http.IncomingHttpHeaders; body: any; text: string }

export function rawRequest(port: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let parsed: unknown;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface RawOpts { host?: string; headers?: Record<string, string> }

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
      Host: hostOf(opts.host), Origin: `http://${hostOf(opts.host)}`, 'Content-Type': 'application/json', ...opts.headers,
    };
    if (headers.Origin === '') delete headers.Origin;
    return rawRequest(port, method, path, headers, json === undefined ? undefined : JSON.stringify(json));
  };
  return {
    port,
    origin: (host?: string, proto = 'http') => `${proto}://${hostOf(host)}`,
    get: (path: string, opts: RawOpts = {}) => rawRequest(port, 'GET', path, { Host: hostOf(opts.host), ...opts.headers }),
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
  Object.fromEntries((res.headers['set-cookie'] ?? []).map((c) => { const [pair] = c.split(';'); const i = pair.indexOf('='); return [pair.slice(0, i), pair.slice(i + 1)]; }));
