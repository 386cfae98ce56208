// Who is signed in on a site request. The token is read from, in order: the cookie
// `svc_auth_<community tag>` (scoped, preferred), `svc_auth` (canonical fallback),
// `svc_auth_<bare hostname>` (older browsers), then `Authorization: Bearer` (what the chrome proxy
// forwards). The first one present decides: a stale scoped cookie is not rescued by another.
// Whatever carries it, a token counts only on the site it was issued for (server/domain/sessions.ts):
// a community's host takes its own community's tokens, the platform host the platform's.
import type { NextFunction, Request, Response } from 'express';
import type { RouteDef } from '../../contract/route.ts';
import type { Db } from '../db/index.ts';
import { communityTagForHost } from '../domain/communities.ts';
import { normalizeOrigin } from '../domain/community-origins.ts';
import {
  runForSite,
  servingSiteOrThrow,
  SESSION_REFRESH_AFTER_SECONDS,
  userForToken,
  type SessionClaims,
  type SessionIdentity,
  type SessionTokens,
} from '../domain/sessions.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';
import { secureAttribute } from './transport-security.ts';

export const SESSION_COOKIE = 'svc_auth';
export const sessionCookieName = (communityTag: string): string => `${SESSION_COOKIE}_${communityTag}`;

/** The request host without port or a leading `www.`, as used in the oldest cookie name. */
export function bareHostname(req: Request): string {
  return (req.hostname ?? '').toLowerCase().replace(/^www\./, '');
}

/** Cookie header -> name/value map. Our values are JWTs (base64url and dots), never quoted. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    // The first occurrence wins, as browsers send the most specific cookie first.
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

/** The token the request presents for this community, or null. */
export function presentedToken(req: Request, communityTag: string | null): string | null {
  return presentedCredential(req, communityTag)?.token ?? null;
}

export interface SignedInVisitor {
  userId: string;
  claims: SessionClaims;
}

/**
 * The signed-in visitor, or null: no token, an invalid one, one of another site, or one of a
 * deleted user all read as anonymous. `communityTag` names the cookie to look for; the site the
 * token must belong to is always the request host's.
 */
export async function signedInVisitor(
  db: Db,
  sessions: SessionTokens,
  req: Request,
  communityTag: string | null,
): Promise<SignedInVisitor | null> {
  const token = presentedToken(req, communityTag);
  if (!token) return null;
  return userForToken(db, sessions, token, { site: await requestSiteTag() });
}

// ---------------------------------------------------------------------------------------------
// Session routes: who is signed in, the cookie, and cross-site request refusal
// ---------------------------------------------------------------------------------------------

export interface Visitor {
  userId: string;
  /** The session the token belongs to: a refresh keeps it, a sign-out revokes it. */
  session: SessionIdentity;
  /** The community whose site this request is on (its hosted domain), or null on the platform host. */
  communityTag: string | null;
}

/**
 * The tag of the community whose site this request is on (a registered domain, `<tag>.localhost`
 * or `<tag>.<SVC_SITE_DOMAIN>`), or null on the platform host: looked up once per request, by the
 * scope sessionSiteScope opens for it; asked outside that scope it throws.
 */
export const requestSiteTag = (): Promise<string | null> => servingSiteOrThrow();

/** `scheme://host[:port]` of the site this request was made to (as this process sees it), or null for a malformed Host. */
export function requestOrigin(req: Request): string | null {
  return normalizeOrigin(`${req.protocol}://${req.host}`);
}

/**
 * Makes the request's site the one tokens issued while serving it are bound to (a sign-in on a
 * community's host makes that community's token), looked up only if a token is issued.
 */
export function sessionSiteScope(
  db: Db,
  siteDomain: string,
): (req: Request, res: Response, next: NextFunction) => void {
  return (req, _res, next) => runForSite(() => communityTagForHost(db, req.hostname, siteDomain), next);
}

/** Which cookie (or Bearer) carried the token: cookies need CSRF checks and get refreshed. */
function presentedCredential(
  req: Request,
  communityTag: string | null,
): { token: string; cookie: string | null } | null {
  const cookies = parseCookies(req.headers.cookie);
  for (const name of [
    ...(communityTag ? [sessionCookieName(communityTag)] : []),
    SESSION_COOKIE,
    `${SESSION_COOKIE}_${bareHostname(req)}`,
  ]) {
    const value = cookies.get(name);
    if (value) return { token: value, cookie: name };
  }
  const bearer = req.headers.authorization && /^Bearer\s+(\S+)$/i.exec(req.headers.authorization);
  return bearer ? { token: bearer[1], cookie: null } : null;
}

/**
 * A cookie is sent by the browser whoever made the page, so a write it authenticates must prove
 * it comes from this site's own pages: JSON content type (a cross-site form cannot send it, and a
 * cross-site fetch with it needs a preflight we never grant with credentials), an Origin equal to
 * this site's, and Fetch Metadata, where the browser sends it, saying same-origin.
 */
export function assertOwnOrigin(req: Request): void {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', messages.jsonRequired);
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw new ApiError('CROSS_SITE_REQUEST', messages.crossSiteRequest);
  const origin = req.headers.origin;
  // req.host (with port) and req.hostname read the same source, X-Forwarded-Host included when the
  // proxy is trusted: the origin compared here is the site the cookie and community come from.
  if (!origin || origin !== `${req.protocol}://${req.host}`)
    throw new ApiError('CROSS_SITE_REQUEST', messages.crossSiteRequest);
}

/** Sets the sign-in cookie: HttpOnly, SameSite=Lax, host-only, Secure when the deployment is https. */
export function setSessionCookie(req: Request, res: Response, name: string, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  res.append(
    'Set-Cookie',
    `${name}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secureAttribute(req)}`,
  );
}

/** Expires every cookie name this site's token may be under. */
export function clearSessionCookies(req: Request, res: Response, communityTag: string | null): void {
  const secure = secureAttribute(req);
  for (const name of new Set([
    ...(communityTag ? [sessionCookieName(communityTag)] : []),
    SESSION_COOKIE,
    `${SESSION_COOKIE}_${bareHostname(req)}`,
  ])) {
    res.append('Set-Cookie', `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure}`);
  }
}

/** The name a new sign-in cookie gets on this request's site. */
export const cookieNameFor = (communityTag: string | null): string =>
  communityTag ? sessionCookieName(communityTag) : SESSION_COOKIE;

export interface SessionRouteDeps {
  db: Db;
  sessions: SessionTokens;
}

/** For `session` routes: the visitor, or 401; cookie writes must pass assertOwnOrigin. */
export async function authenticateVisitor(
  req: Request,
  res: Response,
  def: RouteDef,
  deps: SessionRouteDeps,
): Promise<Visitor> {
  const communityTag = await requestSiteTag();
  const presented = presentedCredential(req, communityTag);
  if (!presented) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
  // Judged before the token: a forged request learns nothing about the session it rides on.
  if (def.method !== 'get' && presented.cookie) assertOwnOrigin(req);
  const found = await userForToken(deps.db, deps.sessions, presented.token, { site: communityTag });
  if (!found) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
  // Extended on activity: a cookie older than a day is re-issued under the same name, for the same site.
  const session: SessionIdentity = { sid: found.claims.sid, authTime: found.claims.authTime, site: found.claims.site };
  if (presented.cookie && Date.now() / 1000 - found.claims.iat > SESSION_REFRESH_AFTER_SECONDS) {
    const fresh = await deps.sessions.issue(found.userId, Date.now(), session);
    // Past the session's absolute end there is nothing left to extend.
    if (fresh.expiresAt.getTime() > Date.now() + 60_000)
      setSessionCookie(req, res, presented.cookie, fresh.token, fresh.expiresAt);
  }
  return { userId: found.userId, session, communityTag };
}
