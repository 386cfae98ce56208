// Membership requests over real HTTP: submit to a segment (every row of the spec's state table),
// approve, reject, kick and ban, with the accounts, memberships, e-mails, notifications and
// outbox events each leaves behind, every refusal, and the auth rules of WRITE_MEMBERS routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { newId } from '../../server/db/ids.ts';
import type { Scope } from '../../contract/enums.ts';
import {
  makeCommunity,
  makeFounder,
  makeKey,
  makeMembership,
  makeSegment as makeSegmentRow,
  makeUser,
} from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let seq = 0;
const db = () => s.database.db;

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

interface SegmentSpec {
  name?: string;
  autoApprove?: boolean;
  isActive?: boolean;
  priceMonthly?: number | null;
  priceYearly?: number | null;
  priceOneTime?: number | null;
  installment?: { total: number; count: number; interval: number };
  form?: object[];
}

function makeSegment(communityId: string, spec: SegmentSpec = {}) {
  return makeSegmentRow(
    db(),
    communityId,
    {
      ...(spec.name ? { name: spec.name } : {}),
      price_monthly: spec.priceMonthly ?? null,
      price_yearly: spec.priceYearly ?? null,
      price_one_time: spec.priceOneTime ?? null,
      installment_total_price: spec.installment?.total ?? null,
      installment_count: spec.installment?.count ?? null,
      installment_interval_months: spec.installment?.interval ?? null,
      access_duration_months: spec.installment ? 12 : null,
      auto_approve: spec.autoApprove ? 1 : 0,
      is_active: spec.isActive === false ? 0 : 1,
    },
    spec.form,
  );
}

/**
 * A community of its own per test. `live` gives it a founder (an ACCEPTED member with the
 * founder role): the condition, with OPEN, under which auto-approving segments approve.
 */
async function setup(opts: { accessibility?: 'OPEN' | 'APPLICATION' | 'INVITE_ONLY'; live?: boolean } = {}) {
  const tag = `apply-${++seq}`;
  const name = `The ${seq} Club`;
  const c = await makeCommunity(db(), tag, { name });
  const founder = opts.live !== false ? await makeFounder(db(), c.id, `founder${seq}`) : null;
  await db()
    .updateTable('communities')
    .set({ accessibility: opts.accessibility ?? 'OPEN' })
    .where('id', '=', c.id)
    .execute();
  const writer = await createSecretKey(db(), c.id, ['WRITE_MEMBERS']);
  const reader = await makeKey(db(), c.id, ['READ_PUBLIC']);
  const base = `/v1/communities/${tag}`;
  const post = (path: string, json?: unknown, key = writer.key, headers: Record<string, string> = {}) =>
    s.request(`${base}${path}`, { method: 'POST', key, json, headers });
  return {
    c,
    tag,
    name,
    founder,
    writer,
    reader,
    base,
    /** E-mail sent to `to` by this community (addresses recur across tests; communities do not). */
    mailTo: async (to: string) => (await mailTo(to)).filter((m) => m.text_body.includes(name)),
    submit: (segmentId: string, json: unknown, key?: string, headers?: Record<string, string>) =>
      post(`/segments/${segmentId}/submit`, json, key, headers),
    approve: (requestId: string, key?: string) => post(`/applications/${requestId}/approve`, undefined, key),
    reject: (requestId: string, json?: unknown, key?: string) => post(`/applications/${requestId}/reject`, json, key),
    kick: (userId: string, json?: unknown, key?: string) => post(`/members/${userId}/kick`, json, key),
    ban: (userId: string, json?: unknown, key?: string) => post(`/members/${userId}/ban`, json, key),
    members: async () => (await s.request(`${base}/members`, { key: c.pk })).body.map((m: any) => m.userId) as string[],
    checkEmail: async (segmentId: string, email: string, key = reader) =>
      (await s.request(`${base}/segments/${segmentId}/check-email?email=${encodeURIComponent(email)}`, { key })).body,
    events: async (name?: string) =>
      (
        await db()
          .selectFrom('webhook_events')
          .select(['name', 'data'])
          .where('community_id', '=', c.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      )
        .filter((e) => !name || e.name === name)
        .map((e) => ({ name: e.name, data: JSON.parse(e.data) })),
  };
}

const person = (n: string) => ({ email: `${n}@example.com`, name: `Person ${n}` });
const answersFor = (n: string) => person(n);
const userByEmail = (email: string) =>
  db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
const membershipOf = (communityId: string, userId: string) =>
  db()
    .selectFrom('memberships')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
const requestRow = (id: string) =>
  db().selectFrom('membership_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const mailTo = (to: string) =>
  db().selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('created_at').execute();
const notificationsOf = (userId: string) =>
  db().selectFrom('notifications').selectAll().where('user_id', '=', userId).execute();

/** A PENDING application by `n`, through the API. */
async function pending(t: Awaited<ReturnType<typeof setup>>, segmentId: string, n: string) {
  const res = await t.submit(segmentId, { answers: answersFor(n) });
  expect(res.body.requestStatus).toBe('PENDING');
  const user = (await userByEmail(`${n}@example.com`))!;
  return { requestId: res.body.requestId as string, userId: user.id };
}

/** An ACCEPTED member `n`, approved through the API. */
async function member(t: Awaited<ReturnType<typeof setup>>, segmentId: string, n: string) {
  const p = await pending(t, segmentId, n);
  expect((await t.approve(p.requestId)).status).toBe(200);
  return p;
}

describe('happy', () => {
  it('approves at once a free auto-approving segment of an OPEN community with a founder', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { name: 'Friends', autoApprove: true });
    const res = await t.submit(seg, { answers: { email: 'Ana@Example.COM', name: 'Ana Lima' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      requestId: expect.any(String),
      requestStatus: 'APPROVED',
      segmentName: 'Friends',
      segmentId: seg,
    });
    const user = (await userByEmail('ana@example.com'))!;
    expect(user).toMatchObject({ name: 'Ana Lima', usertag: 'ana-lima', password_hash: null });
    const m = (await membershipOf(t.c.id, user.id))!;
    expect(m).toMatchObject({ status: 'ACCEPTED', segment_id: seg, accepted_at: expect.any(String) });
    expect(await t.members()).toContain(user.id);
    expect((await requestRow(res.body.requestId)).status).toBe('APPROVED');
    expect(await t.events()).toEqual([
      {
        name: 'member.approved',
        data: { memberId: m.id, userId: user.id, approvedAt: m.accepted_at, approvedBy: null },
      },
    ]);
    expect((await notificationsOf(user.id)).map((n) => n.kind)).toEqual(['membership.approved']);
    const mails = await t.mailTo('ana@example.com');
    expect(mails.map((x) => x.subject)).toEqual([`Welcome to ${t.name}`]);
    expect(mails[0].text_body).toContain('Ana Lima');
  });

  it.each([
    ['an APPLICATION community', { accessibility: 'APPLICATION' as const }, true],
    ['a community without a founder (not live)', { live: false }, true],
    ['a segment that does not auto-approve', {}, false],
  ])(
    'puts a free application in %s into PENDING review, with member.requested carrying source',
    async (_what, opts, autoApprove) => {
      const t = await setup(opts);
      const seg = await makeSegment(t.c.id, { name: 'Reviewed', autoApprove });
      const res = await t.submit(seg, { answers: answersFor('bo'), source: 'newsletter-june' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        requestId: expect.any(String),
        requestStatus: 'PENDING',
        segmentName: 'Reviewed',
        segmentId: seg,
      });
      const user = (await userByEmail('bo@example.com'))!;
      const m = (await membershipOf(t.c.id, user.id))!;
      expect(m).toMatchObject({ status: 'PENDING', accepted_at: null });
      expect(await t.members()).not.toContain(user.id);
      const row = await requestRow(res.body.requestId);
      expect(row).toMatchObject({
        status: 'PENDING',
        source: 'newsletter-june',
        email: 'bo@example.com',
        billing_cycle: null,
      });
      expect(JSON.parse(row.answers)).toEqual({ email: 'bo@example.com', name: 'Person bo' });
      expect(await t.events()).toEqual([
        {
          name: 'member.requested',
          data: {
            requestId: res.body.requestId,
            membershipId: m.id,
            userId: user.id,
            segmentId: seg,
            source: 'newsletter-june',
            requestedAt: row.created_at,
          },
        },
      ]);
      expect((await t.mailTo('bo@example.com')).map((x) => x.subject)).toEqual([
        `We received your application to ${t.name}`,
      ]);
      expect((await t.checkEmail(seg, 'BO@example.com')).status).toBe('PENDING');
    },
  );

  it('answers paymentRequired for a paid segment and leaves the request PAYMENT_PENDING, with no membership, event or e-mail', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { name: 'Patrons', priceMonthly: 500, autoApprove: true });
    const res = await t.submit(seg, { answers: answersFor('cy'), source: 'ads' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      requestId: expect.any(String),
      paymentRequired: true,
      segmentId: seg,
      segmentName: 'Patrons',
    });
    expect(await requestRow(res.body.requestId)).toMatchObject({
      status: 'PAYMENT_PENDING',
      billing_cycle: 'MONTHLY',
      source: 'ads',
    });
    const user = (await userByEmail('cy@example.com'))!;
    expect(await membershipOf(t.c.id, user.id)).toBeUndefined();
    expect(await t.events()).toEqual([]);
    expect(await t.mailTo('cy@example.com')).toEqual([]);
    expect(await t.checkEmail(seg, 'cy@example.com')).toEqual({ exists: true, status: 'PAYMENT_PENDING' });
  });

  it('takes the billing cycle asked among several offered, the installment plan included', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, {
      priceMonthly: 500,
      priceYearly: 5000,
      installment: { total: 6000, count: 3, interval: 1 },
    });
    const yearly = await t.submit(seg, { answers: answersFor('di'), billingCycle: 'YEARLY' });
    expect(yearly.status).toBe(201);
    expect((await requestRow(yearly.body.requestId)).billing_cycle).toBe('YEARLY');
    const plan = await t.submit(seg, { answers: answersFor('ed'), billingCycle: 'INSTALLMENT_PLAN' });
    expect((await requestRow(plan.body.requestId)).billing_cycle).toBe('INSTALLMENT_PLAN');
  });

  it("requires the form's e-mail field and its name field even when the form does not, and stores answers by field id", async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, {
      form: [
        { id: 'f_mail', type: 'email', label: 'Your e-mail' },
        { id: 'f_name', type: 'short_text', label: 'Full NAME' },
        { id: 'f_why', type: 'long_text', label: 'Why join?', required: false },
        { id: 'f_level', type: 'select', label: 'Level', options: ['new', 'old'] },
      ],
    });
    const res = await t.submit(seg, { answers: { f_mail: 'fa@example.com', f_name: '  Fa Ri ', f_level: 'new' } });
    expect(res.status).toBe(201);
    expect(JSON.parse((await requestRow(res.body.requestId)).answers)).toEqual({
      f_mail: 'fa@example.com',
      f_name: 'Fa Ri',
      f_level: 'new',
    });
    expect((await userByEmail('fa@example.com'))!.name).toBe('Fa Ri');
  });

  it('matches an existing account by e-mail, whatever its case, without creating another or renaming it', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const existing = await makeUser(db(), `gus${seq}`);
    const before = Number(
      (
        await db()
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const res = await t.submit(seg, { answers: { email: `GUS${seq}@Example.com`, name: 'Someone Else' } });
    expect(res.status).toBe(201);
    const after = Number(
      (
        await db()
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(before);
    expect((await membershipOf(t.c.id, existing.id))!.status).toBe('PENDING');
    expect((await userByEmail(`${existing.usertag}@example.com`))!.name).toBe(`User ${existing.usertag}`);
  });

  it('approves a PENDING application: ACCEPTED, in the directory, member.approved by the key, the notification and the e-mail', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { name: 'Crew' });
    const p = await pending(t, seg, 'hal');
    const submittedAt = (await requestRow(p.requestId)).created_at;
    const res = await t.approve(p.requestId);
    expect(res.status).toBe(200);
    const m = (await membershipOf(t.c.id, p.userId))!;
    expect(res.body).toEqual({ ok: true, membershipId: m.id, userId: p.userId });
    expect(m).toMatchObject({ status: 'ACCEPTED', created_at: submittedAt, accepted_at: expect.any(String) });
    expect(await t.members()).toContain(p.userId);
    expect(await t.events('member.approved')).toEqual([
      {
        name: 'member.approved',
        data: { memberId: m.id, userId: p.userId, approvedAt: m.accepted_at, approvedBy: t.writer.id },
      },
    ]);
    expect(await requestRow(p.requestId)).toMatchObject({ status: 'APPROVED', decided_by: t.writer.id });
    expect((await notificationsOf(p.userId)).map((n) => [n.kind, JSON.parse(n.data).segmentName])).toEqual([
      ['membership.approved', 'Crew'],
    ]);
    expect((await t.mailTo('hal@example.com')).map((x) => x.subject)).toEqual([
      `We received your application to ${t.name}`,
      `Welcome to ${t.name}`,
    ]);
    // The visitor's Membership: created at submission, not approval.
    const token = (await s.sessions.issue(p.userId)).token;
    const mine = await s.request(`/api/users/me/memberships/svc?communityTag=${t.tag}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(mine.body).toEqual([
      { communityTag: t.tag, status: 'ACCEPTED', platforms: { svc: { status: 'ACCEPTED' } }, createdAt: submittedAt },
    ]);
  });

  it('answers a second approval with the same ids and no second event, notification or e-mail', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await pending(t, seg, 'ida');
    const first = await t.approve(p.requestId);
    const again = await t.approve(p.requestId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await t.events('member.approved')).toHaveLength(1);
    expect(await notificationsOf(p.userId)).toHaveLength(1);
    expect(await t.mailTo('ida@example.com')).toHaveLength(2);
  });

  it('rejects with an internal reason that is stored and never sent; rejecting again changes nothing', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await pending(t, seg, 'jo');
    const res = await t.reject(p.requestId, { reason: 'Spam account SECRET-NOTE' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await requestRow(p.requestId)).toMatchObject({
      status: 'REJECTED',
      reason: 'Spam account SECRET-NOTE',
      decided_by: t.writer.id,
    });
    const m = (await membershipOf(t.c.id, p.userId))!;
    expect(m.status).toBe('REJECTED');
    const [rejected] = await t.events('member.rejected');
    expect(rejected.data).toEqual({
      requestId: p.requestId,
      membershipId: m.id,
      userId: p.userId,
      rejectedAt: expect.any(String),
      rejectedBy: t.writer.id,
    });
    const mails = await t.mailTo('jo@example.com');
    expect(mails.map((x) => x.subject)).toEqual([
      `We received your application to ${t.name}`,
      `Your application to ${t.name}`,
    ]);
    expect(mails[1].text_body).toContain('was not accepted');
    for (const mail of mails) expect(`${mail.text_body}${mail.html_body}`).not.toContain('SECRET-NOTE');
    expect(JSON.stringify(await t.events())).not.toContain('SECRET-NOTE');
    expect((await t.reject(p.requestId, { reason: 'again' })).status).toBe(200);
    expect(await t.events('member.rejected')).toHaveLength(1);
    expect((await requestRow(p.requestId)).reason).toBe('Spam account SECRET-NOTE');
  });

  it('lets a rejected applicant apply again, starting a new PENDING request', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await pending(t, seg, 'kai');
    await t.reject(p.requestId);
    const again = await t.submit(seg, { answers: answersFor('kai') });
    expect(again.status).toBe(201);
    expect(again.body.requestStatus).toBe('PENDING');
    expect((await membershipOf(t.c.id, p.userId))!.status).toBe('PENDING');
  });

  it('kicks a member: gone from the directory at once, REJECTED (KICKED on the platform), audited, member.kicked; they may apply again', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await member(t, seg, 'lu');
    expect(await t.members()).toContain(p.userId); // now cached
    const res = await t.kick(p.userId, { reason: 'Harassment' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, kickedAt: expect.any(String) });
    expect(await t.members()).not.toContain(p.userId);
    const m = (await membershipOf(t.c.id, p.userId))!;
    expect(m).toMatchObject({ status: 'REJECTED', kicked_at: res.body.kickedAt });
    const audit = await db().selectFrom('member_audit').selectAll().where('user_id', '=', p.userId).execute();
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'KICK',
        reason: 'Harassment',
        actor_key_id: t.writer.id,
        membership_id: m.id,
        created_at: res.body.kickedAt,
      }),
    ]);
    expect((await t.events('member.kicked')).map((e) => e.data)).toEqual([
      { memberId: m.id, userId: p.userId, kickedAt: res.body.kickedAt, kickedBy: t.writer.id },
    ]);
    expect(await t.checkEmail(seg, 'lu@example.com')).toEqual({ exists: true, status: 'REJECTED' });
    const token = (await s.sessions.issue(p.userId)).token;
    const mine = await s.request(`/api/users/me/memberships/svc?communityTag=${t.tag}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(mine.body[0]).toMatchObject({ status: 'REJECTED', platforms: { svc: { status: 'KICKED' } } });
    const again = await t.kick(p.userId);
    expect(again.body.kickedAt).toBe(res.body.kickedAt);
    expect(await t.events('member.kicked')).toHaveLength(1);
    const reapplied = await t.submit(seg, { answers: answersFor('lu') });
    expect(reapplied.body.requestStatus).toBe('PENDING');
    expect(await membershipOf(t.c.id, p.userId)).toMatchObject({ status: 'PENDING', kicked_at: null });
  });

  it('bans a member for good: gone from the directory, audited, member.banned, and never able to apply again', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { autoApprove: true });
    const sub = await t.submit(seg, { answers: answersFor('mo') });
    const userId = (await userByEmail('mo@example.com'))!.id;
    expect(sub.body.requestStatus).toBe('APPROVED');
    expect(await t.members()).toContain(userId);
    const res = await t.ban(userId, { reason: 'Fraud' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, bannedAt: expect.any(String) });
    expect(await t.members()).not.toContain(userId);
    const m = (await membershipOf(t.c.id, userId))!;
    expect(m).toMatchObject({ status: 'BANNED', banned_at: res.body.bannedAt });
    expect(
      await db().selectFrom('member_audit').select(['action', 'reason']).where('user_id', '=', userId).execute(),
    ).toEqual([{ action: 'BAN', reason: 'Fraud' }]);
    expect((await t.events('member.banned')).map((e) => e.data)).toEqual([
      { memberId: m.id, userId, bannedAt: res.body.bannedAt, bannedBy: t.writer.id },
    ]);
    expect((await t.ban(userId)).body.bannedAt).toBe(res.body.bannedAt);
    expect(await t.events('member.banned')).toHaveLength(1);
    const reapply = await t.submit(seg, { answers: answersFor('mo') });
    expect(reapply.status).toBe(403);
    expect(reapply.body.code).toBe('APPLICANT_BANNED');
    expect((await t.kick(userId)).status).toBe(409);
  });

  it('bans an applicant who is not yet a member, closing the application', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await pending(t, seg, 'ned');
    expect((await t.ban(p.userId)).status).toBe(200);
    expect((await requestRow(p.requestId)).status).toBe('CANCELLED');
    const approve = await t.approve(p.requestId);
    expect(approve.status).toBe(422);
    expect((await membershipOf(t.c.id, p.userId))!.status).toBe('BANNED');
  });

  it('bans someone whose only application is unpaid', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { priceOneTime: 9000 });
    const res = await t.submit(seg, { answers: answersFor('oz') });
    const userId = (await userByEmail('oz@example.com'))!.id;
    expect((await t.ban(userId)).status).toBe(200);
    expect((await requestRow(res.body.requestId)).status).toBe('CANCELLED');
    expect((await membershipOf(t.c.id, userId))!.status).toBe('BANNED');
    expect((await t.submit(seg, { answers: answersFor('oz') })).body.code).toBe('APPLICANT_BANNED');
  });

  it('replaces an unpaid request with a newer submit, so an abandoned checkout never locks anyone out', async () => {
    const t = await setup();
    const paid = await makeSegment(t.c.id, { priceMonthly: 700 });
    const free = await makeSegment(t.c.id);
    const first = await t.submit(paid, { answers: answersFor('pi') });
    const second = await t.submit(paid, { answers: answersFor('pi') });
    expect(second.status).toBe(201);
    expect((await requestRow(first.body.requestId)).status).toBe('CANCELLED');
    expect((await requestRow(second.body.requestId)).status).toBe('PAYMENT_PENDING');
    const third = await t.submit(free, { answers: answersFor('pi') });
    expect(third.body.requestStatus).toBe('PENDING');
    expect((await requestRow(second.body.requestId)).status).toBe('CANCELLED');
  });

  it('reports PAYMENT_PENDING on check-email for a rejected applicant who applies again to a paid segment', async () => {
    const t = await setup();
    const p = await pending(t, await makeSegment(t.c.id), 'rb');
    await t.reject(p.requestId);
    const paid = await makeSegment(t.c.id, { priceMonthly: 300 });
    expect(await t.checkEmail(paid, 'rb@example.com')).toEqual({ exists: true, status: 'REJECTED' });
    await t.submit(paid, { answers: answersFor('rb') });
    expect(await t.checkEmail(paid, 'rb@example.com')).toEqual({ exists: true, status: 'PAYMENT_PENDING' });
    expect(await t.checkEmail(paid, 'rb@example.com', t.c.pk)).toEqual({ exists: true, status: 'PAYMENT_PENDING' });
  });

  it('lets a member of another community apply here', async () => {
    const t = await setup();
    const other = await setup();
    const seg = await makeSegment(t.c.id);
    await member(other, await makeSegment(other.c.id), 'qi');
    expect((await t.submit(seg, { answers: answersFor('qi') })).body.requestStatus).toBe('PENDING');
  });
});

describe('errors', () => {
  it('refuses an address with an ACCEPTED membership: 400 ALREADY_MEMBER, whatever its case', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    await member(t, seg, 'ra');
    const res = await t.submit(seg, { answers: { email: 'RA@example.com', name: 'Ra' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('ALREADY_MEMBER');
    const paid = await t.submit(await makeSegment(t.c.id, { priceYearly: 100 }), { answers: answersFor('ra') });
    expect(paid.body.code).toBe('ALREADY_MEMBER');
  });

  it('refuses an address with an application under review: 400 APPLICATION_PENDING, in any segment', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    await pending(t, seg, 'sa');
    const res = await t.submit(await makeSegment(t.c.id), { answers: answersFor('sa') });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('APPLICATION_PENDING');
    expect(
      await db().selectFrom('membership_requests').select('id').where('email', '=', 'sa@example.com').execute(),
    ).toHaveLength(1);
  });

  it('answers missing e-mail or name answers with a 400 (not 422) naming the field, even when the form does not mark them', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, {
      form: [
        { id: 'mail', type: 'email', label: 'E-mail' },
        { id: 'who', type: 'short_text', label: 'Your name' },
        { id: 'bio', type: 'long_text', label: 'Bio', required: true },
      ],
    });
    const noName = await t.submit(seg, { answers: { mail: 'ta@example.com', bio: 'hi' } });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'answers.who', fields: ['who'] } });
    const noEmail = await t.submit(seg, { answers: { who: 'Ta', bio: 'hi' } });
    expect(noEmail.body.extras).toMatchObject({ field: 'answers.mail' });
    const noBio = await t.submit(seg, { answers: { mail: 'ta@example.com', who: 'Ta', bio: '  ' } });
    expect(noBio.body.extras).toMatchObject({ field: 'answers.bio' });
    const formless = await t.submit(await makeSegment(t.c.id), { answers: { email: 'ta@example.com' } });
    expect(formless.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'answers.name' } });
    expect(await userByEmail('ta@example.com')).toBeUndefined();
  });

  it('answers malformed answers and unknown fields with 400', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, {
      form: [{ id: 'level', type: 'select', label: 'Level', options: ['a', 'b'] }],
    });
    const cases: [unknown, string][] = [
      [{ email: 'not-an-address', name: 'U' }, 'answers.email'],
      [{ ...answersFor('ua'), level: 'c' }, 'answers.level'],
      [{ ...answersFor('ua'), extra: 'x' }, 'answers.extra'],
      [{ ...answersFor('ua'), name: 42 }, 'answers.name'],
    ];
    for (const [answers, field] of cases) {
      const res = await t.submit(seg, { answers });
      expect(res.status).toBe(400);
      expect(res.body.extras.field).toBe(field);
    }
    expect((await t.submit(seg, {})).status).toBe(400);
    expect((await t.submit(seg, { answers: answersFor('ua'), unknown: 1 })).status).toBe(400);
  });

  it('requires billingCycle when several are offered, and refuses one the segment does not offer', async () => {
    const t = await setup();
    const several = await makeSegment(t.c.id, { priceMonthly: 500, priceYearly: 5000 });
    const one = await makeSegment(t.c.id, { priceOneTime: 9000 });
    const free = await makeSegment(t.c.id);
    const missing = await t.submit(several, { answers: answersFor('va') });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      code: 'INVALID_INPUT',
      extras: { field: 'billingCycle', offered: ['MONTHLY', 'YEARLY'] },
    });
    const notOffered = await t.submit(several, { answers: answersFor('va'), billingCycle: 'QUARTERLY' });
    expect(notOffered.body.extras).toMatchObject({ field: 'billingCycle' });
    expect((await t.submit(one, { answers: answersFor('va'), billingCycle: 'MONTHLY' })).status).toBe(400);
    expect((await t.submit(free, { answers: answersFor('va'), billingCycle: 'MONTHLY' })).status).toBe(400);
    expect((await t.submit(several, { answers: answersFor('va'), billingCycle: 'WEEKLY' })).body.extras.field).toBe(
      'billingCycle',
    );
    expect(await userByEmail('va@example.com')).toBeUndefined();
    expect((await t.submit(one, { answers: answersFor('va') })).status).toBe(201);
  });

  it("refuses a closed segment with 400, and an unknown segment or another community's with 404", async () => {
    const t = await setup();
    const other = await setup();
    const closed = await makeSegment(t.c.id, { isActive: false, autoApprove: true });
    const res = await t.submit(closed, { answers: answersFor('wu') });
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('segmentId');
    expect((await t.submit(newId(), { answers: answersFor('wu') })).status).toBe(404);
    expect((await t.submit(await makeSegment(other.c.id), { answers: answersFor('wu') })).status).toBe(404);
    expect((await t.submit('not-a-uuid', { answers: answersFor('wu') })).status).toBe(400);
  });

  it('has no apply route in an INVITE_ONLY community: 403 FEATURE_NOT_ENABLED', async () => {
    const t = await setup({ accessibility: 'INVITE_ONLY' });
    const seg = await makeSegment(t.c.id, { autoApprove: true });
    const res = await t.submit(seg, { answers: answersFor('xi') });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FEATURE_NOT_ENABLED');
    expect(await userByEmail('xi@example.com')).toBeUndefined();
  });

  it('refuses to approve a rejected, unpaid or replaced request (422), and to reject an approved one', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const paid = await makeSegment(t.c.id, { priceMonthly: 100 });
    const rejected = await pending(t, seg, 'ya');
    await t.reject(rejected.requestId);
    const r1 = await t.approve(rejected.requestId);
    expect(r1.status).toBe(422);
    expect(r1.body.code).toBe('UNPROCESSABLE');
    const unpaid = await t.submit(paid, { answers: answersFor('yb') });
    expect((await t.approve(unpaid.body.requestId)).status).toBe(422);
    await t.submit(paid, { answers: answersFor('yb') });
    expect((await requestRow(unpaid.body.requestId)).status).toBe('CANCELLED');
    expect((await t.approve(unpaid.body.requestId)).status).toBe(422);
    const approved = await member(t, seg, 'yc');
    expect((await t.reject(approved.requestId)).status).toBe(422);
    expect((await membershipOf(t.c.id, approved.userId))!.status).toBe('ACCEPTED');
    expect(await t.events('member.approved')).toHaveLength(1);
  });

  it('refuses an approval body with fields (the spec says no body) and changes nothing; none or {} approves', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await pending(t, seg, 'zb');
    const url = `${t.base}/applications/${p.requestId}/approve`;
    const withField = await s.request(url, { method: 'POST', key: t.writer.key, json: { segmentId: seg } });
    expect(withField.status).toBe(400);
    expect(withField.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'segmentId' } });
    expect((await requestRow(p.requestId)).status).toBe('PENDING');
    expect((await s.request(url, { method: 'POST', key: t.writer.key, json: {} })).status).toBe(200);
  });

  it('answers 404 for an unknown request, or one of another community', async () => {
    const t = await setup();
    const other = await setup();
    const theirs = await pending(other, await makeSegment(other.c.id), 'za');
    for (const id of [newId(), theirs.requestId]) {
      expect((await t.approve(id)).status).toBe(404);
      expect((await t.reject(id)).status).toBe(404);
    }
    expect((await requestRow(theirs.requestId)).status).toBe('PENDING');
  });

  it('refuses to kick someone who is not an ACCEPTED member here, and to kick or ban the founder', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const applicant = await pending(t, seg, 'ab');
    const stranger = await makeUser(db(), `stranger${seq}`);
    const kickPending = await t.kick(applicant.userId);
    expect(kickPending.status).toBe(409);
    expect(kickPending.body.code).toBe('INVALID_STATE');
    expect((await t.kick(stranger.id)).status).toBe(404);
    expect((await t.ban(stranger.id)).status).toBe(404);
    expect((await t.kick(t.founder!.id)).status).toBe(409);
    expect((await t.ban(t.founder!.id)).status).toBe(409);
    expect((await membershipOf(t.c.id, t.founder!.id))!.status).toBe('ACCEPTED');
    expect(await t.events('member.kicked')).toEqual([]);
  });

  it('refuses a reason over 1000 characters', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const p = await member(t, seg, 'ac');
    const res = await t.kick(p.userId, { reason: 'x'.repeat(1001) });
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('reason');
    expect((await membershipOf(t.c.id, p.userId))!.status).toBe('ACCEPTED');
  });
});

describe('security', () => {
  it("refuses another community's key (403), the publishable key and keys without WRITE_MEMBERS (403 with grantedScopes), and no key (401)", async () => {
    const t = await setup();
    const other = await setup();
    const seg = await makeSegment(t.c.id, { autoApprove: true });
    const p = await pending(t, await makeSegment(t.c.id), 'ad');
    const calls = (key: string) => [
      t.submit(seg, { answers: answersFor('ae') }, key),
      t.approve(p.requestId, key),
      t.reject(p.requestId, undefined, key),
      t.kick(p.userId, undefined, key),
      t.ban(p.userId, undefined, key),
    ];
    for (const res of await Promise.all(calls(other.writer.key))) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('COMMUNITY_MISMATCH');
    }
    for (const [key, scopes] of [
      [t.c.pk, ['READ_PUBLIC']],
      [t.reader, ['READ_PUBLIC']],
      [await makeKey(db(), t.c.id, ['WRITE_SALES']), ['WRITE_SALES']],
    ] as [string, Scope[]][]) {
      for (const res of await Promise.all(calls(key))) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: scopes } });
      }
    }
    for (const res of await Promise.all(calls(''))) expect(res.status).toBe(401);
    expect(await userByEmail('ae@example.com')).toBeUndefined();
    expect((await requestRow(p.requestId)).status).toBe('PENDING');
    expect(await t.events('member.requested')).toHaveLength(1);
  });

  it('accepts an ADMIN key', async () => {
    const t = await setup();
    const admin = await makeKey(db(), t.c.id, ['ADMIN']);
    const res = await t.submit(await makeSegment(t.c.id), { answers: answersFor('af') }, admin);
    expect(res.status).toBe(201);
    expect((await t.approve(res.body.requestId, admin)).status).toBe(200);
  });

  it('approves once when many approvals race: the same ids for all, one member.approved', async () => {
    const t = await setup();
    const p = await pending(t, await makeSegment(t.c.id), 'ag');
    const rs = await Promise.all(Array.from({ length: 10 }, () => t.approve(p.requestId)));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(rs.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(await t.events('member.approved')).toHaveLength(1);
    expect(await notificationsOf(p.userId)).toHaveLength(1);
  });

  it('makes one account and one request when the same address submits many times at once', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const rs = await Promise.all(Array.from({ length: 8 }, () => t.submit(seg, { answers: answersFor('ah') })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(Array(7).fill('APPLICATION_PENDING'));
    expect(await db().selectFrom('users').select('id').where('email', '=', 'ah@example.com').execute()).toHaveLength(1);
    expect(
      await db().selectFrom('membership_requests').select('id').where('email', '=', 'ah@example.com').execute(),
    ).toHaveLength(1);
    expect(await t.events('member.requested')).toHaveLength(1);
  });

  it('approves once when an auto-approving submit is sent many times at once', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { autoApprove: true });
    const rs = await Promise.all(Array.from({ length: 6 }, () => t.submit(seg, { answers: answersFor('ai') })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(Array(5).fill('ALREADY_MEMBER'));
    expect(await t.events('member.approved')).toHaveLength(1);
  });

  it('replays a submit sent again with its Idempotency-Key without a second request', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const first = await t.submit(seg, { answers: answersFor('aj') }, undefined, {
      'Idempotency-Key': crypto.randomUUID(),
    });
    const key = crypto.randomUUID();
    const a = await t.submit(seg, { answers: answersFor('ak') }, undefined, { 'Idempotency-Key': key });
    const b = await t.submit(seg, { answers: answersFor('ak') }, undefined, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await t.events('member.requested')).toHaveLength(2);
  });

  it('never tells the publishable key that someone was kicked or banned', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id);
    const kicked = await member(t, seg, 'al');
    const banned = await member(t, seg, 'am');
    await t.kick(kicked.userId);
    await t.ban(banned.userId);
    for (const n of ['al', 'am'])
      expect(await t.checkEmail(seg, `${n}@example.com`, t.c.pk)).toEqual({ exists: false, status: 'NONE' });
    expect((await t.checkEmail(seg, 'am@example.com')).status).toBe('BANNED');
  });

  it('keeps imported PENDING memberships (no request) from applying twice', async () => {
    const t = await setup();
    const u = await makeUser(db(), `imported${seq}`);
    await makeMembership(db(), t.c.id, u.id, 'PENDING');
    const seg = await makeSegment(t.c.id);
    const res = await t.submit(seg, { answers: { email: `${u.usertag}@example.com`, name: 'Imp' } });
    expect(res.body.code).toBe('APPLICATION_PENDING');
  });
});
