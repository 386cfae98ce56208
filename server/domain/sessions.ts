// Visitor sign-in tokens: a JWT made with jose, HS256 only, payload {userId, iat, exp} plus our
// issuer and audience, about 30 days. The token proves identity, not membership; only this
// server verifies it. Verification pins the algorithm, so `alg: none`, RS256 headers (the
// key-confusion attack) and tokens signed with any other key are all refused.
//
// Tokens are stateless, but can be revoked: one token on sign-out (its hash in revoked_tokens
// until it would have expired), or every token of a user issued up to a moment (sign out
// everywhere, password reset: session_revocations). userForToken checks both in its one query.
import crypto from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Db } from '../db/index.ts';

export const SESSION_ISSUER = 'svc';
export const SESSION_AUDIENCE = 'svc:site';
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** A token older than this is re-issued on the next authenticated request ("extended on activity"). */
export const SESSION_REFRESH_AFTER_SECONDS = 24 * 60 * 60;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SessionClaims { userId: string; iat: number; exp: number }

export class SessionTokens {
  readonly #key: Uint8Array;
  constructor(key: Uint8Array) {
    if (key.length < 32) throw new Error('the session key must be at least 32 bytes');
    this.#key = key;
  }

  async issue(userId: string, now = Date.now()): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(now / 1000);
    const exp = iat + SESSION_LIFETIME_SECONDS;
    const token = await new SignJWT({ userId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a valid token, or null for anything else (never throws on bad input). */
  async verify(token: string, now = Date.now()): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'], issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE,
        requiredClaims: ['iat', 'exp'], currentDate: new Date(now),
      });
      if (typeof payload.userId !== 'string' || !UUID.test(payload.userId)) return null;
      return { userId: payload.userId, iat: payload.iat!, exp: payload.exp! };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}

/** What revoked_tokens stores of a token: its sha256, base64url. */
export const sessionTokenHash = (token: string): string => crypto.createHash('sha256').update(token).digest('base64url');

/**
 * The signed-in user behind a token, or null: also null once the user has been deleted, once this
 * token has been signed out, and once every token of the user issued up to then has been revoked.
 */
export async function userForToken(db: Db, tokens: SessionTokens, token: string): Promise<{ userId: string; claims: SessionClaims } | null> {
  const claims = await tokens.verify(token);
  if (!claims) return null;
  const user = await db.selectFrom('users')
    .leftJoin('session_revocations as r', 'r.user_id', 'users.id')
    .leftJoin('revoked_tokens as t', (join) => join.on('t.token_hash', '=', sessionTokenHash(token)))
    .select(['users.id', 'r.tokens_valid_after', 't.token_hash'])
    .where('users.id', '=', claims.userId)
    .executeTakeFirst();
  if (!user || user.token_hash !== null) return null;
  if (user.tokens_valid_after !== null && claims.iat <= Number(user.tokens_valid_after)) return null;
  return { userId: user.id, claims };
}
