// Visitor sign-in tokens: a JWT made with jose, HS256 only, payload {userId, iat, exp} plus our
// issuer and audience, a session id (`sid`) and the sign-in time (`auth_time`), about 30 days.
//
// Each token is bound to the site that issued it: audience `svc:site:<community tag>` on a
// community's host, `svc:platform` on the platform's. A community's operator controls its domain
// (DNS) and so can read what is sent there; a token taken from one site is refused on every other
// one and on the platform. The platform's audience is not `svc:site:platform` because a community
// may be tagged `platform`. Tokens of the old, unbound audience `svc:site` are refused everywhere.
// Refreshing keeps `sid` and `auth_time`, so a session can be extended on activity up to
// SESSION_MAX_SECONDS after sign-in and no further, and revoking it revokes every refreshed copy. The token proves identity, not membership; only this
// server verifies it. Verification pins the algorithm, so `alg: none`, RS256 headers (the
// key-confusion attack) and tokens signed with any other key are all refused.
//
// Tokens are stateless, but can be revoked: one session on sign-out (its `sid` in revoked_tokens
// until it could no longer be refreshed), or every session of a user signed in up to a moment
// (sign out everywhere, password reset: session_revocations). Revocation never keys on the token
// text: an HS256 signature has several base64url spellings that all verify.
// userForToken checks both in its one query.
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Db } from '../db/index.ts';

export const SESSION_ISSUER = 'svc';
/** The audience prefix of community sites: `svc:site:<tag>`. */
export const SITE_AUDIENCE_PREFIX = 'svc:site:';
/** The platform host's audience (outside the `svc:site:` namespace, so no tag can collide with it). */
export const PLATFORM_AUDIENCE = 'svc:platform';
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** A token older than this is re-issued on the next authenticated request ("extended on activity"). */
export const SESSION_REFRESH_AFTER_SECONDS = 24 * 60 * 60;
/** No refresh extends a session beyond this long after its sign-in. */
export const SESSION_MAX_SECONDS = 90 * 24 * 60 * 60;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The site a token is for: a community's tag, or null for the platform host. */
export type SessionSite = string | null;

const COMMUNITY_AUDIENCE = /^svc:site:([a-z0-9][a-z0-9-]*)$/;

export const siteAudience = (site: SessionSite): string =>
  site === null ? PLATFORM_AUDIENCE : `${SITE_AUDIENCE_PREFIX}${site}`;

/** The site an audience names, or undefined when it is none of ours. */
function siteOfAudience(aud: unknown): SessionSite | undefined {
  if (aud === PLATFORM_AUDIENCE) return null;
  const m = typeof aud === 'string' ? COMMUNITY_AUDIENCE.exec(aud) : null;
  return m ? m[1] : undefined;
}

export interface SessionClaims {
  userId: string;
  sid: string;
  authTime: number;
  iat: number;
  exp: number;
  site: SessionSite;
}

/** What a refreshed token carries over from the one it replaces (the site too, when known). */
export interface SessionIdentity {
  sid: string;
  authTime: number;
  site?: SessionSite;
}

/**
 * The site of the request being served, for tokens issued without naming one: a sign-in sets its
 * cookie on the request's host, so that host is the site the token must be bound to. Set by the
 * HTTP layer for every site request (server/http/session.ts sessionSiteScope); outside a request
 * (the CLI, tests) there is none and a token is the platform's.
 */
const servingSite = new AsyncLocalStorage<() => Promise<SessionSite>>();

/** Runs fn with `resolve` as the site of the request being served (resolved on first need). */
export function runForSite<T>(resolve: () => Promise<SessionSite>, fn: () => T): T {
  let site: Promise<SessionSite> | null = null;
  return servingSite.run(() => (site ??= resolve()), fn);
}

/**
 * The site of the request being served, for code that only runs while serving one: with no scope
 * open it throws, because answering "the platform" there would silently read every visitor as
 * anonymous (an app that forgot to mount the scope fails loudly instead).
 */
export function servingSiteOrThrow(): Promise<SessionSite> {
  const resolve = servingSite.getStore();
  if (!resolve) throw new Error('no site scope: mount sessionSiteScope before the routes that ask for the site');
  return resolve();
}

/** The site of the request being served, or null (the platform) outside one. */
export async function currentSite(): Promise<SessionSite> {
  const resolve = servingSite.getStore();
  return resolve ? resolve() : null;
}

export class SessionTokens {
  readonly #key: Uint8Array;
  constructor(key: Uint8Array) {
    if (key.length < 32) throw new Error('the session key must be at least 32 bytes');
    this.#key = key;
  }

  /**
   * A new session, or (with `session`) a refreshed token of an existing one, for `site`; when that
   * is left out, for the refreshed session's site, else for the site of the request being served.
   */
  async issue(
    userId: string,
    now = Date.now(),
    session?: SessionIdentity,
    site?: SessionSite,
  ): Promise<{ token: string; expiresAt: Date }> {
    const audience = siteAudience(
      site !== undefined ? site : session?.site !== undefined ? session.site : await currentSite(),
    );
    const iat = Math.floor(now / 1000);
    const authTime = session?.authTime ?? iat;
    const exp = Math.min(iat + SESSION_LIFETIME_SECONDS, authTime + SESSION_MAX_SECONDS);
    const token = await new SignJWT({ userId, sid: session?.sid ?? crypto.randomUUID(), auth_time: authTime })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(SESSION_ISSUER)
      .setAudience(audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /**
   * A key for another sign-in secret (e.g. 'sms codes v1'), derived from this one with HKDF: one
   * secret to configure and rotate, and no key that doubles as another's.
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(crypto.hkdfSync('sha256', this.#key, Buffer.alloc(0), `svc ${purpose}`, 32));
  }

  /**
   * The claims of a valid token, or null for anything else (never throws on bad input). With
   * `expect.site`, only a token bound to that site is valid: what every request on a site must
   * ask. Without, a token of any of our sites is (for callers that check `claims.site` themselves).
   */
  async verify(token: string, now = Date.now(), expect?: { site: SessionSite }): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        issuer: SESSION_ISSUER,
        ...(expect ? { audience: siteAudience(expect.site) } : {}),
        requiredClaims: ['iat', 'exp', 'aud'],
        currentDate: new Date(now),
      });
      // One audience, a string: a token listing several sites would be valid on each of them.
      const site = siteOfAudience(payload.aud);
      if (site === undefined) return null;
      if (typeof payload.userId !== 'string' || !UUID.test(payload.userId)) return null;
      if (typeof payload.sid !== 'string' || !UUID.test(payload.sid) || typeof payload.auth_time !== 'number')
        return null;
      return {
        userId: payload.userId,
        sid: payload.sid,
        authTime: payload.auth_time,
        iat: payload.iat!,
        exp: payload.exp!,
        site,
      };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}

/**
 * The signed-in user behind a token, or null: also null once the user has been deleted, once this
 * token has been signed out, and once every token of the user issued up to then has been revoked.
 * With `expect.site`, also null for a token of another site (see SessionTokens.verify).
 */
export async function userForToken(
  db: Db,
  tokens: SessionTokens,
  token: string,
  expect?: { site: SessionSite },
): Promise<{ userId: string; claims: SessionClaims } | null> {
  const claims = await tokens.verify(token, Date.now(), expect);
  if (!claims) return null;
  const user = await db
    .selectFrom('users')
    .leftJoin('session_revocations as r', 'r.user_id', 'users.id')
    .leftJoin('revoked_tokens as t', (join) => join.on('t.session_id', '=', claims.sid))
    .select(['users.id', 'r.tokens_valid_after', 't.session_id'])
    .where('users.id', '=', claims.userId)
    .executeTakeFirst();
  if (!user || user.session_id !== null) return null;
  // By sign-in time, not issue time: a copy refreshed after (or while) everything was revoked
  // belongs to a revoked session all the same.
  if (user.tokens_valid_after !== null && claims.authTime <= Number(user.tokens_valid_after)) return null;
  return { userId: user.id, claims };
}
