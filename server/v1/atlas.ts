// Atlas: hotspots (category and bounding-box filters), one hotspot, categories.
import * as routes from '../../contract/routes/atlas.ts';
import * as atlas from '../domain/atlas.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { Db } from '../db/index.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { readerOf } from './page-visibility.ts';
import { Refusal } from '../domain/refusal.ts';
import { offsetPage } from '../http/pagination.ts';

/** Every atlas route answers the same 403 when the community has no atlas, or hides it from this key. */
async function accessOf(db: Db, key: ApiKeyIdentity) {
  const access = await atlas.atlasAccess(db, key.communityId, readerOf(key));
  if (!access) throw notFound(messages.communityNotFound);
  if (!access.enabled) throw new ApiError('FEATURE_NOT_ENABLED', messages.featureNotEnabled('Atlas'));
  if (access.hidden) throw new Refusal('page_members_only', { what: 'atlas' });
  return access;
}

async function listAtlasHotspots({ query, key }: HandlerContext<typeof routes.listAtlasHotspots>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const page = await atlas.listHotspots(db, await accessOf(db, key), { ...query, offset });
  return {
    body: page.items,
    page: { ...offsetPage(page.items.length, page.total, query.limit, offset), accuracy: page.accuracy },
  };
}

async function getAtlasHotspot({ params, key }: HandlerContext<typeof routes.getAtlasHotspot>, { db }: RouteDeps) {
  const hotspot = await atlas.getHotspot(db, await accessOf(db, key), params.hotspotId);
  if (!hotspot) throw notFound(messages.hotspotNotFound);
  return { body: hotspot };
}

export const atlasHandlers = {
  listAtlasHotspots: { cache: true, handler: listAtlasHotspots },
  getAtlasHotspot: { cache: true, handler: getAtlasHotspot },
  listAtlasCategories: {
    cache: true,
    handler: async ({ key }, { db }) => ({ body: await atlas.listCategories(db, await accessOf(db, key)) }),
  },
} satisfies Handlers<RoutesOf<typeof routes>>;
