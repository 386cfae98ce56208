// Marketplace products as the public API shows them. `sellerId` is part of a product only in
// user-seller mode (`storefrontConfig.modules.marketplace.userSellers: true`, where members list
// their own products); otherwise who entered a product is internal and is left out.
import type { Selectable } from 'kysely';
import type { DonationConfig, Product } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import { parseJson, toBool } from '../db/ids.ts';
import type { ProductsTable } from '../db/schema.ts';
import { listCount } from './list-counts.ts';

type ProductRow = Selectable<ProductsTable>;

export function userSellerMode(storefrontConfig: unknown): boolean {
  const modules = (storefrontConfig as { modules?: { marketplace?: { userSellers?: unknown } } } | null)?.modules;
  return modules?.marketplace?.userSellers === true;
}

export function toProduct(row: ProductRow, userSellers: boolean): Product {
  const product: Product = {
    id: row.id,
    sku: row.sku,
    name: row.name,
    description: row.description,
    priceCents: Number(row.price_cents),
    currency: row.currency,
    imageUrl: row.image_url,
    isActive: toBool(Number(row.is_active)),
    donationConfig: parseJson<DonationConfig | null>(row.donation_config, null),
  };
  if (userSellers) product.sellerId = row.seller_id;
  return product;
}

export interface ProductPage {
  items: Product[];
  total: number;
  hasMore: boolean;
}

export async function listActive(
  db: Db,
  communityId: string,
  userSellers: boolean,
  q: { limit: number; offset: number },
): Promise<ProductPage> {
  const base = db.selectFrom('products').where('community_id', '=', communityId).where('is_active', '=', 1);
  // Active products, counted by trigger (list-counts.ts); the page is a range of products_listing.
  const total = await listCount(db, communityId, 'products');
  // Listing order: ids are time-ordered UUIDv7, so they also order rows created in one instant.
  const rows = await base
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(q.limit + 1)
    .offset(q.offset)
    .execute();
  return {
    items: rows.slice(0, q.limit).map((r) => toProduct(r, userSellers)),
    total,
    hasMore: rows.length > q.limit,
  };
}

export async function getBySku(
  db: Db,
  communityId: string,
  userSellers: boolean,
  sku: string,
): Promise<Product | null> {
  const row = await db
    .selectFrom('products')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('sku', '=', sku)
    .executeTakeFirst();
  return row ? toProduct(row, userSellers) : null;
}
