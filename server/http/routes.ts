// Mounts one contract route: auth and scope, rate limit, validation, idempotency, then the
// handler. The order is the spec's: credentials are judged before input, and neither auth,
// rate-limit nor validation failures consume an idempotency key.
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import {
  expressPath,
  LEADER_CONSOLE_BASE,
  WIDGET_ACTIONS_BASE,
  type RouteAuth,
  type RouteDef,
} from '../../contract/route.ts';
import type { Scope } from '../../contract/enums.ts';
import type { ApiKeyIdentity, KeyCommunity, KeyResolver } from '../domain/api-keys.ts';
import { communityForSite } from '../domain/communities.ts';
import { transaction, type Db, type Trx } from '../db/index.ts';
import { ApiError, withRequestId } from './api-error.ts';
import { asApiError } from './refusals.ts';
import {
  fingerprint,
  idempotencyKeyOf,
  runIdempotent,
  type IdempotencyHold,
  type IdempotencyOptions,
  type StoredResult,
} from './idempotency.ts';
import { messages } from '../shared/messages.ts';
import { paginationHeaders, type PageInfo } from './pagination.ts';
import type { RateLimits } from './rate-limit.ts';
import type { ReadCache } from './read-cache.ts';
import type { CommunityChanges } from './community-changes.ts';
import { parseOrThrow } from './validate.ts';
import type { SessionTokens } from '../domain/sessions.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { OutboxSeal } from '../outbox-seal.ts';
import type { SmsSender } from '../sms/sender.ts';
import type { Payments } from '../payments/payments.ts';
import type { TicketCodes } from '../domain/ticket-codes.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import type { ReceiverPolicy } from '../webhooks/ssrf.ts';
import { assertOwnOrigin, authenticateVisitor, type Visitor } from './session.ts';
import { authenticateLeader, type Leader } from './leader.ts';
import { authenticateWidget, widgetActionCors, type WidgetCaller } from './widget-actions.ts';

export interface RouteDeps {
  db: Db;
  /** Reads a write's JSON body (after auth); see http/body.ts. */
  readBody: (req: Request, res: Response) => Promise<void>;
  idempotency?: IdempotencyOptions;
  keys: KeyResolver;
  readCache: ReadCache;
  /** Settings changes: forgotten here at once, and announced to the other processes (server/http/community-changes.ts). */
  communityChanges?: CommunityChanges;
  rateLimits: RateLimits;
  publicUrl: string;
  /** Tests turn this on: every success body is checked against the route's response schema. */
  validateResponses?: boolean;
  /**
   * SVC_SITE_DOMAIN: with it, a keyless READ_PUBLIC read of a community's `/v1` paths made on that
   * community's own site is answered as the public (docs/decisions/0027-own-site-reads-need-no-key.md).
   */
  siteDomain?: string;
  /** Verifies visitor session tokens (cookie or Bearer) on site routes. */
  sessions: SessionTokens;
  /** Sends account e-mail (password reset); default: the database outbox (server/mail). */
  mailer?: Mailer;
  /** Sends SMS sign-in codes; default: the database outbox (server/sms). */
  smsSender?: SmsSender;
  /** Seals what the outboxes store of sign-in secrets (reset links, SMS codes): server/outbox-seal.ts. */
  outboxSeal: OutboxSeal;
  /** Opens checkouts with the configured gateway (server/payments). */
  payments?: Payments;
  /** Signs and checks ticket codes (the QR on every ticket). */
  ticketCodes?: TicketCodes;
  /** Webhook receivers registered in the leader console: their secrets' box and the SSRF guard's policy. */
  webhooks?: { secrets: SecretBox; policy: ReceiverPolicy };
}

/** What every handler gets, whatever its route's auth. */
export interface RequestContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
  /**
   * The key's community as read in the same query as the key, during this request; null when the
   * key came from the key cache (or there is no key): a handler that needs these fields then reads
   * the community itself. Never older than this request, so it may stand in for that read.
   */
  keyCommunity: KeyCommunity | null;
  /**
   * Runs the handler's writes in one transaction, and returns what `fn` returns: the handler
   * should return that as its answer. On an idempotent request that answer is stored in the same
   * transaction, so the change and its replayable answer commit together; one transaction per
   * request. Inside `fn` use only `trx`: on SQLite the one connection is held by the
   * transaction, so a query through the plain `db` would wait for it forever.
   */
  transaction<R extends HandlerResult>(fn: (trx: Trx) => Promise<R>): Promise<R>;
}

/**
 * Who called, as far as the route's auth kind can tell: `mountRoute` has already refused a
 * request without the credential the kind requires, so what it guarantees is not nullable here,
 * and what it cannot have is `null`.
 */
export type CallerOf<A extends RouteAuth> = A extends { kind: 'apiKey' }
  ? { key: ApiKeyIdentity; visitor: null; widget: null; leader: null }
  : A extends { kind: 'session' }
    ? { key: null; visitor: Visitor; widget: null; leader: null }
    : A extends { kind: 'leader' }
      ? { key: null; visitor: Visitor; widget: null; leader: Leader }
      : // The visitor is optional on widget actions; it is also `widget.visitor`.
        A extends { kind: 'widget' }
        ? { key: null; visitor: Visitor | null; widget: WidgetCaller; leader: null }
        : { key: null; visitor: null; widget: null; leader: null };

type Output<S, Otherwise> = NonNullable<S> extends z.ZodType ? z.output<NonNullable<S>> : Otherwise;

/** The context of one route's handler: its parsed params, query and body, and its caller. */
export type HandlerContext<D extends RouteDef> = RequestContext<
  Output<D['params'], Record<string, never>>,
  Output<D['query'], Record<string, never>>,
  Output<D['body'], undefined>
> &
  CallerOf<D['auth']>;

/** RequestContext's `transaction`, for the functions a handler hands it to. */
export type RunTransaction = <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => Promise<R>;

export interface HandlerResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  page?: PageInfo;
  /**
   * A read whose route declares a non-JSON `contentType` (a CSV download) answers with its body
   * in pieces, written as they come with the socket's backpressure, so a large answer is never
   * held whole; `body` is then unused.
   */
  stream?: AsyncIterable<string>;
  /**
   * A read's body already encoded, sent as it is (`body` is then unused): the events list, whose
   * rows the database writes as JSON (server/db/json-text.ts), so they are never objects here.
   */
  json?: string;
}

export type Handler<D extends RouteDef> = (ctx: HandlerContext<D>) => Promise<HandlerResult>;

/**
 * The body of a write that takes none (publish, approve): nothing, or `{}`. Fields in it are
 * refused as unknown fields are everywhere, rather than accepted and ignored.
 */
const NO_BODY = z
  .object({})
  .strict()
  .transform(() => undefined);

const grants = (key: ApiKeyIdentity, scope: Scope) => key.scopes.includes('ADMIN') || key.scopes.includes(scope);

/** Who a keyed request is, and its community when read in the same query as the key (KeyLookup). */
type Authenticated = { key: ApiKeyIdentity | null; keyCommunity: KeyCommunity | null };

const ANONYMOUS: Authenticated = { key: null, keyCommunity: null };

async function authenticate(req: Request, res: Response, def: RouteDef, deps: RouteDeps): Promise<Authenticated> {
  if (
    def.auth.kind === 'none' ||
    def.auth.kind === 'session' ||
    def.auth.kind === 'leader' ||
    def.auth.kind === 'sameOrigin'
  ) {
    await deps.rateLimits.consume('anonymous', req.ip ?? 'unknown', res);
    return ANONYMOUS;
  }
  // Judged by authenticateWidget, with its own per-IP budget.
  if (def.auth.kind === 'widget') return ANONYMOUS;
  const ip = req.ip ?? 'unknown';
  const presented = req.get('x-api-key')?.trim();
  if (!presented) {
    const site = await ownSiteReader(req, def, deps);
    if (site) {
      await deps.rateLimits.consume('publishable', `${site.id}:${ip}`, res);
      return { key: site, keyCommunity: null };
    }
    await deps.rateLimits.consume('auth-failures', ip, res);
    throw new ApiError('API_KEY_REQUIRED', messages.apiKeyRequired);
  }
  const found = await deps.keys.lookup(presented);
  if (!found) {
    // Guessing is limited per IP: past the budget a bad key is a 429 rather than a 401. A valid
    // key is never refused for its IP's failures (behind a proxy without SVC_TRUST_PROXY every
    // client shares one IP, and one guesser must not lock everyone out).
    await deps.rateLimits.consume('auth-failures', ip, res);
    throw new ApiError('INVALID_API_KEY', messages.invalidApiKey);
  }
  const key = found.identity;
  // The publishable key is public, so its budget is per client: one abuser cannot spend the
  // budget of every visitor of every site that embeds the community's widgets.
  await deps.rateLimits.consume(key.kind, key.kind === 'publishable' ? `${key.id}:${ip}` : key.id, res);
  // Judged on the raw path segment, before validation, so a malformed tag is still a 403.
  const tag = req.params.communityTag;
  if (tag !== undefined && tag !== key.communityTag) {
    throw new ApiError('COMMUNITY_MISMATCH', messages.keyOtherCommunity);
  }
  if (!grants(key, def.auth.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE', messages.insufficientScope(def.auth.scope), { grantedScopes: key.scopes });
  }
  return { key, keyCommunity: found.community };
}

/**
 * A read with no key, on the hosted site of the community it reads: the widgets there run with the
 * visitor's cookie and no publishable key (docs/decisions/0027-own-site-reads-need-no-key.md). It
 * is answered exactly as the publishable key would be (the same identity kind, so the same page
 * gate, event audience and read-cache entries): READ_PUBLIC GETs only, and only when the request's
 * host is that community's site. No cookie is read here, so nothing member-only is ever served.
 */
async function ownSiteReader(req: Request, def: RouteDef, deps: RouteDeps): Promise<ApiKeyIdentity | null> {
  if (deps.siteDomain === undefined || def.method !== 'get') return null;
  if (def.auth.kind !== 'apiKey' || def.auth.scope !== 'READ_PUBLIC') return null;
  const tag = req.params.communityTag;
  if (typeof tag !== 'string' || !req.hostname) return null;
  const site = await communityForSite(deps.db, req.hostname, deps.siteDomain);
  if (!site || site.tag !== tag) return null;
  // Its own id, so the per-client budget is apart from the key's, and no key row is needed.
  return {
    id: `site:${site.id}`,
    communityId: site.id,
    communityTag: site.tag,
    kind: 'publishable',
    scopes: ['READ_PUBLIC'],
  };
}

export interface MountOptions {
  /**
   * Public GET responses of keyed routes may be served from the per-community read cache. Only
   * for reads whose answer depends on nothing but the community, the kind of key, the path and
   * the query.
   */
  cache?: boolean;
}

function send(res: Response, status: number, json: string, headers?: Record<string, string>) {
  if (headers) for (const k in headers) res.setHeader(k, headers[k]);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(json);
}

/**
 * Writes `chunks` as they come, waiting for the socket to drain. The status is sent with the first
 * piece, so a failure after it cannot become an error envelope: the connection is cut instead, and
 * the client sees a broken download rather than a file that looks complete.
 */
async function sendStream(
  res: Response,
  status: number,
  contentType: string,
  headers: Record<string, string> | undefined,
  chunks: AsyncIterable<string>,
) {
  if (headers) for (const k in headers) res.setHeader(k, headers[k]);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  // HEAD has no body: reading every batch only to drop it would be a whole export for nothing.
  if (res.req.method === 'HEAD') return void res.end();
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) return;
      if (!res.write(chunk))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
    }
    res.end();
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

export function mountRoute<D extends RouteDef>(
  router: Router,
  def: D,
  handler: Handler<D>,
  deps: RouteDeps,
  opts: MountOptions = {},
): void {
  const path = expressPath(def.path);
  if (def.auth.kind === 'apiKey' && !def.path.includes('{communityTag}')) {
    // The key-to-community check reads this parameter; a keyed route without it would accept
    // any community's key.
    throw new Error(`${def.operationId}: a keyed route must have {communityTag} in its path`);
  }
  if (def.method !== 'get' && def.auth.kind === 'none') {
    // Idempotency records are owned by the caller's key or signed-in user; an anonymous write
    // would take the header and silently ignore it.
    throw new Error(
      `${def.operationId}: write routes need an API key or a signed-in visitor (no idempotency owner otherwise)`,
    );
  }
  if (def.auth.kind === 'leader' && !def.path.startsWith(`${LEADER_CONSOLE_BASE}/`)) {
    throw new Error(`${def.operationId}: a leader route's path must start with ${LEADER_CONSOLE_BASE}/`);
  }
  if (def.auth.kind === 'widget') {
    // CORS for these paths is widgetActionCors alone: under /api/communities the public CORS
    // (any origin) would answer first. Reads go to /v1 with the publishable key.
    if (!def.path.startsWith(`${WIDGET_ACTIONS_BASE}/`)) {
      throw new Error(`${def.operationId}: a widget route's path must start with ${WIDGET_ACTIONS_BASE}/`);
    }
    if (def.method === 'get')
      throw new Error(`${def.operationId}: widget routes are writes; reads go to /v1 with the publishable key`);
  }
  const cacheable = opts.cache === true && def.method === 'get' && def.auth.kind === 'apiKey';
  const before = def.auth.kind === 'widget' ? [widgetCors(router, path, deps)] : [];
  router[def.method](path, ...before, async (req: Request, res: Response) => {
    const { key, keyCommunity } = await authenticate(req, res, def, deps);
    const widget = def.auth.kind === 'widget' ? await authenticateWidget(req, res, deps) : null;
    const visitor =
      def.auth.kind === 'session' || def.auth.kind === 'leader'
        ? await authenticateVisitor(req, res, def, deps)
        : (widget?.visitor ?? null);
    // Judged on the raw path segment, like a key's community: a malformed tag is a 403 too.
    const leader =
      def.auth.kind === 'leader'
        ? await authenticateLeader(deps.db, visitor!, String(req.params.communityTag ?? ''))
        : null;
    if (def.auth.kind === 'sameOrigin' && def.method !== 'get') assertOwnOrigin(req);
    // Keyed by the URL as sent: an entry exists only for a URL that passed validation before,
    // so a hit can skip parsing it again. And by the kind of key: a secret key may read what
    // the publishable key may not (page visibility), so neither is ever answered from the other's.
    // Only keyed reads are cacheable, so a cacheable request always has its key.
    const cachedFor = cacheable ? key : null;
    const cacheKey = cachedFor ? `${def.operationId} ${cachedFor.kind} ${req.originalUrl}` : '';
    if (cachedFor) {
      const hit = deps.readCache.get(cachedFor.communityId, cacheKey);
      if (hit) return send(res, hit.status, hit.body, hit.headers);
    }
    // Taken before the handler reads, so a write that lands meanwhile makes this answer stale
    // instead of being cached over.
    const generation = cachedFor ? deps.readCache.generation(cachedFor.communityId) : 0;
    const params = def.params ? parseOrThrow(def.params, req.params, 'params') : {};
    const query = def.query ? parseOrThrow(def.query, req.query, 'query') : {};
    if (def.method !== 'get') await deps.readBody(req, res);
    const bodySchema = def.body ?? (def.method === 'get' ? null : NO_BODY);
    const body = bodySchema ? parseOrThrow(bodySchema, req.body ?? {}, 'body') : undefined;
    // A domain refusal becomes the API's error here, before the idempotency layer decides
    // whether the answer is stored (it keeps 4xx refusals, like every ApiError below 500).
    const run = () =>
      handler(ctx).catch((err: unknown) => {
        throw asApiError(err);
      });
    let hold: IdempotencyHold | null = null;
    let committed: StoredResult | null = null;
    const ctx = {
      params,
      query,
      body,
      key,
      keyCommunity,
      visitor,
      widget,
      leader,
      req,
      res,
      transaction: async <R extends HandlerResult>(fn: (trx: Trx) => Promise<R>) => {
        const r = await transaction(deps.db, async (trx) => {
          const out = await fn(trx);
          const answer = { status: out.status ?? def.response.status, body: out.body, headers: out.headers };
          await hold?.persist(trx, answer);
          return { out, answer };
        });
        committed = r.answer;
        return r.out;
      },
    } as unknown as HandlerContext<D>;

    const idemKey = def.method === 'get' ? null : idempotencyKeyOf(req);
    if (idemKey && def.response.holdsSecret) {
      throw new ApiError('INVALID_INPUT', messages.secretAnswerNotReplayable, { field: 'Idempotency-Key' });
    }
    let result: HandlerResult;
    // Widget actions: per visitor or client, never the (public, shared) publishable key.
    const owner = key ? `key:${key.id}` : widget ? widget.idempotencyOwner : visitor ? `user:${visitor.userId}` : null;
    if (idemKey && owner) {
      const hash = fingerprint(def.method, req.originalUrl, req.body ?? null);
      const stored = await runIdempotent(
        deps.db,
        owner,
        idemKey,
        hash,
        async (h) => {
          hold = h;
          const r = await run();
          // The answer is what the transaction committed with; the first response and every
          // replay are the same, whatever the handler did with it afterwards.
          return committed ?? { status: r.status ?? def.response.status, body: r.body, headers: r.headers };
        },
        deps.idempotency,
      );
      if (stored.replayed) res.setHeader('Idempotent-Replayed', 'true');
      result = stored;
    } else {
      result = await run();
    }

    const status = result.status ?? def.response.status;
    if (result.stream) {
      if (!def.response.contentType || def.method !== 'get')
        throw new Error(`${def.operationId}: only a GET declaring a contentType answers with a stream`);
      return sendStream(res, status, `${def.response.contentType}; charset=utf-8`, result.headers, result.stream);
    }
    if (result.json !== undefined && def.method !== 'get')
      throw new Error(`${def.operationId}: only a GET answers with a body it encoded itself`);
    if (deps.validateResponses && status === def.response.status) {
      const check = def.response.schema.safeParse(result.json !== undefined ? JSON.parse(result.json) : result.body);
      if (!check.success) {
        throw new Error(`${def.operationId} answered outside its contract: ${check.error.message}`);
      }
    }
    const json = result.json ?? JSON.stringify(status >= 400 ? withRequestId(result.body, req.id) : result.body);
    // Paging headers are computed once and cached with the body (the cache key is the URL).
    const headers = result.page
      ? { ...result.headers, ...paginationHeaders(req, deps.publicUrl, result.page) }
      : result.headers;
    if (cachedFor && status === 200)
      deps.readCache.set(cachedFor.communityId, cacheKey, { status, body: json, headers }, generation);
    // A successful write makes the community's cached reads stale, whatever the route.
    const wrote = key?.communityId ?? widget?.community.id ?? leader?.communityId;
    if (def.method !== 'get' && wrote && status < 400) deps.readCache.invalidate(wrote);
    send(res, status, json, headers);
  });
}

/**
 * Mounts a declared route that answers a browser navigation (a redirect, not JSON) as a plain
 * Express handler on its path: no auth, validation or JSON envelope; the handler does its own.
 */
export function mountNavigation(
  router: Router,
  def: RouteDef,
  handler: (req: Request, res: Response) => Promise<void>,
): void {
  if (def.method !== 'get') throw new Error(`${def.operationId}: a navigation is a GET`);
  router.get(expressPath(def.path), handler);
}

const widgetPreflights = new WeakMap<Router, Map<string, ReturnType<typeof widgetActionCors>>>();

/** One widgetActionCors per widget path, answering its preflight too (several methods share it). */
function widgetCors(router: Router, path: string, deps: RouteDeps) {
  let paths = widgetPreflights.get(router);
  if (!paths) widgetPreflights.set(router, (paths = new Map()));
  let cors = paths.get(path);
  if (!cors) {
    cors = widgetActionCors(deps);
    paths.set(path, cors);
    router.options(path, cors);
  }
  return cors;
}

/** Answers 405 with `Allow` for known paths called with a method they do not have. */
export function methodNotAllowed(router: Router, routes: RouteDef[]): void {
  const byPath = new Map<string, string[]>();
  for (const r of routes) {
    const p = expressPath(r.path);
    byPath.set(p, [...(byPath.get(p) ?? []), r.method.toUpperCase()]);
  }
  for (const [p, methods] of byPath) {
    router.all(p, (req, res, next) => {
      if (req.method === 'OPTIONS' || (req.method === 'HEAD' && methods.includes('GET'))) return next();
      res.setHeader('Allow', methods.join(', '));
      next(new ApiError('METHOD_NOT_ALLOWED', messages.methodNotAllowed(req.method, methods)));
    });
  }
}
