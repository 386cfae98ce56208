// {site_base}/api/communities: the public community object, by tag or by custom domain, with the
// nav filtered for whoever is looking (sign-in cookie or Bearer, optional).
import type { Request } from 'express';
import type * as routes from '../../contract/routes/communities.ts';
import type { CommunityRow } from '../db/schema.ts';
import { pageAccessFor } from '../domain/page-access.ts';
import { presentedToken, signedInVisitor } from '../http/session.ts';
import {
  communityViewer,
  findCommunityByDomain,
  findCommunityByTag,
  toPublicCommunity,
} from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerResult, RouteDeps } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';

/** Both answers vary with the credentials, so every cache keys them on Cookie and Authorization. */
const VARY = 'Cookie, Authorization';
// Configuration changes only in the admin app; a minute of staleness keeps page loads cheap. Only
// a request that presented no credential at all may get (and fill) a shared cache entry.
const ANONYMOUS = { 'Cache-Control': 'public, max-age=60', Vary: VARY };
// With a cookie or Bearer the nav may hold member-only items: never stored anywhere. That holds
// for an invalid or expired token too (it reads as anonymous, but the request was not anonymous).
const PERSONAL = { 'Cache-Control': 'private, no-store', Vary: VARY };

/** The community object as the requesting viewer may see it: one membership lookup at most. */
async function communityFor(deps: RouteDeps, req: Request, row: CommunityRow | undefined): Promise<HandlerResult> {
  if (!row) throw notFound(messages.communityNotFound);
  if (presentedToken(req, row.tag) === null) return { body: await toPublicCommunity(deps.db, row), headers: ANONYMOUS };
  const visitor = await signedInVisitor(deps.db, deps.sessions, req, row.tag);
  const viewer = await communityViewer(deps.db, row.id, visitor?.userId ?? null);
  return { body: await toPublicCommunity(deps.db, row, viewer), headers: PERSONAL };
}

type CommunityRoutes = typeof routes.getCommunity | typeof routes.getCommunityByDomain | typeof routes.getPageAccess;

// Mounted in route-table order, which lists getCommunityByDomain before getPageAccess: so
// /by-domain/page-access is a hostname, never the tag "by-domain".
export const communityHandlers = {
  getCommunityByDomain: async ({ params, req }, deps) =>
    communityFor(deps, req, await findCommunityByDomain(deps.db, params.hostname)),
  getPageAccess: async ({ params, req }, deps) => {
    const row = await findCommunityByTag(deps.db, params.communityTag);
    if (!row) throw notFound(messages.communityNotFound);
    const visitor = await signedInVisitor(deps.db, deps.sessions, req, row.tag);
    return {
      body: await pageAccessFor(deps.db, row, visitor?.userId ?? null),
      headers: { 'Cache-Control': 'private, no-store', Vary: VARY },
    };
  },
  getCommunity: async ({ params, req }, deps) =>
    communityFor(deps, req, await findCommunityByTag(deps.db, params.communityTag)),
} satisfies Handlers<CommunityRoutes>;
