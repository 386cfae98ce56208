// The chrome proxy's upstream fetch against real local servers: what the customer's site receives,
// what comes back, and how each failure is named. DNS is a stub wherever a name is used.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createUpstreamClient,
  fetchUpstream,
  upstreamRequestHeaders,
  UpstreamError,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamRequest,
} from '../../server/site/proxy/upstream.ts';
import type { LookupFn } from '../../server/webhooks/ssrf.ts';
import { failure } from './support/upstream-failure.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let targetHits = 0;
let upstream: http.Server;
let target: http.Server;
let base: string;
let port: number;

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

beforeAll(async () => {
  target = http.createServer((_req, res) => {
    targetHits++;
    res.end('target');
  });
  const targetPort = await listen(target);

  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      switch (req.url) {
        case '/headers':
          res.setHeader('Connection', 'X-Hop-Secret, keep-alive');
          res.setHeader('X-Hop-Secret', 'only for the next hop');
          res.setHeader('Keep-Alive', 'timeout=5');
          res.setHeader('Proxy-Authenticate', 'Basic realm="x"');
          res.setHeader('Trailer', 'X-Checksum');
          res.setHeader('Set-Cookie', ['session=upstream; Path=/', 'other=1']);
          res.setHeader('X-Kept', 'yes');
          res.setHeader('Cache-Control', 'max-age=60');
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          // No Content-Length: the body goes out chunked, so Transfer-Encoding is there to drop.
          res.write('<p>hello');
          res.end('</p>');
          return;
        case '/redirect':
          res.writeHead(302, { Location: `http://127.0.0.1:${targetPort}/landing` });
          res.end();
          return;
        case '/slow':
          setTimeout(() => res.end('slow'), 300);
          return;
        case '/never':
          return; // never answers
        case '/half':
          res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': '1000' });
          res.write('<p>the first half'); // and then nothing
          return;
        default:
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ ok: true }));
      }
    });
  });
  port = await listen(upstream);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await Promise.all([close(upstream), close(target)]);
});

const clients: UpstreamClient[] = [];
afterAll(() => clients.forEach((c) => c.close()));

function client(options: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  const c = createUpstreamClient({ allowPrivate: true, ...options });
  clients.push(c);
  return c;
}

function get(url: string, headers: Record<string, string> = {}): UpstreamRequest {
  return { url: new URL(url), method: 'GET', headers };
}

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const FORWARDED = { for: '203.0.113.9', proto: 'https', host: 'demo.example.org' } as const;

/** What a browser signed in to the community would send. */
const VISITOR: http.IncomingHttpHeaders = {
  host: 'demo.example.org',
  cookie: 'svc_session=secret-session',
  authorization: 'Bearer secret-token',
  'x-api-key': 'secret-key',
  'proxy-authorization': 'Basic c2VjcmV0',
  'x-csrf-token': 'secret-csrf',
  'accept-encoding': 'zstd',
  accept: 'text/html',
  'accept-language': 'fr-CH, fr;q=0.9',
  'user-agent': 'Mozilla/5.0 test',
  'content-type': 'application/x-www-form-urlencoded',
  'content-length': '20',
  'if-none-match': '"visitor-etag"',
  'x-forwarded-for': '198.51.100.1',
};

describe('upstreamRequestHeaders', () => {
  it('keeps only Accept, Accept-Language and User-Agent of a GET, adds ours', () => {
    expect(upstreamRequestHeaders(VISITOR, FORWARDED, false)).toEqual({
      accept: 'text/html',
      'accept-language': 'fr-CH, fr;q=0.9',
      'user-agent': 'Mozilla/5.0 test',
      'accept-encoding': 'gzip, deflate, br',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'demo.example.org',
    });
  });

  it('adds Content-Type and Content-Length for a body', () => {
    const headers = upstreamRequestHeaders(VISITOR, FORWARDED, true);
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(headers['content-length']).toBe('20');
  });

  it('leaves out what the visitor did not send', () => {
    expect(Object.keys(upstreamRequestHeaders({}, FORWARDED, true)).sort()).toEqual([
      'accept-encoding',
      'x-forwarded-for',
      'x-forwarded-host',
      'x-forwarded-proto',
    ]);
  });
});

describe('fetchUpstream: what the upstream receives', () => {
  it('gets no cookie, no Authorization, no other visitor header, and the forwarded headers', async () => {
    const res = await fetchUpstream(client(), {
      ...get(`${base}/page?x=1`),
      headers: upstreamRequestHeaders(VISITOR, FORWARDED, false),
    });
    await text(res.body);
    const got = received.at(-1)!;
    expect(got.url).toBe('/page?x=1');
    expect(got.headers.cookie).toBeUndefined();
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers['proxy-authorization']).toBeUndefined();
    expect(got.headers['x-api-key']).toBeUndefined();
    expect(got.headers['x-csrf-token']).toBeUndefined();
    expect(got.headers['if-none-match']).toBeUndefined();
    expect(got.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(got.headers['x-forwarded-for']).toBe('203.0.113.9');
    expect(got.headers['x-forwarded-proto']).toBe('https');
    expect(got.headers['x-forwarded-host']).toBe('demo.example.org');
    expect(got.headers['user-agent']).toBe('Mozilla/5.0 test');
    expect(got.headers.host).toBe(`127.0.0.1:${port}`);
    expect(Object.keys(got.headers).sort()).toEqual(
      [
        'accept',
        'accept-encoding',
        'accept-language',
        'connection',
        'host',
        'user-agent',
        'x-forwarded-for',
        'x-forwarded-host',
        'x-forwarded-proto',
      ].sort(),
    );
  });

  it('sends no Authorization even when the landing URL carries a user name and password', async () => {
    const res = await fetchUpstream(client(), get(`http://user:pass@127.0.0.1:${port}/page`));
    await text(res.body);
    expect(received.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('pipes a POST body through with its Content-Type', async () => {
    const form = 'name=Ana&message=hi';
    const res = await fetchUpstream(client(), {
      url: new URL(`${base}/contact`),
      method: 'POST',
      headers: upstreamRequestHeaders(
        { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length), cookie: 'a=b' },
        FORWARDED,
        true,
      ),
      body: Readable.from([Buffer.from(form)]),
    });
    expect(res.status).toBe(200);
    await text(res.body);
    const got = received.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.body).toBe(form);
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(got.headers['content-length']).toBe(String(form.length));
    expect(got.headers.cookie).toBeUndefined();
  });
});

describe('fetchUpstream: the response', () => {
  it('drops Set-Cookie and the hop-by-hop headers, including one named in Connection, and keeps the rest', async () => {
    const res = await fetchUpstream(client(), get(`${base}/headers`));
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    for (const name of [
      'connection',
      'x-hop-secret',
      'keep-alive',
      'proxy-authenticate',
      'trailer',
      'transfer-encoding',
    ])
      expect(res.headers[name], name).toBeUndefined();
    expect(res.headers['x-kept']).toBe('yes');
    expect(res.headers['cache-control']).toBe('max-age=60');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await text(res.body)).toBe('<p>hello</p>');
    expect(res.headersMs).toBeGreaterThanOrEqual(0);
    expect(res.headersMs).toBeLessThan(5000);
  });

  it('returns a redirect as it is and never follows it', async () => {
    const before = targetHits;
    const res = await fetchUpstream(client(), get(`${base}/redirect`));
    await text(res.body);
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/landing$/);
    await new Promise((r) => setTimeout(r, 50));
    expect(targetHits).toBe(before);
  });

  it('reuses a keep-alive connection for the next request to the same origin', async () => {
    const c = client();
    const first = await fetchUpstream(c, get(`${base}/page`));
    await text(first.body);
    const second = await fetchUpstream(c, get(`${base}/page`));
    await text(second.body);
    expect(received.at(-1)!.headers.connection).toBe('keep-alive');
  });
});

describe('fetchUpstream: the SSRF guard', () => {
  const noDns: LookupFn = async (host) => {
    throw new Error(`lookup(${host}) must not be called`);
  };

  async function refusedWithoutHit(c: UpstreamClient, url: string): Promise<UpstreamError> {
    const before = received.length;
    const err = await failure(fetchUpstream(c, get(url)));
    expect(err.failure).toBe('refused');
    expect(received.length).toBe(before);
    return err;
  }

  it('refuses 127.0.0.1 in production mode, naming the upstream setting', async () => {
    const err = await refusedWithoutHit(client({ allowPrivate: false, lookup: noDns }), `${base}/page`);
    expect(err.message).toContain('loopback');
    expect(err.message).toContain('SVC_ALLOW_PRIVATE_UPSTREAMS');
    expect(err.message).not.toContain('webhook');
  });

  it('refuses localhost in production mode', async () => {
    await refusedWithoutHit(client({ allowPrivate: false, lookup: noDns }), `http://localhost:${port}/page`);
  });

  it('refuses a name that resolves to a private address', async () => {
    const lookup: LookupFn = async () => [{ address: '10.0.0.1', family: 4 }];
    const err = await refusedWithoutHit(
      client({ allowPrivate: false, lookup }),
      `http://blog.customer.example:${port}/page`,
    );
    expect(err.message).toContain('blog.customer.example resolves to 10.0.0.1');
  });

  it('refuses a scheme other than http: and https:', async () => {
    const err = await failure(fetchUpstream(client(), get('ftp://127.0.0.1/file')));
    expect(err.failure).toBe('refused');
  });

  it('reaches a private address when private upstreams are allowed, connecting to the checked answer', async () => {
    const lookup: LookupFn = async () => [{ address: '127.0.0.1', family: 4 }];
    const res = await fetchUpstream(
      client({ allowPrivate: true, lookup }),
      get(`http://blog.customer.example:${port}/page`),
    );
    await text(res.body);
    expect(res.status).toBe(200);
    expect(received.at(-1)!.headers.host).toBe(`blog.customer.example:${port}`);
  });
});

describe('fetchUpstream: failures', () => {
  it('times out when the upstream never answers', async () => {
    const started = performance.now();
    const err = await failure(fetchUpstream(client({ responseTimeoutMs: 300 }), get(`${base}/never`)));
    const elapsed = performance.now() - started;
    expect(err.failure).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  it('errors the body with a timeout when it stops halfway past the deadline', async () => {
    const res = await fetchUpstream(client({ responseTimeoutMs: 300 }), get(`${base}/half`));
    expect(res.status).toBe(200);
    const err = await failure(text(res.body));
    expect(err.failure).toBe('timeout');
  });

  it('lets the deadline end a body nobody reads without an uncaught error', async () => {
    const res = await fetchUpstream(client({ responseTimeoutMs: 200 }), get(`${base}/half`));
    res.body.resume();
    await new Promise((resolve) => res.body.once('close', resolve));
    expect(res.body.destroyed).toBe(true);
  });

  it('names a closed port unreachable', async () => {
    const closed = http.createServer();
    const closedPort = await listen(closed);
    await close(closed);
    const err = await failure(fetchUpstream(client(), get(`http://127.0.0.1:${closedPort}/`)));
    expect(err.failure).toBe('unreachable');
  });

  it('names a DNS failure unreachable', async () => {
    const lookup: LookupFn = async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const err = await failure(fetchUpstream(client({ lookup }), get('http://nowhere.invalid/')));
    expect(err.failure).toBe('unreachable');
  });

  it('gives up connecting after connectTimeoutMs, the name lookup included', async () => {
    const lookup: LookupFn = () => new Promise(() => {}); // a resolver that never answers
    const started = performance.now();
    const err = await failure(
      fetchUpstream(
        client({ lookup, connectTimeoutMs: 200, responseTimeoutMs: 5000 }),
        get('http://slow-dns.example/'),
      ),
    );
    const elapsed = performance.now() - started;
    expect(err.failure).toBe('timeout');
    expect(err.message).toContain('200 ms');
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000);
  });

  it('gives up connecting to a non-routable address after connectTimeoutMs', async (ctx) => {
    const started = performance.now();
    const outcome = await fetchUpstream(
      client({ connectTimeoutMs: 200, responseTimeoutMs: 5000 }),
      get('http://10.255.255.1:81/'),
    ).then(
      (res) => {
        res.body.destroy();
        return null;
      },
      (e: unknown) => e,
    );
    // Some networks (a sandbox's transparent proxy) answer for any address: nothing to test there.
    if (outcome === null) return ctx.skip();
    const elapsed = performance.now() - started;
    expect(outcome).toBeInstanceOf(UpstreamError);
    // A machine without a route answers EHOSTUNREACH / ENETUNREACH at once: nothing to wait for then.
    const err = outcome as UpstreamError;
    expect(['timeout', 'unreachable']).toContain(err.failure);
    if (err.failure === 'timeout') expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000);
  });

  it('calls an upstream whose certificate is not trusted a protocol failure, and sends it nothing', async (ctx) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upstream-tls-'));
    try {
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:prime256v1',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=127.0.0.1',
            '-addext',
            'subjectAltName=IP:127.0.0.1',
            '-keyout',
            path.join(dir, 'key.pem'),
            '-out',
            path.join(dir, 'cert.pem'),
          ],
          { stdio: 'ignore' },
        );
      } catch {
        return ctx.skip(); // no openssl to make a certificate with
      }
      let hits = 0;
      const tls = https.createServer(
        { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
        (_req, res) => {
          hits++;
          res.end('secret');
        },
      );
      const tlsPort = await listen(tls as unknown as http.Server);
      try {
        const err = await failure(fetchUpstream(client(), get(`https://127.0.0.1:${tlsPort}/`)));
        expect(err.failure).toBe('protocol');
        expect(hits).toBe(0);
      } finally {
        await close(tls as unknown as http.Server);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not count the wait for a pooled connection against the connect deadline', async () => {
    const c = client({ maxSockets: 1, connectTimeoutMs: 100, responseTimeoutMs: 3000 });
    // The second waits for the one socket, which is free once the first body has been read.
    const [slow, queued] = await Promise.all([
      fetchUpstream(c, get(`${base}/slow`)).then((res) => text(res.body)),
      fetchUpstream(c, get(`${base}/page`)),
    ]);
    expect(slow).toBe('slow');
    expect(queued.status).toBe(200);
    expect(queued.headersMs).toBeGreaterThanOrEqual(250);
    await text(queued.body);
  });

  it('sends a GET again on a new connection when a pooled one turns out closed by the server', async () => {
    // The race of a keep-alive pool: the server drops an idle connection just as a request is
    // written to it. Here every connection's second request is dropped unanswered.
    const perSocket = new WeakMap<object, number>();
    let answered = 0;
    const flaky = http.createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n > 1) return void req.socket.destroy();
      answered++;
      res.end('ok');
    });
    const flakyPort = await listen(flaky);
    try {
      const c = client();
      const first = await fetchUpstream(c, get(`http://127.0.0.1:${flakyPort}/`));
      expect(await text(first.body)).toBe('ok');
      const second = await fetchUpstream(c, get(`http://127.0.0.1:${flakyPort}/`));
      expect(await text(second.body)).toBe('ok');
      expect(answered).toBe(2);
    } finally {
      await close(flaky);
    }
  });
});
