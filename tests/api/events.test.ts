import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let communityId: string;
let otherPk: string;
const events: { slug: string; start: string; id: string; tierIds: string[] }[] = [];
const day = 24 * 3600_000;

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'hikers');
  pk = c.pk;
  communityId = c.id;
  otherPk = (await makeCommunity(db, 'other')).pk;
  // 5 past, 7 upcoming; one featured; one members-only that must never show.
  for (let i = -5; i < 7; i++) {
    const start = new Date(Date.now() + i * day + (i >= 0 ? day / 2 : 0)).toISOString();
    const e = await makeEvent(db, c.id, {
      slug: `walk-${i + 5}`,
      name: `Walk ${i + 5}`,
      startDate: start,
      featured: i === 3,
      tiers:
        i === 0
          ? [
              { name: 'Free', priceCents: 0 },
              { name: 'Supporter', priceCents: 1500, capacity: 10 },
              { name: 'Closed', priceCents: 500, isActive: false },
            ]
          : [
              {
                name: 'Free',
                priceCents: 0,
                form: i === 1 ? [{ id: 'diet', type: 'short_text', label: 'Diet', required: true }] : undefined,
              },
            ],
      donationConfig: i === 0 ? { enabled: true, mode: 'fixed', amounts: [500, 1000], currency: 'USD' } : undefined,
    });
    events.push({ slug: e.slug, start, id: e.id, tierIds: e.tierIds });
  }
  await makeEvent(db, c.id, { slug: 'secret-meeting', visibility: 'MEMBERS_ONLY' });
  await makeEvent(db, (await makeCommunity(db, 'third')).id, { slug: 'elsewhere' });
});
afterAll(async () => {
  await s.close();
});

const sortedAsc = () => [...events].sort((a, b) => a.start.localeCompare(b.start));

describe('events: happy path', () => {
  it('lists public events oldest first as a bare array with the total in X-Total-Count', async () => {
    const r = await s.request('/v1/communities/hikers/events', { key: pk });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((e: any) => e.slug)).toEqual(sortedAsc().map((e) => e.slug));
    expect(r.headers.get('x-total-count')).toBe('12');
    expect(r.headers.get('link')).toBeNull();
  });

  it('shows only active tiers on the event and every tier on /tiers', async () => {
    const r = await s.request('/v1/communities/hikers/events/walk-5', { key: pk });
    expect(r.status).toBe(200);
    expect(r.body.tiers.map((t: any) => t.name)).toEqual(['Free', 'Supporter']);
    expect(r.body.tiers[1]).toMatchObject({
      priceCents: 1500,
      currency: 'USD',
      capacity: 10,
      sold: 0,
      isActive: true,
      hasForm: false,
    });
    expect(r.body.donationConfig).toEqual({ enabled: true, mode: 'fixed', amounts: [500, 1000], currency: 'USD' });
    const tiers = await s.request('/v1/communities/hikers/events/walk-5/tiers', { key: pk });
    expect(tiers.body.map((t: any) => [t.name, t.isActive])).toEqual([
      ['Free', true],
      ['Supporter', true],
      ['Closed', false],
    ]);
  });

  it('leaves donationConfig off list items and carries it on the single event', async () => {
    const list = await s.request('/v1/communities/hikers/events', { key: pk });
    expect(list.body.every((e: any) => !('donationConfig' in e))).toBe(true);
    const one = await s.request('/v1/communities/hikers/events/walk-6', { key: pk });
    expect(one.body.donationConfig).toBeNull();
  });

  it('writes every list item as the single event reads it, without donationConfig', async () => {
    // The list's JSON is written by the database (server/db/json-text.ts); the single event by
    // toEvent(): the two must agree field by field, tiers (active only, forms flagged) included.
    const list = await s.request('/v1/communities/hikers/events?limit=100', { key: pk });
    expect(list.body).toHaveLength(12);
    for (const item of list.body) {
      const { donationConfig: _, ...one } = (await s.request(`/v1/communities/hikers/events/${item.slug}`, { key: pk }))
        .body;
      expect(item).toStrictEqual(one);
    }
    const walk0 = list.body.find((e: any) => e.slug === 'walk-5');
    expect(walk0.tiers.map((t: any) => t.name)).toEqual(['Free', 'Supporter']);
    expect(walk0.location).toEqual({ name: 'Hall', city: 'Lisbon' });
    expect(list.body.find((e: any) => e.slug === 'walk-6').tiers[0].hasForm).toBe(true);
  });

  it('keeps quotes, backslashes, control characters and non-ASCII text exactly in list items', async () => {
    const db = s.database.db;
    const c = await makeCommunity(db, 'escapes');
    const name = 'He said "hi" \\ C:\\path\nnew line\ttab \u0001 café 🎉 \u2028 </script>';
    const e = await makeEvent(db, c.id, { name, tiers: [{ name: 'Pay "what" you\\want ✓', priceCents: 0 }] });
    await db.updateTable('events').set({ description: '{"not": "json"}' }).where('id', '=', e.id).execute();
    const r = await s.request('/v1/communities/escapes/events', { key: c.pk });
    expect(r.body).toHaveLength(1);
    expect(r.body[0].name).toBe(name);
    expect(r.body[0].description).toBe('{"not": "json"}');
    expect(r.body[0].tiers[0].name).toBe('Pay "what" you\\want ✓');
  });

  it('counts the total on a page past the last event, which has no row to carry it', async () => {
    for (const qs of ['', 'upcoming=true&', 'past=true&', 'featured=true&']) {
      const whole = await s.request(`/v1/communities/hikers/events?${qs}limit=100`, { key: pk });
      const beyond = await s.request(`/v1/communities/hikers/events?${qs}offset=50`, { key: pk });
      expect(beyond.status).toBe(200);
      expect(beyond.body).toEqual([]);
      expect(beyond.headers.get('x-total-count')).toBe(String(whole.body.length));
    }
    // And where nothing matches at all (a community without events: no featured one either).
    for (const qs of ['', 'featured=true', 'featured=true&offset=5', 'upcoming=true&offset=5']) {
      const none = await s.request(`/v1/communities/other/events?${qs}`, { key: otherPk });
      expect([none.status, none.body, none.headers.get('x-total-count')]).toEqual([200, [], '0']);
    }
  });

  it('filters upcoming (startDate >= now), past (newest first) and featured', async () => {
    const up = await s.request('/v1/communities/hikers/events?upcoming=true', { key: pk });
    expect(up.body).toHaveLength(7);
    expect(up.body.every((e: any) => Date.parse(e.startDate) >= Date.now() - 60_000)).toBe(true);
    const past = await s.request('/v1/communities/hikers/events?past=true', { key: pk });
    expect(past.body.map((e: any) => e.slug)).toEqual(['walk-4', 'walk-3', 'walk-2', 'walk-1', 'walk-0']);
    const featured = await s.request('/v1/communities/hikers/events?featured=true', { key: pk });
    expect(featured.body.map((e: any) => [e.slug, e.featured])).toEqual([['walk-8', true]]);
  });

  it('reads the query booleans as 1/0 as well as true/false, though the document declares them boolean', async () => {
    const spelled = async (qs: string) =>
      (await s.request(`/v1/communities/hikers/events?${qs}`, { key: pk })).body.map((e: any) => e.slug);
    expect(await spelled('upcoming=1')).toEqual(await spelled('upcoming=true'));
    expect(await spelled('past=1&upcoming=0')).toEqual(await spelled('past=true&upcoming=false'));
    expect(await spelled('featured=0')).toEqual(await spelled('featured=false'));
  });

  it('pages by offset with a Link to the next offset', async () => {
    const r = await s.request('/v1/communities/hikers/events?limit=5&offset=5', { key: pk });
    expect(r.body.map((e: any) => e.slug)).toEqual(
      sortedAsc()
        .slice(5, 10)
        .map((e) => e.slug),
    );
    const link = r.headers.get('link')!;
    expect(link).toMatch(/rel="next"/);
    expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('offset')).toBe('10');
  });

  it('walks every event exactly once by cursor, and the last page has no cursor', async () => {
    const seen: string[] = [];
    let path = '/v1/communities/hikers/events?limit=5';
    for (let i = 0; i < 5; i++) {
      const r = await s.request(path, { key: pk });
      expect(r.status).toBe(200);
      seen.push(...r.body.map((e: any) => e.slug));
      const cursor = r.headers.get('x-next-cursor');
      if (!cursor) {
        expect(r.headers.get('link')).toBeNull();
        break;
      }
      const link = r.headers.get('link')!;
      expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('cursor')).toBe(cursor);
      path = `/v1/communities/hikers/events?limit=5&cursor=${encodeURIComponent(cursor)}`;
    }
    expect(seen).toEqual(sortedAsc().map((e) => e.slug));
  });

  it('keeps cursor pages stable when an event is added before the cursor', async () => {
    const first = await s.request('/v1/communities/hikers/events?limit=3&past=true', { key: pk });
    const cursor = first.headers.get('x-next-cursor')!;
    const expectedNext = (
      await s.request('/v1/communities/hikers/events?limit=3&offset=3&past=true', { key: pk })
    ).body.map((e: any) => e.slug);
    // A new past event that sorts before the cursor: offset paging would now repeat an item.
    const community = await s.database.db
      .selectFrom('communities')
      .select('id')
      .where('tag', '=', 'hikers')
      .executeTakeFirstOrThrow();
    await makeEvent(s.database.db, community.id, {
      slug: 'late-entry',
      startDate: new Date(Date.now() - 60_000).toISOString(),
    });
    s.readCache.invalidate(community.id);
    const r = await s.request(`/v1/communities/hikers/events?limit=3&past=true&cursor=${cursor}`, { key: pk });
    expect(r.body.map((e: any) => e.slug)).toEqual(expectedNext);
    const byOffset = await s.request('/v1/communities/hikers/events?limit=3&offset=3&past=true', { key: pk });
    expect(byOffset.body.map((e: any) => e.slug)).not.toEqual(expectedNext);
    await s.database.db.deleteFrom('events').where('slug', '=', 'late-entry').execute();
    s.readCache.invalidate(community.id);
  });

  it('returns the tier form schema, and an empty schema for a tier without a form', async () => {
    const withForm = events.find((e) => e.slug === 'walk-6')!;
    const r = await s.request(`/v1/communities/hikers/tiers/${withForm.tierIds[0]}/form`, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tierId: withForm.tierIds[0],
      schema: [{ id: 'diet', type: 'short_text', label: 'Diet', required: true }],
    });
    const tiers = await s.request('/v1/communities/hikers/events/walk-6/tiers', { key: pk });
    expect(tiers.body[0].hasForm).toBe(true);
    const none = events.find((e) => e.slug === 'walk-7')!;
    const empty = await s.request(`/v1/communities/hikers/tiers/${none.tierIds[0]}/form`, { key: pk });
    expect(empty.body).toEqual({ tierId: none.tierIds[0], schema: [] });
  });
});

describe('events: errors', () => {
  const bad: [string, string, string][] = [
    ['limit=0', 'limit', 'INVALID_INPUT'],
    ['limit=101', 'limit', 'INVALID_INPUT'],
    ['limit=abc', 'limit', 'INVALID_INPUT'],
    ['offset=-1', 'offset', 'INVALID_INPUT'],
    ['upcoming=yes', 'upcoming', 'INVALID_INPUT'],
    ['featured=2', 'featured', 'INVALID_INPUT'],
    ['sort=name', 'sort', 'INVALID_INPUT'],
    ['cursor=not-a-cursor', 'cursor', 'INVALID_INPUT'],
    ['upcoming=true&past=true', 'past', 'INVALID_INPUT'],
  ];
  it.each(bad)('answers ?%s with a 400 naming %s', async (qs, field, code) => {
    const r = await s.request(`/v1/communities/hikers/events?${qs}`, { key: pk });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code, extras: { field } });
    expect(typeof r.body.error).toBe('string');
    expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
  });

  it('rejects offset and cursor together', async () => {
    const first = await s.request('/v1/communities/hikers/events?limit=2', { key: pk });
    const r = await s.request(`/v1/communities/hikers/events?offset=2&cursor=${first.headers.get('x-next-cursor')}`, {
      key: pk,
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'cursor' } });
  });

  it('rejects a cursor issued for other filters', async () => {
    const featured = await s.request('/v1/communities/hikers/events?upcoming=true&limit=2', { key: pk });
    const r = await s.request(`/v1/communities/hikers/events?limit=2&cursor=${featured.headers.get('x-next-cursor')}`, {
      key: pk,
    });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('cursor');
  });

  it('rejects a cursor issued for the other ordering', async () => {
    const past = await s.request('/v1/communities/hikers/events?past=true&limit=2', { key: pk });
    const r = await s.request(`/v1/communities/hikers/events?cursor=${past.headers.get('x-next-cursor')}`, { key: pk });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('cursor');
  });

  it('answers 404 in the envelope for an unknown slug, tier and malformed tier id', async () => {
    const e = await s.request('/v1/communities/hikers/events/nope', { key: pk });
    expect(e.status).toBe(404);
    expect(e.body).toMatchObject({ code: 'NOT_FOUND', error: 'Event not found in this community' });
    const t = await s.request('/v1/communities/hikers/events/nope/tiers', { key: pk });
    expect(t.status).toBe(404);
    const f = await s.request('/v1/communities/hikers/tiers/0190a000-0000-7000-8000-000000000000/form', { key: pk });
    expect(f.status).toBe(404);
    const bad = await s.request('/v1/communities/hikers/tiers/xyz/form', { key: pk });
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('tierId');
  });

  it('answers 405 with Allow for a write to a read-only path', async () => {
    const r = await s.request('/v1/communities/hikers/events', { key: pk, method: 'POST', json: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.body.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('events: security', () => {
  it('hides events that inherit a members-only visibility, and shows explicitly public ones', async () => {
    const db = s.database.db;
    const closed = await makeCommunity(db, 'closed-club', { visibility: 'MEMBERS_ONLY' });
    await db.updateTable('communities').set({ page_settings: '[]' }).where('id', '=', closed.id).execute();
    await makeEvent(db, closed.id, { slug: 'inherits', visibility: null });
    await makeEvent(db, closed.id, { slug: 'open-day', visibility: 'PUBLIC' });
    await makeEvent(db, closed.id, { slug: 'members-night', visibility: 'MEMBERS_ONLY' });
    const list = await s.request('/v1/communities/closed-club/events', { key: closed.pk });
    expect(list.body.map((e: any) => e.slug)).toEqual(['open-day']);
    expect((await s.request('/v1/communities/closed-club/events/inherits', { key: closed.pk })).status).toBe(404);
    // The EVENTS page setting overrides the community for inheriting events.
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'EVENTS', enabled: true, visibility: 'PUBLIC' }]) })
      .where('id', '=', closed.id)
      .execute();
    s.readCache.invalidate(closed.id);
    const opened = await s.request('/v1/communities/closed-club/events', { key: closed.pk });
    expect(opened.body.map((e: any) => e.slug).sort()).toEqual(['inherits', 'open-day']);
  });

  it("never lists or serves a members-only event, to any key (an event's own visibility is not page visibility)", async () => {
    const admin = await makeKey(s.database.db, communityId, ['ADMIN']);
    for (const key of [pk, admin]) {
      const all = await s.request('/v1/communities/hikers/events?limit=100', { key });
      expect(all.body.map((e: any) => e.slug)).not.toContain('secret-meeting');
      const one = await s.request('/v1/communities/hikers/events/secret-meeting', { key });
      expect(one.status).toBe(404);
    }
  });

  it("answers 403 to another community's key and does not reveal whether the event exists", async () => {
    for (const path of [
      '/v1/communities/hikers/events',
      '/v1/communities/hikers/events/walk-0',
      '/v1/communities/hikers/events/nope',
    ]) {
      const r = await s.request(path, { key: otherPk });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'COMMUNITY_MISMATCH', error: 'API key does not belong to this community' });
    }
  });

  it("does not serve another community's tier form through this community's path", async () => {
    const elsewhere = await s.database.db
      .selectFrom('tiers')
      .innerJoin('events', 'events.id', 'tiers.event_id')
      .select('tiers.id')
      .where('events.slug', '=', 'walk-0')
      .executeTakeFirstOrThrow();
    const r = await s.request(`/v1/communities/other/tiers/${elsewhere.id}/form`, { key: otherPk });
    expect(r.status).toBe(404);
  });

  it('answers a CORS preflight from any origin without allowing credentials', async () => {
    const r = await s.request('/v1/communities/hikers/events', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://customer.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-api-key',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/i);
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await s.request('/v1/communities/hikers/events', {
      key: pk,
      headers: { Origin: 'https://customer.example' },
    });
    expect(get.headers.get('access-control-expose-headers')).toMatch(/X-Next-Cursor/);
  });
});
