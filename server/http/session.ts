// Who is signed in on a site request. The token is read from, in order: the cookie
// `svc_auth_<community tag>` (scoped, preferred), `svc_auth` (canonical fallback),
// `svc_auth_<bare hostname>` (older browsers), then `Authorization: Bearer` (what the chrome proxy
// forwards). The first one present decides: a stale scoped cookie is not rescued by another.
import type { Request } from 'express';
import type { Db } from '../db/index.ts';
import { userForToken, type SessionClaims, type SessionTokens } from '../domain/sessions.ts';

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
  const cookies = parseCookies(req.headers.cookie);
  const names = [
    ...(communityTag ? [sessionCookieName(communityTag)] : []),
    SESSION_COOKIE,
    `${SESSION_COOKIE}_${bareHostname(req)}`,
  ];
  for (const name of names) {
    const value = cookies.get(name);
    if (value) return value;
  }
  const auth = req.headers.authorization;
  const bearer = auth && /^Bearer\s+(\S+)$/i.exec(auth);
  return bearer ? bearer[1] : null;
}

export interface SignedInVisitor { userId: string; claims: SessionClaims }

/** The signed-in visitor, or null: no token, an invalid one, or one of a deleted user all read as anonymous. */
export async function signedInVisitor(
  db: Db, sessions: SessionTokens, req: Request, communityTag: string | null,
): Promise<SignedInVisitor | null> {
  const token = presentedToken(req, communityTag);
  return token ? userForToken(db, sessions, token) : null;
}
