// Products: the public catalogue reads.
import * as routes from '../../contract/routes/products.ts';
import * as products from '../domain/products.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { Db } from '../db/index.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { readablePage, readerOf } from './page-visibility.ts';

async function readable(db: Db, key: ApiKeyIdentity) {
  const community = await readablePage(db, key.communityId, 'MARKETPLACE', readerOf(key), 'marketplace');
  return { id: community.id, userSellers: products.userSellerMode(community.storefrontConfig) };
}

async function listProducts({ query, key }: HandlerContext<typeof routes.listProducts>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const c = await readable(db, key);
  const page = await products.listActive(db, c.id, c.userSellers, { limit: query.limit, offset });
  return {
    body: page.items,
    page: { total: page.total, limit: query.limit, offset, nextCursor: null, hasMore: page.hasMore },
  };
}

async function getProduct({ params, key }: HandlerContext<typeof routes.getProduct>, { db }: RouteDeps) {
  const c = await readable(db, key);
  const product = await products.getBySku(db, c.id, c.userSellers, params.sku);
  if (!product) throw notFound(messages.productNotFound);
  return { body: product };
}

export const productHandlers = {
  listProducts: { cache: true, handler: listProducts },
  getProduct: { cache: true, handler: getProduct },
} satisfies Handlers<RoutesOf<typeof routes>>;
