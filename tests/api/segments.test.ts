import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import type { SegmentsTable } from '../../server/db/schema.ts';
import { makeCommunity, makeKey, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let communityId: string;
let pk: string;
let admin: string;
let otherPk: string;
let otherAdmin: string;
const seg: Record<string, string> = {};

type SegmentValues = Partial<Omit<SegmentsTable, 'id' | 'community_id' | 'name' | 'founding_member_count'>>;

async function addSegment(db: Db, community: string, name: string, values: SegmentValues = {}, form?: object[]) {
  const id = newId();
  await db
    .insertInto('segments')
    .values({
      id,
      community_id: community,
      name,
      description: `${name} tier`,
      color: '#22607f',
      currency: 'USD',
      price_monthly: null,
      price_quarterly: null,
      price_yearly: null,
      price_one_time: null,
      installment_total_price: null,
      installment_count: null,
      installment_interval_months: null,
      access_duration_months: null,
      installment_renews_annually: 0,
      founding_price_monthly: null,
      founding_price_quarterly: null,
      founding_price_yearly: null,
      founding_member_cap: null,
      auto_approve: 0,
      is_active: 1,
      sort_order: 0,
      created_at: nowIso(),
      updated_at: nowIso(),
      ...values,
    })
    .execute();
  if (form)
    await db
      .insertInto('segment_forms')
      .values({ segment_id: id, schema: JSON.stringify(form) })
      .execute();
  return id;
}

const FORM = [
  { id: 'email', type: 'email', label: 'E-mail', required: true },
  { id: 'name', type: 'short_text', label: 'Your name', required: true },
];

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'climbers');
  communityId = c.id;
  pk = c.pk;
  admin = await makeKey(db, c.id, ['ADMIN']);
  seg.free = await addSegment(db, c.id, 'Friends', { sort_order: 0 });
  seg.paid = await addSegment(
    db,
    c.id,
    'Summit',
    {
      sort_order: 1,
      price_monthly: 800,
      price_yearly: 8000,
      founding_price_monthly: 600,
      founding_member_cap: 50,
    },
    FORM,
  );
  seg.plan = await addSegment(db, c.id, 'Expedition', {
    sort_order: 2,
    price_yearly: 36000,
    installment_total_price: 36000,
    installment_count: 3,
    installment_interval_months: 1,
    access_duration_months: 12,
    installment_renews_annually: 1,
  });
  seg.closed = await addSegment(db, c.id, 'Legacy', { sort_order: 3, is_active: 0 }, FORM);

  const other = await makeCommunity(db, 'elsewhere');
  otherPk = other.pk;
  otherAdmin = await makeKey(db, other.id, ['ADMIN']);
  seg.foreign = await addSegment(db, other.id, 'Foreign', {}, FORM);

  // Memberships of every status, and one of another community.
  for (const [tag, status] of [
    ['ann', 'ACCEPTED'],
    ['bob', 'PENDING'],
    ['cat', 'REJECTED'],
    ['dan', 'BANNED'],
  ] as const) {
    const u = await makeUser(db, tag);
    await makeMembership(db, c.id, u.id, status);
  }
  const eve = await makeUser(db, 'eve');
  await makeMembership(db, other.id, eve.id, 'ACCEPTED');
  await makeUser(db, 'fay');
});
afterAll(async () => {
  await s.close();
});

const patch = (id: string, json: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  s.request(`/v1/communities/climbers/segments/${id}`, {
    key: init.key ?? admin,
    method: 'PATCH',
    json,
    headers: init.headers,
  });

describe('segments: happy', () => {
  it('lists active segments in display order with the full field list', async () => {
    const r = await s.request('/v1/communities/climbers/segments/public', { key: pk });
    expect(r.status).toBe(200);
    expect(r.body.map((x: any) => x.name)).toEqual(['Friends', 'Summit', 'Expedition']);
    expect(r.body[1]).toEqual({
      id: seg.paid,
      name: 'Summit',
      description: 'Summit tier',
      color: '#22607f',
      hasForm: true,
      currency: 'USD',
      priceMonthly: 800,
      priceQuarterly: null,
      priceYearly: 8000,
      priceOneTime: null,
      installmentTotalPrice: null,
      installmentCount: null,
      installmentIntervalMonths: null,
      accessDurationMonths: null,
      installmentRenewsAnnually: false,
      foundingPriceMonthly: 600,
      foundingPriceQuarterly: null,
      foundingPriceYearly: null,
      foundingMemberCap: 50,
      foundingMemberCount: 0,
      isActive: true,
    });
    expect(r.body[2]).toMatchObject({
      hasForm: false,
      installmentTotalPrice: 36000,
      installmentCount: 3,
      installmentIntervalMonths: 1,
      accessDurationMonths: 12,
      installmentRenewsAnnually: true,
    });
  });

  it("returns a segment's form, and an empty schema for a segment without one", async () => {
    const r = await s.request(`/v1/communities/climbers/segments/${seg.paid}/form`, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ segmentId: seg.paid, schema: FORM.map((f) => ({ ...f })) });
    const none = await s.request(`/v1/communities/climbers/segments/${seg.free}/form`, { key: pk });
    expect(none.body).toEqual({ segmentId: seg.free, schema: [] });
  });

  it('still serves the form of a closed segment', async () => {
    const r = await s.request(`/v1/communities/climbers/segments/${seg.closed}/form`, { key: pk });
    expect(r.status).toBe(200);
    expect(r.body.schema).toHaveLength(2);
  });

  it.each([
    ['ann@example.com', true, 'ACCEPTED'],
    ['bob@example.com', true, 'PENDING'],
    ['cat@example.com', true, 'REJECTED'],
    ['dan@example.com', true, 'BANNED'],
    ['fay@example.com', false, 'NONE'],
    ['nobody@example.com', false, 'NONE'],
  ])('check-email reports %s as exists=%s, status=%s to a secret key', async (email, exists, status) => {
    const r = await s.request(
      `/v1/communities/climbers/segments/${seg.paid}/check-email?email=${encodeURIComponent(email)}`,
      { key: admin },
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ exists, status });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['ann@example.com', true, 'ACCEPTED'],
    ['bob@example.com', true, 'PENDING'],
    ['cat@example.com', false, 'NONE'],
    ['dan@example.com', false, 'NONE'],
  ])(
    'check-email with the publishable key never tells that %s was rejected or banned',
    async (email, exists, status) => {
      const r = await s.request(
        `/v1/communities/climbers/segments/${seg.paid}/check-email?email=${encodeURIComponent(email)}`,
        { key: pk },
      );
      expect(r.body).toEqual({ exists, status });
    },
  );

  it('check-email compares addresses case-insensitively', async () => {
    const r = await s.request(`/v1/communities/climbers/segments/${seg.free}/check-email?email=ANN%40Example.COM`, {
      key: pk,
    });
    expect(r.body).toEqual({ exists: true, status: 'ACCEPTED' });
  });

  it('PATCH changes only the fields sent and answers the segment', async () => {
    const r = await patch(seg.free, { name: 'Trail Friends', priceQuarterly: 2000 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: seg.free,
      name: 'Trail Friends',
      priceQuarterly: 2000,
      priceMonthly: null,
      description: 'Friends tier',
      isActive: true,
    });
    const listed = await s.request('/v1/communities/climbers/segments/public', { key: pk });
    expect(listed.body[0]).toMatchObject({ name: 'Trail Friends', priceQuarterly: 2000 });
  });

  it('PATCH with null stops offering a price', async () => {
    const r = await patch(seg.paid, { priceYearly: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ priceYearly: null, priceMonthly: 800 });
  });

  it('PATCH sets and removes an installment plan with all four fields', async () => {
    const set = await patch(seg.free, {
      installmentTotalPrice: 9000,
      installmentCount: 3,
      installmentIntervalMonths: 2,
      installmentRenewsAnnually: false,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      installmentTotalPrice: 9000,
      installmentCount: 3,
      installmentIntervalMonths: 2,
      installmentRenewsAnnually: false,
    });
    const off = await patch(seg.free, {
      installmentTotalPrice: null,
      installmentCount: null,
      installmentIntervalMonths: null,
      installmentRenewsAnnually: false,
    });
    expect(off.body).toMatchObject({
      installmentTotalPrice: null,
      installmentCount: null,
      installmentIntervalMonths: null,
    });
  });

  it('PATCH isActive=false closes the segment to new members and leaves its members alone', async () => {
    const db = s.database.db;
    const target = await addSegment(db, communityId, 'Closing Soon', { sort_order: 9 });
    const u = await makeUser(db, 'gus');
    const membership = await makeMembership(db, communityId, u.id, 'ACCEPTED');
    await db.updateTable('memberships').set({ segment_id: target }).where('id', '=', membership).execute();
    s.readCache.invalidate(communityId);

    const r = await patch(target, { isActive: false });
    expect(r.status).toBe(200);
    expect(r.body.isActive).toBe(false);
    const listed = await s.request('/v1/communities/climbers/segments/public', { key: pk });
    expect(listed.body.map((x: any) => x.id)).not.toContain(target);
    const kept = await db
      .selectFrom('memberships')
      .select(['status', 'segment_id'])
      .where('id', '=', membership)
      .executeTakeFirstOrThrow();
    expect(kept).toEqual({ status: 'ACCEPTED', segment_id: target });

    const reopened = await patch(target, { isActive: true });
    expect(reopened.body.isActive).toBe(true);
  });

  it('PATCH with an empty body changes nothing', async () => {
    const before = await s.request(`/v1/communities/climbers/segments/public`, { key: pk });
    const r = await patch(seg.plan, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual(before.body.find((x: any) => x.id === seg.plan));
  });

  it('PATCH replays the first answer for a repeated Idempotency-Key and changes nothing the second time', async () => {
    const key = crypto.randomUUID();
    const first = await patch(seg.plan, { priceOneTime: 50000 }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    await s.database.db.updateTable('segments').set({ price_one_time: 1 }).where('id', '=', seg.plan).execute();
    const again = await patch(seg.plan, { priceOneTime: 50000 }, { headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const stored = await s.database.db
      .selectFrom('segments')
      .select('price_one_time')
      .where('id', '=', seg.plan)
      .executeTakeFirstOrThrow();
    expect(Number(stored.price_one_time)).toBe(1);
    await patch(seg.plan, { priceOneTime: null });
  });
});

describe('segments: errors', () => {
  it('answers 400 INVALID_EMAIL for an invalid or missing address', async () => {
    for (const qs of ['email=not-an-email', 'email=a%40', 'email=', '']) {
      const r = await s.request(`/v1/communities/climbers/segments/${seg.paid}/check-email?${qs}`, { key: pk });
      expect(r.status, qs).toBe(400);
      expect(r.body, qs).toMatchObject({ code: 'INVALID_EMAIL', extras: { field: 'email' } });
    }
  });

  it('answers 404 for an unknown segment on form, check-email and PATCH, and 400 for a malformed id', async () => {
    const unknown = '0190a000-0000-7000-8000-000000000000';
    const form = await s.request(`/v1/communities/climbers/segments/${unknown}/form`, { key: pk });
    expect(form.status).toBe(404);
    expect(form.body).toMatchObject({ code: 'NOT_FOUND', error: 'Segment not found in this community' });
    const check = await s.request(`/v1/communities/climbers/segments/${unknown}/check-email?email=ann%40example.com`, {
      key: pk,
    });
    expect(check.status).toBe(404);
    expect((await patch(unknown, { isActive: false })).status).toBe(404);
    const bad = await s.request('/v1/communities/climbers/segments/xyz/form', { key: pk });
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('segmentId');
  });

  it('answers 400 naming the missing fields when only some installment fields are sent', async () => {
    const r = await patch(seg.free, { installmentTotalPrice: 9000, installmentCount: 3 });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'INVALID_INPUT',
      extras: {
        field: 'installmentIntervalMonths',
        fields: ['installmentIntervalMonths', 'installmentRenewsAnnually'],
      },
    });
    expect(r.body.error).toContain('installmentIntervalMonths');
    expect(r.body.error).toContain('installmentRenewsAnnually');
    const one = await patch(seg.free, { installmentRenewsAnnually: true });
    expect(one.status).toBe(400);
    expect(one.body.extras.fields).toEqual(['installmentTotalPrice', 'installmentCount', 'installmentIntervalMonths']);
    const unchanged = await s.database.db
      .selectFrom('segments')
      .select('installment_total_price')
      .where('id', '=', seg.free)
      .executeTakeFirstOrThrow();
    expect(unchanged.installment_total_price).toBeNull();
  });

  it('answers 400 when the plan numbers are partly null', async () => {
    const r = await patch(seg.free, {
      installmentTotalPrice: 9000,
      installmentCount: null,
      installmentIntervalMonths: 1,
      installmentRenewsAnnually: false,
    });
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('installmentCount');
  });

  it('answers 400 for installmentRenewsAnnually without a plan or without accessDurationMonths', async () => {
    const noPlan = await patch(seg.free, {
      installmentTotalPrice: null,
      installmentCount: null,
      installmentIntervalMonths: null,
      installmentRenewsAnnually: true,
    });
    expect(noPlan.status).toBe(400);
    expect(noPlan.body.extras.field).toBe('installmentRenewsAnnually');
    // Expedition renews annually: dropping its duration would leave the renewal meaningless.
    const noDuration = await patch(seg.plan, { accessDurationMonths: null });
    expect(noDuration.status).toBe(400);
    expect(noDuration.body.extras.field).toBe('accessDurationMonths');
  });

  const badBodies: [string, unknown, string, string][] = [
    ['a negative price', { priceMonthly: -5 }, 'priceMonthly', 'INVALID_AMOUNT'],
    ['a fractional price', { priceYearly: 10.5 }, 'priceYearly', 'INVALID_AMOUNT'],
    ['a zero price', { priceOneTime: 0 }, 'priceOneTime', 'INVALID_AMOUNT'],
    ['a string price', { priceMonthly: '800' }, 'priceMonthly', 'INVALID_AMOUNT'],
    ['an empty name', { name: '  ' }, 'name', 'INVALID_INPUT'],
    ['a non-boolean isActive', { isActive: 'no' }, 'isActive', 'INVALID_INPUT'],
    ['an unknown field', { foundingMemberCount: 3 }, 'foundingMemberCount', 'INVALID_INPUT'],
    ['an access duration of 0', { accessDurationMonths: 0 }, 'accessDurationMonths', 'INVALID_INPUT'],
  ];
  it.each(badBodies)('answers PATCH with %s with a 400 naming the field', async (_what, body, field, code) => {
    const r = await patch(seg.paid, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code, extras: { field } });
  });

  it("answers 409 SEGMENT_NAME_TAKEN when renaming to another segment's name", async () => {
    const r = await patch(seg.paid, { name: 'Expedition' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'SEGMENT_NAME_TAKEN', extras: { field: 'name' } });
  });
});

describe('segments: security', () => {
  it("answers 403 COMMUNITY_MISMATCH to another community's keys on every segment route", async () => {
    const reads = [
      'segments/public',
      `segments/${seg.paid}/form`,
      `segments/${seg.paid}/check-email?email=ann%40example.com`,
    ];
    for (const path of reads) {
      const r = await s.request(`/v1/communities/climbers/${path}`, { key: otherPk });
      expect(r.status, path).toBe(403);
      expect(r.body.code).toBe('COMMUNITY_MISMATCH');
    }
    const w = await patch(seg.paid, { isActive: false }, { key: otherAdmin });
    expect(w.status).toBe(403);
    expect(w.body.code).toBe('COMMUNITY_MISMATCH');
  });

  it("does not reach another community's segment through this community's path", async () => {
    expect((await s.request(`/v1/communities/climbers/segments/${seg.foreign}/form`, { key: pk })).status).toBe(404);
    expect((await patch(seg.foreign, { isActive: false })).status).toBe(404);
    const foreign = await s.database.db
      .selectFrom('segments')
      .select('is_active')
      .where('id', '=', seg.foreign)
      .executeTakeFirstOrThrow();
    expect(Number(foreign.is_active)).toBe(1);
  });

  it('check-email only reports memberships of this community', async () => {
    const r = await s.request(`/v1/communities/climbers/segments/${seg.paid}/check-email?email=eve%40example.com`, {
      key: pk,
    });
    expect(r.body).toEqual({ exists: false, status: 'NONE' });
  });

  it('refuses PATCH with the publishable key (403, READ_PUBLIC only)', async () => {
    const r = await patch(seg.paid, { isActive: false }, { key: pk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['READ_PUBLIC'] } });
  });

  it('refuses PATCH to a secret key without ADMIN, with grantedScopes', async () => {
    const sk = await makeKey(s.database.db, communityId, ['WRITE_MEMBERS', 'READ_PUBLIC']);
    const r = await patch(seg.paid, { isActive: false }, { key: sk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      extras: { grantedScopes: ['WRITE_MEMBERS', 'READ_PUBLIC'] },
    });
    const still = await s.database.db
      .selectFrom('segments')
      .select('is_active')
      .where('id', '=', seg.paid)
      .executeTakeFirstOrThrow();
    expect(Number(still.is_active)).toBe(1);
  });

  it('refuses the reads to a secret key without READ_PUBLIC', async () => {
    const sk = await makeKey(s.database.db, communityId, ['WRITE_SALES']);
    const r = await s.request('/v1/communities/climbers/segments/public', { key: sk });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['WRITE_SALES'] } });
  });
});
