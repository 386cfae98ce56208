// Products over real HTTP: active products only in the list, any product by SKU, sellerId only
// in user-seller mode, and who may read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeCommunity, makeKey, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let communityId: string;
let otherPk: string;
let sellerId: string;
const base = '/v1/communities/market/products';

async function makeProduct(
  db: Db,
  community: string,
  p: { sku: string; isActive?: boolean; seller?: string | null; donationConfig?: object; createdAt?: string },
) {
  await db
    .insertInto('products')
    .values({
      id: newId(),
      community_id: community,
      sku: p.sku,
      name: `Product ${p.sku}`,
      description: 'Made by hand',
      price_cents: 1250,
      currency: 'EUR',
      image_url: 'https://img.example/p.png',
      is_active: p.isActive === false ? 0 : 1,
      seller_id: p.seller ?? null,
      donation_config: p.donationConfig ? JSON.stringify(p.donationConfig) : null,
      created_at: p.createdAt ?? nowIso(),
      updated_at: nowIso(),
    })
    .execute();
}

async function setUserSellers(db: Db, id: string, on: boolean) {
  await db
    .updateTable('communities')
    .set({ storefront_config: JSON.stringify({ modules: { marketplace: { userSellers: on } } }) })
    .where('id', '=', id)
    .execute();
  s.readCache.invalidate(id);
}

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'market');
  communityId = c.id;
  pk = c.pk;
  sellerId = (await makeUser(db, 'sam-seller')).id;
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < 5; i++) {
    await makeProduct(db, c.id, {
      sku: `mug-${i}`,
      createdAt: new Date(t0 + i * 1000).toISOString(),
      seller: i === 0 ? sellerId : null,
    });
  }
  await makeProduct(db, c.id, { sku: 'retired', isActive: false, createdAt: new Date(t0 + 9000).toISOString() });
  await makeProduct(db, c.id, {
    sku: 'fund',
    createdAt: new Date(t0 + 10_000).toISOString(),
    donationConfig: { enabled: true, mode: 'fixed', amounts: [500, 1000], currency: 'EUR' },
  });
  const other = await makeCommunity(db, 'bazaar');
  otherPk = other.pk;
  await makeProduct(db, other.id, { sku: 'elsewhere' });
});
afterAll(async () => {
  await s.close();
});

describe('products: happy path', () => {
  it('lists active products in listing order as a bare array with X-Total-Count', async () => {
    const r = await s.request(base, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body.map((p: any) => p.sku)).toEqual(['mug-0', 'mug-1', 'mug-2', 'mug-3', 'mug-4', 'fund']);
    expect(r.headers.get('x-total-count')).toBe('6');
    expect(r.body[0]).toEqual({
      id: expect.any(String),
      sku: 'mug-0',
      name: 'Product mug-0',
      description: 'Made by hand',
      priceCents: 1250,
      currency: 'EUR',
      imageUrl: 'https://img.example/p.png',
      isActive: true,
      donationConfig: null,
    });
    expect(r.body.find((p: any) => p.sku === 'fund').donationConfig).toEqual({
      enabled: true,
      mode: 'fixed',
      amounts: [500, 1000],
      currency: 'EUR',
    });
  });

  it('pages by limit and offset with a Link to the next page', async () => {
    const r = await s.request(`${base}?limit=2&offset=2`, { key: pk });
    expect(r.body.map((p: any) => p.sku)).toEqual(['mug-2', 'mug-3']);
    const link = r.headers.get('link')!;
    expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('offset')).toBe('4');
    const last = await s.request(`${base}?limit=2&offset=4`, { key: pk });
    expect(last.headers.get('link')).toBeNull();
  });

  it('serves one product by SKU, an inactive one too', async () => {
    const r = await s.request(`${base}/mug-3`, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ sku: 'mug-3', isActive: true });
    const retired = await s.request(`${base}/retired`, { key: pk });
    expect(retired.status).toBe(200);
    expect(retired.body.isActive).toBe(false);
  });

  it('carries sellerId only in user-seller mode, null for products the community lists itself', async () => {
    const off = await s.request(base, { key: pk });
    expect(off.body.every((p: any) => !('sellerId' in p))).toBe(true);
    expect('sellerId' in (await s.request(`${base}/mug-0`, { key: pk })).body).toBe(false);
    await setUserSellers(s.database.db, communityId, true);
    try {
      const on = await s.request(base, { key: pk });
      expect(on.body.map((p: any) => p.sellerId)).toEqual([sellerId, null, null, null, null, null]);
      expect((await s.request(`${base}/mug-0`, { key: pk })).body.sellerId).toBe(sellerId);
    } finally {
      await setUserSellers(s.database.db, communityId, false);
    }
  });
});

describe('products: errors', () => {
  it('answers an unknown SKU with 404 "Product not found in this community"', async () => {
    const r = await s.request(`${base}/no-such-sku`, { key: pk });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'NOT_FOUND', error: 'Product not found in this community' });
  });

  it('answers bad paging parameters with 400 naming the field', async () => {
    for (const [qs, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=-1', 'offset'],
      ['active=false', 'active'],
    ]) {
      const r = await s.request(`${base}?${qs}`, { key: pk });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field } });
    }
  });
});

describe('products: security', () => {
  it("answers 403 COMMUNITY_MISMATCH to another community's key", async () => {
    for (const path of [base, `${base}/mug-0`, `${base}/nope`]) {
      const r = await s.request(path, { key: otherPk });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('COMMUNITY_MISMATCH');
    }
  });

  it("does not serve another community's product through this community's path", async () => {
    expect((await s.request(`${base}/elsewhere`, { key: pk })).status).toBe(404);
  });

  it('answers 403 with grantedScopes to a secret key without READ_PUBLIC', async () => {
    const key = await makeKey(s.database.db, communityId, ['WRITE_SALES']);
    const r = await s.request(base, { key });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['WRITE_SALES'] } });
  });

  it('a members-only marketplace is kept from the publishable key, not from secret keys', async () => {
    const db = s.database.db;
    const closed = await makeCommunity(db, 'closed-shop', { visibility: 'MEMBERS_ONLY' });
    await db.updateTable('communities').set({ page_settings: '[]' }).where('id', '=', closed.id).execute();
    await makeProduct(db, closed.id, { sku: 'secret-mug' });
    for (const scopes of [['READ_PUBLIC'], ['ADMIN']] as const) {
      const key = await makeKey(db, closed.id, [...scopes]);
      const list = await s.request('/v1/communities/closed-shop/products', { key });
      expect(list.status, scopes[0]).toBe(200);
      expect(list.body.map((p: any) => p.sku)).toEqual(['secret-mug']);
      expect((await s.request('/v1/communities/closed-shop/products/secret-mug', { key })).body.sku).toBe('secret-mug');
    }
    for (const path of ['/v1/communities/closed-shop/products', '/v1/communities/closed-shop/products/secret-mug']) {
      const r = await s.request(path, { key: closed.pk });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('PAGE_MEMBERS_ONLY');
    }
    // A page opened explicitly wins over the community's privacy.
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'MARKETPLACE', enabled: true, visibility: 'PUBLIC' }]) })
      .where('id', '=', closed.id)
      .execute();
    s.readCache.invalidate(closed.id);
    expect(
      (await s.request('/v1/communities/closed-shop/products', { key: closed.pk })).body.map((p: any) => p.sku),
    ).toEqual(['secret-mug']);
  });
});
