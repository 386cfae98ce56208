// The hosted community site (docs/hosted-site.md): on a community's host (a registered domain,
// `<tag>.localhost` or `<tag>.<SVC_SITE_DOMAIN>`) the paths no earlier router answered are the
// community's pages, or its HTML not-found page; `/api/...` and `/v1/...` are left to the JSON
// not-found answer. On a host that is neither the platform's nor a community's, the same paths get
// a plain HTML not-found page. Mounted last, so every route the app had before keeps its answer.
import zlib from 'node:zlib';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.ts';
import type { CommunityRow } from '../../db/schema.ts';
import { parseJson } from '../../db/ids.ts';
import { communityForSite, communityViewer, toPublicCommunity } from '../../domain/communities.ts';
import { getOwnProfile } from '../../domain/users.ts';
import { unreadNotificationCount } from '../../domain/notifications.ts';
import type { AccessConfig, PageKey, Viewer } from '../../domain/page-access.ts';
import type { SessionTokens } from '../../domain/sessions.ts';
import { requestSiteTag, signedInVisitor } from '../../http/session.ts';
import { loggablePath } from '../../http/logger.ts';
import type { SaleDeps } from '../../use-cases/checkout.ts';
import { escapeHtml } from '../../shared/html.ts';
import { pageSiteOf } from '../sign-in-page.ts';
import { loadWidgetBuild, PageWidgets } from '../widgets-ssr.ts';
import { gateFor } from './gate.ts';
import { eventPage, eventsPage } from './events.ts';
import { homePage } from './home.ts';
import { applyLink, type FormHandler, type PageBody, type PageRenderer, type SiteContext } from './context.ts';
import { csrfKey, csrfTokenFor, csrfTokenMatches, CSRF_FIELD, formOriginRefusal, readFormFields } from './forms.ts';
import { attendeesCsv, checkInAction, managePage } from './manage.ts';
import { rsvpAction } from './rsvp.ts';
import { communityCalendar, eventCalendar } from './calendar.ts';
import { conversationsPage, sendMessage, threadPage } from './chat.ts';
import { applyAction, applyPage } from './apply.ts';
import { joinAction, joinPage } from './join.ts';
import {
  PRIVATE_PAGE_CACHE,
  renderSiteFile,
  renderSitePage,
  writeRendered,
  PUBLIC_PAGE_CACHE,
  type RenderedPage,
  sendSitePage,
  sendUnknownHostPage,
  signInHref,
  type NavLink,
} from './layout.ts';
import { articlePage, blogPage, sendBlogFeed } from './blog.ts';
import { siteOrigin } from './urls.ts';
import { memberPage, membersPage } from './members.ts';
import { feedPage, feedPostPage } from './feed.ts';
import { atlasPage } from './atlas.ts';
import { siteStatic } from './static.ts';
import type { MapTiles } from '../../config.ts';
import type { ReadCache } from '../../http/read-cache.ts';
import { buyProduct, donateToProduct, marketplacePage, productPage, type ActionOutcome } from './marketplace.ts';
import { ApiError } from '../../http/api-error.ts';
import { asApiError } from '../../http/refusals.ts';
import { siteNav } from './nav.ts';
import { sendRobots, sendSitemap } from './seo.ts';
import type { ChromeProxy, ProxyContext, VisitorChrome } from '../proxy/proxy.ts';
import { proxyTargetFor } from '../proxy/routes.ts';
import type { UnsubscribeTokens } from '../../broadcasts/unsubscribe-token.ts';
import { unsubscribeAction, unsubscribePage } from './unsubscribe.ts';
import { mountConsole } from '../console/index.ts';
import type { RouteDeps } from '../../http/routes.ts';

export interface HostedSiteDeps {
  db: Db;
  sessions: SessionTokens;
  /** SVC_SITE_DOMAIN. */
  siteDomain: string;
  publicUrl: string;
  logger: Logger;
  /** What the RSVP form, the door check-in and the product forms sell and scan with: the API's own services. */
  sales: SaleDeps;
  /** Where `npm run build` wrote the widget bundle and its server build (dist/). */
  distDir: string;
  /** Where the payment gateway's checkout is: the product page's forms are redirected there. */
  checkoutOrigins?: string[];
  /** SVC_MAP_TILES_URL: the atlas's map; without it the atlas is its list only. */
  mapTiles?: MapTiles | null;
  /** The API's read cache (SVC_READ_CACHE_MS): anonymous pages are kept in it, per community. */
  pageCache?: ReadCache;
  /** The chrome proxy for externalPages and yielded pages (docs/chrome-proxy.md); without it, the built-in pages only. */
  proxy?: ChromeProxy;
  /** The API's services, which the leader console's pages act through (`/admin`); without them, no console pages. */
  console?: RouteDeps;
  /** Verifies the broadcast unsubscribe links (`/unsubscribe`); without it, that page is not found. */
  unsubscribeTokens?: UnsubscribeTokens;
}

/** The signed-in viewer of one request, and the session their forms are bound to. */
interface ViewerOf {
  viewer: Viewer;
  sessionId: string | null;
}
const ANONYMOUS: ViewerOf = { viewer: { userId: null }, sessionId: null };

const isApiPath = (path: string): boolean => /^\/(api|v1)(\/|$)/.test(path);

/** Where the platform is reached: its public URL, and the loopback names tests and the demo use. */
const platformHostsOf = (publicUrl: string): Set<string> =>
  new Set(['localhost', '127.0.0.1', '[::1]', new URL(publicUrl).hostname.toLowerCase()]);

/**
 * The anonymous page cache's front door, mounted before the API's routers (server/app.ts): a GET
 * that carries no sign-in cookie, on a community's host, for a page the site rendered and kept
 * moments ago, is answered here without walking the routes in front of the site. Only what the
 * site router itself put in the cache is served, so no earlier route is ever shadowed: a path an
 * earlier router answers never reaches the site, and never gets a page kept.
 */
export function hostedPageCache(deps: HostedSiteDeps): (req: Request, res: Response, next: NextFunction) => void {
  const platformHosts = platformHostsOf(deps.publicUrl);
  return (req, res, next) => {
    const cache = deps.pageCache;
    if (!cache?.enabled || (req.method !== 'GET' && req.method !== 'HEAD') || isApiPath(req.path)) return next();
    if (carriesSignIn(req)) return next();
    const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
    if (!host || platformHosts.has(host)) return next();
    communityForSite(deps.db, host, deps.siteDomain).then((community) => {
      const cached = community && cache.get(community.id, anonymousPageKey(req));
      if (!cached) return next();
      writeRendered(res, {
        status: cached.status,
        headers: cached.headers ?? {},
        body: cached.body,
        gzip: cached.gzip,
      });
    }, next);
  };
}

export function hostedSiteRouter(deps: HostedSiteDeps): Router {
  const router = express.Router();
  const formKey = csrfKey(deps.sessions);
  router.use(siteStatic());
  const platformHosts = platformHostsOf(deps.publicUrl);

  router.use(async (req, res, next) => {
    if (isApiPath(req.path)) return next();
    const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
    if (!host || platformHosts.has(host)) return next();
    const community = await communityForSite(deps.db, host, deps.siteDomain);
    if (!community) return sendUnknownHostPage(res);
    res.locals.hostedCommunity = community;
    next();
  });
  const page =
    (pageKey: PageKey | null, step2: 'page' | 'entity', render: PageRenderer) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const community = res.locals.hostedCommunity as CommunityRow | undefined;
      if (!community) return next();
      await servePage(deps, formKey, req, res, community, pageKey, step2, render);
    };
  const form =
    (pageKey: PageKey | null, step2: 'page' | 'entity', handle: FormHandler) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const community = res.locals.hostedCommunity as CommunityRow | undefined;
      if (!community) return next();
      await serveForm(deps, formKey, req, res, community, pageKey, step2, handle);
    };

  // The unsubscribe page is the platform's, whatever the customer's site has at that path (so before
  // the proxy), and takes no sign-in, page gate or CSRF token: the link's signed token is its authority.
  if (deps.unsubscribeTokens) {
    const tokens = deps.unsubscribeTokens;
    const oneClickBody = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
    const unsubscribe = (run: typeof unsubscribePage) => async (req: Request, res: Response, next: NextFunction) => {
      const community = res.locals.hostedCommunity as CommunityRow | undefined;
      if (!community) return next();
      const ctx = contextFor(req, community, ANONYMOUS, formKey);
      try {
        const page = await run(tokens, deps.db, req, community);
        // The token is in the URL; the site's Referrer-Policy (strict-origin-when-cross-origin)
        // already keeps the path and query from any other site a link on this page leads to.
        sendSitePage(res, ctx.chrome, { ...page, cache: 'private' });
      } catch (err) {
        sendError(deps, req, res, ctx, err);
      }
    };
    router.get('/unsubscribe', unsubscribe(unsubscribePage));
    router.post('/unsubscribe', oneClickBody, unsubscribe(unsubscribeAction));
  }
  // The leader console (server/site/console/): the platform's too, before the proxy for the same reason.
  if (deps.console) {
    mountConsole(
      {
        page: (path, render) => router.get(path, page(null, 'page', render)),
        form: (path, handle) => router.post(path, form(null, 'page', handle)),
      },
      { api: deps.console, distDir: deps.distDir },
    );
  }
  // Before every page route: an external or yielded page's GET goes to the customer's site first,
  // and comes back here (next) when that answers 404 or fails.
  if (deps.proxy) router.use(proxiedPages(deps, deps.proxy, formKey, 'read'));

  router.get('/', page('HOME', 'page', homePage));
  router.get('/robots.txt', (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    sendRobots(req, res);
  });
  router.get('/sitemap.xml', async (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    // What a crawler can open: the gate runs for no viewer, whoever asks.
    const ctx = contextFor(req, community, ANONYMOUS, formKey);
    try {
      await sendSitemap(deps.db, req, res, ctx);
    } catch (err) {
      deps.logger.error({ err, path: req.path }, 'sitemap failed');
      sendSitePage(res, ctx.chrome, { ...errorBody(), status: 500, cache: 'private' });
    }
  });
  router.get('/events', page('EVENTS', 'page', eventsPage));
  // Before `/events/:slug`, which would otherwise take `gala.ics` for a slug.
  router.get('/events.ics', page('EVENTS', 'page', communityCalendar));
  router.get('/events/:slug.ics', page('EVENTS', 'entity', eventCalendar));
  // Leaders' pages: the EVENTS page's own gate does not apply (rule 4's entity step), the
  // leader check in ./manage.ts does, so a members-only EVENTS page does not hide them from leaders.
  router.get('/events/:slug/manage', page('EVENTS', 'entity', managePage));
  router.get('/events/:slug/manage/attendees.csv', page('EVENTS', 'entity', attendeesCsv));
  router.post('/events/:slug/manage/check-in', form('EVENTS', 'entity', checkInAction(deps.sales)));
  router.get('/events/:slug', page('EVENTS', 'entity', eventPage));
  router.post('/events/:slug/rsvp', form('EVENTS', 'entity', rsvpAction(deps.sales)));
  router.get('/conversations', page('CHAT', 'page', conversationsPage));
  router.get('/conversations/:id', page('CHAT', 'page', threadPage));
  router.post('/conversations/:id', form('CHAT', 'page', sendMessage));
  // No page key: where the gate's apply link leads, so no membership gate of its own.
  router.get('/apply', page(null, 'page', applyPage));
  router.post('/apply', form(null, 'page', applyAction));
  // An invite link (INVITE_ONLY communities): no page key either, for the same reason as /apply.
  router.get('/join/:code', page(null, 'page', joinPage));
  router.post('/join/:code', form(null, 'page', joinAction));
  router.get('/blog', page('BLOG', 'page', blogPage));
  router.get('/blog/feed.xml', async (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    // The feed is what the anonymous public may read, whoever asks: the gate runs for no viewer.
    const ctx = contextFor(req, community, ANONYMOUS, formKey);
    try {
      const outcome = gateFor(ctx.access, ctx.viewer, 'BLOG');
      if (outcome === 'not-found')
        return sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
      await sendBlogFeed(deps.db, req, res, community, outcome === 'render');
    } catch (err) {
      deps.logger.error({ err, path: req.path }, 'blog feed failed');
      sendSitePage(res, ctx.chrome, { ...errorBody(), status: 500, cache: 'private' });
    }
  });
  router.get('/blog/:slug', page('BLOG', 'page', articlePage));
  router.get('/marketplace', page('MARKETPLACE', 'page', marketplacePage));
  router.get('/marketplace/:sku', page('MARKETPLACE', 'page', productPage(deps.checkoutOrigins ?? [])));
  router.get('/feed', page('FEED', 'page', feedPage));
  router.get('/feed/post/:id', page('FEED', 'page', feedPostPage));
  router.get('/atlas', page('ATLAS', 'page', atlasPage(deps.mapTiles ?? null)));
  router.get('/members', page('MEMBERS', 'page', membersPage));
  router.get('/members/:usertag', page('MEMBERS', 'page', memberPage));
  // Plain form posts (no JavaScript needed); the body is a small urlencoded form.
  const urlencoded = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  const action = (pageKey: PageKey, run: PageAction) => async (req: Request, res: Response, next: NextFunction) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    await serveAction(deps, formKey, req, res, community, pageKey, run);
  };
  router.post(
    '/marketplace/:sku/buy',
    urlencoded,
    action('MARKETPLACE', (ctx, sales, req) => buyProduct(ctx, sales, req)),
  );
  router.post('/marketplace/:sku/donate', urlencoded, action('MARKETPLACE', donateToProduct));
  // After every form route: the site's own posts (an RSVP on an external EVENTS page) stay the
  // site's; any other method on a proxied route goes to the customer's site as it came.
  if (deps.proxy) router.use(proxiedPages(deps, deps.proxy, formKey, 'write'));

  router.use(async (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    // Who is looking does not change "not found"; the chrome is the anonymous one, never cached.
    const ctx = contextFor(req, community, ANONYMOUS, formKey);
    ctx.chrome.widgets = await pageWidgets(deps, req, ctx);
    sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
  });
  return router;
}

/**
 * The chrome proxy's door (docs/chrome-proxy.md). An external page keeps its gate: the customer's
 * page stands in for the built-in one only where that would render, and every other verdict is
 * left to the built-in route (next), which answers it. A yielded page is the customer's alone.
 */
function proxiedPages(deps: HostedSiteDeps, proxy: ChromeProxy, formKey: Buffer, kind: 'read' | 'write') {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    const isRead = req.method === 'GET' || req.method === 'HEAD';
    if (isRead !== (kind === 'read')) return next();
    const target = proxyTargetFor(community, req.originalUrl);
    if (!target) return next();
    const cacheKey = deps.pageCache?.enabled && !carriesSignIn(req) ? anonymousPageKey(req) : null;
    // Taken before anything is read, as servePage does: a write meanwhile makes the page too old to keep.
    const generation = cacheKey === null ? 0 : deps.pageCache!.generation(community.id);
    let ctx = contextFor(req, community, ANONYMOUS, formKey);
    try {
      const who = await viewerFor(deps, req, community);
      ctx = contextFor(req, community, who, formKey);
      if (target.mode === 'external' && gateFor(ctx.access, ctx.viewer, target.pageKey) !== 'render') return next();
      const proxyContext: ProxyContext = {
        target,
        proxies: (pathAndQuery) => proxyTargetFor(community, pathAndQuery) !== null,
        anonymous: who.sessionId === null,
        chrome: () => proxiedChrome(deps, req, ctx, target.headless),
        keepAnonymous:
          cacheKey === null || who.sessionId !== null
            ? null
            : (page, ttlMs) => {
                const gzip = zlib.gzipSync(page.body, { level: 6 });
                deps.pageCache!.set(community.id, cacheKey, { ...page, gzip }, generation, ttlMs);
              },
      };
      if (isRead) {
        if ((await proxy.serveGet(req, res, proxyContext)) === 'fallback') next();
        return;
      }
      await proxy.passThrough(req, res, proxyContext, (status) =>
        sendSitePage(res, ctx.chrome, {
          ...(status === 413 ? tooLargeBody() : unreachableBody()),
          status,
          cache: 'private',
        }),
      );
    } catch (err) {
      if (res.headersSent) {
        deps.logger.error({ err, path: req.path }, 'proxied page failed after its headers');
        res.destroy();
        return;
      }
      sendError(deps, req, res, ctx, err);
    }
  };
}

/** The chrome around a proxied page: the same header and footer as every hosted page, or, headless, the loader alone. */
async function proxiedChrome(
  deps: HostedSiteDeps,
  req: Request,
  ctx: SiteContext,
  headless: boolean,
): Promise<VisitorChrome> {
  const tag = escapeHtml(ctx.community.tag);
  const loader = `<script type="module" src="/widgets/loader.js" data-community="${tag}"></script>`;
  if (headless) return { head: '', header: '', footer: '', loader };
  // Every anonymous visitor of a path gets the same chrome: rendered once per community row (a
  // settings change reads a new row) and host and path, not once per request.
  const anonymous = ctx.viewer.userId === null;
  const key = `${req.get('host') ?? ''}${req.path}`;
  const kept = anonymous ? anonymousChrome.get(ctx.community)?.get(key) : undefined;
  if (kept) return kept;
  const widgets = await pageWidgets(deps, req, ctx, req.path);
  if (!widgets) throw new Error('the widget build is not available');
  const chrome = visitorChrome(widgets, ctx, req.path);
  const made: VisitorChrome = {
    head: `<style>${chrome.style}</style>\n${chrome.head}`,
    header: chrome.header,
    footer: `${chrome.footer}\n${chrome.stateBlock}`,
    loader,
  };
  if (anonymous) {
    let paths = anonymousChrome.get(ctx.community);
    if (!paths || paths.size >= ANONYMOUS_CHROME_PATHS) anonymousChrome.set(ctx.community, (paths = new Map()));
    paths.set(key, made);
  }
  return made;
}

/** The anonymous chrome of proxied pages, per community row (forgotten with it), host and path. */
const anonymousChrome = new WeakMap<CommunityRow, Map<string, VisitorChrome>>();
const ANONYMOUS_CHROME_PATHS = 256;

/**
 * The one path every page takes: the viewer, the gate, then the page. Fails closed: an error
 * anywhere answers the error page, never the content.
 */
async function servePage(
  deps: HostedSiteDeps,
  formKey: Buffer,
  req: Request,
  res: Response,
  community: CommunityRow,
  pageKey: PageKey | null,
  step2: 'page' | 'entity',
  render: PageRenderer,
): Promise<void> {
  let ctx = contextFor(req, community, ANONYMOUS, formKey);
  // A request that carries no sign-in cookie at all is anonymous whatever else it sends: its page is
  // the one every such visitor gets, kept for SVC_READ_CACHE_MS (docs/hosted-site.md, "Caching").
  // Kept pages are served by hostedPageCache, in front of every router; here they are only made.
  const cacheKey = deps.pageCache?.enabled && !carriesSignIn(req) ? anonymousPageKey(req) : null;
  // Taken before anything is read: a write landing meanwhile makes this render too old to keep.
  const generation = cacheKey === null ? 0 : deps.pageCache!.generation(community.id);
  try {
    ctx = contextFor(req, community, await viewerFor(deps, req, community), formKey);
    ctx.chrome.widgets = await pageWidgets(deps, req, ctx);
    // A route without a page key (`/apply`) has no page gate: its renderer decides.
    const outcome = pageKey === null ? 'render' : gateFor(ctx.access, ctx.viewer, pageKey, step2);
    const page = renderBody(ctx, outcome === 'render' ? await render(ctx, deps.db, req) : outcome);
    if (cacheKey !== null && page.status === 200 && page.headers['Cache-Control'] === PUBLIC_PAGE_CACHE) {
      // Compressed once here, sent compressed to every visitor who accepts it while it is kept.
      page.gzip = zlib.gzipSync(page.body, { level: 6 });
      deps.pageCache!.set(community.id, cacheKey, page, generation);
    }
    writeRendered(res, page);
  } catch (err) {
    sendError(deps, req, res, ctx, err);
  }
}

/**
 * The one path every form post takes: the origin checks before anything is read, then the
 * signed-in viewer, their session's `_csrf`, the page's gate, and only then the handler. A
 * refused post is an HTML page with 403, never JSON.
 */
async function serveForm(
  deps: HostedSiteDeps,
  formKey: Buffer,
  req: Request,
  res: Response,
  community: CommunityRow,
  pageKey: PageKey | null,
  step2: 'page' | 'entity',
  handle: FormHandler,
): Promise<void> {
  let ctx = contextFor(req, community, ANONYMOUS, formKey);
  try {
    // Judged before the session: a forged post learns nothing about the session it rides on.
    if (formOriginRefusal(req) !== null) return sendBody(res, ctx, refusedFormBody());
    const fields = await readFormFields(req, res);
    const who = await viewerFor(deps, req, community);
    ctx = contextFor(req, community, who, formKey);
    ctx.chrome.widgets = await pageWidgets(deps, req, ctx);
    if (!fields || who.sessionId === null || !csrfTokenMatches(formKey, who.sessionId, fields[CSRF_FIELD]))
      return sendBody(res, ctx, refusedFormBody());
    const outcome = pageKey === null ? 'render' : gateFor(ctx.access, ctx.viewer, pageKey, step2);
    if (outcome !== 'render') return sendBody(res, ctx, outcome);
    const result = await handle(ctx, deps.db, req, fields);
    // Whatever the post changed (a seat taken, a member added), no anonymous page keeps the old view.
    deps.pageCache?.invalidate(community.id);
    if (typeof result === 'object' && 'redirect' in result) {
      res.setHeader('Cache-Control', PRIVATE_PAGE_CACHE);
      return res.redirect(303, result.redirect);
    }
    sendBody(res, ctx, result);
  } catch (err) {
    sendError(deps, req, res, ctx, err);
  }
}

function sendBody(res: Response, ctx: SiteContext, body: PageBody): void {
  writeRendered(res, renderBody(ctx, body));
}

function renderBody(ctx: SiteContext, body: PageBody): RenderedPage {
  if (body === 'not-found') return renderSitePage(ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
  if (body === 'gate') return renderSitePage(ctx.chrome, { ...gateBody(ctx), status: 403, cache: 'private' });
  if (body === 'forbidden') return renderSitePage(ctx.chrome, { ...forbiddenBody(ctx), status: 403, cache: 'private' });
  const cache = ctx.viewer.userId === null ? 'public' : 'private';
  if ('file' in body) return renderSiteFile({ ...body.file, cache });
  // A page answering a refused form (4xx) is about this request only. Every rendered page has a
  // canonical URL and the basic cards, whether or not it says more.
  const { noStore, ...content } = body;
  return renderSitePage(ctx.chrome, {
    ...content,
    head: content.head ?? {},
    cache: noStore || (content.status && content.status !== 200) ? 'private' : cache,
  });
}

/** Whether the request sends any sign-in cookie (valid or not, of this site or another). */
const carriesSignIn = (req: Request): boolean => /(^|;\s*)svc_auth/.test(req.headers.cookie ?? '');

/** What an anonymous page depends on: the site as the request reached it, and the path and query. */
const anonymousPageKey = (req: Request): string => `${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`;

function sendError(deps: HostedSiteDeps, req: Request, res: Response, ctx: SiteContext, err: unknown): void {
  deps.logger.error({ err, path: loggablePath(req.path) }, 'hosted page failed');
  // The plain chrome: whatever failed may have been the widgets.
  sendSitePage(res, { ...ctx.chrome, widgets: undefined }, { ...errorBody(), status: 500, cache: 'private' });
}

type PageAction = (ctx: SiteContext, sales: SaleDeps, req: Request, res: Response) => Promise<ActionOutcome>;

/**
 * A form post on the site: the same gate as the page it belongs to, then a same-site check, then
 * the action. A cross-site form can be sent by any page the visitor opens (with their cookie), so
 * the post must carry this site's Origin (browsers send it on every form POST) and, where the
 * browser sends Fetch Metadata, `Sec-Fetch-Site: same-origin`. A refusal (a free product, an
 * amount the product does not take, the donation budget) is a page that says why, with its status.
 */
async function serveAction(
  deps: HostedSiteDeps,
  formKey: Buffer,
  req: Request,
  res: Response,
  community: CommunityRow,
  pageKey: PageKey,
  run: PageAction,
): Promise<void> {
  let ctx = contextFor(req, community, ANONYMOUS, formKey);
  try {
    ctx = contextFor(req, community, await viewerFor(deps, req, community), formKey);
    ctx.chrome.widgets = await pageWidgets(deps, req, ctx);
    const outcome = gateFor(ctx.access, ctx.viewer, pageKey);
    if (outcome === 'not-found')
      return sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
    if (outcome === 'gate') return sendSitePage(res, ctx.chrome, { ...gateBody(ctx), status: 403, cache: 'private' });
    if (formOriginRefusal(req) !== null)
      return sendSitePage(res, ctx.chrome, {
        title: 'Not sent',
        main: '<h1>Not sent</h1>\n<p>This form can only be sent from this site. Go back to the page and try again.</p>',
        status: 403,
        cache: 'private',
      });
    const result = await run(ctx, deps.sales, req, res);
    if (typeof result === 'object' && 'redirect' in result) {
      res.setHeader('Cache-Control', PRIVATE_PAGE_CACHE);
      return res.redirect(303, result.redirect);
    }
    // A page an action answers with is a refusal: about this request only, 400 unless it says.
    sendBody(
      res,
      ctx,
      typeof result === 'object' && 'main' in result ? { ...result, status: result.status ?? 400 } : result,
    );
  } catch (err) {
    const refused = asApiError(err);
    if (refused instanceof ApiError && refused.status < 500) {
      for (const [name, value] of Object.entries(refused.headers ?? {})) res.setHeader(name, value);
      return sendSitePage(res, ctx.chrome, {
        title: 'Not possible',
        main: `<h1>Not possible</h1>\n<p>${escapeHtml(refused.message)}</p>\n<p><a href="${escapeHtml(req.path.replace(/\/[^/]*$/, ''))}">Back</a></p>`,
        status: refused.status,
        cache: 'private',
      });
    }
    deps.logger.error({ err, path: loggablePath(req.path) }, 'hosted form post failed');
    sendSitePage(res, { ...ctx.chrome, widgets: undefined }, { ...errorBody(), status: 500, cache: 'private' });
  }
}

/**
 * The signed-in visitor as the site API reads them, and their membership: one lookup. A token
 * counts only on the site it was issued for, and that site is the host as the session layer knows
 * it; where the two disagree the viewer is anonymous.
 */
async function viewerFor(deps: HostedSiteDeps, req: Request, community: CommunityRow): Promise<ViewerOf> {
  if ((await requestSiteTag()) !== community.tag) return ANONYMOUS;
  const visitor = await signedInVisitor(deps.db, deps.sessions, req, community.tag);
  if (!visitor) return ANONYMOUS;
  return { viewer: await communityViewer(deps.db, community.id, visitor.userId), sessionId: visitor.claims.sid };
}

function contextFor(req: Request, community: CommunityRow, who: ViewerOf, formKey: Buffer): SiteContext {
  const { viewer } = who;
  // Unreadable settings read as none at all, which evaluatePageAccess answers by closing every page.
  let pageSettings: unknown = null;
  try {
    pageSettings = parseJson<unknown>(community.page_settings, null);
  } catch {
    pageSettings = null;
  }
  const access: AccessConfig = { visibility: community.visibility, pageSettings };
  const nav = siteNav({ community, access, viewer });
  const here = req.originalUrl;
  return {
    community,
    access,
    viewer,
    here,
    csrf: who.sessionId === null ? null : csrfTokenFor(formKey, who.sessionId),
    chrome: {
      site: pageSiteOf(community),
      nav,
      signInNext: viewer.userId === null ? here : null,
      origin: siteOrigin(req),
      path: req.path,
    },
  };
}

function errorBody(): { title: string; main: string } {
  return {
    title: 'Something went wrong',
    main: '<h1>Something went wrong</h1>\n<p>This page could not be shown. Try again in a moment.</p>',
  };
}

/**
 * The page's widget renderer: the community as the site API gives it to this viewer, with the
 * chrome's nav. Undefined when it cannot be had (no build, unreadable settings): the page then
 * gets the plain chrome and no widgets, rather than failing.
 */
async function pageWidgets(
  deps: HostedSiteDeps,
  req: Request,
  ctx: SiteContext,
  url = req.originalUrl,
): Promise<PageWidgets | undefined> {
  try {
    return await widgetsFor(deps, req, ctx, url);
  } catch (err) {
    deps.logger.error({ err, path: req.path }, 'hosted page widgets unavailable');
    return undefined;
  }
}

async function widgetsFor(deps: HostedSiteDeps, req: Request, ctx: SiteContext, url: string): Promise<PageWidgets> {
  const [build, community, profile] = await Promise.all([
    loadWidgetBuild(deps.distDir),
    toPublicCommunity(deps.db, ctx.community, ctx.viewer),
    ctx.viewer.userId === null ? null : getOwnProfile(deps.db, ctx.viewer.userId),
  ]);
  const showBell = isRecord(community.storefrontConfig.header) && community.storefrontConfig.header.showBell === true;
  if (profile && showBell) ctx.chrome.unread = await unreadNotificationCount(deps.db, profile.id);
  const session = profile
    ? { id: profile.id, usertag: profile.usertag, name: profile.name, profileImage: profile.profileImage }
    : null;
  const storefrontConfig = { ...community.storefrontConfig, nav: ctx.chrome.nav.map(navItem) };
  const href = `${req.protocol}://${req.get('host') ?? req.hostname}${url}`;
  return new PageWidgets(build, { community: { ...community, storefrontConfig }, session, href });
}

/** The server-rendered chrome of a page outside this router (sign-in, notifications), ready to place. */
export interface HostedChrome {
  header: string;
  footer: string;
  /** For `<head>`: the chunk preloads and the loader. */
  head: string;
  /** For the end of `<body>`: the page-wide state block. */
  stateBlock: string;
  /** CSP sources of the widget roots' styles. */
  styleHashes: string[];
  /** `:root` theme declarations and the custom elements' display, for the page's own style. */
  style: string;
}

/**
 * For the pages the site API router serves on a community's host (`/sign-in`, `/notifications`):
 * the same <svc-header> and <svc-footer> as every hosted page, for the viewer. Null on any other
 * host, and when the widgets cannot be had (the page keeps its own plain layout).
 */
export function hostedChromeProvider(deps: HostedSiteDeps): (req: Request) => Promise<HostedChrome | null> {
  const formKey = csrfKey(deps.sessions);
  return async (req) => {
    const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
    if (!host) return null;
    let ctx: SiteContext;
    try {
      const community = await communityForSite(deps.db, host, deps.siteDomain);
      if (!community) return null;
      ctx = contextFor(req, community, await viewerFor(deps, req, community), formKey);
    } catch (err) {
      deps.logger.error({ err, path: req.path }, 'hosted page chrome unavailable');
      return null;
    }
    // Rendered for the path alone: what the query carries (the sign-in page's `next`) is not echoed.
    const widgets = await pageWidgets(deps, req, ctx, req.path);
    if (!widgets) return null;
    return visitorChrome(widgets, ctx, req.path);
  };
}

/** The viewer's <svc-header> and <svc-footer> for a page outside the page routes, and what they need. */
function visitorChrome(widgets: PageWidgets, ctx: SiteContext, path: string): HostedChrome {
  const header = widgets.element(
    'header',
    { current: path },
    ctx.chrome.unread === undefined ? undefined : { unread: ctx.chrome.unread },
  );
  const footer = widgets.element('footer', { route: path });
  return {
    header,
    footer,
    head: widgets.head(),
    stateBlock: widgets.stateBlock(),
    styleHashes: widgets.styleHashes(),
    style: `:root{${widgets.themeDeclarations()}}\nsvc-header, svc-footer { display: block; justify-self: stretch; }\n`,
  };
}

/** A chrome nav link as a storefrontConfig.nav item, what <svc-header> reads. */
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const navItem = (link: NavLink): Record<string, unknown> => ({
  label: link.label,
  href: link.href,
  ...(link.external ? { external: true } : {}),
  ...(link.children?.length ? { children: link.children.map(navItem) } : {}),
});

function notFoundBody(): { title: string; main: string } {
  return {
    title: 'Page not found',
    main: '<h1>Page not found</h1>\n<p>There is no page at this address. <a href="/">Go to the home page</a>.</p>',
  };
}

function tooLargeBody(): { title: string; main: string } {
  return {
    title: 'Too large',
    main: '<h1>Too large</h1>\n<p>What this form sent is larger than this site accepts.</p>',
  };
}

function unreachableBody(): { title: string; main: string } {
  return {
    title: 'Not sent',
    main: '<h1>Not sent</h1>\n<p>The site that answers this page could not be reached. Go back and try again in a moment.</p>',
  };
}

function refusedFormBody(): { title: string; main: string; status: number } {
  return {
    title: 'Form not accepted',
    main: `<h1>Form not accepted</h1>
<p>This form could not be accepted: it was not sent from this site's own page, or your sign-in has
changed since the page was opened. Go back, reload the page and try again.</p>`,
    status: 403,
  };
}

function forbiddenBody(ctx: SiteContext): { title: string; main: string } {
  return {
    title: 'Not allowed',
    main: `<h1>Not allowed</h1>
<p>This page is for the leaders of ${escapeHtml(ctx.community.name)}.</p>
<p><a href="/">Go to the home page</a></p>`,
  };
}

function gateBody(ctx: SiteContext): { title: string; main: string } {
  const name = escapeHtml(ctx.community.name);
  const signedIn = ctx.viewer.userId !== null;
  const pending = ctx.viewer.userId !== null && ctx.viewer.membership === 'PENDING';
  const why = !signedIn
    ? `This page is for members of ${name}. Sign in if you are one.`
    : pending
      ? `This page is for members of ${name}. Your application is waiting for a decision.`
      : `This page is for members of ${name}, and the account you are signed in with is not one.`;
  const signIn = `<a href="${escapeHtml(signInHref(ctx.here))}">${signedIn ? 'Sign in with another account' : 'Sign in'}</a>`;
  return {
    title: 'Members only',
    main: `<h1>Members only</h1>
<p>${why}</p>
<p class="actions">${signIn}
${applyLink(ctx.community, `Apply to join ${ctx.community.name}`)}</p>`,
  };
}
