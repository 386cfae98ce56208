// The chrome proxy (docs/chrome-proxy.md): a request for a route of an external (or yielded) page
// is fetched from the customer's landing site without any visitor credential, and its HTML is
// served inside the community's chrome. A real 404, a 5xx, a timeout or a refused connection hands
// the request back to the built-in site (`'fallback'`): nothing has been written by then.
// Order matters in `serveGet`: the cache is asked before the upstream, the chrome is applied after
// the cache, and the anonymous page cache only ever keeps what the upstream cache may keep.
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type CachePolicy from 'http-cache-semantics';
import { PRIVATE_PAGE_CACHE } from '../pages/layout.ts';
import { UpstreamCache, type CacheEntry, type CacheRequest } from './cache.ts';
import { isHtmlResponse, readHtmlBody } from './html-body.ts';
import { assemble, prepareHtml, type PreparedPage } from './rewrite.ts';
import { communityPathOf, pageKeyOfPath, type ProxyTarget } from './routes.ts';
import {
  fetchUpstream,
  upstreamRequestHeaders,
  UpstreamError,
  type UpstreamClient,
  type UpstreamResponse,
} from './upstream.ts';

/** What the site renders for one visitor around a proxied page. */
export interface VisitorChrome {
  /** Before `</head>`: the theme's custom properties, the widget chunks' preloads and the loader. */
  head: string;
  /** After `<body>`: the server-rendered <svc-header>. */
  header: string;
  /** Before `</body>`: the server-rendered <svc-footer> and the widgets' state. */
  footer: string;
  /** Headless, before `</body>` when the page has no loader of its own. */
  loader: string;
}

/** What the page's route needs from the site around it. */
export interface ProxyContext {
  target: ProxyTarget;
  /** Whether a community path (and query) is one the proxy answers: redirects there stay on this host. */
  proxies: (pathAndQuery: string) => boolean;
  /** No one is signed in: the page may be cached downstream as the upstream allows. */
  anonymous: boolean;
  /** This visitor's chrome; the page is served without it when it cannot be had. */
  chrome: () => Promise<VisitorChrome>;
  /** Null for a signed-in visitor: what may be kept for every anonymous visitor of this URL. */
  keepAnonymous:
    ((page: { status: number; headers: Record<string, string>; body: string }, ttlMs: number) => void) | null;
}

export interface ChromeProxyOptions {
  client: UpstreamClient;
  cache: UpstreamCache;
  logger: Logger;
  /** The largest request body passed through (SVC_BODY_LIMIT), in bytes. */
  bodyLimitBytes: number;
}

export type ProxyOutcome = 'served' | 'fallback';

/**
 * The upstream's headers a file streamed through keeps: what describes the body and its caching.
 * An allow-list, as the request side's: anything else (Clear-Site-Data, Service-Worker-Allowed,
 * NEL and Report-To, CORS, CSP, HSTS) would act on the community's origin, not the customer's.
 */
const PASSED_RESPONSE_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-disposition',
  'content-range',
  'content-language',
  'accept-ranges',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
  'vary',
  'location',
]);
/** Of an HTML page, only these are carried over: the body is ours now (chrome, rewritten URLs). */
const KEPT_HTML_HEADERS = ['content-language', 'x-robots-tag'];
const LOADER_FILE = '/widgets/loader.js';

export class ChromeProxy {
  constructor(private readonly options: ChromeProxyOptions) {}

  get cache(): UpstreamCache {
    return this.options.cache;
  }

  /** Closes the kept-alive upstream connections (on shutdown). */
  close(): void {
    this.options.client.close();
  }

  /**
   * GET and HEAD. 'fallback' when the built-in site is to answer (the upstream said 404, failed, or
   * could not be reached); nothing has been written then except the Server-Timing header.
   */
  async serveGet(req: Request, res: Response, ctx: ProxyContext): Promise<ProxyOutcome> {
    const { target } = ctx;
    const started = performance.now();
    const forwarded = forwardedOf(req);
    const headers = upstreamRequestHeaders(req.headers, forwarded, false);
    // Everything the kept page depends on besides the upstream URL: the landing URL and headless
    // (how it was rewritten and cut) and the host and scheme the upstream was told (its links may
    // be built from them). One community's entry can never answer another's, nor one host's another.
    const cacheRequest: CacheRequest = {
      url: target.upstreamUrl.href,
      key: `${target.landing.href} ${target.headless ? 'headless' : 'chrome'} ${forwarded.proto}://${forwarded.host} ${target.upstreamUrl.href}`,
      headers,
    };
    const lookup = this.cache.lookup(cacheRequest);
    if (lookup.kind === 'fresh') return this.answerFromCache(res, ctx, lookup.entry, 'hit', 0);

    let response: UpstreamResponse;
    try {
      response = await fetchUpstream(this.options.client, {
        url: target.upstreamUrl,
        method: 'GET',
        headers: lookup.kind === 'stale' ? lookup.headers : headers,
      });
    } catch (err) {
      return this.failSoft(req, res, target, err, started);
    }
    const upstreamMs = performance.now() - started;

    if (lookup.kind === 'stale' && response.status === 304) {
      response.body.resume();
      const refreshed = this.cache.revalidated(cacheRequest, lookup.entry, response);
      if (refreshed) return this.answerFromCache(res, ctx, refreshed, 'revalidated', upstreamMs);
      // A 304 that does not match what was kept: ask again, unconditionally.
      return this.serveGet(req, res, ctx);
    }
    if (response.status === 404) {
      response.body.resume();
      this.cache.store(cacheRequest, response, { kind: 'not-found' });
      setTiming(res, upstreamMs, 'not found');
      return 'fallback';
    }
    if (response.status >= 500) {
      response.body.resume();
      this.options.logger.warn(
        { upstream: target.upstreamUrl.href, status: response.status },
        'chrome proxy: the upstream failed; the built-in page answers',
      );
      setTiming(res, upstreamMs, `status ${response.status}`);
      return 'fallback';
    }
    return this.answer(req, res, ctx, response, upstreamMs, cacheRequest);
  }

  /**
   * Any other method: the visitor's request goes to the upstream as it came (within the body
   * limit, without credentials), and its answer comes back, HTML in the chrome. No fallback: the
   * body has been sent. `sendError` answers what the upstream could not (413, 502).
   */
  async passThrough(
    req: Request,
    res: Response,
    ctx: ProxyContext,
    sendError: (status: 413 | 502) => void,
  ): Promise<void> {
    const limit = this.options.bodyLimitBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > limit) {
      // Read and dropped, so the connection can carry the next request.
      req.resume();
      return sendError(413);
    }
    const started = performance.now();
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const limited = hasBody ? req.pipe(byteLimit(limit)) : undefined;
    let tooLarge = false;
    limited?.on('error', () => {
      tooLarge = true;
    });
    let response: UpstreamResponse;
    try {
      response = await fetchUpstream(this.options.client, {
        url: ctx.target.upstreamUrl,
        method: req.method,
        headers: upstreamRequestHeaders(req.headers, forwardedOf(req), hasBody),
        body: limited,
      });
    } catch (err) {
      if (tooLarge) {
        req.unpipe();
        req.resume();
        return sendError(413);
      }
      this.logFailure(req, ctx.target, err);
      setTiming(res, performance.now() - started, 'failed');
      return sendError(502);
    }
    try {
      await this.answer(req, res, ctx, response, performance.now() - started, null);
    } catch (err) {
      if (res.headersSent) throw err;
      // The answer could not be read as a page (cut off, corrupt): as unreachable as no answer.
      this.logFailure(req, ctx.target, err);
      setTiming(res, performance.now() - started, 'failed');
      sendError(502);
    }
  }

  /** A response of the upstream, as the visitor gets it. `cacheRequest` null: never kept. */
  private async answer(
    req: Request,
    res: Response,
    ctx: ProxyContext,
    response: UpstreamResponse,
    upstreamMs: number,
    cacheRequest: CacheRequest | null,
  ): Promise<ProxyOutcome> {
    const { target } = ctx;
    // A redirect's body is never shown; 204 and 304 have none.
    const bodiless =
      response.status === 204 || response.status === 304 || (response.status >= 300 && response.status < 400);
    if (!isHtmlResponse(response.headers) || bodiless) {
      return this.streamThrough(res, ctx, response, upstreamMs);
    }
    let body: Awaited<ReturnType<typeof readHtmlBody>>;
    try {
      body = await readHtmlBody(response);
    } catch (err) {
      // The body could not be read as a page (cut off, corrupt, past the deadline): nothing is written yet.
      if (req.method === 'GET' || req.method === 'HEAD') return this.failSoft(req, res, target, err, performance.now());
      throw err;
    }
    if (body.kind === 'too-large') {
      // Past MAX_HTML_BYTES the page goes through as it is, decoded, without the chrome.
      const headers = passedHeaders(response.headers);
      delete headers['content-encoding'];
      delete headers['content-length'];
      res.status(response.status);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      setTiming(res, upstreamMs, 'too large');
      await pipeline(body.body, res).catch(() => res.destroy());
      return 'served';
    }
    const page = await prepareHtml(body.text, {
      upstreamUrl: target.upstreamUrl,
      landing: target.landing,
      servesPath: (path) => pageKeyOfPath(path) !== null,
      headless: target.headless,
      isLoaderScript: (src) => src.pathname.endsWith(LOADER_FILE),
    });
    const headers = htmlHeaders(response.headers);
    let policy: CachePolicy | null = null;
    if (cacheRequest && response.status === 200) {
      policy = this.cache.store(cacheRequest, response, { kind: 'page', page, headers });
    }
    await this.sendPage(
      res,
      ctx,
      response.status,
      page,
      headers,
      upstreamMs,
      cacheRequest ? 'miss' : 'uncached',
      policy,
    );
    return 'served';
  }

  private async answerFromCache(
    res: Response,
    ctx: ProxyContext,
    entry: CacheEntry,
    how: 'hit' | 'revalidated',
    upstreamMs: number,
  ): Promise<ProxyOutcome> {
    if (entry.answer.kind === 'not-found') {
      setTiming(res, upstreamMs, `${how}, not found`);
      return 'fallback';
    }
    // The upstream's max-age counts from its answer: downstream caches are told how old this copy is.
    res.setHeader('Age', String(Math.floor(entry.policy.age())));
    await this.sendPage(res, ctx, 200, entry.answer.page, entry.answer.headers, upstreamMs, how, entry.policy);
    return 'served';
  }

  /** The page in this visitor's chrome (or none, headless with its own loader). */
  private async sendPage(
    res: Response,
    ctx: ProxyContext,
    status: number,
    page: PreparedPage,
    upstreamHeaders: Record<string, string>,
    upstreamMs: number,
    how: string,
    policy: CachePolicy | null,
  ): Promise<void> {
    let chrome: VisitorChrome | null = null;
    if (page.places.length > 0) {
      try {
        chrome = await ctx.chrome();
      } catch (err) {
        // The customer's page is still worth serving without the header and footer.
        this.options.logger.error({ err, upstream: ctx.target.upstreamUrl.href }, 'chrome proxy: no chrome');
      }
    }
    const body = assemble(page, chrome ?? {});
    const anonymous = ctx.anonymous;
    const headers: Record<string, string> = {
      ...upstreamHeaders,
      'Content-Type': 'text/html; charset=utf-8',
      // A signed-in visitor's header is theirs alone; an anonymous page may be kept as the upstream allows.
      'Cache-Control': anonymous ? (upstreamHeaders['cache-control'] ?? 'no-cache') : PRIVATE_PAGE_CACHE,
      Vary: upstreamHeaders.vary ? `${upstreamHeaders.vary}, Cookie` : 'Cookie',
      'X-Frame-Options': 'SAMEORIGIN',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
    };
    delete headers['cache-control'];
    delete headers.vary;
    res.status(status);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    setTiming(res, upstreamMs, how);
    res.send(body);
    // The page cache keys by URL alone: a page that varies on the visitor's headers is not kept whole.
    const varies = (upstreamHeaders.vary ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .some((name) => name !== '' && name !== 'accept-encoding');
    if (ctx.keepAnonymous && status === 200 && policy && policy.storable() && !varies) {
      const ttl = policy.timeToLive();
      if (ttl > 0) {
        ctx.keepAnonymous(
          { status, headers: { ...headers, 'Server-Timing': 'upstream;dur=0;desc="page cache"' }, body },
          ttl,
        );
      }
    }
  }

  private async streamThrough(
    res: Response,
    ctx: ProxyContext,
    response: UpstreamResponse,
    upstreamMs: number,
  ): Promise<ProxyOutcome> {
    res.status(response.status);
    for (const [name, value] of Object.entries(passedHeaders(response.headers))) res.setHeader(name, value);
    rewriteLocation(res, response, ctx);
    setTiming(res, upstreamMs, 'stream');
    if (res.req.method === 'HEAD') {
      // Headers are the whole answer: the file itself is not waited for.
      response.body.destroy();
      res.end();
      return 'served';
    }
    // An upstream that stops mid-body (or passes the deadline) cuts the visitor's response too:
    // a truncated file must not look complete.
    await pipeline(response.body, res).catch(() => res.destroy());
    return 'served';
  }

  private failSoft(req: Request, res: Response, target: ProxyTarget, err: unknown, started: number): ProxyOutcome {
    this.logFailure(req, target, err);
    setTiming(res, performance.now() - started, err instanceof UpstreamError ? err.failure : 'failed');
    return 'fallback';
  }

  private logFailure(req: Request, target: ProxyTarget, err: unknown): void {
    const failure = err instanceof UpstreamError ? err.failure : 'error';
    this.options.logger.warn(
      {
        upstream: target.upstreamUrl.href,
        failure,
        reason: err instanceof Error ? err.message : String(err),
        method: req.method,
      },
      'chrome proxy: the upstream could not be fetched; the built-in page answers',
    );
  }
}

/**
 * What the upstream is told about the visitor's request. The host is the one the community was
 * found by, lower-cased, with the port only when it is not the scheme's default: not the raw Host
 * header, which a client can dress up (`Tag.Example:1`) to poison a page the upstream builds links from.
 */
function forwardedOf(req: Request): { for: string; proto: 'http' | 'https'; host: string } {
  const proto = req.protocol === 'https' ? 'https' : 'http';
  const raw = req.get('host') ?? '';
  let host = (req.hostname ?? '').toLowerCase();
  try {
    const port = new URL(`${proto}://${raw}`).port;
    if (port) host = `${host}:${port}`;
  } catch {
    // An unreadable Host has no port worth telling.
  }
  return { for: req.ip ?? '', proto, host };
}

function setTiming(res: Response, ms: number, description: string): void {
  res.setHeader('Server-Timing', `upstream;dur=${ms.toFixed(1)};desc="${description}"`);
}

/** The upstream's headers for a body passed through unchanged. */
function passedHeaders(headers: UpstreamResponse['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { 'x-content-type-options': 'nosniff' };
  for (const [name, value] of Object.entries(headers)) {
    if (PASSED_RESPONSE_HEADERS.has(name)) out[name] = value;
  }
  return out;
}

/** The few upstream headers a rewritten page keeps, and what its caching is judged by. */
function htmlHeaders(headers: UpstreamResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...KEPT_HTML_HEADERS, 'cache-control', 'vary']) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * A redirect into a route this proxy answers comes back to the community host (relative); any
 * other goes where the upstream said, made absolute against the upstream URL.
 */
function rewriteLocation(res: Response, response: UpstreamResponse, ctx: ProxyContext): void {
  const raw = response.headers.location;
  const location = Array.isArray(raw) ? raw[0] : raw;
  if (!location) return;
  let url: URL;
  try {
    url = new URL(location, ctx.target.upstreamUrl);
  } catch {
    res.removeHeader('location');
    return;
  }
  const path = communityPathOf(ctx.target.landing, url);
  const local = path !== null && ctx.proxies(`${path}${url.search}`);
  res.setHeader('Location', local ? `${path}${url.search}${url.hash}` : url.href);
}

/** Passes at most `limit` bytes, then fails: a body past SVC_BODY_LIMIT is never sent on whole. */
function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) return done(new Error('request body too large'));
      done(null, chunk);
    },
  });
}
