// Rules: a server records a member's acceptance of the current rules version. The member is named
// by `userId` or by their sign-in token forwarded in X-Svc-Auth-Token (docs/api.md, "Rules").
import type { Request } from 'express';
import * as routes from '../../contract/routes/rules.ts';
import * as rules from '../domain/rules.ts';
import type { SessionTokens } from '../domain/sessions.ts';
import { memberFromAuthToken } from '../http/member-token.ts';
import type { Db } from '../db/index.ts';
import { ApiError } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';

/** The user the request names: the body's userId, the token's user, or both when they agree. */
async function memberOf(
  db: Db,
  sessions: SessionTokens,
  req: Request,
  userId: string | undefined,
  communityTag: string,
): Promise<string> {
  const fromToken = await memberFromAuthToken(db, sessions, req, communityTag);
  if (!fromToken) {
    if (!userId) throw new ApiError('INVALID_INPUT', messages.memberNotIdentified, { field: 'userId' });
    return userId;
  }
  if (userId && userId !== fromToken)
    throw new ApiError('INVALID_INPUT', messages.memberIdentityConflict, { field: 'userId' });
  return fromToken;
}

async function acceptRules(
  { params, body, key, req, transaction }: HandlerContext<typeof routes.acceptRules>,
  deps: RouteDeps,
) {
  const userId = await memberOf(deps.db, deps.sessions, req, body.userId, params.communityTag);
  return transaction(async (trx) => {
    const { acceptedAt } = await rules.acceptRules(trx, key.communityId, userId, body.rulesVersion);
    return { body: { ok: true as const, rulesVersion: body.rulesVersion, userId, acceptedAt } };
  });
}

export const rulesHandlers = {
  acceptRules,
} satisfies Handlers<RoutesOf<typeof routes>>;
