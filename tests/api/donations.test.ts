// Donations to products and events (POST .../donate, GET .../donations/summary) and buying a
// product (widget action and the member's own checkout), through the real local checkout page,
// with donation.received / donation.refunded / product.purchased counted in the outbox, and the
// receipt e-mail of each completed payment read from the mail outbox.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../server/db/ids.ts';
import { updateCommunitySettings } from '../../server/domain/community-settings.ts';
import { pay } from './support/checkout.ts';
import { outboxRowsTo } from './support/mail.ts';
import { makeCommunity, makeEvent, makeKey, makeUser } from './support/factory.ts';
import { startTestServer, type StartOptions, type TestServer } from './support/harness.ts';

let server: TestServer;
let running: TestServer | null = null;
let community: { id: string; tag: string; pk: string };
let sales: string;
const db = () => server.database.db;

const PWYW = { enabled: true, mode: 'pwyw', minAmount: 200, currency: 'EUR', label: 'Keep the trail open' };
const FIXED = { enabled: true, mode: 'fixed', amounts: [500, 1000, 2500], currency: 'USD' };

async function start(opts: StartOptions = {}) {
  server = await startTestServer(opts);
  running = server;
  community = await makeCommunity(db(), 'givers', { name: 'Givers' });
  await db()
    .updateTable('communities')
    .set({ embed_origins: JSON.stringify(['https://shop.example']) })
    .where('id', '=', community.id)
    .execute();
  sales = await makeKey(db(), community.id, ['WRITE_SALES']);
}

afterEach(async () => {
  await running?.close();
  running = null;
});

async function makeProduct(
  sku: string,
  extra: { priceCents?: number; currency?: string; donationConfig?: object | null; isActive?: boolean } = {},
) {
  const id = newId();
  await db()
    .insertInto('products')
    .values({
      id,
      community_id: community.id,
      sku,
      name: `Product ${sku}`,
      description: null,
      price_cents: extra.priceCents ?? 1500,
      currency: extra.currency ?? 'EUR',
      image_url: null,
      is_active: extra.isActive === false ? 0 : 1,
      seller_id: null,
      donation_config:
        extra.donationConfig === undefined
          ? JSON.stringify(PWYW)
          : extra.donationConfig === null
            ? null
            : JSON.stringify(extra.donationConfig),
      created_at: nowIso(),
      updated_at: nowIso(),
    })
    .execute();
  return id;
}

const v1 = () => `/v1/communities/${community.tag}`;
const URLS = {
  successUrl: 'https://shop.example/thanks?s={CHECKOUT_SESSION_ID}',
  cancelUrl: 'https://shop.example/cancel',
};
const donate = (path: string, json: object, init: { key?: string; headers?: Record<string, string> } = {}) =>
  server.request(`${v1()}/${path}/donate`, { method: 'POST', key: init.key ?? sales, json, headers: init.headers });
const summary = (path: string) => server.request(`${v1()}/${path}/donations/summary`, { key: community.pk });
const eventsNamed = async (name: string) =>
  (
    await db().selectFrom('webhook_events').select(['data']).where('name', '=', name).orderBy('created_at').execute()
  ).map((r) => JSON.parse(r.data));
const checkoutRow = (sessionId: string) =>
  db()
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('processor_session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
const receiptsTo = async (email: string) => (await outboxRowsTo(db(), email)).filter((m) => /receipt/i.test(m.subject));
const receiptRow = (sessionId: string) =>
  db()
    .selectFrom('receipts')
    .innerJoin('checkout_sessions', 'checkout_sessions.id', 'receipts.checkout_session_id')
    .select(['receipts.number', 'receipts.email', 'receipts.issued_at', 'receipts.community_id'])
    .where('processor_session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
/** The receipt's date line as a reader sees it: minutes, in UTC. */
const dateLine = (iso: string) => `Date: ${iso.slice(0, 16).replace('T', ' ')} UTC`;
const NO_GOODS = 'No goods or services were provided in exchange for this donation.';

describe('happy', () => {
  beforeEach(() => start());

  it("a donation to a product opens a checkout in the product's currency, and paying it records one donation", async () => {
    const productId = await makeProduct('map');
    const res = await donate('products/map', {
      donation: { amount: 750 },
      customer: { email: 'Ann@Example.com' },
      ...URLS,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      checkoutUrl: `${server.url}/checkout/${res.body.sessionId}`,
      sessionId: expect.stringMatching(/^cs_local_/),
    });
    const row = await checkoutRow(res.body.sessionId);
    expect(row).toMatchObject({
      currency: 'EUR',
      amount_total: 750,
      customer_email: 'ann@example.com',
      success_url: URLS.successUrl,
    });
    expect(JSON.parse(row.line_items)).toEqual([
      { name: 'Keep the trail open', description: 'To Givers', unitAmount: 750, quantity: 1 },
    ]);
    expect(await summary('products/map').then((r) => r.body)).toEqual({ total: 0, count: 0, currency: null });

    const paid = await pay(res.body.checkoutUrl);
    expect(paid.headers.get('location')).toBe(`https://shop.example/thanks?s=${res.body.sessionId}`);
    const received = await eventsNamed('donation.received');
    expect(received).toEqual([
      expect.objectContaining({
        amount: 750,
        currency: 'EUR',
        target: { type: 'PRODUCT', id: productId },
        donorEmail: 'ann@example.com',
        transactionId: expect.stringMatching(/^pi_local_/),
      }),
    ]);
    const s = await summary('products/map');
    expect(s.body).toEqual({ total: 750, count: 1, currency: 'EUR' });
    expect(JSON.stringify(s.body)).not.toContain('ann');
  });

  it("a donation to an event takes a listed amount, in its tiers' currency", async () => {
    await makeEvent(db(), community.id, { slug: 'trail-day', donationConfig: FIXED, tiers: [{ priceCents: 0 }] });
    const res = await donate('events/trail-day', {
      donation: { amount: 1000 },
      customer: { email: 'bo@example.com' },
      ...URLS,
    });
    expect(res.status).toBe(200);
    expect((await checkoutRow(res.body.sessionId)).currency).toBe('USD');
    await pay(res.body.checkoutUrl);
    expect((await summary('events/trail-day')).body).toEqual({ total: 1000, count: 1, currency: 'USD' });
  });

  it('a member named by X-Svc-Auth-Token donates as themselves: no customer e-mail needed, theirs is used', async () => {
    await makeProduct('cap');
    const user = await makeUser(db(), 'cleo');
    const { token } = await server.sessions.issue(user.id, Date.now(), undefined, community.tag);
    const res = await donate(
      'products/cap',
      { donation: { amount: 300 }, customer: { email: 'someone-else@example.com' }, ...URLS },
      { headers: { 'X-Svc-Auth-Token': token } },
    );
    expect(res.status).toBe(200);
    expect((await checkoutRow(res.body.sessionId)).customer_email).toBe('cleo@example.com');
    await pay(res.body.checkoutUrl);
    const [row] = await db().selectFrom('donations').select(['donor_user_id', 'donor_email']).execute();
    expect(row).toEqual({ donor_user_id: user.id, donor_email: 'cleo@example.com' });
  });

  it('20 concurrent requests with one X-Idempotency-Key get one checkout session', async () => {
    await makeProduct('hat');
    const body = { donation: { amount: 500 }, customer: { email: 'c@example.com' }, ...URLS };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        donate('products/hat', body, { headers: { 'X-Idempotency-Key': 'donate-once' } }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.sessionId)).size).toBe(1);
    expect(new Set(results.map((r) => r.body.checkoutUrl)).size).toBe(1);
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(1);
  });

  it('donation.received fires once under duplicated completions, and a full refund removes it from the summary with donation.refunded', async () => {
    await makeProduct('tent');
    const res = await donate('products/tent', {
      donation: { amount: 900 },
      customer: { email: 'd@example.com' },
      ...URLS,
    });
    await Promise.all(Array.from({ length: 5 }, () => server.payments.fulfil(res.body.sessionId, 'pi_tent')));
    expect(await eventsNamed('donation.received')).toHaveLength(1);
    expect((await summary('products/tent')).body).toEqual({ total: 900, count: 1, currency: 'EUR' });
    expect(await server.payments.refund('pi_tent', 900)).toBe(true);
    expect(await server.payments.refund('pi_tent', 900)).toBe(false);
    expect(await eventsNamed('donation.refunded')).toEqual([
      expect.objectContaining({ amount: 900, currency: 'EUR', transactionId: 'pi_tent' }),
    ]);
    expect((await summary('products/tent')).body).toEqual({ total: 0, count: 0, currency: null });
  });

  it('a refund delivered before its completion: the donation is never counted', async () => {
    await makeProduct('rope');
    const res = await donate('products/rope', {
      donation: { amount: 400 },
      customer: { email: 'e@example.com' },
      ...URLS,
    });
    await server.payments.refund('pi_rope', 400);
    await server.payments.fulfil(res.body.sessionId, 'pi_rope');
    expect(await eventsNamed('donation.received')).toHaveLength(0);
    expect((await summary('products/rope')).body.count).toBe(0);
  });

  it('buying a product through the widget action emits product.purchased, with a sidecar donation below 50 as its own donation', async () => {
    const productId = await makeProduct('guide', {
      priceCents: 1500,
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'EUR' },
    });
    const res = await server.request(`/api/actions/${community.tag}/products/guide/checkout`, {
      method: 'POST',
      json: { quantity: 2, ...URLS, donation: { amount: 10 } },
      headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await checkoutRow(res.body.sessionId);
    expect(JSON.parse(row.line_items)).toEqual([
      { name: 'Product guide', unitAmount: 1500, quantity: 2 },
      { name: 'Donation: Product guide', unitAmount: 10, quantity: 1 },
    ]);
    await pay(res.body.checkoutUrl, 'buyer@example.com');
    expect(await eventsNamed('product.purchased')).toEqual([
      expect.objectContaining({
        productId,
        quantity: 2,
        amount: 3000,
        currency: 'EUR',
        customerEmail: 'buyer@example.com',
      }),
    ]);
    expect(await eventsNamed('donation.received')).toEqual([
      expect.objectContaining({ amount: 10, target: { type: 'PRODUCT', id: productId } }),
    ]);
    expect((await summary('products/guide')).body).toEqual({ total: 10, count: 1, currency: 'EUR' });
  });

  it('a completed donation e-mails one receipt with what a donor keeps for their records, however often the completion is reported', async () => {
    await makeProduct('atlas');
    const before = new Date().toISOString();
    const res = await donate('products/atlas', {
      donation: { amount: 750 },
      customer: { email: 'Ann@Example.com' },
      ...URLS,
    });
    // Pay pressed three times at once, then the processor reporting the payment again, and once more under another payment id.
    await Promise.all([pay(res.body.checkoutUrl), pay(res.body.checkoutUrl), pay(res.body.checkoutUrl)]);
    const [received] = await eventsNamed('donation.received');
    expect(await server.payments.fulfil(res.body.sessionId, received.transactionId)).toBe('duplicate');
    expect(await server.payments.fulfil(res.body.sessionId, 'pi_reported_twice')).toBe('duplicate');

    const mails = await outboxRowsTo(db(), 'ann@example.com');
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail.subject).toBe('Receipt for your donation to Givers');
    const receipt = await receiptRow(res.body.sessionId);
    expect(receipt).toMatchObject({ number: 1, email: 'ann@example.com', community_id: community.id });
    expect(receipt.issued_at >= before && receipt.issued_at <= new Date().toISOString()).toBe(true);
    for (const line of [
      'Receipt no.: R-000001',
      dateLine(receipt.issued_at),
      `Payment reference: ${received.transactionId}`,
      'Donor: ann@example.com',
      'Recipient: Givers',
      'For: Keep the trail open',
      'Amount donated: €7.50',
      NO_GOODS,
    ]) {
      expect(mail.text_body).toContain(line);
    }
    expect(mail.html_body).toContain(NO_GOODS);
    expect(mail.html_body).toContain('€7.50');
  });

  it("amounts are in the currency's own decimals, and a member donor is named by their account", async () => {
    await makeProduct('yen', { currency: 'JPY', donationConfig: { enabled: true, mode: 'pwyw', currency: 'JPY' } });
    await makeProduct('dinar', { currency: 'KWD', donationConfig: { enabled: true, mode: 'pwyw', currency: 'KWD' } });
    await makeEvent(db(), community.id, { slug: 'trail-day', donationConfig: FIXED, tiers: [{ priceCents: 0 }] });
    const cleo = await makeUser(db(), 'cleo');
    const { token } = await server.sessions.issue(cleo.id, Date.now(), undefined, community.tag);
    const cases = [
      { path: 'products/yen', amount: 500, shown: '¥500' },
      { path: 'products/dinar', amount: 1250, shown: 'KWD\u00a01.250' },
      { path: 'events/trail-day', amount: 1000, shown: '$10.00' },
    ];
    for (const c of cases) {
      const res = await donate(
        c.path,
        { donation: { amount: c.amount }, ...URLS },
        { headers: { 'X-Svc-Auth-Token': token } },
      );
      expect(res.status).toBe(200);
      await pay(res.body.checkoutUrl);
    }
    const mails = await outboxRowsTo(db(), 'cleo@example.com');
    expect(mails.map((m) => m.text_body.match(/Amount donated: (.*)/)?.[1])).toEqual(cases.map((c) => c.shown));
    expect(mails.map((m) => m.text_body.match(/Receipt no\.: (.*)/)?.[1])).toEqual([
      'R-000001',
      'R-000002',
      'R-000003',
    ]);
    for (const m of mails) expect(m.text_body).toContain('Donor: User cleo <cleo@example.com>');
  });

  it("a product purchase e-mails one receipt with its lines; a sidecar donation in it gets the donor's record, saying which part was donated", async () => {
    await makeProduct('guide', { priceCents: 1500, donationConfig: { enabled: true, mode: 'pwyw', currency: 'EUR' } });
    const res = await server.request(`/api/actions/${community.tag}/products/guide/checkout`, {
      method: 'POST',
      json: { quantity: 2, ...URLS, donation: { amount: 10 } },
      headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    await Promise.all([pay(res.body.checkoutUrl, 'buyer@example.com'), pay(res.body.checkoutUrl, 'buyer@example.com')]);
    await server.payments.fulfil(res.body.sessionId, 'pi_again');
    const mails = await outboxRowsTo(db(), 'buyer@example.com');
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail.subject).toBe('Your receipt from Givers');
    const [purchased] = await eventsNamed('product.purchased');
    const receipt = await receiptRow(res.body.sessionId);
    for (const line of [
      'Receipt no.: R-000001',
      dateLine(receipt.issued_at),
      `Payment reference: ${purchased.transactionId}`,
      'Product guide × 2: €30.00',
      'Donation: Product guide: €0.10',
      'Total paid: €30.10',
      'Donor: buyer@example.com',
      'Recipient: Givers',
      'Amount donated: €0.10',
      'This donation was made with a purchase of €30.00 in the same payment; only €0.10 of it is a donation.',
    ]) {
      expect(mail.text_body).toContain(line);
    }
    expect(mail.text_body).not.toContain(NO_GOODS);
  });

  it('a purchase without a donation has a receipt naming who paid, and no donor record', async () => {
    await makeProduct('mug', { priceCents: 800 });
    const dina = await makeUser(db(), 'dina');
    const { token } = await server.sessions.issue(dina.id, Date.now(), undefined, null);
    const res = await server.request('/api/users/me/checkout', {
      method: 'POST',
      json: { sku: 'mug', quantity: 1, communityTag: community.tag, ...URLS },
      headers: { Authorization: `Bearer ${token}` },
    });
    await pay(res.body.checkoutUrl);
    const [mail] = await receiptsTo('dina@example.com');
    expect(mail.subject).toBe('Your receipt from Givers');
    for (const line of ['Product mug: €8.00', 'Total paid: €8.00', 'Paid by: User dina <dina@example.com>'])
      expect(mail.text_body).toContain(line);
    expect(mail.text_body).not.toMatch(/Donor|Amount donated|No goods/);
  });

  it('receipt numbers run per community, consecutively under concurrent completions', async () => {
    await makeProduct('bell');
    const opened = [];
    for (let i = 0; i < 8; i++)
      opened.push(
        (
          await donate('products/bell', {
            donation: { amount: 500 },
            customer: { email: `d${i}@example.com` },
            ...URLS,
          })
        ).body,
      );
    await Promise.all(opened.map((o, i) => server.payments.fulfil(o.sessionId, `pi_bell_${i}`)));
    const numbers = (
      await db().selectFrom('receipts').select('number').where('community_id', '=', community.id).execute()
    ).map((r) => Number(r.number));
    expect(numbers.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Another community starts at 1.
    const other = await makeCommunity(db(), 'others', { name: 'Others' });
    const otherSales = await makeKey(db(), other.id, ['WRITE_SALES']);
    await db()
      .insertInto('products')
      .values({
        id: newId(),
        community_id: other.id,
        sku: 'bell',
        name: 'Bell',
        description: null,
        price_cents: 100,
        currency: 'EUR',
        image_url: null,
        is_active: 1,
        seller_id: null,
        donation_config: JSON.stringify(PWYW),
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute();
    const theirs = await server.request('/v1/communities/others/products/bell/donate', {
      method: 'POST',
      key: otherSales,
      json: { donation: { amount: 500 }, customer: { email: 'o@example.com' }, ...URLS },
    });
    await pay(theirs.body.checkoutUrl);
    expect((await receiptsTo('o@example.com'))[0].text_body).toContain('Receipt no.: R-000001');
  });

  it("a signed-in member buys with POST /api/users/me/checkout on the community's site", async () => {
    await makeProduct('mug', { priceCents: 800 });
    const user = await makeUser(db(), 'dina');
    const { token } = await server.sessions.issue(user.id, Date.now(), undefined, null);
    const res = await server.request('/api/users/me/checkout', {
      method: 'POST',
      json: { sku: 'mug', quantity: 1, communityTag: community.tag, ...URLS },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect((await checkoutRow(res.body.sessionId)).customer_email).toBe('dina@example.com');
    await pay(res.body.checkoutUrl);
    expect(await eventsNamed('product.purchased')).toEqual([
      expect.objectContaining({ customerEmail: 'dina@example.com', amount: 800 }),
    ]);
  });
});

describe('errors', () => {
  beforeEach(() => start());

  async function refused(send: Promise<{ status: number; body: any }>, status: number, code: string, field?: string) {
    const res = await send;
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    if (field) expect(res.body.extras?.field).toBe(field);
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
    return res;
  }
  const anon = { customer: { email: 'a@example.com' }, ...URLS };

  it('the amount must be a positive integer: INVALID_AMOUNT', async () => {
    await makeProduct('p');
    for (const amount of [0, -5, 12.5, '500']) {
      await refused(donate('products/p', { donation: { amount }, ...anon }), 400, 'INVALID_AMOUNT', 'donation.amount');
    }
    await refused(donate('products/p', { ...anon }), 400, 'INVALID_INPUT', 'donation');
  });

  it('donations that are off, unlisted fixed amounts and amounts under the minimum are refused', async () => {
    await makeProduct('off', { donationConfig: { ...PWYW, enabled: false } });
    await makeProduct('none', { donationConfig: null });
    await makeProduct('fixed', { donationConfig: FIXED });
    await makeProduct('low', { donationConfig: { ...PWYW, minAmount: 10 } });
    await refused(donate('products/off', { donation: { amount: 500 }, ...anon }), 400, 'INVALID_INPUT', 'donation');
    await refused(donate('products/none', { donation: { amount: 500 }, ...anon }), 400, 'INVALID_INPUT', 'donation');
    const unlisted = await refused(
      donate('products/fixed', { donation: { amount: 700 }, ...anon }),
      400,
      'INVALID_DONATION_AMOUNT',
      'donation.amount',
    );
    expect(unlisted.body.extras.amounts).toEqual([500, 1000, 2500]);
    await makeProduct('pw');
    const under = await refused(
      donate('products/pw', { donation: { amount: 199 }, ...anon }),
      400,
      'INVALID_DONATION_AMOUNT',
      'donation.amount',
    );
    expect(under.body.extras.minimum).toBe(200);
    // A config minimum below the spec's floor does not lower it.
    const floor = await refused(
      donate('products/low', { donation: { amount: 49 }, ...anon }),
      400,
      'INVALID_DONATION_AMOUNT',
      'donation.amount',
    );
    expect(floor.body.extras.minimum).toBe(50);
    expect((await donate('products/low', { donation: { amount: 50 }, ...anon })).status).toBe(200);
  });

  it('an anonymous donor needs an e-mail; URLs must be absolute; unknown products and events are 404', async () => {
    await makeProduct('p');
    await refused(donate('products/p', { donation: { amount: 500 }, ...URLS }), 400, 'INVALID_INPUT', 'customer.email');
    await refused(
      donate('products/p', { donation: { amount: 500 }, customer: { email: 'nope' }, ...URLS }),
      400,
      'INVALID_EMAIL',
      'customer.email',
    );
    await refused(
      donate('products/p', { donation: { amount: 500 }, ...anon, successUrl: '/thanks' }),
      400,
      'INVALID_INPUT',
      'successUrl',
    );
    await refused(donate('products/ghost', { donation: { amount: 500 }, ...anon }), 404, 'NOT_FOUND');
    await refused(donate('events/ghost', { donation: { amount: 500 }, ...anon }), 404, 'NOT_FOUND');
    expect((await summary('products/ghost')).status).toBe(404);
  });

  it('an invalid X-Svc-Auth-Token is a 401, not an anonymous donation', async () => {
    await makeProduct('p');
    await refused(
      donate('products/p', { donation: { amount: 500 }, ...anon }, { headers: { 'X-Svc-Auth-Token': 'not-a-token' } }),
      401,
      'SIGN_IN_REQUIRED',
    );
  });

  it('an inactive or free product cannot be bought', async () => {
    await makeProduct('gone', { isActive: false });
    await makeProduct('free', { priceCents: 0 });
    const buy = (sku: string) =>
      server.request(`/api/actions/${community.tag}/products/${sku}/checkout`, {
        method: 'POST',
        json: { quantity: 1, ...URLS },
        headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
      });
    await refused(buy('gone'), 400, 'INVALID_INPUT', 'sku');
    await refused(buy('free'), 400, 'INVALID_INPUT', 'sku');
    await refused(buy('ghost'), 404, 'NOT_FOUND');
  });
});

describe('rate limit', () => {
  beforeEach(() => start());

  it('standalone donations: 30 per client IP per hour, then 429 with Retry-After and the rate-limit headers', async () => {
    await makeProduct('p');
    const body = { donation: { amount: 500 }, customer: { email: 'a@example.com' }, ...URLS };
    for (let i = 0; i < 30; i++) expect((await donate('products/p', body)).status).toBe(200);
    const res = await donate('products/p', body);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(30);
  });
});

describe('security', () => {
  beforeEach(() => start());

  it("donating needs WRITE_SALES: READ_PUBLIC and the publishable key are refused; another community's key is COMMUNITY_MISMATCH", async () => {
    await makeProduct('p');
    const body = { donation: { amount: 500 }, customer: { email: 'a@example.com' }, ...URLS };
    const reader = await makeKey(db(), community.id, ['READ_PUBLIC']);
    const r1 = await donate('products/p', body, { key: reader });
    expect(r1.status).toBe(403);
    expect(r1.body.extras.grantedScopes).toEqual(['READ_PUBLIC']);
    expect((await donate('products/p', body, { key: community.pk })).status).toBe(403);
    const other = await makeCommunity(db(), 'others');
    const otherKey = await makeKey(db(), other.id, ['WRITE_SALES']);
    expect((await donate('products/p', body, { key: otherKey })).body.code).toBe('COMMUNITY_MISMATCH');
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it("another community's sign-in token does not name a member here", async () => {
    await makeProduct('p');
    const other = await makeCommunity(db(), 'elsewhere');
    const user = await makeUser(db(), 'eve');
    const { token } = await server.sessions.issue(user.id, Date.now(), undefined, other.tag);
    const res = await donate(
      'products/p',
      { donation: { amount: 500 }, ...URLS },
      { headers: { 'X-Svc-Auth-Token': token } },
    );
    expect(res.status).toBe(401);
  });

  it("widget donations may only return to the community's own sites", async () => {
    await makeProduct('p');
    const res = await server.request(`/api/actions/${community.tag}/products/p/donate`, {
      method: 'POST',
      json: {
        donation: { amount: 500 },
        customer: { email: 'a@example.com' },
        successUrl: 'https://evil.example/',
        cancelUrl: URLS.cancelUrl,
      },
      headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('successUrl');
  });

  it("widget return URLs follow the one origin rule: the landing site and hosted sites are the community's too", async () => {
    await makeProduct('p');
    await updateCommunitySettings(db(), community.tag, { landingUrl: 'https://givers.example/welcome' });
    const hosted = `http://${community.tag}.localhost:${new URL(server.url).port}`;
    const widget = { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' };
    const open = (successUrl: string) =>
      server.request(`/api/actions/${community.tag}/products/p/donate`, {
        method: 'POST',
        headers: widget,
        json: {
          donation: { amount: 500 },
          customer: { email: 'a@example.com' },
          successUrl,
          cancelUrl: URLS.cancelUrl,
        },
      });
    expect((await open('https://givers.example/thanks')).status).toBe(200);
    expect((await open(`${hosted}/thanks`)).status).toBe(200);
    const elsewhere = await open('https://givers.example.evil.example/thanks');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.extras.field).toBe('successUrl');
  });

  it('stores return URLs as the URL parser reads them, so every later reader sees the host that was judged', async () => {
    await makeProduct('p');
    const widget = { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' };
    const viaWidget = await server.request(`/api/actions/${community.tag}/products/p/donate`, {
      method: 'POST',
      headers: widget,
      json: {
        donation: { amount: 500 },
        customer: { email: 'a@example.com' },
        successUrl: 'https://shop.example\\@evil.example/thanks/{CHECKOUT_SESSION_ID}',
        cancelUrl: 'HTTPS://SHOP.EXAMPLE:443/a/../cancel',
      },
    });
    expect(viaWidget.status).toBe(200);
    expect(await checkoutRow(viaWidget.body.sessionId)).toMatchObject({
      success_url: 'https://shop.example/@evil.example/thanks/{CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cancel',
    });
    // A server's secret key may send its buyers anywhere, but what is stored is still the normalised URL.
    const viaV1 = await donate('products/p', {
      donation: { amount: 500 },
      customer: { email: 'a@example.com' },
      successUrl: 'http://127.0.0.1:3290\\@evil.example/',
      cancelUrl: URLS.cancelUrl,
    });
    expect(viaV1.status).toBe(200);
    expect((await checkoutRow(viaV1.body.sessionId)).success_url).toBe('http://127.0.0.1:3290/@evil.example/');
  });

  it('refuses return URLs with credentials in them (400 naming the field), and opens nothing', async () => {
    await makeProduct('p');
    for (const [field, url] of [
      ['successUrl', 'https://user@shop.example/'],
      ['cancelUrl', 'https://u:p@shop.example/cancel'],
    ] as const) {
      const res = await donate('products/p', {
        donation: { amount: 500 },
        customer: { email: 'a@example.com' },
        ...URLS,
        [field]: url,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field } });
      expect(res.body.error).toContain('must not contain a user name or password');
    }
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it("the member checkout returns only to the community's sites", async () => {
    await makeProduct('mug', { priceCents: 800 });
    const user = await makeUser(db(), 'finn');
    const { token } = await server.sessions.issue(user.id, Date.now(), undefined, null);
    const res = await server.request('/api/users/me/checkout', {
      method: 'POST',
      json: {
        sku: 'mug',
        quantity: 1,
        communityTag: community.tag,
        successUrl: 'https://evil.example/phish',
        cancelUrl: URLS.cancelUrl,
      },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.extras.field).toBe('successUrl');
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it('widget donations and summaries act as the public: a members-only event is not found, a members-only marketplace is 403', async () => {
    await makeEvent(db(), community.id, {
      slug: 'secret',
      visibility: 'MEMBERS_ONLY',
      donationConfig: PWYW,
      tiers: [{ priceCents: 0 }],
    });
    const widget = { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' };
    const body = { donation: { amount: 500 }, customer: { email: 'a@example.com' }, ...URLS };
    expect(
      (
        await server.request(`/api/actions/${community.tag}/events/secret/donate`, {
          method: 'POST',
          json: body,
          headers: widget,
        })
      ).status,
    ).toBe(404);
    expect((await summary('events/secret')).status).toBe(404);
    // A server's secret key acts for its community.
    expect((await donate('events/secret', body)).status).toBe(200);
    await makeProduct('hidden');
    await db()
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'MARKETPLACE', enabled: true, visibility: 'MEMBERS_ONLY' }]) })
      .where('id', '=', community.id)
      .execute();
    const r = await server.request(`/api/actions/${community.tag}/products/hidden/donate`, {
      method: 'POST',
      json: body,
      headers: widget,
    });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('PAGE_MEMBERS_ONLY');
    expect((await summary('products/hidden')).body.code).toBe('PAGE_MEMBERS_ONLY');
    // A secret key reads the summary whatever the page's visibility; the event's own visibility still holds.
    const reader = await makeKey(db(), community.id, ['READ_PUBLIC']);
    const hidden = await server.request(`${v1()}/products/hidden/donations/summary`, { key: reader });
    expect(hidden.status).toBe(200);
    expect(hidden.body).toEqual({ total: 0, count: 0, currency: null });
    expect((await server.request(`${v1()}/events/secret/donations/summary`, { key: reader })).status).toBe(404);
  });

  it('receipts escape what the community and the products are called, and a refunded-before-completion payment sends none', async () => {
    await db()
      .updateTable('communities')
      .set({ name: 'Givers <img src=x onerror=alert(1)>' })
      .where('id', '=', community.id)
      .execute();
    await makeProduct('p', { donationConfig: { ...PWYW, label: '<script>alert(2)</script>' } });
    const res = await donate('products/p', {
      donation: { amount: 500 },
      customer: { email: 'a@example.com' },
      ...URLS,
    });
    await pay(res.body.checkoutUrl);
    const [mail] = await outboxRowsTo(db(), 'a@example.com');
    expect(mail.html_body).not.toMatch(/<img|<script/);
    expect(mail.html_body).toContain('Givers &lt;img src=x onerror=alert(1)&gt;');
    expect(mail.text_body).toContain('For: <script>alert(2)</script>');

    const early = await donate('products/p', {
      donation: { amount: 500 },
      customer: { email: 'b@example.com' },
      ...URLS,
    });
    await server.payments.refund('pi_refunded_first', 500);
    await server.payments.fulfil(early.body.sessionId, 'pi_refunded_first');
    expect(await outboxRowsTo(db(), 'b@example.com')).toHaveLength(0);
  });

  it('the summary is aggregates only', async () => {
    await makeProduct('p');
    const res = await donate('products/p', {
      donation: { amount: 500 },
      customer: { email: 'secret-donor@example.com' },
      ...URLS,
    });
    await pay(res.body.checkoutUrl);
    const s = await summary('products/p');
    expect(Object.keys(s.body).sort()).toEqual(['count', 'currency', 'total']);
    expect(s.text).not.toContain('secret-donor');
  });
});
