// The publishable key: no auth, provisioned on first request.
import type { Router } from 'express';
import { getPublishableKey } from '../../contract/routes/communities.ts';
import { provisionPublishableKey } from '../domain/api-keys.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';

export function mountKeys(router: Router, deps: RouteDeps): void {
  mountRoute(router, getPublishableKey, async ({ params }) => {
    const community = await findCommunityByTag(deps.db, params.communityTag);
    if (!community) throw notFound(messages.communityNotFound);
    const key = await provisionPublishableKey(deps.db, community.id);
    return { body: { communityTag: community.tag, publishableKey: key, scopes: ['READ_PUBLIC'] } };
  }, deps);
}
