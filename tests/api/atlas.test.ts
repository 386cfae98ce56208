import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let otherPk: string;
let noAtlasPk: string;
const cat: Record<string, string> = {};
const spot: Record<string, string> = {};

async function enableAtlas(db: Db, communityId: string) {
  await db
    .updateTable('communities')
    .set({ features: JSON.stringify(['atlas', 'marketplace']) })
    .where('id', '=', communityId)
    .execute();
}

async function addCategory(
  db: Db,
  communityId: string,
  name: string,
  sortOrder: number,
  extra: { icon?: string | null; color?: string | null } = {},
) {
  const id = newId();
  await db
    .insertInto('atlas_categories')
    .values({
      id,
      community_id: communityId,
      name,
      icon: extra.icon ?? null,
      color: extra.color ?? null,
      sort_order: sortOrder,
    })
    .execute();
  return id;
}

async function addHotspot(
  db: Db,
  communityId: string,
  categoryId: string,
  name: string,
  latitude: number,
  longitude: number,
) {
  const id = newId();
  await db
    .insertInto('atlas_hotspots')
    .values({
      id,
      community_id: communityId,
      category_id: categoryId,
      name,
      description: `About ${name}`,
      latitude,
      longitude,
      image_url: name === 'Fiji Reef' ? 'https://img.example/reef.jpg' : null,
      created_at: nowIso(),
    })
    .execute();
  return id;
}

const names = (body: any[]) => body.map((h) => h.name);

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'mappers');
  pk = c.pk;
  await enableAtlas(db, c.id);
  cat.peaks = await addCategory(db, c.id, 'Peaks', 1, { icon: 'mountain', color: '#22607f' });
  cat.water = await addCategory(db, c.id, 'Water', 0);
  // Seattle area, Fiji (east of the antimeridian at 178E) and Samoa (west of it at 172W).
  spot.rainier = await addHotspot(db, c.id, cat.peaks, 'Mount Rainier', 46.8523, -121.7603);
  spot.si = await addHotspot(db, c.id, cat.peaks, 'Mount Si', 47.4881, -121.7232);
  spot.lake = await addHotspot(db, c.id, cat.water, 'Snow Lake', 47.456, -121.431);
  spot.fiji = await addHotspot(db, c.id, cat.water, 'Fiji Reef', -17.7134, 178.065);
  spot.samoa = await addHotspot(db, c.id, cat.peaks, 'Samoa Summit', -13.759, -172.1046);
  spot.edge = await addHotspot(db, c.id, cat.peaks, 'Null Island', 0, 0);

  const other = await makeCommunity(db, 'other-maps');
  otherPk = other.pk;
  await enableAtlas(db, other.id);
  const otherCat = await addCategory(db, other.id, 'Elsewhere', 0);
  spot.foreign = await addHotspot(db, other.id, otherCat, 'Foreign Spot', 10, 10);

  const plain = await makeCommunity(db, 'no-atlas');
  noAtlasPk = plain.pk;
  await addHotspot(db, plain.id, await addCategory(db, plain.id, 'Hidden', 0), 'Hidden Spot', 1, 1);
});
afterAll(async () => {
  await s.close();
});

describe('atlas: happy', () => {
  it('lists every hotspot by name with the spec fields and the total in X-Total-Count', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots', { key: pk });
    expect(r.status).toBe(200);
    expect(names(r.body)).toEqual([
      'Fiji Reef',
      'Mount Rainier',
      'Mount Si',
      'Null Island',
      'Samoa Summit',
      'Snow Lake',
    ]);
    expect(r.headers.get('x-total-count')).toBe('6');
    expect(r.body[0]).toEqual({
      id: spot.fiji,
      name: 'Fiji Reef',
      description: 'About Fiji Reef',
      latitude: -17.7134,
      longitude: 178.065,
      categoryId: cat.water,
      imageUrl: 'https://img.example/reef.jpg',
    });
  });

  it('filters by category id', async () => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots?category=${cat.water}`, { key: pk });
    expect(names(r.body)).toEqual(['Fiji Reef', 'Snow Lake']);
    expect(r.headers.get('x-total-count')).toBe('2');
  });

  it('answers an empty list for a category that does not exist', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots?category=nope', { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
  });

  it('keeps only hotspots inside the bounding box, edges included', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots?bbox=-122,46.5,-121.5,47.5', { key: pk });
    expect(names(r.body)).toEqual(['Mount Rainier', 'Mount Si']);
    const edges = await s.request('/v1/communities/mappers/atlas/hotspots?bbox=0,0,0,0', { key: pk });
    expect(names(edges.body)).toEqual(['Null Island']);
  });

  it('reads minLon > maxLon as a box across the antimeridian', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots?bbox=170,-20,-170,-10', { key: pk });
    expect(names(r.body)).toEqual(['Fiji Reef', 'Samoa Summit']);
    // The same longitudes the other way round are the rest of the world.
    const rest = await s.request('/v1/communities/mappers/atlas/hotspots?bbox=-170,-20,170,-10', { key: pk });
    expect(names(rest.body)).toEqual([]);
  });

  it('combines category and bbox', async () => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots?bbox=170,-20,-170,-10&category=${cat.peaks}`, {
      key: pk,
    });
    expect(names(r.body)).toEqual(['Samoa Summit']);
  });

  it('pages by limit and offset with a Link to the next page', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots?limit=4', { key: pk });
    expect(names(r.body)).toEqual(['Fiji Reef', 'Mount Rainier', 'Mount Si', 'Null Island']);
    const link = r.headers.get('link')!;
    expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('offset')).toBe('4');
    const next = await s.request('/v1/communities/mappers/atlas/hotspots?limit=4&offset=4', { key: pk });
    expect(names(next.body)).toEqual(['Samoa Summit', 'Snow Lake']);
    expect(next.headers.get('link')).toBeNull();
  });

  it('returns one hotspot by id', async () => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots/${spot.si}`, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: spot.si,
      name: 'Mount Si',
      latitude: 47.4881,
      longitude: -121.7232,
      categoryId: cat.peaks,
      imageUrl: null,
    });
  });

  it('lists categories in display order with icon and color', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/categories', { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { id: cat.water, name: 'Water', icon: null, color: null },
      { id: cat.peaks, name: 'Peaks', icon: 'mountain', color: '#22607f' },
    ]);
  });

  it('serves the atlas to a secret key with READ_PUBLIC', async () => {
    const sk = await makeKey(
      s.database.db,
      (
        await s.database.db
          .selectFrom('communities')
          .select('id')
          .where('tag', '=', 'mappers')
          .executeTakeFirstOrThrow()
      ).id,
      ['READ_PUBLIC'],
    );
    const r = await s.request('/v1/communities/mappers/atlas/categories', { key: sk });
    expect(r.status).toBe(200);
  });
});

describe('atlas: errors', () => {
  const badBoxes: [string, string][] = [
    ['1,2,3', 'three numbers'],
    ['1,2,3,4,5', 'five numbers'],
    ['a,b,c,d', 'not numbers'],
    ['1,2,,4', 'an empty part'],
    ['Infinity,0,1,1', 'an infinite number'],
    ['NaN,0,1,1', 'NaN'],
    ['0x10,0,20,1', 'a hex number'],
    ['1e2,0,120,1', 'an exponent'],
    ['-181,0,10,10', 'a longitude below -180'],
    ['0,0,180.5,10', 'a longitude above 180'],
    ['0,-91,10,10', 'a latitude below -90'],
    ['0,0,10,90.01', 'a latitude above 90'],
    ['0,20,10,10', 'minLat above maxLat'],
  ];
  it.each(badBoxes)('answers bbox=%s (%s) with a 400 naming bbox', async (bbox) => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots?bbox=${encodeURIComponent(bbox)}`, { key: pk });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'bbox' } });
  });

  it('answers a repeated bbox with a 400 naming bbox', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots?bbox=0,0,1,1&bbox=0,0,2,2', { key: pk });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('bbox');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['zoom=3', 'zoom'],
  ])('answers ?%s with a 400 naming %s', async (qs, field) => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots?${qs}`, { key: pk });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe(field);
  });

  it('answers 404 for an unknown hotspot and 400 for a malformed id', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots/0190a000-0000-7000-8000-000000000000', {
      key: pk,
    });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'NOT_FOUND', error: 'Hotspot not found in this community' });
    const bad = await s.request('/v1/communities/mappers/atlas/hotspots/xyz', { key: pk });
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('hotspotId');
  });

  it('answers 403 "Atlas is not enabled for this community" on all three routes when the feature is off', async () => {
    const hidden = await s.database.db
      .selectFrom('atlas_hotspots')
      .select('id')
      .where('name', '=', 'Hidden Spot')
      .executeTakeFirstOrThrow();
    for (const path of ['atlas/hotspots', `atlas/hotspots/${hidden.id}`, 'atlas/categories']) {
      const r = await s.request(`/v1/communities/no-atlas/${path}`, { key: noAtlasPk });
      expect(r.status, path).toBe(403);
      expect(r.body).toMatchObject({ code: 'FEATURE_NOT_ENABLED', error: 'Atlas is not enabled for this community' });
    }
  });

  it('answers 405 for a write to the hotspot list', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/hotspots', { key: pk, method: 'POST', json: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});

describe('atlas: security', () => {
  it("answers 403 COMMUNITY_MISMATCH to another community's key on every atlas route", async () => {
    for (const path of ['atlas/hotspots', `atlas/hotspots/${spot.si}`, 'atlas/categories']) {
      const r = await s.request(`/v1/communities/mappers/${path}`, { key: otherPk });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('COMMUNITY_MISMATCH');
    }
  });

  it("does not serve another community's hotspot through this community's path", async () => {
    const r = await s.request(`/v1/communities/mappers/atlas/hotspots/${spot.foreign}`, { key: pk });
    expect(r.status).toBe(404);
    const list = await s.request('/v1/communities/mappers/atlas/hotspots?limit=100', { key: pk });
    expect(names(list.body)).not.toContain('Foreign Spot');
  });

  it('answers 403 INSUFFICIENT_SCOPE with grantedScopes to a key without READ_PUBLIC', async () => {
    const communityId = (
      await s.database.db.selectFrom('communities').select('id').where('tag', '=', 'mappers').executeTakeFirstOrThrow()
    ).id;
    const sk = await makeKey(s.database.db, communityId, ['WRITE_SALES']);
    const r = await s.request('/v1/communities/mappers/atlas/hotspots', { key: sk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['WRITE_SALES'] } });
  });

  it('answers 401 without a key', async () => {
    const r = await s.request('/v1/communities/mappers/atlas/categories');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('API_KEY_REQUIRED');
  });

  it('answers 403 PAGE_MEMBERS_ONLY on every atlas route when the ATLAS page is members-only', async () => {
    const db = s.database.db;
    const closed = await makeCommunity(db, 'secret-maps');
    await enableAtlas(db, closed.id);
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'ATLAS', enabled: true, visibility: 'MEMBERS_ONLY' }]) })
      .where('id', '=', closed.id)
      .execute();
    const c = await addCategory(db, closed.id, 'Caches', 0);
    const id = await addHotspot(db, closed.id, c, 'Gold Cache', 5, 5);
    const paths = ['atlas/hotspots', `atlas/hotspots/${id}`, 'atlas/categories'];
    const expectClosed = async () => {
      for (const path of paths) {
        const r = await s.request(`/v1/communities/secret-maps/${path}`, { key: closed.pk });
        expect(r.status, path).toBe(403);
        expect(r.body.code).toBe('PAGE_MEMBERS_ONLY');
        expect(r.text).not.toContain('Gold Cache');
      }
    };
    await expectClosed();
    // Secret keys are not gated by page visibility, whatever their scopes.
    for (const scopes of [['READ_PUBLIC'], ['ADMIN']] as const) {
      const key = await makeKey(db, closed.id, [...scopes]);
      for (const path of paths)
        expect((await s.request(`/v1/communities/secret-maps/${path}`, { key })).status, path).toBe(200);
      expect(names((await s.request('/v1/communities/secret-maps/atlas/hotspots', { key })).body)).toEqual([
        'Gold Cache',
      ]);
    }
    await expectClosed();
    // A members-only community whose ATLAS page inherits is closed too.
    await db
      .updateTable('communities')
      .set({ visibility: 'MEMBERS_ONLY', page_settings: '[]' })
      .where('id', '=', closed.id)
      .execute();
    s.readCache.invalidate(closed.id);
    await expectClosed();
    // An explicitly public ATLAS page in a private community is shown.
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'ATLAS', enabled: true, visibility: 'PUBLIC' }]) })
      .where('id', '=', closed.id)
      .execute();
    s.readCache.invalidate(closed.id);
    expect(names((await s.request('/v1/communities/secret-maps/atlas/hotspots', { key: closed.pk })).body)).toEqual([
      'Gold Cache',
    ]);
  });

  it('judges the feature before the page: no atlas is FEATURE_NOT_ENABLED even behind a members-only page', async () => {
    const db = s.database.db;
    const both = await makeCommunity(db, 'closed-no-atlas', { visibility: 'MEMBERS_ONLY' });
    const r = await s.request('/v1/communities/closed-no-atlas/atlas/categories', { key: both.pk });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('FEATURE_NOT_ENABLED');
  });
});
