// Broadcasts API (issue 17, slice A): send or schedule, list, get, cancel, and the limit of 5 sends
// per rolling 24 h per community. No dispatcher runs here: a queued broadcast stays QUEUED, and
// these tests judge the rows and answers the API produces.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Scope } from '../../contract/enums.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import type { BroadcastStatus } from '../../server/db/schema-broadcasts.ts';
import { schemaUrl } from './support/cli.ts';
import { makeCommunity, makeKey, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { startServerProcess } from './support/server-process.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

let s: TestServer;
let seq = 0;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const db = () => s.database.db;

interface Fixture {
  id: string;
  tag: string;
  pk: string;
  /** A WRITE_BROADCASTS key. */
  key: string;
  /** Users ACCEPTED in the community. */
  members: string[];
}

/** A community of its own (the limit is per community) with `members` ACCEPTED members. */
async function community(members = 3, opts: { feature?: boolean } = {}): Promise<Fixture> {
  const c = await makeCommunity(db(), `bc${++seq}-${Date.now().toString(36)}`);
  await db()
    .updateTable('communities')
    .set({ features: JSON.stringify(opts.feature === false ? [] : ['broadcasts']) })
    .where('id', '=', c.id)
    .execute();
  const users: string[] = [];
  for (let i = 0; i < members; i++) {
    const u = await makeUser(db());
    await makeMembership(db(), c.id, u.id, 'ACCEPTED');
    users.push(u.id);
  }
  return { ...c, key: await makeKey(db(), c.id, ['WRITE_BROADCASTS']), members: users };
}

const post = (f: Pick<Fixture, 'tag'>, json: unknown, key: string, headers: Record<string, string> = {}) =>
  s.request(`/v1/communities/${f.tag}/broadcasts`, { method: 'POST', key, json, headers });

const send = (f: Fixture, json: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(f, { subject: 'Hello {{name}}', text: 'News', ...json }, f.key, headers);

async function rowsOf(communityId: string) {
  return db().selectFrom('broadcasts').selectAll().where('community_id', '=', communityId).execute();
}

/** A counted send written straight to the table, at `sendAt` (moves the clock without waiting). */
async function insertSend(communityId: string, sendAt: number, status: BroadcastStatus = 'SENT', testTo?: string) {
  const id = newId();
  await db()
    .insertInto('broadcasts')
    .values({
      id,
      community_id: communityId,
      subject: 'Earlier',
      html: null,
      text: 'Earlier',
      audience_segment_ids: null,
      test_to: testTo ?? null,
      status,
      send_at: new Date(sendAt).toISOString(),
      recipients: 1,
      created_at: nowIso(),
    })
    .execute();
  return id;
}

const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('happy', () => {
  it('queues an immediate send to every ACCEPTED member: 202 QUEUED with the count, the row, and the limit headers', async () => {
    const f = await community(3);
    for (const status of ['PENDING', 'REJECTED', 'BANNED'] as const) {
      const u = await makeUser(db());
      await makeMembership(db(), f.id, u.id, status);
    }
    const before = Date.now();
    const res = await send(f, {
      subject: '  Spring news for {{ name }}  ',
      html: '<h1>Hi {{name}}</h1><p onclick="x()">Read <a href="https://example.com/a">this</a></p><script>1</script>',
      text: undefined,
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.any(String), status: 'QUEUED', recipients: 3, sendAt: expect.any(String) });
    expect(Object.keys(res.body)).toHaveLength(4);
    expect(Date.parse(res.body.sendAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(res.body.sendAt)).toBeLessThanOrEqual(Date.now());
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((Date.parse(res.body.sendAt) + DAY) / 1000));

    const [row] = await rowsOf(f.id);
    expect(row).toMatchObject({
      id: res.body.id,
      subject: 'Spring news for {{ name }}',
      status: 'QUEUED',
      test_to: null,
      audience_segment_ids: null,
      send_at: res.body.sendAt,
      recipients: 3,
    });
    // Sanitized like an article; the text part derived from the sanitized html.
    expect(row.html).toBe(
      '<h1>Hi {{name}}</h1><p>Read <a href="https://example.com/a" rel="noopener noreferrer nofollow">this</a></p>',
    );
    expect(row.text).toBe('Hi {{name}}\n\nRead this [https://example.com/a]');
  });

  it('reads a broadcast back with its status, audience and counts, and lists it', async () => {
    const f = await community(2);
    const queued = await send(f);
    const got = await s.request(`/v1/communities/${f.tag}/broadcasts/${queued.body.id}`, { key: f.key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: queued.body.id,
      subject: 'Hello {{name}}',
      status: 'QUEUED',
      test: false,
      testTo: null,
      audience: null,
      sendAt: queued.body.sendAt,
      createdAt: expect.any(String),
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      counts: { recipients: 2, sent: 0, failed: 0, unsubscribed: 0 },
    });
    const list = await s.request(`/v1/communities/${f.tag}/broadcasts`, { key: f.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([got.body]);
    expect(list.headers.get('x-total-count')).toBe('1');
  });

  it('counts the members of the listed segments only, without those who unsubscribed', async () => {
    const f = await community(4);
    const a = await makeSegment(db(), f.id);
    const b = await makeSegment(db(), f.id);
    const [m1, m2, m3] = f.members;
    await db().updateTable('memberships').set({ segment_id: a }).where('user_id', 'in', [m1, m2]).execute();
    await db().updateTable('memberships').set({ segment_id: b }).where('user_id', '=', m3).execute();

    expect((await send(f, { audience: { segmentIds: [a] } })).body.recipients).toBe(2);
    expect((await send(f, { audience: { segmentIds: [a, b, a] } })).body.recipients).toBe(3);
    await db()
      .insertInto('broadcast_unsubscribes')
      .values({ community_id: f.id, user_id: m2, broadcast_id: null, unsubscribed_at: nowIso() })
      .execute();
    const res = await send(f, { audience: { segmentIds: [a] } });
    expect(res.status).toBe(202);
    expect(res.body.recipients).toBe(1);
    const everyone = await send(f);
    expect(everyone.body.recipients).toBe(3);
    const got = await s.request(`/v1/communities/${f.tag}/broadcasts/${res.body.id}`, { key: f.key });
    expect(got.body.audience).toEqual({ segmentIds: [a] });
  });

  it('schedules a send for later, and cancels it (again: 200 unchanged)', async () => {
    const f = await community(1);
    const at = new Date(Date.now() + 3 * DAY);
    // Another offset, normalised to UTC.
    const local = new Date(at.getTime() + 2 * HOUR).toISOString().replace('Z', '+02:00');
    const res = await send(f, { sendAt: local });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'SCHEDULED', recipients: 1, sendAt: at.toISOString() });

    const url = `/v1/communities/${f.tag}/broadcasts/${res.body.id}`;
    const cancelled = await s.request(url, { method: 'DELETE', key: f.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: res.body.id, status: 'CANCELLED', cancelledAt: expect.any(String) });
    const again = await s.request(url, { method: 'DELETE', key: f.key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect((await s.request(url, { key: f.key })).body.status).toBe('CANCELLED');
  });

  it('sends a test copy to one address: QUEUED, one recipient, never counted toward the limit', async () => {
    const f = await community(2);
    for (let i = 0; i < 5; i++) expect((await send(f)).status).toBe(202);
    const res = await send(f, { testTo: 'editor@example.com' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'QUEUED', recipients: 1 });
    const got = await s.request(`/v1/communities/${f.tag}/broadcasts/${res.body.id}`, { key: f.key });
    expect(got.body).toMatchObject({ test: true, testTo: 'editor@example.com', subject: 'Hello {{name}}' });
    expect((await send(f)).status).toBe(429);
  });

  it('takes the ADMIN key as WRITE_BROADCASTS', async () => {
    const f = await community(1);
    const admin = await makeKey(db(), f.id, ['ADMIN']);
    expect((await post(f, { subject: 'S', text: 'T' }, admin)).status).toBe(202);
    expect((await s.request(`/v1/communities/${f.tag}/broadcasts`, { key: admin })).status).toBe(200);
  });

  it('replays a send with the same Idempotency-Key: the same answer and one row', async () => {
    const f = await community(2);
    const headers = { 'Idempotency-Key': 'spring-news-1' };
    const first = await send(f, {}, headers);
    const second = await send(f, {}, headers);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await rowsOf(f.id)).toHaveLength(1);
  });

  it('pages the list newest first with X-Total-Count and Link, and filters by status', async () => {
    const f = await community(1);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await send(f, { sendAt: inFuture((i + 1) * DAY) })).body.id);
    ids.push((await send(f)).body.id);
    const base = `/v1/communities/${f.tag}/broadcasts`;
    const page1 = await s.request(`${base}?limit=3`, { key: f.key });
    expect(page1.body.map((b: { id: string }) => b.id)).toEqual([...ids].reverse().slice(0, 3));
    expect(page1.headers.get('x-total-count')).toBe('4');
    expect(page1.headers.get('link')).toContain('offset=3');
    const page2 = await s.request(`${base}?limit=3&offset=3`, { key: f.key });
    expect(page2.body.map((b: { id: string }) => b.id)).toEqual([ids[0]]);
    expect(page2.headers.get('link')).toBeNull();
    const scheduled = await s.request(`${base}?status=SCHEDULED`, { key: f.key });
    expect(scheduled.body).toHaveLength(3);
    expect(scheduled.headers.get('x-total-count')).toBe('3');
  });
});

describe('error', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await community(2);
  });

  async function refused(json: unknown, status: number, code: string, field: string) {
    const res = await post(f, json, f.key);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ code, extras: { field } });
    return res;
  }

  it('names the field of a malformed body with 400', async () => {
    await refused({ text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: '   ', text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: 'Two\nlines', text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: 'x'.repeat(201), text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: 'S' }, 400, 'INVALID_INPUT', 'html');
    await refused({ subject: 'S', html: 'x'.repeat(200_001) }, 400, 'INVALID_INPUT', 'html');
    await refused({ subject: 'S', text: 'x'.repeat(100_001) }, 400, 'INVALID_INPUT', 'text');
    await refused({ subject: 'S', text: 'T', extra: 1 }, 400, 'INVALID_INPUT', 'extra');
    await refused({ subject: 'S', text: 'T', testTo: 'not an address' }, 400, 'INVALID_EMAIL', 'testTo');
    await refused(
      { subject: 'S', text: 'T', testTo: 'a@example.com', sendAt: inFuture(DAY) },
      400,
      'INVALID_INPUT',
      'sendAt',
    );
    await refused({ subject: 'S', text: 'T', audience: {} }, 400, 'INVALID_INPUT', 'audience.segmentIds');
    await refused(
      { subject: 'S', text: 'T', audience: { segmentIds: [] } },
      400,
      'INVALID_INPUT',
      'audience.segmentIds',
    );
    await refused(
      { subject: 'S', text: 'T', audience: { segmentIds: ['nope'] } },
      400,
      'INVALID_INPUT',
      'audience.segmentIds.0',
    );
    await refused(
      { subject: 'S', text: 'T', audience: { segmentIds: [newId()], all: true } },
      400,
      'INVALID_INPUT',
      'audience.all',
    );
    expect(await rowsOf(f.id)).toHaveLength(0);
  });

  it('refuses a body with nothing to send with 400: html that sanitizes to nothing, blank text', async () => {
    await refused({ subject: 'S', html: '<script>alert(1)</script>' }, 400, 'INVALID_INPUT', 'html');
    await refused({ subject: 'S', html: '  <style>p{}</style> ' }, 400, 'INVALID_INPUT', 'html');
    await refused({ subject: 'S', text: ' \n ' }, 400, 'INVALID_INPUT', 'text');
    await refused({ subject: 'S', html: '<script>x()</script>', text: '' }, 400, 'INVALID_INPUT', 'html');
    expect(await rowsOf(f.id)).toHaveLength(0);
    // Either part with something in it is enough (a community of its own: these count toward the limit).
    const g = await community(1);
    expect((await post(g, { subject: 'S', html: '<script>x()</script>', text: 'Hi' }, g.key)).status).toBe(202);
    const imageOnly = { subject: 'S', html: '<p><img src="https://x.example/a.png" alt=""></p>' };
    expect((await post(g, imageOnly, g.key)).status).toBe(202);
  });

  it('refuses hostile input with 400 on both databases: NUL bytes, huge and odd values', async () => {
    await refused({ subject: 'S\u0000', text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: 'S', text: 'T\u0000' }, 400, 'INVALID_INPUT', 'text');
    await refused({ subject: 'S', html: '<p>\u0000</p>' }, 400, 'INVALID_INPUT', 'html');
    await refused({ subject: 'S', text: 'T', testTo: 'a\u0000@example.com' }, 400, 'INVALID_INPUT', 'testTo');
    await refused({ subject: 'S', text: '\ud800' }, 400, 'INVALID_INPUT', 'text');
    await refused({ subject: ['S'], text: 'T' }, 400, 'INVALID_INPUT', 'subject');
    await refused({ subject: 'S', text: 42 }, 400, 'INVALID_INPUT', 'text');
    await refused(
      { subject: 'S', text: 'T', audience: { segmentIds: 'x' } },
      400,
      'INVALID_INPUT',
      'audience.segmentIds',
    );
    const many = Array.from({ length: 101 }, () => newId());
    await refused(
      { subject: 'S', text: 'T', audience: { segmentIds: many } },
      400,
      'INVALID_INPUT',
      'audience.segmentIds',
    );
    const huge = await post(f, { subject: 'S', text: 'x'.repeat(2_000_000) }, f.key);
    expect(huge.status).toBe(413);
    expect(await rowsOf(f.id)).toHaveLength(0);
  });

  it('refuses a sendAt that is not a future date-time within 30 days with 400 INVALID_DATE', async () => {
    for (const sendAt of [
      'tomorrow',
      '2026-13-01T00:00:00Z',
      '2026-02-30T25:00:00Z',
      // Not a day of November: Date.parse would read it as December 1st.
      `${new Date().getUTCFullYear()}-11-31T12:00:00Z`,
      new Date(Date.now() - 60_000).toISOString(),
      new Date(Date.now() + 31 * DAY).toISOString(),
      '9999-12-31T23:59:59Z',
      '+275760-09-13T00:00:00Z',
      '0000-01-01T00:00:00Z',
      1e20,
    ]) {
      const res = await post(f, { subject: 'S', text: 'T', sendAt }, f.key);
      expect(res.status, String(sendAt)).toBe(400);
      expect(res.body.extras.field).toBe('sendAt');
      if (typeof sendAt === 'string') expect(res.body.code, sendAt).toBe('INVALID_DATE');
    }
    expect(await rowsOf(f.id)).toHaveLength(0);
  });

  it('answers 422 naming audience.segmentIds for a segment that is not this community’s', async () => {
    const other = await community(1);
    const theirs = await makeSegment(db(), other.id);
    const mine = await makeSegment(db(), f.id);
    for (const segmentIds of [[newId()], [mine, theirs]]) {
      const res = await refused(
        { subject: 'S', text: 'T', audience: { segmentIds } },
        422,
        'UNPROCESSABLE',
        'audience.segmentIds',
      );
      expect(res.body.extras.segmentId).toBe(segmentIds[segmentIds.length - 1]);
    }
    expect(await rowsOf(f.id)).toHaveLength(0);
  });

  it('answers 422 for an empty audience: no members, an empty segment, or everyone unsubscribed', async () => {
    const empty = await community(0);
    const res = await post(empty, { subject: 'S', text: 'T' }, empty.key);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'UNPROCESSABLE', extras: { field: 'audience' } });

    const nobody = await makeSegment(db(), f.id);
    await refused({ subject: 'S', text: 'T', audience: { segmentIds: [nobody] } }, 422, 'UNPROCESSABLE', 'audience');

    const gone = await community(1);
    await db()
      .insertInto('broadcast_unsubscribes')
      .values({ community_id: gone.id, user_id: gone.members[0], broadcast_id: null, unsubscribed_at: nowIso() })
      .execute();
    expect((await post(gone, { subject: 'S', text: 'T' }, gone.key)).status).toBe(422);
    // A test send goes to its one address whoever the audience is.
    expect((await post(gone, { subject: 'S', text: 'T', testTo: 'qa@example.com' }, gone.key)).status).toBe(202);
    expect(await rowsOf(f.id)).toHaveLength(0);
  });

  it('answers 403 FEATURE_NOT_ENABLED on every route when the community has no broadcasts', async () => {
    const off = await community(1, { feature: false });
    const base = `/v1/communities/${off.tag}/broadcasts`;
    const id = await insertSend(off.id, Date.now() + DAY, 'SCHEDULED');
    for (const [method, url, json] of [
      ['POST', base, { subject: 'S', text: 'T' }],
      ['POST', base, { subject: 'S', text: 'T', testTo: 'qa@example.com' }],
      ['GET', base, undefined],
      ['GET', `${base}/${id}`, undefined],
      ['DELETE', `${base}/${id}`, undefined],
    ] as const) {
      const res = await s.request(url, { method, key: off.key, json });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body).toMatchObject({
        code: 'FEATURE_NOT_ENABLED',
        error: 'Broadcasts is not enabled for this community',
      });
    }
    expect((await rowsOf(off.id)).map((r) => r.status)).toEqual(['SCHEDULED']);
  });

  it('refuses to cancel a broadcast that is queued, sending or sent with 409 INVALID_STATE', async () => {
    const queued = (await post(f, { subject: 'S', text: 'T' }, f.key)).body.id;
    const sending = await insertSend(f.id, Date.now() - HOUR, 'SENDING');
    const sent = await insertSend(f.id, Date.now() - HOUR, 'SENT');
    for (const [id, status] of [
      [queued, 'QUEUED'],
      [sending, 'SENDING'],
      [sent, 'SENT'],
    ]) {
      const res = await s.request(`/v1/communities/${f.tag}/broadcasts/${id}`, { method: 'DELETE', key: f.key });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'INVALID_STATE', extras: { status } });
      const row = await db()
        .selectFrom('broadcasts')
        .select(['status', 'cancelled_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      expect(row).toEqual({ status, cancelled_at: null });
    }
  });

  it("answers 404 for an unknown id and for another community's broadcast, 400 for a malformed one", async () => {
    const other = await community(1);
    const theirs = await insertSend(other.id, Date.now() + DAY, 'SCHEDULED');
    for (const id of [newId(), theirs]) {
      for (const method of ['GET', 'DELETE']) {
        const res = await s.request(`/v1/communities/${f.tag}/broadcasts/${id}`, { method, key: f.key });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toMatchObject({ code: 'NOT_FOUND', error: 'Broadcast not found in this community' });
      }
    }
    expect((await rowsOf(other.id)).map((r) => r.status)).toEqual(['SCHEDULED']);
    const bad = await s.request(`/v1/communities/${f.tag}/broadcasts/not-a-uuid`, { key: f.key });
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('broadcastId');
  });

  it('refuses list parameters out of range with 400', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'status=DONE', 'extra=1']) {
      const res = await s.request(`/v1/communities/${f.tag}/broadcasts?${q}`, { key: f.key });
      expect(res.status, q).toBe(400);
    }
  });

  describe('the limit: 5 sends per rolling 24 h', () => {
    it('refuses the sixth with 429, Retry-After until the oldest send is 24 h old, and no row', async () => {
      const f = await community(1);
      const oldest = Date.now() - DAY + 90_000;
      await insertSend(f.id, oldest);
      for (let i = 0; i < 4; i++) await insertSend(f.id, Date.now() - HOUR);
      const before = await rowsOf(f.id);
      const res = await send(f);
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMITED', extras: { retryAfter: expect.any(Number) } });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBe(res.body.extras.retryAfter);
      expect(retryAfter).toBeGreaterThanOrEqual(85);
      expect(retryAfter).toBeLessThanOrEqual(90);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((oldest + DAY) / 1000));
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(await rowsOf(f.id)).toEqual(before);
    });

    it('with the clock moved forward: five sends through the API, the sixth waits until the oldest is 24 h old', async () => {
      const f = await community(1);
      // Only Date is faked: the server runs in this process and reads the time from it, while its
      // sockets and timers keep real time.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const t0 = Date.now();
        for (let i = 0; i < 5; i++) {
          vi.setSystemTime(t0 + i * 60_000);
          expect((await send(f)).status).toBe(202);
        }
        vi.setSystemTime(t0 + DAY - 90_000);
        const early = await send(f);
        expect(early.status).toBe(429);
        expect(early.headers.get('retry-after')).toBe('90');
        expect(Number(early.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((t0 + DAY) / 1000));

        vi.setSystemTime(t0 + DAY + 1_000);
        expect((await send(f)).status).toBe(202);
        // Full again: the next place opens when the second send (t0 + 1 min) turns 24 h old.
        vi.setSystemTime(t0 + DAY + 2_000);
        const again = await send(f);
        expect(again.status).toBe(429);
        expect(again.headers.get('retry-after')).toBe('58');
      } finally {
        vi.useRealTimers();
      }
      expect((await rowsOf(f.id)).length).toBe(6);
    });

    it('slides: a send 24 h + 1 s after the oldest fits again', async () => {
      const f = await community(1);
      const oldest = await insertSend(f.id, Date.now() - DAY + 60_000);
      for (let i = 0; i < 4; i++) await insertSend(f.id, Date.now() - 2 * HOUR);
      expect((await send(f)).status).toBe(429);
      // The clock moved on: the oldest send is now 24 h and 1 s old.
      await db()
        .updateTable('broadcasts')
        .set({ send_at: new Date(Date.now() - DAY - 1000).toISOString() })
        .where('id', '=', oldest)
        .execute();
      const res = await send(f);
      expect(res.status).toBe(202);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await send(f)).status).toBe(429);
    });

    it('never counts cancelled sends or tests', async () => {
      const f = await community(1);
      for (let i = 0; i < 5; i++) await insertSend(f.id, Date.now() - HOUR, 'CANCELLED');
      for (let i = 0; i < 5; i++) await insertSend(f.id, Date.now() - HOUR, 'SENT', 'qa@example.com');
      for (let i = 0; i < 5; i++) expect((await send(f)).status).toBe(202);
      expect((await send(f)).status).toBe(429);
    });

    it('counts a scheduled send at its send time, not when it was asked for', async () => {
      const f = await community(1);
      const later = Date.now() + 5 * DAY;
      for (let i = 0; i < 5; i++)
        expect((await send(f, { sendAt: new Date(later + i * 60_000).toISOString() })).status).toBe(202);
      // Five on day 5 leave today free...
      const now = await send(f);
      expect(now.status).toBe(202);
      expect(now.headers.get('x-ratelimit-remaining')).toBe('4');
      // ...and a sixth within 24 h of them is refused: it would fit once the first of them is 24 h old.
      const sixth = await send(f, { sendAt: new Date(later + 12 * HOUR).toISOString() });
      expect(sixth.status).toBe(429);
      expect(Number(sixth.headers.get('x-ratelimit-reset'))).toBe(Math.ceil((later + DAY) / 1000));
      const retryAfter = Number(sixth.headers.get('retry-after'));
      expect(Math.abs(retryAfter - (later + DAY - Date.now()) / 1000)).toBeLessThan(5);
      expect((await send(f, { sendAt: new Date(later + DAY + 1000).toISOString() })).status).toBe(202);
    });

    it('answers a Retry-After that also clears the sends scheduled more than 24 h ahead', async () => {
      const f = await community(1);
      const now = Date.now();
      // Today is full until an hour from now; the five of tomorrow (24.5 h ahead) are full too, and
      // any send from then until they are 24 h old shares a window with them.
      for (let i = 0; i < 5; i++) await insertSend(f.id, now - 23 * HOUR, 'SENT');
      for (let i = 0; i < 5; i++) await insertSend(f.id, now + 24.5 * HOUR, 'SCHEDULED');
      const res = await send(f);
      expect(res.status).toBe(429);
      const fits = now + 48.5 * HOUR;
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(Math.ceil(fits / 1000));
      expect(Math.abs(Number(res.headers.get('retry-after')) - (fits - Date.now()) / 1000)).toBeLessThan(5);
      // One hour from now (what only the sends within 24 h of now would suggest) is still refused.
      expect((await send(f, { sendAt: new Date(now + HOUR + 60_000).toISOString() })).status).toBe(429);
    });

    it('lets a scheduled send in the next 24 h take a place from the sends of today', async () => {
      const f = await community(1);
      for (let i = 0; i < 4; i++) await insertSend(f.id, Date.now() - HOUR);
      expect((await send(f, { sendAt: inFuture(12 * HOUR) })).status).toBe(202);
      expect((await send(f)).status).toBe(429);
    });

    it('gives the place back when a scheduled send is cancelled', async () => {
      const f = await community(1);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await send(f, { sendAt: inFuture(HOUR) })).body.id);
      expect((await send(f)).status).toBe(429);
      await s.request(`/v1/communities/${f.tag}/broadcasts/${ids[0]}`, { method: 'DELETE', key: f.key });
      expect((await send(f)).status).toBe(202);
    });

    it('does not store a 429 under its Idempotency-Key: the retry runs again once there is room', async () => {
      const f = await community(1);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await send(f, { sendAt: inFuture(HOUR) })).body.id);
      const headers = { 'Idempotency-Key': 'after-the-limit' };
      expect((await send(f, {}, headers)).status).toBe(429);
      await s.request(`/v1/communities/${f.tag}/broadcasts/${ids[0]}`, { method: 'DELETE', key: f.key });
      const retry = await send(f, {}, headers);
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    });

    it('holds under 20 concurrent sends: exactly 5 x 202 and 15 x 429', async () => {
      const f = await community(2);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(f, { subject: `Send ${i}` })));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((st) => st === 202)).toHaveLength(5);
      expect(statuses.filter((st) => st === 429)).toHaveLength(15);
      expect(await rowsOf(f.id)).toHaveLength(5);
    });

    it('has a budget of its own for test sends (20 per hour per community)', async () => {
      const f = await community(1);
      for (let i = 0; i < 20; i++) expect((await send(f, { testTo: 'qa@example.com' })).status).toBe(202);
      const refused = await send(f, { testTo: 'qa@example.com' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await rowsOf(f.id)).toHaveLength(20);
      // Real sends are judged by the 24 h limit alone.
      expect((await send(f)).status).toBe(202);
    });
  });

  describe.runIf(onPostgres)('the limit across two server processes (PostgreSQL only)', () => {
    it('20 concurrent sends split over two processes: exactly 5 x 202', async () => {
      const f = await community(2);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-broadcasts-'));
      const target = s.databaseTarget;
      if (target.kind !== 'postgres') throw new Error('PostgreSQL expected');
      const other = await startServerProcess(dataDir, {
        DATABASE_URL: schemaUrl(target.schema!),
        SVC_SEED_DEMO: 'false',
        SVC_MAIL_WORKER: 'false',
      });
      try {
        const otherUrl = `http://127.0.0.1:${other.port}`;
        const viaOther = (i: number) =>
          fetch(`${otherUrl}/v1/communities/${f.tag}/broadcasts`, {
            method: 'POST',
            headers: { 'X-API-Key': f.key, 'Content-Type': 'application/json' },
            body: JSON.stringify({ subject: `Other ${i}`, text: 'T' }),
          }).then((r) => r.status);
        const statuses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 ? viaOther(i) : send(f, { subject: `Here ${i}` }).then((r) => r.status),
          ),
        );
        expect(statuses.filter((st) => st === 202)).toHaveLength(5);
        expect(statuses.filter((st) => st === 429)).toHaveLength(15);
        expect(await rowsOf(f.id)).toHaveLength(5);
      } finally {
        await other.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  });
});

describe('security', () => {
  let f: Fixture;
  let id: string;
  beforeAll(async () => {
    f = await community(1);
    id = await insertSend(f.id, Date.now() + DAY, 'SCHEDULED');
  });
  const routes = () =>
    [
      ['POST', `/v1/communities/${f.tag}/broadcasts`, { subject: 'S', text: 'T' }],
      ['GET', `/v1/communities/${f.tag}/broadcasts`, undefined],
      ['GET', `/v1/communities/${f.tag}/broadcasts/${id}`, undefined],
      ['DELETE', `/v1/communities/${f.tag}/broadcasts/${id}`, undefined],
    ] as const;

  it('refuses the publishable key and keys without WRITE_BROADCASTS with 403 and grantedScopes', async () => {
    const keys: [string, Scope[]][] = [[f.pk, ['READ_PUBLIC']]];
    for (const scopes of [['READ_PUBLIC'], ['WRITE_MEMBERS', 'WRITE_SALES']] as Scope[][])
      keys.push([await makeKey(db(), f.id, scopes), scopes]);
    for (const [key, scopes] of keys) {
      for (const [method, url, json] of routes()) {
        const res = await s.request(url, { method, key, json });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: scopes } });
      }
    }
    expect((await rowsOf(f.id)).map((r) => r.status)).toEqual(['SCHEDULED']);
  });

  it("refuses another community's key (403) and no key (401)", async () => {
    const other = await community(1);
    const otherAdmin = await makeKey(db(), other.id, ['ADMIN']);
    for (const [method, url, json] of routes()) {
      for (const key of [other.key, otherAdmin]) {
        const res = await s.request(url, { method, key, json });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.code).toBe('COMMUNITY_MISMATCH');
      }
      const res = await s.request(url, { method, json });
      expect(res.status).toBe(401);
    }
    expect((await rowsOf(f.id)).map((r) => r.status)).toEqual(['SCHEDULED']);
  });

  it("never shows one community's broadcasts in another's list", async () => {
    const other = await community(1);
    await send(other);
    const list = await s.request(`/v1/communities/${f.tag}/broadcasts`, { key: f.key });
    expect(list.body.map((b: { id: string }) => b.id)).toEqual([id]);
  });

  it('stores the html without scripts or event handlers whatever was sent', async () => {
    const res = await send(f, {
      html: '<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a><iframe src="https://evil.example"></iframe>',
    });
    expect(res.status).toBe(202);
    const row = await db()
      .selectFrom('broadcasts')
      .select('html')
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.html).not.toMatch(/onerror|javascript:|<iframe/i);
  });
});
