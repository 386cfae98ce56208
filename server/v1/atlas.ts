// Atlas: hotspots (category and bounding-box filters), one hotspot, categories.
import type { Router } from 'express';
import { getAtlasHotspot, listAtlasCategories, listAtlasHotspots } from '../../contract/routes/atlas.ts';
import * as atlas from '../domain/atlas.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { readerOf } from './page-visibility.ts';
import { Refusal } from '../domain/refusal.ts';

export function mountAtlas(router: Router, deps: RouteDeps): void {
  const { db } = deps;
  /** Every atlas route answers the same 403 when the community has no atlas, or hides it from this key. */
  const accessOf = async (key: ApiKeyIdentity) => {
    const access = await atlas.atlasAccess(db, key.communityId, readerOf(key));
    if (!access) throw notFound(messages.communityNotFound);
    if (!access.enabled) throw new ApiError('FEATURE_NOT_ENABLED', messages.featureNotEnabled('Atlas'));
    if (access.hidden) throw new Refusal('page_members_only', { what: 'atlas' });
    return access;
  };

  mountRoute(router, listAtlasHotspots, async ({ query, key }) => {
    const offset = query.offset ?? 0;
    const page = await atlas.listHotspots(db, await accessOf(key!), { ...query, offset });
    return {
      body: page.items,
      page: { total: page.total, limit: query.limit, offset, nextCursor: null, hasMore: offset + page.items.length < page.total },
    };
  }, deps, { cache: true });

  mountRoute(router, getAtlasHotspot, async ({ params, key }) => {
    const hotspot = await atlas.getHotspot(db, await accessOf(key!), params.hotspotId);
    if (!hotspot) throw notFound(messages.hotspotNotFound);
    return { body: hotspot };
  }, deps, { cache: true });

  mountRoute(router, listAtlasCategories, async ({ key }) => {
    return { body: await atlas.listCategories(db, await accessOf(key!)) };
  }, deps, { cache: true });
}
