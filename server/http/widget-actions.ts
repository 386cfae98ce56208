// Widget actions: the writes widgets make (RSVP, donate, apply), on
// `{site_base}/api/actions/{communityTag}/...` (WIDGET_ACTIONS_BASE). A route declares
// `auth: {kind: 'widget'}` and mountRoute does the rest: CORS for the community's embed origins
// (`widgetActionCors`), the per-IP budget, and one of two ways in (`authenticateWidget`):
//
// - `publishableKey`: `X-API-Key: pk_live_...` of this community, sent from a page whose `Origin`
//   is exactly one of the community's `embed_origins`. No cookie is ever read on this path and
//   CORS never allows credentials, so another site cannot act as a signed-in visitor.
// - `hostedSite`: no key, same-origin on the community's own hosted domain (its custom domain or
//   `<tag>.localhost`): JSON, `Origin` equal to the site's, Fetch Metadata same-origin where sent.
//   The sign-in cookie, when present and valid, names the visitor; otherwise the caller is anonymous.
//
// Secret keys are refused outright (never looked up): they are server-only, and a server calls
// the same domain functions through /v1 with its secret key.
//
// The Origin check is a browser boundary, not authentication: a script outside a browser can send
// any Origin (and any Host). What it stops is other sites' pages using the key or riding a
// visitor's cookie; the per-IP budget and the domain's own rules bound what a script can do.
import type { Request, RequestHandler, Response } from 'express';
import type { Db } from '../db/index.ts';
import { SECRET_PREFIX, type KeyResolver } from '../domain/api-keys.ts';
import {
  communityOrigins,
  foreignReturnUrls,
  normalizeOrigin,
  ownOrigins,
  type CommunityOrigins,
} from '../domain/community-origins.ts';
import type { SessionTokens } from '../domain/sessions.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';
import type { RateLimits } from './rate-limit.ts';
import { assertOwnOrigin, requestSiteTag, requestOrigin, signedInVisitor, type Visitor } from './session.ts';

/** Who is calling a widget action; handed to the handler as `ctx.widget`. */
export interface WidgetCaller {
  community: { id: string; tag: string };
  via: 'publishableKey' | 'hostedSite';
  /** The signed-in visitor (hosted site, valid sign-in cookie), else null: anonymous. */
  visitor: Visitor | null;
  /**
   * Owner of this caller's Idempotency-Key records: `widget:<communityId>:user:<userId>` for a
   * signed-in visitor, else `widget:<communityId>:ip:<client IP>`. Never the publishable key: it
   * is shared by every visitor of every embedding site, and whoever presents an owner's key gets
   * that owner's stored answer (an RSVP's QR code, say).
   */
  idempotencyOwner: string;
}

export interface WidgetDeps {
  db: Db;
  keys: KeyResolver;
  rateLimits: RateLimits;
  sessions: SessionTokens;
}

// ---------------------------------------------------------------------------------------------
// Embed origins (the origin rule: server/domain/community-origins.ts)
// ---------------------------------------------------------------------------------------------

/** The request's `Origin` when it is exactly one of the community's embed origins, else null. */
function allowedOrigin(req: Request, community: CommunityOrigins | null): string | null {
  const origin = req.headers.origin;
  // Compared as sent: browsers send the serialised form, so anything else is not a browser's.
  return community && origin && community.embeds.has(origin) ? origin : null;
}

// ---------------------------------------------------------------------------------------------
// CORS
// ---------------------------------------------------------------------------------------------

const ALLOWED_HEADERS =
  'X-API-Key, Content-Type, Idempotency-Key, X-Idempotency-Key, X-Request-Id, X-Svc-Auth-Token, X-Svc-Member-Token';
const EXPOSED_HEADERS =
  'X-Request-Id, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed';
const ALLOWED_METHODS = 'POST, PUT, PATCH, DELETE';
/** Browsers cap this anyway (Chrome: 2 h); a removed origin is refused server-side at once regardless. */
const PREFLIGHT_MAX_AGE = '600';

/**
 * The request's `Origin` when it is a browser's serialised http(s) origin (what a page on a real
 * site sends), else null: never `null` (sandboxed frames, `file:` pages), `*` or a malformed value.
 */
function browserOrigin(req: Request): string | null {
  const origin = req.headers.origin;
  return origin && normalizeOrigin(origin) === origin ? origin : null;
}

/**
 * CORS for widget-action paths (mountRoute attaches it to every `widget` route, preflight
 * included; it reads the `communityTag` path parameter). `Access-Control-Allow-Origin` is the
 * request's own `Origin`; never `*`, never `null`, never `Access-Control-Allow-Credentials`
 * (cookies work same-origin only, where CORS does not apply). Every answer varies by Origin.
 *
 * A listed embed origin reads every answer. Any other browser origin has its preflight granted
 * too, so that the request itself arrives and is refused by authenticateWidget with a
 * `403 ORIGIN_NOT_ALLOWED` that page can read (exposeRefusal): the widget then tells the visitor
 * the site is not set up for it, instead of "We couldn't reach the server". Nothing more reaches
 * the server than before: a page can always send a simple cross-origin POST without asking, and
 * no handler runs for an unlisted origin.
 */
export function widgetActionCors(deps: { db: Db }): RequestHandler {
  return async (req, res, next) => {
    res.vary('Origin');
    const tag = req.params.communityTag;
    const community = typeof tag === 'string' && req.headers.origin ? await communityOrigins(deps.db, tag) : null;
    const origin = allowedOrigin(req, community);
    if (req.method === 'OPTIONS') {
      const asking = origin ?? browserOrigin(req);
      if (!asking) throw new ApiError('ORIGIN_NOT_ALLOWED', messages.originNotAllowed);
      res.setHeader('Access-Control-Allow-Origin', asking);
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      res.status(204).end();
      return;
    }
    if (origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    next();
  };
}

/**
 * Lets the page that made a refused widget action read the refusal (its status, code and
 * request id), whatever its origin: only authentication's refusals, which say nothing about the
 * community's data, are made readable this way; the handler never runs for an unlisted origin.
 */
function exposeRefusal(req: Request, res: Response): void {
  const origin = browserOrigin(req);
  if (!origin || res.getHeader('Access-Control-Allow-Origin')) return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}

// ---------------------------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------------------------

/**
 * Judges a widget action before its input is read. Order: the per-IP budget (`widget-actions`,
 * per community), then with `X-API-Key`: a secret key 403 SECRET_KEY_NOT_ALLOWED, an unknown key
 * 401 INVALID_API_KEY (spends `auth-failures`), another community's key 403 COMMUNITY_MISMATCH,
 * an Origin that is missing or not listed 403 ORIGIN_NOT_ALLOWED; without a key: a request not on
 * the community's hosted domain 401 API_KEY_REQUIRED, then the same-origin checks (415, 403
 * CROSS_SITE_REQUEST), then the optional sign-in cookie. Every refusal is readable by the page
 * that was refused (exposeRefusal).
 */
export async function authenticateWidget(req: Request, res: Response, deps: WidgetDeps): Promise<WidgetCaller> {
  const tag = req.params.communityTag;
  if (typeof tag !== 'string') throw new Error('a widget route needs {communityTag} in its path');
  const ip = req.ip ?? 'unknown';
  try {
    await deps.rateLimits.consume('widget-actions', `${tag}:${ip}`, res);
    const presented = req.get('x-api-key')?.trim();
    return presented
      ? await viaPublishableKey(req, res, deps, tag, ip, presented)
      : await viaHostedSite(req, deps, tag, ip);
  } catch (error) {
    exposeRefusal(req, res);
    throw error;
  }
}

async function viaPublishableKey(
  req: Request,
  res: Response,
  deps: WidgetDeps,
  tag: string,
  ip: string,
  presented: string,
): Promise<WidgetCaller> {
  // Refused by its prefix, without a lookup: this endpoint must not tell whether a secret key is valid.
  if (presented.startsWith(SECRET_PREFIX)) throw new ApiError('SECRET_KEY_NOT_ALLOWED', messages.secretKeyNotAllowed);
  const key = await deps.keys.resolve(presented);
  if (!key) {
    await deps.rateLimits.consume('auth-failures', ip, res);
    throw new ApiError('INVALID_API_KEY', messages.invalidApiKey);
  }
  if (key.kind !== 'publishable') throw new ApiError('SECRET_KEY_NOT_ALLOWED', messages.secretKeyNotAllowed);
  // Before the community is looked up, as on /v1: a key never learns whether another community exists.
  if (key.communityTag !== tag) throw new ApiError('COMMUNITY_MISMATCH', messages.keyOtherCommunity);
  const community = await communityOrigins(deps.db, tag);
  if (!allowedOrigin(req, community)) throw new ApiError('ORIGIN_NOT_ALLOWED', messages.originNotAllowed);
  return {
    community: { id: key.communityId, tag },
    via: 'publishableKey',
    visitor: null,
    idempotencyOwner: `widget:${key.communityId}:ip:${ip}`,
  };
}

async function viaHostedSite(req: Request, deps: WidgetDeps, tag: string, ip: string): Promise<WidgetCaller> {
  // Only the community's own site may call without a key; anywhere else the key is what is missing.
  if ((await requestSiteTag()) !== tag) {
    throw new ApiError('API_KEY_REQUIRED', messages.widgetKeyRequired);
  }
  // Judged before the cookie is read, and whether or not there is one: a cross-site request is
  // refused, not downgraded to anonymous.
  assertOwnOrigin(req);
  const community = await communityOrigins(deps.db, tag);
  if (!community) throw new ApiError('NOT_FOUND', messages.communityNotFound);
  // A missing, invalid or expired token, or one of a deleted user, is an anonymous visitor.
  const signedIn = await signedInVisitor(deps.db, deps.sessions, req, tag);
  const visitor = signedIn
    ? {
        userId: signedIn.userId,
        session: { sid: signedIn.claims.sid, authTime: signedIn.claims.authTime },
        communityTag: tag,
      }
    : null;
  return {
    community: { id: community.id, tag },
    via: 'hostedSite',
    visitor,
    idempotencyOwner: visitor ? `widget:${community.id}:user:${visitor.userId}` : `widget:${community.id}:ip:${ip}`,
  };
}

type ReturnUrls = ReadonlyArray<readonly [field: string, url: string | undefined]>;

/** The first of `urls` whose origin is not in `allowed` is a 400 naming its field. */
function assertReturnUrls(allowed: ReadonlySet<string>, urls: ReturnUrls): void {
  const [field] = foreignReturnUrls(allowed, urls);
  if (field !== undefined) throw new ApiError('INVALID_INPUT', messages.returnUrlNotAllowed(field), { field });
}

/**
 * A widget's successUrl/cancelUrl must lead back to the community (the origin rule), or to the
 * page that called (its Origin was already judged: an embed origin or the hosted site). Anyone can
 * call a widget action with the public key, so without this a checkout bearing the community's
 * name could send its buyer anywhere (an open redirect for phishing).
 */
export async function assertWidgetReturnUrls(
  deps: { db: Db; publicUrl: string },
  caller: WidgetCaller,
  req: Request,
  urls: ReturnUrls,
): Promise<void> {
  const community = await communityOrigins(deps.db, caller.community.tag);
  assertReturnUrls(ownOrigins(community, deps.publicUrl, normalizeOrigin(req.get('origin') ?? '')), urls);
}

/**
 * The same rule for a signed-in visitor's own checkout: the community's origins, plus the site the
 * request is on when that is the community's own hosted site.
 */
export async function assertCommunityReturnUrls(
  deps: { db: Db; publicUrl: string },
  communityTag: string,
  req: Request,
  urls: ReturnUrls,
): Promise<void> {
  const community = await communityOrigins(deps.db, communityTag);
  const onItsSite = (await requestSiteTag()) === communityTag;
  assertReturnUrls(ownOrigins(community, deps.publicUrl, onItsSite ? requestOrigin(req) : null), urls);
}
