// Products: the public catalogue reads.
import type { Router } from 'express';
import { getProduct, listProducts } from '../../contract/routes/products.ts';
import * as products from '../domain/products.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { readablePage, readerOf } from './page-visibility.ts';

export function mountProducts(router: Router, deps: RouteDeps): void {
  const { db } = deps;
  const readable = async (key: ApiKeyIdentity) => {
    const community = await readablePage(db, key.communityId, 'MARKETPLACE', readerOf(key), 'marketplace');
    return { id: community.id, userSellers: products.userSellerMode(community.storefrontConfig) };
  };

  mountRoute(router, listProducts, async ({ query, key }) => {
    const offset = query.offset ?? 0;
    const c = await readable(key!);
    const page = await products.listActive(db, c.id, c.userSellers, { limit: query.limit, offset });
    return { body: page.items, page: { total: page.total, limit: query.limit, offset, nextCursor: null, hasMore: page.hasMore } };
  }, deps, { cache: true });

  mountRoute(router, getProduct, async ({ params, key }) => {
    const c = await readable(key!);
    const product = await products.getBySku(db, c.id, c.userSellers, params.sku);
    if (!product) throw notFound(messages.productNotFound);
    return { body: product };
  }, deps, { cache: true });
}
