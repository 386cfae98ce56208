// {site_base}/api/communities: the public community object, by tag or by custom domain.
import type { Router } from 'express';
import { getCommunity, getCommunityByDomain, getPageAccess } from '../../contract/routes/communities.ts';
import { pageAccessFor } from '../domain/page-access.ts';
import { signedInVisitor } from '../http/session.ts';
import { findCommunityByDomain, findCommunityByTag, toPublicCommunity } from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

// Configuration changes only in the admin app; a minute of staleness keeps page loads cheap.
const CACHE = { 'Cache-Control': 'public, max-age=60' };

export function mountCommunities(router: Router, deps: RouteDeps): void {
  // Registered before /:communityTag so "by-domain" is never read as a tag.
  mountRoute(router, getCommunityByDomain, async ({ params }) => {
    const row = await findCommunityByDomain(deps.db, params.hostname);
    if (!row) throw notFound(messages.communityNotFound);
    return { body: await toPublicCommunity(deps.db, row), headers: CACHE };
  }, deps);

  mountRoute(router, getPageAccess, async ({ params, req }) => {
    const row = await findCommunityByTag(deps.db, params.communityTag);
    if (!row) throw notFound(messages.communityNotFound);
    const visitor = await signedInVisitor(deps.db, deps.sessions, req, row.tag);
    return {
      body: await pageAccessFor(deps.db, row, visitor?.userId ?? null),
      headers: { 'Cache-Control': 'private, no-store', Vary: 'Cookie, Authorization' },
    };
  }, deps);

  mountRoute(router, getCommunity, async ({ params }) => {
    const row = await findCommunityByTag(deps.db, params.communityTag);
    if (!row) throw notFound(messages.communityNotFound);
    return { body: await toPublicCommunity(deps.db, row), headers: CACHE };
  }, deps);
}
