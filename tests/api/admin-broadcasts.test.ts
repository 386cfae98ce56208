// The leader console's broadcasts (docs/leader-console.md, "Broadcasts"): the broadcasts API's
// domain for a community's founder and admins, the sends left in the 24 h window, a preview, and an
// audit entry with every send and cancel. No dispatcher runs here: queued broadcasts stay QUEUED.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { BROADCAST_TESTS_PER_HOUR } from '../../server/http/rate-limit.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { cookieFor, leaderFixture, onSite, type LeaderFixture } from './support/leaders.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

let server: TestServer;
let other: LeaderFixture;

const db = () => server.database.db;
const base = (f: LeaderFixture) => `/api/admin/${f.tag}/broadcasts`;
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** A community of its own (the limit is per community), broadcasts on: ACCEPTED are the founder, the admin and the member. */
async function club(feature = true): Promise<LeaderFixture> {
  const f = await leaderFixture(server, 'bcl');
  await db()
    .updateTable('communities')
    .set({ features: JSON.stringify(feature ? ['broadcasts'] : []) })
    .where('id', '=', f.id)
    .execute();
  return f;
}

const send = (f: LeaderFixture, json: unknown, cookie = f.cookies.founder, origin?: string | null) =>
  onSite(server, f.tag, 'POST', base(f), { cookie, json, origin });
const preview = (f: LeaderFixture, json: unknown, cookie = f.cookies.founder) =>
  onSite(server, f.tag, 'POST', `${base(f)}/preview`, { cookie, json });
const cancel = (f: LeaderFixture, id: string, cookie = f.cookies.founder) =>
  onSite(server, f.tag, 'DELETE', `${base(f)}/${id}`, { cookie, headers: JSON_TYPE });
const allowance = (f: LeaderFixture, cookie = f.cookies.admin) =>
  onSite(server, f.tag, 'GET', `${base(f)}/allowance`, { cookie });

const rowsOf = (f: LeaderFixture) =>
  db().selectFrom('broadcasts').selectAll().where('community_id', '=', f.id).execute();
const auditOf = (f: LeaderFixture, action?: string) => {
  let q = db().selectFrom('audit_log').selectAll().where('community_id', '=', f.id);
  if (action) q = q.where('action', '=', action);
  return q.orderBy('created_at').execute();
};

/** A counted send written straight to the table at `sendAt`. */
async function insertSend(f: LeaderFixture, sendAt: number) {
  await db()
    .insertInto('broadcasts')
    .values({
      id: newId(),
      community_id: f.id,
      subject: 'Earlier',
      html: null,
      text: 'Earlier',
      audience_segment_ids: null,
      test_to: null,
      status: 'SENT',
      send_at: new Date(sendAt).toISOString(),
      recipients: 1,
      created_at: nowIso(),
    })
    .execute();
}

beforeAll(async () => {
  server = await startTestServer();
  other = await club();
});
afterAll(async () => {
  await server?.close();
});

describe('happy', () => {
  it('a founder sends now: 202 QUEUED to the ACCEPTED members, the limit headers, and a broadcast.send entry', async () => {
    const f = await club();
    const res = await send(f, { subject: 'Hello {{name}}', text: 'News' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'QUEUED', recipients: 3 });
    expect(res.headers['x-ratelimit-limit']).toBe('5');
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
    expect(await rowsOf(f)).toHaveLength(1);
    const [entry] = await auditOf(f, 'broadcast.send');
    expect(entry).toMatchObject({
      actor_user_id: f.users.founder.id,
      target_type: 'broadcast',
      target_id: res.body.id,
    });
    expect(JSON.parse(entry.after!)).toMatchObject({ subject: 'Hello {{name}}', status: 'QUEUED', recipients: 3 });
  });

  it('shows the sends left in the window, and refuses the sixth with 429 and no entry', async () => {
    const f = await club();
    expect((await allowance(f)).body).toMatchObject({ limit: 5, used: 0, remaining: 5 });
    const oldest = Date.now() - 20 * HOUR;
    await insertSend(f, oldest);
    for (const h of [10, 5, 1]) await insertSend(f, Date.now() - h * HOUR);
    const four = await allowance(f);
    expect(four.status).toBe(200);
    expect(four.headers['cache-control']).toBe('no-store');
    expect(four.body).toMatchObject({ used: 4, remaining: 1 });
    expect((await send(f, { subject: 'Fifth', text: 'x' }, f.cookies.admin)).status).toBe(202);
    const full = await allowance(f);
    expect(full.body).toMatchObject({ used: 5, remaining: 0 });
    expect(Date.parse(full.body.nextSendAt)).toBe(new Date(oldest + DAY).getTime());
    const entries = (await auditOf(f)).length;
    const refused = await send(f, { subject: 'Sixth', text: 'x' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan((3 * HOUR) / 1000);
    expect(await auditOf(f)).toHaveLength(entries);
    expect(await rowsOf(f)).toHaveLength(5);
  });

  it('schedules and cancels with an entry each; cancelling again writes none', async () => {
    const f = await club();
    const res = await send(f, { subject: 'Later', text: 'x', sendAt: new Date(Date.now() + HOUR).toISOString() });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('SCHEDULED');
    expect(await auditOf(f, 'broadcast.schedule')).toHaveLength(1);
    const cancelled = await cancel(f, res.body.id, f.cookies.admin);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: res.body.id, status: 'CANCELLED' });
    const entries = await auditOf(f, 'broadcast.cancel');
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0].before!)).toMatchObject({ status: 'SCHEDULED' });
    expect(JSON.parse(entries[0].after!)).toMatchObject({ status: 'CANCELLED' });
    expect((await cancel(f, res.body.id)).status).toBe(200);
    expect(await auditOf(f, 'broadcast.cancel')).toHaveLength(1);
    expect((await allowance(f)).body.remaining).toBe(5);
  });

  it('a test send goes to one address, is audited as broadcast.test and never counts', async () => {
    const f = await club();
    const res = await send(f, { subject: 'Try', html: '<p>Hi</p>', testTo: 'me@example.com' });
    expect(res.status).toBe(202);
    expect(res.body.recipients).toBe(1);
    // The headers are the test budget's, as on the API: a test never spends the 24 h limit.
    expect(res.headers['x-ratelimit-remaining']).toBe(String(BROADCAST_TESTS_PER_HOUR - 1));
    expect(await auditOf(f, 'broadcast.test')).toHaveLength(1);
    expect((await allowance(f)).body.remaining).toBe(5);
  });

  it("lists and gets the community's broadcasts for an admin", async () => {
    const f = await club();
    const a = await send(f, { subject: 'One', text: 'x' });
    const list = await onSite(server, f.tag, 'GET', base(f), { cookie: f.cookies.admin });
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.headers['x-total-count']).toBe('1');
    expect(list.body[0]).toMatchObject({ id: a.body.id, subject: 'One', status: 'QUEUED' });
    const one = await onSite(server, f.tag, 'GET', `${base(f)}/${a.body.id}`, { cookie: f.cookies.admin });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: a.body.id, counts: { recipients: 3 } });
  });

  it('previews one copy for the leader: sanitized, {{name}} merged and escaped, the footer, nothing stored', async () => {
    const f = await club();
    await db().updateTable('users').set({ name: 'Ada <b>' }).where('id', '=', f.users.founder.id).execute();
    const entries = (await auditOf(f)).length;
    const res = await preview(f, {
      subject: 'Hi {{ name }}',
      html: '<p>Dear {{name}}</p><script>alert(1)</script>',
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.subject).toBe('Hi Ada <b>');
    expect(res.body.html).toContain('<p>Dear Ada &lt;b&gt;</p>');
    expect(res.body.html).not.toContain('<script');
    expect(res.body.html).toContain('/unsubscribe?token=preview');
    expect(res.body.text).toContain('Dear Ada <b>');
    expect(res.body.text).toContain(`You receive this as a member of Club ${f.tag}.`);
    expect(res.body.recipients).toBe(3);
    const test = await preview(f, { subject: 'Hi', text: 'x', testTo: 'me@example.com' });
    expect(test.body).toMatchObject({ subject: '[TEST] Hi', recipients: 1 });
    expect(await rowsOf(f)).toHaveLength(0);
    expect(await auditOf(f)).toHaveLength(entries);
  });
});

describe('error', () => {
  it('refuses what the API refuses, naming the field, on send and preview alike, writing nothing', async () => {
    const f = await club();
    const cases: [unknown, number, string][] = [
      [{ subject: 'No body' }, 400, 'html'],
      [{ subject: '', text: 'x' }, 400, 'subject'],
      [{ subject: 'Past', text: 'x', sendAt: new Date(Date.now() - HOUR).toISOString() }, 400, 'sendAt'],
      [{ subject: 'Far', text: 'x', sendAt: new Date(Date.now() + 40 * DAY).toISOString() }, 400, 'sendAt'],
      [{ subject: 'Nul\u0000', text: 'x' }, 400, 'subject'],
      [{ subject: 'Who', text: 'x', audience: { segmentIds: [crypto.randomUUID()] } }, 422, 'audience.segmentIds'],
    ];
    for (const [json, status, field] of cases) {
      for (const res of [await send(f, json), await preview(f, json)]) {
        expect(res.status, JSON.stringify(json)).toBe(status);
        expect(res.body.extras?.field, JSON.stringify(json)).toBe(field);
      }
    }
    expect(await rowsOf(f)).toHaveLength(0);
    expect(await auditOf(f)).toHaveLength(0);
  });

  it("cancelling a queued broadcast is 409; an unknown one or another community's is 404; none writes an entry", async () => {
    const f = await club();
    const queued = await send(f, { subject: 'Now', text: 'x' });
    const theirs = await send(other, {
      subject: 'Theirs',
      text: 'x',
      sendAt: new Date(Date.now() + HOUR).toISOString(),
    });
    const entries = (await auditOf(f)).length;
    const conflict = await cancel(f, queued.body.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('INVALID_STATE');
    for (const id of [crypto.randomUUID(), theirs.body.id]) {
      expect((await cancel(f, id)).status).toBe(404);
      expect((await onSite(server, f.tag, 'GET', `${base(f)}/${id}`, { cookie: f.cookies.founder })).status).toBe(404);
    }
    expect(await auditOf(f)).toHaveLength(entries);
    const still = await db()
      .selectFrom('broadcasts')
      .select('status')
      .where('id', '=', theirs.body.id)
      .executeTakeFirstOrThrow();
    expect(still.status).toBe('SCHEDULED');
  });

  it('a community without the broadcasts feature answers 403 FEATURE_NOT_ENABLED everywhere', async () => {
    const f = await club(false);
    const answers = [
      await onSite(server, f.tag, 'GET', base(f), { cookie: f.cookies.founder }),
      await allowance(f),
      await send(f, { subject: 'x', text: 'x' }),
      await preview(f, { subject: 'x', text: 'x' }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FEATURE_NOT_ENABLED');
    }
    expect(await rowsOf(f)).toHaveLength(0);
  });
});

describe('security', () => {
  it("every other role, another community's founder and no cookie are refused on every route, writing nothing", async () => {
    const f = await club();
    const scheduled = await send(f, { subject: 'Later', text: 'x', sendAt: new Date(Date.now() + HOUR).toISOString() });
    const entries = (await auditOf(f)).length;
    const refused: [string | undefined, number][] = [
      [f.cookies.member, 403],
      [f.cookies.pending, 403],
      [f.cookies.bannedAdmin, 403],
      [f.cookies.stranger, 403],
      [await cookieFor(server, other.users.founder.id, f.tag), 403],
      [undefined, 401],
    ];
    const body = { subject: 'x', text: 'x' };
    for (const [cookie, status] of refused) {
      for (const [method, path, json] of [
        ['GET', base(f), undefined],
        ['GET', `${base(f)}/allowance`, undefined],
        ['GET', `${base(f)}/${scheduled.body.id}`, undefined],
        ['POST', base(f), body],
        ['POST', `${base(f)}/preview`, body],
        ['DELETE', `${base(f)}/${scheduled.body.id}`, undefined],
      ] as const) {
        const res = await onSite(server, f.tag, method, path, {
          cookie,
          json,
          headers: method === 'DELETE' ? JSON_TYPE : {},
        });
        expect(res.status, `${method} ${path}`).toBe(status);
        if (status === 403) expect(res.body.code).toBe('NOT_A_LEADER');
      }
    }
    const fromTheirSite = await onSite(server, other.tag, 'POST', base(f), {
      cookie: other.cookies.founder,
      json: body,
    });
    expect(fromTheirSite.status).toBe(403);
    expect(await rowsOf(f)).toHaveLength(1);
    expect(await auditOf(f)).toHaveLength(entries);
    const row = await db()
      .selectFrom('broadcasts')
      .select('status')
      .where('id', '=', scheduled.body.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('SCHEDULED');
  });

  it('refuses forged writes (foreign Origin or none) with 403 CROSS_SITE_REQUEST', async () => {
    const f = await club();
    const scheduled = await send(f, { subject: 'Later', text: 'x', sendAt: new Date(Date.now() + HOUR).toISOString() });
    for (const origin of ['http://evil.example', null]) {
      const res = await send(f, { subject: 'Forged', text: 'x' }, f.cookies.founder, origin);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CROSS_SITE_REQUEST');
      const forgedCancel = await onSite(server, f.tag, 'DELETE', `${base(f)}/${scheduled.body.id}`, {
        cookie: f.cookies.founder,
        origin,
        headers: JSON_TYPE,
      });
      expect(forgedCancel.status).toBe(403);
      expect(forgedCancel.body.code).toBe('CROSS_SITE_REQUEST');
    }
    expect(await rowsOf(f)).toHaveLength(1);
    expect((await rowsOf(f))[0].status).toBe('SCHEDULED');
  });

  it('refuses mass assignment of protected fields with 400 and writes nothing', async () => {
    const f = await club();
    for (const extra of [{ status: 'SENT' }, { recipients: 1 }, { communityId: other.id }, { counts: { sent: 9 } }]) {
      const res = await send(f, { subject: 'x', text: 'x', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect(await rowsOf(f)).toHaveLength(0);
    expect(await auditOf(f)).toHaveLength(0);
  });
});
