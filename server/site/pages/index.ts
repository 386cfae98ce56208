// The hosted community site (docs/hosted-site.md): on a community's host (a registered domain,
// `<tag>.localhost` or `<tag>.<SVC_SITE_DOMAIN>`) the paths no earlier router answered are the
// community's pages, or its HTML not-found page; `/api/...` and `/v1/...` are left to the JSON
// not-found answer. On a host that is neither the platform's nor a community's, the same paths get
// a plain HTML not-found page. Mounted last, so every route the app had before keeps its answer.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../../db/index.ts';
import type { CommunityRow } from '../../db/schema.ts';
import { parseJson } from '../../db/ids.ts';
import { communityViewer, findCommunityForSite } from '../../domain/communities.ts';
import type { AccessConfig, PageKey, Viewer } from '../../domain/page-access.ts';
import type { SessionTokens } from '../../domain/sessions.ts';
import { communityTagForHost, signedInVisitor } from '../../http/session.ts';
import { escapeHtml } from '../../shared/html.ts';
import { pageSiteOf } from '../sign-in-page.ts';
import { gateFor } from './gate.ts';
import { eventPage, eventsPage } from './events.ts';
import { homePage } from './home.ts';
import { articlePage, blogPage, sendBlogFeed } from './blog.ts';
import { siteOrigin } from './urls.ts';
import { memberPage, membersPage } from './members.ts';
import { feedPage, feedPostPage } from './feed.ts';
import { atlasPage } from './atlas.ts';
import { siteStatic } from './static.ts';
import type { MapTiles } from '../../config.ts';
import { buyProduct, donateToProduct, marketplacePage, productPage, type ActionOutcome } from './marketplace.ts';
import { ApiError } from '../../http/api-error.ts';
import { asApiError } from '../../http/refusals.ts';
import type { SaleDeps } from '../../use-cases/checkout.ts';
import { applyLink, type PageRenderer, type SiteContext } from './context.ts';
import { PRIVATE_PAGE_CACHE, sendSitePage, sendUnknownHostPage, signInHref } from './layout.ts';
import { siteNav } from './nav.ts';
import { sendRobots, sendSitemap } from './seo.ts';

export interface HostedSiteDeps {
  db: Db;
  sessions: SessionTokens;
  /** SVC_SITE_DOMAIN. */
  siteDomain: string;
  publicUrl: string;
  logger: Logger;
  /** Where the payment gateway's checkout is: the product page's forms are redirected there. */
  checkoutOrigins?: string[];
  /** SVC_MAP_TILES_URL: the atlas's map; without it the atlas is its list only. */
  mapTiles?: MapTiles | null;
  /** What the site's form posts (buy, donate) sell with; without it those posts are not found. */
  sales?: SaleDeps;
}

const isApiPath = (path: string): boolean => /^\/(api|v1)(\/|$)/.test(path);

export function hostedSiteRouter(deps: HostedSiteDeps): Router {
  const router = express.Router();
  router.use(siteStatic());
  // Where the platform is reached today: its public URL, and the loopback names tests and the demo use.
  const platformHosts = new Set(['localhost', '127.0.0.1', '[::1]', new URL(deps.publicUrl).hostname.toLowerCase()]);

  router.use(async (req, res, next) => {
    if (isApiPath(req.path)) return next();
    const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
    if (!host || platformHosts.has(host)) return next();
    const community = await findCommunityForSite(deps.db, host, deps.siteDomain);
    if (!community) return sendUnknownHostPage(res);
    res.locals.hostedCommunity = community;
    next();
  });

  const page =
    (pageKey: PageKey, step2: 'page' | 'entity', render: PageRenderer) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const community = res.locals.hostedCommunity as CommunityRow | undefined;
      if (!community) return next();
      await servePage(deps, req, res, community, pageKey, step2, render);
    };

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
    const ctx = contextFor(req, community, { userId: null });
    try {
      await sendSitemap(deps.db, req, res, ctx);
    } catch (err) {
      deps.logger.error({ err, path: req.path }, 'sitemap failed');
      sendSitePage(res, ctx.chrome, { ...errorBody(), status: 500, cache: 'private' });
    }
  });
  router.get('/events', page('EVENTS', 'page', eventsPage));
  router.get('/events/:slug', page('EVENTS', 'entity', eventPage));
  router.get('/blog', page('BLOG', 'page', blogPage));
  router.get('/blog/feed.xml', async (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    // The feed is what the anonymous public may read, whoever asks: the gate runs for no viewer.
    const ctx = contextFor(req, community, { userId: null });
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
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  const action = (pageKey: PageKey, run: PageAction) => async (req: Request, res: Response, next: NextFunction) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    await serveAction(deps, req, res, community, pageKey, run);
  };
  router.post(
    '/marketplace/:sku/buy',
    form,
    action('MARKETPLACE', (ctx, sales, req) => buyProduct(ctx, sales, req)),
  );
  router.post('/marketplace/:sku/donate', form, action('MARKETPLACE', donateToProduct));

  router.use(async (req, res, next) => {
    const community = res.locals.hostedCommunity as CommunityRow | undefined;
    if (!community) return next();
    // Who is looking does not change "not found"; the chrome is the anonymous one, never cached.
    const ctx = contextFor(req, community, { userId: null });
    sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
  });
  return router;
}

/**
 * The one path every page takes: the viewer, the gate, then the page. Fails closed: an error
 * anywhere answers the error page, never the content.
 */
async function servePage(
  deps: HostedSiteDeps,
  req: Request,
  res: Response,
  community: CommunityRow,
  pageKey: PageKey,
  step2: 'page' | 'entity',
  render: PageRenderer,
): Promise<void> {
  let ctx = contextFor(req, community, { userId: null });
  try {
    ctx = contextFor(req, community, await viewerFor(deps, req, community));
    const outcome = gateFor(ctx.access, ctx.viewer, pageKey, step2);
    const body = outcome === 'render' ? await render(ctx, deps.db, req) : outcome;
    if (body === 'not-found')
      return sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
    if (body === 'gate') return sendSitePage(res, ctx.chrome, { ...gateBody(ctx), status: 403, cache: 'private' });
    // Every rendered page has a canonical URL and the basic cards, whether or not it says more.
    sendSitePage(res, ctx.chrome, {
      ...body,
      head: body.head ?? {},
      cache: ctx.viewer.userId === null ? 'public' : 'private',
    });
  } catch (err) {
    deps.logger.error({ err, path: req.path }, 'hosted page failed');
    sendSitePage(res, ctx.chrome, { ...errorBody(), status: 500, cache: 'private' });
  }
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
  req: Request,
  res: Response,
  community: CommunityRow,
  pageKey: PageKey,
  run: PageAction,
): Promise<void> {
  let ctx = contextFor(req, community, { userId: null });
  try {
    ctx = contextFor(req, community, await viewerFor(deps, req, community));
    const outcome = gateFor(ctx.access, ctx.viewer, pageKey);
    if (outcome === 'not-found' || !deps.sales)
      return sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
    if (outcome === 'gate') return sendSitePage(res, ctx.chrome, { ...gateBody(ctx), status: 403, cache: 'private' });
    const site = req.headers['sec-fetch-site'];
    if ((site !== undefined && site !== 'same-origin') || req.headers.origin !== `${req.protocol}://${req.host}`)
      return sendSitePage(res, ctx.chrome, {
        title: 'Not sent',
        main: '<h1>Not sent</h1>\n<p>This form can only be sent from this site. Go back to the page and try again.</p>',
        status: 403,
        cache: 'private',
      });
    const result = await run(ctx, deps.sales, req, res);
    if (result === 'not-found')
      return sendSitePage(res, ctx.chrome, { ...notFoundBody(), status: 404, cache: 'private' });
    if (result === 'gate') return sendSitePage(res, ctx.chrome, { ...gateBody(ctx), status: 403, cache: 'private' });
    if ('redirect' in result) {
      res.setHeader('Cache-Control', PRIVATE_PAGE_CACHE);
      return res.redirect(303, result.redirect);
    }
    sendSitePage(res, ctx.chrome, { ...result, status: 400, cache: 'private' });
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
    deps.logger.error({ err, path: req.path }, 'hosted form post failed');
    sendSitePage(res, ctx.chrome, { ...errorBody(), status: 500, cache: 'private' });
  }
}

/**
 * The signed-in visitor as the site API reads them, and their membership: one lookup. A token
 * counts only on the site it was issued for, and that site is the host as the session layer knows
 * it; where the two disagree the viewer is anonymous.
 */
async function viewerFor(deps: HostedSiteDeps, req: Request, community: CommunityRow): Promise<Viewer> {
  if ((await communityTagForHost(deps.db, req.hostname)) !== community.tag) return { userId: null };
  const visitor = await signedInVisitor(deps.db, deps.sessions, req, community.tag);
  return communityViewer(deps.db, community.id, visitor?.userId ?? null);
}

function contextFor(req: Request, community: CommunityRow, viewer: Viewer): SiteContext {
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

function notFoundBody(): { title: string; main: string } {
  return {
    title: 'Page not found',
    main: '<h1>Page not found</h1>\n<p>There is no page at this address. <a href="/">Go to the home page</a>.</p>',
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
