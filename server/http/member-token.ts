// X-Svc-Auth-Token: a server forwarding its visitor's sign-in token (the cookie's value) so a
// call made with the community's secret key is attributed to that member (rules acceptance,
// donations, ticket checkouts). Checked exactly as a signed-in request is: signature, expiry, sign-out and "sign
// out everywhere", and only a token of this community's own site or of the platform's sign-in
// pages: another community's token is refused here as it is on that community's pages.
import type { Request } from 'express';
import { MEMBER_TOKEN_HEADER } from '../../contract/routes/rules.ts';
import type { Db } from '../db/index.ts';
import { userForToken, type SessionTokens } from '../domain/sessions.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';

/** The member the header names; null without the header; 401 SIGN_IN_REQUIRED for a bad token. */
export async function memberFromAuthToken(
  db: Db,
  sessions: SessionTokens,
  req: Request,
  communityTag: string,
): Promise<string | null> {
  const token = req.get(MEMBER_TOKEN_HEADER)?.trim();
  if (!token) return null;
  const signedIn =
    (await userForToken(db, sessions, token, { site: communityTag })) ??
    (await userForToken(db, sessions, token, { site: null }));
  if (!signedIn) throw new ApiError('SIGN_IN_REQUIRED', messages.memberTokenInvalid, { field: MEMBER_TOKEN_HEADER });
  return signedIn.userId;
}
