// <svc-apply>'s widget actions over real HTTP: POST /api/actions/{tag}/segments/{id}/submit and
// /api/actions/{tag}/apply/checkout, from an embed origin with the publishable key and keyless on
// the hosted site. Outcomes and refusals are compared with /v1's for the same state; the paid
// path goes through the real local checkout page. Every refusal asserts that nothing was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { newId } from '../../server/db/ids.ts';
import { pay } from './support/checkout.ts';
import {
  makeCommunity,
  makeFounder,
  makeMembership,
  makeSegment as makeSegmentRow,
  makeUser,
} from './support/factory.ts';
import { startTestServer, type TestResponse, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

const SHOP = 'https://shop.example';
const ELSEWHERE = 'https://evil.example';

let s: TestServer;
let tight: TestServer;
let seq = 0;
const db = () => s.database.db;

beforeAll(async () => {
  s = await startTestServer({ env: { SVC_PAYMENTS: 'local' }, rateLimits: { widgetActionsPerMin: 10_000 } });
  tight = await startTestServer({ env: { SVC_PAYMENTS: 'local' }, rateLimits: { widgetActionsPerMin: 2 } });
});
afterAll(async () => {
  await s.close();
  await tight.close();
});

interface SegmentSpec {
  name?: string;
  autoApprove?: boolean;
  isActive?: boolean;
  priceMonthly?: number | null;
  priceYearly?: number | null;
  form?: object[];
}

function makeSegment(server: TestServer, communityId: string, spec: SegmentSpec = {}) {
  return makeSegmentRow(
    server.database.db,
    communityId,
    {
      ...(spec.name ? { name: spec.name } : {}),
      currency: 'USD',
      price_monthly: spec.priceMonthly ?? null,
      price_yearly: spec.priceYearly ?? null,
      auto_approve: spec.autoApprove ? 1 : 0,
      is_active: spec.isActive === false ? 0 : 1,
    },
    spec.form,
  );
}

/** A live OPEN community of its own (a founder), whose embed origin is SHOP. */
async function setup(opts: { accessibility?: 'OPEN' | 'APPLICATION' | 'INVITE_ONLY'; server?: TestServer } = {}) {
  const server = opts.server ?? s;
  const d = server.database.db;
  const tag = `join-${++seq}`;
  const c = await makeCommunity(d, tag, { name: `Join ${seq}` });
  await makeFounder(d, c.id, `founder-${seq}`);
  await d
    .updateTable('communities')
    .set({
      accessibility: opts.accessibility ?? 'OPEN',
      embed_origins: JSON.stringify([SHOP]),
    })
    .where('id', '=', c.id)
    .execute();
  const writer = (await createSecretKey(d, c.id, ['WRITE_MEMBERS'])).key;
  const embedded = (origin = SHOP, key = c.pk) => ({
    'X-API-Key': key,
    Origin: origin,
    'Sec-Fetch-Site': 'cross-site',
  });
  const post = (path: string, json: unknown, headers: Record<string, string> = embedded()) =>
    server.request(`/api/actions/${tag}${path}`, { method: 'POST', json, headers });
  return {
    c,
    tag,
    writer,
    embedded,
    submit: (segmentId: string, json: unknown, headers?: Record<string, string>) =>
      post(`/segments/${segmentId}/submit`, json, headers),
    checkout: (json: unknown, headers?: Record<string, string>) => post('/apply/checkout', json, headers),
    v1Submit: (segmentId: string, json: unknown) =>
      server.request(`/v1/communities/${tag}/segments/${segmentId}/submit`, { method: 'POST', key: writer, json }),
    /** What a widget on the hosted site (`<tag>.localhost`) sends: same-origin, keyless. */
    hosted: (path: string, json: unknown, extra: Record<string, string> = {}) => {
      const port = new URL(server.url).port;
      const site = `${tag}.localhost:${port}`;
      return rawRequest(
        port,
        'POST',
        `/api/actions/${tag}${path}`,
        {
          Host: site,
          Origin: `http://${site}`,
          'Sec-Fetch-Site': 'same-origin',
          'Content-Type': 'application/json',
          ...extra,
        },
        JSON.stringify(json),
      );
    },
    events: async () =>
      (
        await d
          .selectFrom('webhook_events')
          .select(['name', 'data'])
          .where('community_id', '=', c.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      ).map((e) => ({ name: e.name, data: JSON.parse(e.data) })),
    requests: async () => d.selectFrom('membership_requests').selectAll().where('community_id', '=', c.id).execute(),
    checkouts: async () => d.selectFrom('checkout_sessions').selectAll().where('community_id', '=', c.id).execute(),
  };
}

const person = (n: string) => ({ answers: { email: `${n}@example.com`, name: `Person ${n}` } });
const membershipOf = (communityId: string, email: string) =>
  db()
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.status', 'memberships.id', 'users.id as userId'])
    .where('memberships.community_id', '=', communityId)
    .where('users.email', '=', email)
    .executeTakeFirst();
const refusal = (r: TestResponse | { status: number; body: any }) => ({
  status: r.status,
  code: r.body?.code,
  extras: r.body?.extras,
});
const urls = (origin = SHOP) => ({
  successUrl: `${origin}/join?svc_apply=success&session={CHECKOUT_SESSION_ID}&svc_segment=x`,
  cancelUrl: `${origin}/join?svc_apply=cancelled&svc_segment=x`,
});

describe('happy', () => {
  it('approves a free auto-approving segment from an embed origin, as /v1 does, with CORS for that origin', async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { name: 'Friends', autoApprove: true });
    const res = await t.submit(seg, person('ana'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      requestId: expect.any(String),
      requestStatus: 'APPROVED',
      segmentName: 'Friends',
      segmentId: seg,
    });
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    const m = (await membershipOf(t.c.id, 'ana@example.com'))!;
    expect(m.status).toBe('ACCEPTED');
    expect(await t.events()).toEqual([
      {
        name: 'member.approved',
        data: expect.objectContaining({ memberId: m.id, userId: m.userId, approvedBy: null }),
      },
    ]);
  });

  it("puts a reviewed segment's application into PENDING, with the source the page sent in member.requested", async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { name: 'Crew' });
    const res = await t.submit(seg, { ...person('bo'), source: 'customer-site' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ requestStatus: 'PENDING', segmentName: 'Crew' });
    expect((await membershipOf(t.c.id, 'bo@example.com'))!.status).toBe('PENDING');
    expect(await t.events()).toEqual([
      {
        name: 'member.requested',
        data: expect.objectContaining({ requestId: res.body.requestId, source: 'customer-site' }),
      },
    ]);
  });

  it("applies keyless from the community's hosted site", async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { autoApprove: true });
    const res = await t.hosted(`/segments/${seg}/submit`, person('cy'));
    expect(res.status).toBe(201);
    expect(res.body.requestStatus).toBe('APPROVED');
    expect((await membershipOf(t.c.id, 'cy@example.com'))!.status).toBe('ACCEPTED');
  });

  it('takes a paid application to the local checkout with return URLs on the page, and paying accepts the member', async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { name: 'Patrons', priceMonthly: 800, priceYearly: 8000 });
    const submitted = await t.submit(seg, { ...person('di'), billingCycle: 'YEARLY' });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toEqual({
      success: true,
      requestId: expect.any(String),
      paymentRequired: true,
      segmentId: seg,
      segmentName: 'Patrons',
    });

    const back = urls();
    const res = await t.checkout({ requestId: submitted.body.requestId, ...back });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      checkoutUrl: `${s.url}/checkout/${res.body.sessionId}`,
      sessionId: expect.stringMatching(/^cs_local_/),
    });
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    const [row] = await t.checkouts();
    expect(row).toMatchObject({
      success_url: back.successUrl,
      cancel_url: back.cancelUrl,
      amount_total: 8000,
      currency: 'USD',
      customer_email: 'di@example.com',
    });
    // Asking again while it is open answers the same checkout: no second charge.
    expect((await t.checkout({ requestId: submitted.body.requestId, ...back })).body.sessionId).toBe(
      res.body.sessionId,
    );

    const paid = await pay(res.body.checkoutUrl);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(back.successUrl.replace('{CHECKOUT_SESSION_ID}', res.body.sessionId));
    expect((await membershipOf(t.c.id, 'di@example.com'))!.status).toBe('ACCEPTED');
    expect((await t.events()).map((e) => e.name)).toEqual(['member.approved']);
  });

  it('answers a preflight from an embed origin', async () => {
    const t = await setup();
    const port = new URL(s.url).port;
    for (const path of [`/api/actions/${t.tag}/segments/${newId()}/submit`, `/api/actions/${t.tag}/apply/checkout`]) {
      const res = await rawRequest(port, 'OPTIONS', path, {
        Origin: SHOP,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key, content-type',
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    }
  });
});

describe('errors', () => {
  it.each([
    ['an address that is already a member', 'ALREADY_MEMBER'],
    ['an address with an application under review', 'APPLICATION_PENDING'],
    ['a banned address', 'APPLICANT_BANNED'],
  ])('refuses %s exactly as /v1 does, writing nothing', async (_what, code) => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id);
    const user = await makeUser(db(), `known-${seq}`);
    const status = code === 'ALREADY_MEMBER' ? 'ACCEPTED' : code === 'APPLICATION_PENDING' ? 'PENDING' : 'BANNED';
    await makeMembership(db(), t.c.id, user.id, status);
    const body = { answers: { email: `${user.usertag}@example.com`, name: 'Known' } };
    const widget = await t.submit(seg, body);
    expect(widget.body.code).toBe(code);
    expect(refusal(widget)).toEqual(refusal(await t.v1Submit(seg, body)));
    expect(await t.requests()).toEqual([]);
    expect(await t.events()).toEqual([]);
  });

  it.each([
    ['missing answers', {}, { answers: { name: 'No Mail' } }],
    [
      'an answer of the wrong kind',
      { form: [{ id: 'pace', type: 'select', label: 'Pace', options: ['Slow'] }] },
      { answers: { ...person('x').answers, pace: 'Fast' } },
    ],
    ['no billing cycle where several are offered', { priceMonthly: 500, priceYearly: 5000 }, person('y')],
    ['a billing cycle not offered', { priceMonthly: 500 }, { ...person('z'), billingCycle: 'YEARLY' }],
    ['a cycle sent to a free segment', {}, { ...person('w'), billingCycle: 'MONTHLY' }],
    ['a closed segment', { isActive: false }, person('v')],
  ])("refuses %s with /v1's 400 and field", async (_what, spec, body) => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, spec as SegmentSpec);
    const widget = await t.submit(seg, body);
    expect(widget.status).toBe(400);
    expect(widget.body.extras.field).toEqual(expect.any(String));
    expect(refusal(widget)).toEqual(refusal(await t.v1Submit(seg, body)));
    expect(await t.requests()).toEqual([]);
  });

  it('names every required answer left out, so the widget can mark each field', async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, {
      form: [{ id: 'pace', type: 'select', label: 'Pace', required: true, options: ['Slow'] }],
    });
    const res = await t.submit(seg, { answers: {} });
    expect(res.status).toBe(400);
    expect(res.body.extras.fields).toEqual(expect.arrayContaining(['email', 'name', 'pace']));
  });

  it('answers 404 for a segment of another community or none, and 403 FEATURE_NOT_ENABLED when invite-only', async () => {
    const t = await setup();
    const other = await setup();
    const theirs = await makeSegment(s, other.c.id);
    expect((await t.submit(theirs, person('u'))).status).toBe(404);
    expect((await t.submit(newId(), person('u'))).status).toBe(404);
    const closed = await setup({ accessibility: 'INVITE_ONLY' });
    const seg = await makeSegment(s, closed.c.id, { autoApprove: true });
    const res = await closed.submit(seg, person('u'));
    expect(refusal(res)).toEqual(refusal(await closed.v1Submit(seg, person('u'))));
    expect(res.body.code).toBe('FEATURE_NOT_ENABLED');
    expect(await closed.requests()).toEqual([]);
  });

  it("refuses a checkout for a request that is not waiting for payment, or that is not this community's", async () => {
    const t = await setup();
    const free = await makeSegment(s, t.c.id);
    const pending = await t.submit(free, person('pp'));
    const res = await t.checkout({ requestId: pending.body.requestId, ...urls() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'requestId' } });
    expect((await t.checkout({ requestId: newId(), ...urls() })).status).toBe(404);
    const other = await setup();
    const paid = await makeSegment(s, other.c.id, { priceMonthly: 500 });
    const theirs = await other.submit(paid, person('qq'));
    expect((await t.checkout({ requestId: theirs.body.requestId, ...urls() })).status).toBe(404);
    expect(await t.checkouts()).toEqual([]);
    expect(await other.checkouts()).toEqual([]);
  });

  it.each(['successUrl', 'cancelUrl'])("refuses a %s off the community's sites, opening nothing", async (field) => {
    const t = await setup();
    const paid = await makeSegment(s, t.c.id, { priceMonthly: 500 });
    const submitted = await t.submit(paid, person(`r${field}`));
    const body = { requestId: submitted.body.requestId, ...urls(), [field]: `${ELSEWHERE}/phish` };
    const res = await t.checkout(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field } });
    expect(await t.checkouts()).toEqual([]);
  });
});

describe('security', () => {
  it('refuses a page whose Origin is not an embed origin, or no Origin at all, before anything is written', async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { autoApprove: true });
    const res = await t.submit(seg, person('o1'), t.embedded(ELSEWHERE));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
    // Readable by the page it refuses, so its widget can say the site is not set up for this.
    expect(res.headers.get('access-control-allow-origin')).toBe(ELSEWHERE);
    expect((await t.submit(seg, person('o2'), { 'X-API-Key': t.c.pk })).body.code).toBe('ORIGIN_NOT_ALLOWED');
    const paid = await makeSegment(s, t.c.id, { priceMonthly: 500 });
    const submitted = await t.submit(paid, person('o3'));
    expect(
      (await t.checkout({ requestId: submitted.body.requestId, ...urls(ELSEWHERE) }, t.embedded(ELSEWHERE))).body.code,
    ).toBe('ORIGIN_NOT_ALLOWED');
    expect((await t.requests()).map((r) => r.email)).toEqual(['o3@example.com']);
    expect(await t.checkouts()).toEqual([]);
  });

  it('grants the preflight from another origin (the request itself is refused, readably), never with credentials', async () => {
    const t = await setup();
    const res = await rawRequest(new URL(s.url).port, 'OPTIONS', `/api/actions/${t.tag}/apply/checkout`, {
      Origin: ELSEWHERE,
      'Access-Control-Request-Method': 'POST',
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ELSEWHERE);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it("refuses a secret key, even the community's own with WRITE_MEMBERS: servers call /v1", async () => {
    const t = await setup();
    const seg = await makeSegment(s, t.c.id, { autoApprove: true });
    const res = await t.submit(seg, person('sk'), t.embedded(SHOP, t.writer));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('SECRET_KEY_NOT_ALLOWED');
    expect((await t.checkout({ requestId: newId(), ...urls() }, t.embedded(SHOP, t.writer))).body.code).toBe(
      'SECRET_KEY_NOT_ALLOWED',
    );
    expect(await t.requests()).toEqual([]);
  });

  it("refuses another community's publishable key, and a keyless call from anywhere but the hosted site", async () => {
    const t = await setup();
    const other = await setup();
    const seg = await makeSegment(s, t.c.id, { autoApprove: true });
    expect((await t.submit(seg, person('k1'), t.embedded(SHOP, other.c.pk))).body.code).toBe('COMMUNITY_MISMATCH');
    expect((await t.submit(seg, person('k2'), { Origin: SHOP })).body.code).toBe('API_KEY_REQUIRED');
    const crossSite = await t.hosted(`/segments/${seg}/submit`, person('k3'), {
      Origin: ELSEWHERE,
      'Sec-Fetch-Site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe('CROSS_SITE_REQUEST');
    expect(await t.requests()).toEqual([]);
  });

  it('holds each client to the widget-action budget per community, writing nothing past it', async () => {
    const t = await setup({ server: tight });
    const seg = await makeSegment(tight, t.c.id, { autoApprove: true });
    expect((await t.submit(seg, person('rl1'))).status).toBe(201);
    expect((await t.submit(seg, person('rl2'))).status).toBe(201);
    const limited = await t.submit(seg, person('rl3'));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await t.checkout({ requestId: newId(), ...urls() })).status).toBe(429);
    expect((await t.requests()).map((r) => r.email).sort()).toEqual(['rl1@example.com', 'rl2@example.com']);
  });
});
