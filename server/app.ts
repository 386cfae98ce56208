// createApp(deps): the middleware order of the whole process. The error handler is last.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { ping, type DatabaseHandle } from './db/index.ts';
import { jsonBodyReader } from './http/body.ts';
import { errorHandler, routeNotFound } from './http/error-handler.ts';
import { requestLogger } from './http/logger.ts';
import type { RateLimits } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { refuseUnreadableUrl } from './http/validate.ts';
import { ROUTES } from '../contract/routes/index.ts';
import { ApiError } from './http/api-error.ts';
import { messages } from './shared/messages.ts';
import { ReadCache } from './http/read-cache.ts';
import { CommunityChanges } from './http/community-changes.ts';
import { forgetCommunityCaches } from './domain/communities.ts';
import { assertEveryRouteMounted } from './http/handlers.ts';
import { cachedKeyResolver, type KeyResolver } from './domain/api-keys.ts';
import { getOpenApiDocument } from './openapi/document.ts';
import { DOCS_PAGE_CSP, getDocsPage } from './openapi/docs-page.ts';
import { demoRouter } from './site/demo.ts';
import { siteApiRouter } from './site/index.ts';
import { UnsubscribeTokens } from './broadcasts/unsubscribe-token.ts';
import { hostedChromeProvider, hostedPageCache, hostedSiteRouter } from './site/pages/index.ts';
import { saleDeps } from './use-cases/checkout.ts';
import { sessionSiteScope } from './http/session.ts';
import { transportSecurity } from './http/transport-security.ts';
import { widgetsStatic } from './site/widgets-static.ts';
import { v1Router } from './v1/index.ts';
import { SessionTokens } from './domain/sessions.ts';
import { FRIEND_REQUESTS_PER_HOUR } from './domain/friends.ts';
import { deriveKey, loadMasterKey } from './secrets.ts';
import type { Mailer } from './mail/mailer.ts';
import { loadOutboxSeal } from './outbox-seal.ts';
import type { SmsSender } from './sms/sender.ts';
import { checkoutOrigins, setUpPayments, type PaymentsSetup } from './payments/index.ts';
import { ticketCodesFor } from './domain/ticket-codes.ts';
import { DONATIONS_PER_IP_PER_HOUR } from './use-cases/donations.ts';
import { widgetActionsRouter } from './actions/index.ts';
import { ChromeProxy } from './site/proxy/proxy.ts';
import { UpstreamCache } from './site/proxy/cache.ts';
import { createUpstreamClient } from './site/proxy/upstream.ts';
import { loadSecretBox } from './webhooks/secret-box.ts';
import { systemLookup } from './webhooks/ssrf.ts';

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  rateLimits: RateLimits;
  /** Check every success body against its contract schema (tests). */
  validateResponses?: boolean;
  /** API key lookups; defaults to the cached resolver over the database. */
  keys?: KeyResolver;
  /** Public read cache; domain writes invalidate it per community. */
  readCache?: ReadCache;
  /** Settings changes across processes (Redis pub/sub); default: this process only. */
  communityChanges?: CommunityChanges;
  /** Where the built widget bundle lives (`dist/`). */
  distDir?: string;
  /** Visitor session tokens; default: keyed by SVC_SESSION_SECRET or a key derived from the master key. */
  sessions?: SessionTokens;
  /** Account e-mail (password reset); default: the database outbox (`svc mail list`). */
  mailer?: Mailer;
  /** SMS sign-in codes; default: the database outbox (`svc sms list`). */
  smsSender?: SmsSender;
  /** Payment gateway and its routes; default: built from config.payments (server/payments). */
  payments?: PaymentsSetup;
  /** The chrome proxy (externalPages); default: from config.chromeProxy. Tests hand their own to reach its cache. */
  chromeProxy?: ChromeProxy;
}

/** The chrome proxy as configured: SSRF-guarded upstream connections and the byte-capped upstream cache. */
export function chromeProxyFor(config: Config, logger: Logger): ChromeProxy {
  return new ChromeProxy({
    client: createUpstreamClient({ allowPrivate: config.chromeProxy.allowPrivate }),
    cache: new UpstreamCache(config.chromeProxy.cacheBytes),
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
  });
}

export function createApp(deps: AppDeps): Express {
  const { config, database, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // API bodies are not revalidated by ETag; hashing every body costs more than it saves.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(requestLogger(logger));
  // HSTS on every answer and Secure cookies on every host when SVC_PUBLIC_URL is https.
  app.use(transportSecurity(app, config.publicUrl));
  // Before every route, contract or not: no handler sees a path or query it cannot decode or store.
  app.use(refuseUnreadableUrl(ROUTES));

  const payments = deps.payments ?? setUpPayments(config, database.db, logger);
  // Friend requests per sender (server/site/visitor.ts); each one notifies somebody.
  deps.rateLimits.define('friend-requests', {
    points: config.rateLimits.friendRequestsPerHour ?? FRIEND_REQUESTS_PER_HOUR,
    durationSec: 60 * 60,
  });
  // The spec's 30 standalone donations per client IP per hour (server/use-cases/donations.ts).
  deps.rateLimits.define('donations-ip', {
    points: config.rateLimits.donationsPerIpPerHour ?? DONATIONS_PER_IP_PER_HOUR,
    durationSec: 60 * 60,
  });
  const readCache = deps.readCache ?? new ReadCache(config.readCacheMs);
  const communityChanges = deps.communityChanges ?? new CommunityChanges();
  const keys = deps.keys ?? cachedKeyResolver(database.db, config.keyCacheMs);
  // A change to a community (its settings, or a key revoked), here or in another process: what
  // this process keeps of the community goes, its keys included.
  communityChanges.onChange((communityId) => {
    forgetCommunityCaches(database.db);
    readCache.invalidate(communityId);
    keys.forgetCommunity(communityId);
  });
  const routeDeps = {
    db: database.db,
    keys,
    readCache,
    communityChanges,
    rateLimits: deps.rateLimits,
    publicUrl: config.publicUrl,
    siteDomain: config.siteDomain,
    validateResponses: deps.validateResponses,
    readBody: jsonBodyReader(config.bodyLimit),
    sessions:
      deps.sessions ?? new SessionTokens(config.sessionSecret ?? deriveKey(loadMasterKey(config), 'session tokens v1')),
    mailer: deps.mailer,
    smsSender: deps.smsSender,
    outboxSeal: loadOutboxSeal(config),
    // Google / Slack / Discord sign-in (server/site/oauth.ts): the enabled providers, and where flow failures are logged.
    oauth: config.oauth,
    logger,
    payments: payments.payments,
    ticketCodes: ticketCodesFor(config),
    webhooks: {
      secrets: loadSecretBox(config),
      policy: { allowPrivate: config.webhooks.allowPrivate, lookup: systemLookup },
    },
  };
  // The hosted site (mounted last, below); its header and footer also go on /sign-in and /notifications,
  // and an anonymous page it kept is answered before any router (hostedPageCache).
  const hostedDeps = {
    db: database.db,
    sessions: routeDeps.sessions,
    siteDomain: config.siteDomain,
    publicUrl: config.publicUrl,
    logger,
    distDir: deps.distDir ?? path.join(ROOT_DIR, 'dist'),
    sales: saleDeps(routeDeps),
    mapTiles: config.mapTiles,
    checkoutOrigins: checkoutOrigins(config),
    pageCache: routeDeps.readCache,
    proxy: deps.chromeProxy ?? chromeProxyFor(config, logger),
    unsubscribeTokens: new UnsubscribeTokens(loadMasterKey(config)),
    // The leader console's pages act through the API's own operations, with its services.
    console: routeDeps,
  };
  app.use(hostedPageCache(hostedDeps));
  // The public API next: it is the hot path (the page cache in front lets every /v1 path through at once).
  const v1 = v1Router(routeDeps);
  app.use(v1);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await ping(database.db);
      res.json({ status: 'ready', database: database.dialect });
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', messages.unavailable);
    }
  });

  // Both are pure functions of the route table and the public URL, built once and cached.
  app.get(['/openapi.json', '/v1/openapi.json'], (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json(getOpenApiDocument(config.publicUrl));
  });
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_PAGE_CSP);
    res.type('html').send(getDocsPage(config.publicUrl));
  });

  app.use('/widgets', ...widgetsStatic(deps.distDir ?? path.join(ROOT_DIR, 'dist')));

  // A sign-in token issued while serving a site is bound to that site (server/domain/sessions.ts).
  app.use(sessionSiteScope(database.db, config.siteDomain));
  const actions = widgetActionsRouter(routeDeps);
  app.use(actions);

  const siteApi = siteApiRouter(routeDeps, hostedChromeProvider(hostedDeps));
  app.use(siteApi);
  // Every declared route has exactly one handler, or the app does not start.
  assertEveryRouteMounted(ROUTES, [v1, actions, siteApi]);
  // /checkout/<id> (local gateway) and /stripe/webhook (raw body: before anything parses it).
  app.use(payments.router);
  app.use(demoRouter({ db: database.db, publicUrl: config.publicUrl, rootDir: ROOT_DIR }));
  // Last: on a community's host, what no route above answered is its site's page or HTML not-found.
  app.use(hostedSiteRouter(hostedDeps));

  app.use(routeNotFound);
  app.use(errorHandler(logger, config.bodyLimit));
  return app;
}
