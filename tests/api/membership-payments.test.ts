// Paid membership over real HTTP with the local gateway: POST /apply/checkout, paying on the
// local checkout page, what completion grants (membership, billing record, member.approved once),
// each billing cycle renewed through the same hook as Stripe's invoice.paid, founding prices
// under 100 concurrent checkouts and completions, prices fixed at purchase, refunds, the end of
// paid access, and every refusal of the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { addMonths, lapseExpired, localBillingOf, renewLocally } from '../../server/domain/membership-payments.ts';
import { pay } from './support/checkout.ts';
import { makeCommunity, makeKey, makeSegment as makeSegmentRow } from './support/factory.ts';
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
  monthly?: number;
  quarterly?: number;
  yearly?: number;
  oneTime?: number;
  accessMonths?: number;
  installment?: { total: number; count: number; interval: number; renews?: boolean };
  founding?: { monthly?: number; yearly?: number; cap: number | null };
}

function makeSegment(communityId: string, spec: SegmentSpec) {
  return makeSegmentRow(db(), communityId, {
    name: `Tier ${++seq}`,
    price_monthly: spec.monthly ?? null,
    price_quarterly: spec.quarterly ?? null,
    price_yearly: spec.yearly ?? null,
    price_one_time: spec.oneTime ?? null,
    installment_total_price: spec.installment?.total ?? null,
    installment_count: spec.installment?.count ?? null,
    installment_interval_months: spec.installment?.interval ?? null,
    access_duration_months: spec.accessMonths ?? null,
    installment_renews_annually: spec.installment?.renews ? 1 : 0,
    founding_price_monthly: spec.founding?.monthly ?? null,
    founding_price_yearly: spec.founding?.yearly ?? null,
    founding_member_cap: spec.founding ? spec.founding.cap : null,
  });
}

async function setup(opts: { embedOrigins?: string[]; landingUrl?: string } = {}) {
  const tag = `paid-${++seq}`;
  const name = `Paid Club ${seq}`;
  const c = await makeCommunity(db(), tag, { name });
  await db()
    .updateTable('communities')
    .set({
      embed_origins: JSON.stringify(opts.embedOrigins ?? []),
      landing_url: opts.landingUrl ?? null,
    })
    .where('id', '=', c.id)
    .execute();
  const writer = await createSecretKey(db(), c.id, ['WRITE_MEMBERS']);
  const base = `/v1/communities/${tag}`;
  const post = (path: string, json?: unknown, key = writer.key, headers: Record<string, string> = {}) =>
    s.request(`${base}${path}`, { method: 'POST', key, json, headers });
  const t = {
    c,
    tag,
    name,
    base,
    writer,
    post,
    submit: (segmentId: string, n: string, billingCycle?: string) =>
      post(`/segments/${segmentId}/submit`, {
        answers: { email: `${n}@example.com`, name: `Person ${n}` },
        ...(billingCycle ? { billingCycle } : {}),
      }),
    checkout: (json: unknown, key?: string, headers?: Record<string, string>) =>
      post('/apply/checkout', json, key, headers),
    events: async (name: string) =>
      (
        await db()
          .selectFrom('webhook_events')
          .select(['name', 'data'])
          .where('community_id', '=', c.id)
          .where('name', '=', name)
          .execute()
      ).map((e) => JSON.parse(e.data)),
  };
  return t;
}
type Setup = Awaited<ReturnType<typeof setup>>;

async function paidRequest(t: Setup, segmentId: string, n: string, cycle?: string): Promise<string> {
  const res = await t.submit(segmentId, n, cycle);
  expect(res.status).toBe(201);
  expect(res.body.paymentRequired).toBe(true);
  return res.body.requestId;
}

const userOf = (n: string) =>
  db().selectFrom('users').selectAll().where('email', '=', `${n}@example.com`).executeTakeFirstOrThrow();
const membershipOf = async (communityId: string, n: string) =>
  db()
    .selectFrom('memberships')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('user_id', '=', (await userOf(n)).id)
    .executeTakeFirst();
const billingOfMembership = (membershipId: string) =>
  db().selectFrom('membership_billing').selectAll().where('membership_id', '=', membershipId).executeTakeFirstOrThrow();
const chargesOf = (billingId: string) =>
  db().selectFrom('membership_charges').selectAll().where('billing_id', '=', billingId).orderBy('charged_at').execute();
const segmentRow = (id: string) =>
  db().selectFrom('segments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const checkoutRow = (sessionId: string) =>
  db()
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('processor_session_id', '=', sessionId)
    .executeTakeFirstOrThrow();

/** Applies, opens the checkout and pays it on the local page; returns the membership and its billing. */
async function becomePaidMember(t: Setup, segmentId: string, n: string, cycle?: string) {
  const requestId = await paidRequest(t, segmentId, n, cycle);
  const opened = await t.checkout({ requestId });
  expect(opened.status).toBe(200);
  const paid = await pay(opened.body.checkoutUrl);
  expect(paid.status).toBe(303);
  const membership = (await membershipOf(t.c.id, n))!;
  return {
    requestId,
    sessionId: opened.body.sessionId as string,
    membership,
    billing: await billingOfMembership(membership.id),
  };
}

/** Within a minute of `expected` (the server's clock moved on a little while the test ran). */
function near(actual: string | null, expected: string) {
  expect(actual).not.toBeNull();
  expect(Math.abs(Date.parse(actual!) - Date.parse(expected))).toBeLessThan(60_000);
}

describe('happy', () => {
  it('a paid request opens a checkout whose page shows the monthly price; paying accepts the member once, with approvedBy null', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1500 });
    const requestId = await paidRequest(t, seg, 'mia');
    const opened = await t.checkout({ requestId });
    expect(opened.status).toBe(200);
    expect(opened.body.sessionId).toMatch(/^cs_local_[0-9a-f]{32}$/);
    expect(opened.body.checkoutUrl).toBe(`${s.url}/checkout/${opened.body.sessionId}`);
    const page = await fetch(opened.body.checkoutUrl);
    const html = await page.text();
    expect(html).toContain('membership (monthly)');
    expect(html).toContain('€15.00');

    const paid = await pay(opened.body.checkoutUrl);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(
      `http://${t.tag}.localhost:${new URL(s.url).port}/?svc_apply=success&session=${opened.body.sessionId}`,
    );
    // A second press lands on the same page and grants nothing more.
    expect((await pay(opened.body.checkoutUrl)).status).toBe(303);

    const request = await db()
      .selectFrom('membership_requests')
      .selectAll()
      .where('id', '=', requestId)
      .executeTakeFirstOrThrow();
    expect(request.status).toBe('APPROVED');
    expect(request.decided_by).toBeNull();
    const m = (await membershipOf(t.c.id, 'mia'))!;
    expect(m).toMatchObject({ status: 'ACCEPTED', segment_id: seg });
    expect(m.accepted_at).not.toBeNull();
    const approved = await t.events('member.approved');
    expect(approved).toEqual([{ memberId: m.id, userId: m.user_id, approvedAt: m.accepted_at, approvedBy: null }]);
    const mail = await db().selectFrom('mail_outbox').selectAll().where('to_address', '=', 'mia@example.com').execute();
    expect(mail.filter((x) => x.text_body.includes(t.name))).toHaveLength(1);
    const notes = await db().selectFrom('notifications').selectAll().where('user_id', '=', m.user_id).execute();
    expect(notes.map((x) => x.kind)).toEqual(['membership.approved']);

    const billing = await billingOfMembership(m.id);
    expect(billing).toMatchObject({
      billing_cycle: 'MONTHLY',
      unit_amount: 1500,
      currency: 'EUR',
      founding: 0,
      status: 'ACTIVE',
      interval_months: 1,
    });
    expect(billing.processor_subscription_id).toMatch(/^sub_local_/);
    near(billing.access_until, addMonths(m.accepted_at!, 1));
    expect(billing.next_charge_at).toBe(billing.access_until);
    expect((await chargesOf(billing.id)).map((c) => [c.kind, c.amount])).toEqual([['INITIAL', 1500]]);
  });

  it('a monthly renewal bills the price again and extends access by a month; the same charge delivered twice counts once', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 900 });
    const { membership, billing } = await becomePaidMember(t, seg, 'ren');
    const r = await renewLocally(db(), s.payments, billing);
    expect(r).toMatchObject({ amount: 900, stopped: false });
    const after = await billingOfMembership(membership.id);
    expect(after.access_until).toBe(addMonths(billing.access_until!, 1));
    // Stripe may deliver one invoice.paid twice.
    const charges = await chargesOf(billing.id);
    const again = await s.payments.renew(billing.checkout_session_id, {
      transactionId: charges[1].transaction_id,
      gateway: 'local',
      amount: 900,
      subscriptionId: null,
    });
    expect(again).toEqual({});
    expect((await billingOfMembership(membership.id)).access_until).toBe(after.access_until);
    expect((await chargesOf(billing.id)).map((c) => [c.kind, c.amount])).toEqual([
      ['INITIAL', 900],
      ['RENEWAL', 900],
    ]);
    expect(await t.events('member.approved')).toHaveLength(1);
  });

  it('quarterly and yearly purchases give three and twelve months, and each renewal adds as much', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { quarterly: 4000, yearly: 15000 });
    const q = await becomePaidMember(t, seg, 'quarter', 'QUARTERLY');
    const y = await becomePaidMember(t, seg, 'year', 'YEARLY');
    expect(q.billing).toMatchObject({ billing_cycle: 'QUARTERLY', unit_amount: 4000, interval_months: 3 });
    expect(y.billing).toMatchObject({ billing_cycle: 'YEARLY', unit_amount: 15000, interval_months: 12 });
    near(q.billing.access_until, addMonths(q.membership.accepted_at!, 3));
    near(y.billing.access_until, addMonths(y.membership.accepted_at!, 12));
    await renewLocally(db(), s.payments, q.billing);
    await renewLocally(db(), s.payments, y.billing);
    expect((await billingOfMembership(q.membership.id)).access_until).toBe(addMonths(q.billing.access_until!, 3));
    expect((await billingOfMembership(y.membership.id)).access_until).toBe(addMonths(y.billing.access_until!, 12));
  });

  it('a one-time purchase gives accessDurationMonths of access and bills nothing again', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { oneTime: 5000, accessMonths: 6 });
    const { billing, membership } = await becomePaidMember(t, seg, 'once');
    expect(billing).toMatchObject({
      billing_cycle: 'ONE_TIME',
      unit_amount: 5000,
      interval_months: null,
      next_charge_at: null,
    });
    expect(billing.processor_subscription_id).toBeNull();
    near(billing.access_until, addMonths(membership.accepted_at!, 6));
    expect(await renewLocally(db(), s.payments, billing)).toBeNull();
  });

  it('an installment plan charges total/count with the remainder on the first charge, counts each charge and stops after the last', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { installment: { total: 1000, count: 3, interval: 2 }, accessMonths: 12 });
    const requestId = await paidRequest(t, seg, 'inst');
    const opened = await t.checkout({ requestId });
    const row = await checkoutRow(opened.body.sessionId);
    expect(row.amount_total).toBe(334);
    expect(JSON.parse(row.line_items).map((i: any) => i.unitAmount)).toEqual([333, 1]);
    await pay(opened.body.checkoutUrl);
    const m = (await membershipOf(t.c.id, 'inst'))!;
    const b = await billingOfMembership(m.id);
    expect(b).toMatchObject({
      billing_cycle: 'INSTALLMENT_PLAN',
      unit_amount: 333,
      installments_paid: 1,
      installments_total: 3,
      interval_months: 2,
    });
    near(b.access_until, addMonths(m.accepted_at!, 12));
    near(b.next_charge_at, addMonths(m.accepted_at!, 2));

    expect(await renewLocally(db(), s.payments, b)).toMatchObject({ amount: 333, stopped: false });
    expect(await renewLocally(db(), s.payments, await billingOfMembership(m.id))).toMatchObject({
      amount: 333,
      stopped: true,
    });
    const done = await billingOfMembership(m.id);
    expect(done).toMatchObject({ installments_paid: 3, status: 'ENDED', next_charge_at: null });
    // Access runs to the end of the plan's duration.
    expect(done.access_until).toBe(b.access_until);
    expect((await chargesOf(b.id)).reduce((sum, c) => sum + c.amount, 0)).toBe(1000);
    expect(await renewLocally(db(), s.payments, done)).toBeNull();
  });

  it('an installment plan that renews starts its next cycle where the access ends, remainder included', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, {
      installment: { total: 1000, count: 2, interval: 1, renews: true },
      accessMonths: 12,
    });
    const { membership, billing } = await becomePaidMember(t, seg, 'cycle');
    await renewLocally(db(), s.payments, billing);
    const paidUp = await billingOfMembership(membership.id);
    expect(paidUp).toMatchObject({ installments_paid: 2, status: 'ACTIVE' });
    expect(paidUp.next_charge_at).toBe(billing.access_until);
    expect(await renewLocally(db(), s.payments, paidUp)).toMatchObject({ amount: 500, stopped: false });
    const next = await billingOfMembership(membership.id);
    expect(next.installments_paid).toBe(1);
    expect(next.access_until).toBe(addMonths(billing.access_until!, 12));
  });

  it('founding prices apply until the cap; a cancelled checkout gives its spot back', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 2000, founding: { monthly: 1000, cap: 1 } });
    const first = await t.checkout({ requestId: await paidRequest(t, seg, 'f1') });
    expect((await checkoutRow(first.body.sessionId)).amount_total).toBe(1000);
    expect((await segmentRow(seg)).founding_member_count).toBe(1);
    const second = await t.checkout({ requestId: await paidRequest(t, seg, 'f2') });
    expect((await checkoutRow(second.body.sessionId)).amount_total).toBe(2000);

    const cancelled = await fetch(`${first.body.checkoutUrl}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(cancelled.status).toBe(303);
    expect((await segmentRow(seg)).founding_member_count).toBe(0);
    const third = await t.checkout({ requestId: await paidRequest(t, seg, 'f3') });
    expect((await checkoutRow(third.body.sessionId)).amount_total).toBe(1000);
    await pay(third.body.checkoutUrl);
    const b = await billingOfMembership((await membershipOf(t.c.id, 'f3'))!.id);
    expect(b).toMatchObject({ founding: 1, unit_amount: 1000 });
    expect((await segmentRow(seg)).founding_member_count).toBe(1);
  });

  it('100 concurrent checkouts and completions issue exactly the capped number of founding prices', async () => {
    const t = await setup();
    const cap = 7;
    const seg = await makeSegment(t.c.id, { monthly: 2000, founding: { monthly: 1200, cap } });
    const requestIds: string[] = [];
    for (let i = 0; i < 100; i += 1) requestIds.push(await paidRequest(t, seg, `crowd${seq}-${i}`));
    const opened = await Promise.all(requestIds.map((requestId) => t.checkout({ requestId })));
    expect(opened.every((r) => r.status === 200)).toBe(true);
    const totals = await Promise.all(opened.map(async (r) => (await checkoutRow(r.body.sessionId)).amount_total));
    expect(totals.filter((x) => x === 1200)).toHaveLength(cap);
    expect(totals.filter((x) => x === 2000)).toHaveLength(100 - cap);

    const paid = await Promise.all(opened.map((r) => pay(r.body.checkoutUrl)));
    expect(paid.every((r) => r.status === 303)).toBe(true);
    const billings = await db()
      .selectFrom('membership_billing')
      .select(['founding', 'unit_amount'])
      .where('segment_id', '=', seg)
      .execute();
    expect(billings).toHaveLength(100);
    expect(billings.filter((b) => Number(b.founding) === 1).map((b) => b.unit_amount)).toEqual(Array(cap).fill(1200));
    expect((await segmentRow(seg)).founding_member_count).toBe(cap);
    expect(await t.events('member.approved')).toHaveLength(100);
  });

  it('a price change after purchase leaves the member on the price they bought, renewals included', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const { membership, billing } = await becomePaidMember(t, seg, 'keeper');
    const admin = await makeKey(db(), t.c.id, ['ADMIN']);
    const patched = await s.request(`${t.base}/segments/${seg}`, {
      method: 'PATCH',
      key: admin,
      json: { priceMonthly: 2500 },
    });
    expect(patched.status).toBe(200);
    expect(await renewLocally(db(), s.payments, billing)).toMatchObject({ amount: 1000 });
    expect((await billingOfMembership(membership.id)).unit_amount).toBe(1000);
    // A new applicant pays the new price.
    const fresh = await t.checkout({ requestId: await paidRequest(t, seg, 'newcomer') });
    expect((await checkoutRow(fresh.body.sessionId)).amount_total).toBe(2500);
  });

  it('the same X-Idempotency-Key answers the same session, and so does opening again while the checkout is open', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000, founding: { monthly: 500, cap: 10 } });
    const requestId = await paidRequest(t, seg, 'idem');
    const a = await t.checkout({ requestId }, undefined, { 'X-Idempotency-Key': 'apply-1' });
    const b = await t.checkout({ requestId }, undefined, { 'X-Idempotency-Key': 'apply-1' });
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const c = await t.checkout({ requestId });
    expect(c.body).toEqual(a.body);
    const rows = await db().selectFrom('checkout_sessions').select('id').where('community_id', '=', t.c.id).execute();
    expect(rows).toHaveLength(1);
    // One founding spot held, not three.
    expect((await segmentRow(seg)).founding_member_count).toBe(1);
  });

  it('origin builds the success and cancel URLs when it is an embed origin or the landing site; without it, the landing site', async () => {
    const t = await setup({ embedOrigins: ['https://shop.example'], landingUrl: 'https://club.example/welcome' });
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const requestId = await paidRequest(t, seg, 'origin');
    const opened = await t.checkout({ requestId, origin: 'https://shop.example' });
    const row = await checkoutRow(opened.body.sessionId);
    expect(row.success_url).toBe('https://shop.example/?svc_apply=success&session={CHECKOUT_SESSION_ID}');
    expect(row.cancel_url).toBe(`https://shop.example/?svc_apply=cancelled&request=${requestId}`);
    await fetch(`${opened.body.checkoutUrl}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    const again = await t.checkout({ requestId });
    expect(again.body.sessionId).not.toBe(opened.body.sessionId);
    expect((await checkoutRow(again.body.sessionId)).success_url).toBe(
      'https://club.example/?svc_apply=success&session={CHECKOUT_SESSION_ID}',
    );
  });

  it('a full refund revokes the membership as a kick would and gives the founding spot back', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000, founding: { monthly: 600, cap: 3 } });
    const { membership, billing } = await becomePaidMember(t, seg, 'refunded');
    const [charge] = await chargesOf(billing.id);
    expect(await s.payments.refund(charge.transaction_id, 600)).toBe(true);
    expect(await billingOfMembership(membership.id)).toMatchObject({ status: 'REFUNDED', next_charge_at: null });
    const m = (await membershipOf(t.c.id, 'refunded'))!;
    expect(m.status).toBe('REJECTED');
    expect(m.kicked_at).not.toBeNull();
    expect(await t.events('member.kicked')).toEqual([
      { memberId: m.id, userId: m.user_id, kickedAt: m.kicked_at, kickedBy: null },
    ]);
    const audit = await db().selectFrom('member_audit').selectAll().where('membership_id', '=', m.id).execute();
    expect(audit.map((a) => [a.action, a.reason])).toEqual([['KICK', 'payment refunded']]);
    expect((await segmentRow(seg)).founding_member_count).toBe(0);
  });

  it('when paid access is over, lapsing ends the membership once', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { oneTime: 1000, accessMonths: 1 });
    const { membership, billing } = await becomePaidMember(t, seg, 'lapser');
    expect(await lapseExpired(db())).toBe(0);
    const after = new Date(Date.parse(billing.access_until!) + 1000).toISOString();
    expect(await lapseExpired(db(), after)).toBe(1);
    expect(await lapseExpired(db(), after)).toBe(0);
    expect((await membershipOf(t.c.id, 'lapser'))!.status).toBe('REJECTED');
    expect((await billingOfMembership(membership.id)).status).toBe('LAPSED');
    expect(await t.events('member.kicked')).toHaveLength(1);
  });

  it("a renewal by membership id finds that membership's active local purchase", async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 700 });
    const { membership, billing } = await becomePaidMember(t, seg, 'finder');
    expect((await localBillingOf(db(), membership.id))!.id).toBe(billing.id);
  });
});

describe('errors', () => {
  it('a request that is not PAYMENT_PENDING is 400', async () => {
    const t = await setup();
    const free = newId();
    await db()
      .insertInto('segments')
      .values({
        id: free,
        community_id: t.c.id,
        name: 'Free',
        description: null,
        color: '#123456',
        currency: 'EUR',
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
      })
      .execute();
    const pending = await t.submit(free, 'freebie');
    expect(pending.body.requestStatus).toBe('PENDING');
    const res = await t.checkout({ requestId: pending.body.requestId });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'requestId' } });

    // A paid one that was already paid is no longer PAYMENT_PENDING either.
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const { requestId } = await becomePaidMember(t, seg, 'twice');
    expect((await t.checkout({ requestId })).status).toBe(400);
  });

  it("a segment without a price for the request's billing cycle is 400", async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000, yearly: 9000 });
    const requestId = await paidRequest(t, seg, 'noprice', 'YEARLY');
    await db().updateTable('segments').set({ price_yearly: null }).where('id', '=', seg).execute();
    const res = await t.checkout({ requestId });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'requestId' } });
    expect(res.body.error).toContain('YEARLY');
  });

  it("an unknown request is 404, and an origin that is not the community's is 400", async () => {
    const t = await setup({ embedOrigins: ['https://shop.example'] });
    expect((await t.checkout({ requestId: newId() })).status).toBe(404);
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const requestId = await paidRequest(t, seg, 'phish');
    for (const origin of [
      'https://evil.example',
      'https://shop.example/path',
      'javascript:alert(1)',
      'ftp://shop.example',
    ]) {
      const res = await t.checkout({ requestId, origin });
      expect(res.status).toBe(400);
      expect(res.body.extras.field).toBe('origin');
    }
    expect(
      await db().selectFrom('checkout_sessions').select('id').where('community_id', '=', t.c.id).execute(),
    ).toHaveLength(0);
  });

  it('a payment for a request a reviewer rejected meanwhile admits nobody', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000, founding: { monthly: 500, cap: 2 } });
    const requestId = await paidRequest(t, seg, 'late');
    const opened = await t.checkout({ requestId });
    expect((await t.post(`/applications/${requestId}/reject`, {})).status).toBe(200);
    await pay(opened.body.checkoutUrl);
    expect((await membershipOf(t.c.id, 'late'))!.status).toBe('REJECTED');
    expect(await t.events('member.approved')).toHaveLength(0);
    expect((await segmentRow(seg)).founding_member_count).toBe(0);
  });
});

describe('security', () => {
  it("another community's request is 404 to this community's key", async () => {
    const a = await setup();
    const b = await setup();
    const seg = await makeSegment(a.c.id, { monthly: 1000 });
    const requestId = await paidRequest(a, seg, 'other');
    const res = await b.checkout({ requestId });
    expect(res.status).toBe(404);
  });

  it('the publishable key and a key without WRITE_MEMBERS are refused', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const requestId = await paidRequest(t, seg, 'keys');
    expect((await t.checkout({ requestId }, t.c.pk)).status).toBe(403);
    const reader = await makeKey(db(), t.c.id, ['READ_PUBLIC']);
    expect((await t.checkout({ requestId }, reader)).status).toBe(403);
    expect((await t.checkout({ requestId }, '')).status).toBe(401);
  });

  it("completion never comes from the success redirect, only from the checkout's Pay", async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const requestId = await paidRequest(t, seg, 'redirect');
    const opened = await t.checkout({ requestId });
    await fetch(`http://127.0.0.1:${new URL(s.url).port}/?svc_apply=success&session=${opened.body.sessionId}`);
    expect(await membershipOf(t.c.id, 'redirect')).toBeUndefined();
    const crossSite = await fetch(`${opened.body.checkoutUrl}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(await membershipOf(t.c.id, 'redirect')).toBeUndefined();
  });

  it('member.approved reaches the outbox once when Pay is pressed twice at the same moment', async () => {
    const t = await setup();
    const seg = await makeSegment(t.c.id, { monthly: 1000 });
    const requestId = await paidRequest(t, seg, 'race');
    const opened = await t.checkout({ requestId });
    await Promise.all([pay(opened.body.checkoutUrl), pay(opened.body.checkoutUrl), pay(opened.body.checkoutUrl)]);
    expect(await t.events('member.approved')).toHaveLength(1);
    const m = (await membershipOf(t.c.id, 'race'))!;
    expect(
      await db().selectFrom('membership_billing').select('id').where('membership_id', '=', m.id).execute(),
    ).toHaveLength(1);
  });
});
