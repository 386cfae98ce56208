// Marketplace products: the public reads. Donations and purchases are a separate issue.
import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset, pageVisibilityNote } from '../common.ts';
import { Product } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

export const listProducts = route({
  operationId: 'listProducts',
  method: 'get',
  path: `${base}/products`,
  tag: 'Products',
  summary: 'List active products',
  description:
    'Active products (`isActive` true) in the order the community listed them (creation time, then id). Page with ' +
    '`limit` and `offset`; `X-Total-Count` and `Link: <...>; rel="next"` as on every list. `sellerId` is present only in ' +
    "user-seller mode (`storefrontConfig.modules.marketplace.userSellers: true`): the listing member's user id, or null " +
    'for a product the community lists itself; with the mode off the field is absent, so who entered a product stays ' +
    'internal. `donationConfig` is the stored config or null. ' +
    pageVisibilityNote('MARKETPLACE'),
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(Product), description: 'A page of active products', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const getProduct = route({
  operationId: 'getProduct',
  method: 'get',
  path: `${base}/products/{sku}`,
  tag: 'Products',
  summary: 'Get one product by SKU',
  description:
    'Also answers for an inactive product (`isActive: false`), so a shared link can say it is no longer on sale; an ' +
    'unknown SKU is 404 "Product not found in this community". `sellerId` as in the list. ' +
    pageVisibilityNote('MARKETPLACE'),
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ sku: z.string().min(1).max(120) }),
  response: { status: 200, schema: Product, description: 'The product' },
  errors: [401, 403, 404, 429],
});

export const PRODUCT_ROUTES = [listProducts, getProduct];
