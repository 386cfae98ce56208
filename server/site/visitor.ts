// {site_base}/api/users/me*: the signed-in visitor's own data. Every route here is a `session`
// route: 401 without a valid sign-in token, and cookie writes only from the site's own origin.
import type { Router } from 'express';
import { getMe, updateMe } from '../../contract/routes/visitor.ts';
import { getOwnProfile, updateOwnProfile } from '../domain/users.ts';
import { ApiError } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

const PRIVATE = { 'Cache-Control': 'private, no-store' };

export function mountVisitor(router: Router, deps: RouteDeps): void {
  mountRoute(router, getMe, async ({ visitor }) => {
    const me = await getOwnProfile(deps.db, visitor!.userId);
    // The token was checked against the user a moment ago; gone now means deleted in between.
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  }, deps);

  mountRoute(router, updateMe, async ({ visitor, body, transaction }) => transaction(async (trx) => {
    const me = await updateOwnProfile(trx, visitor!.userId, body);
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  }), deps);
}
