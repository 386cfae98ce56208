// The Stripe gateway, offline: the real `stripe` SDK is pointed (host/port/protocol) at an HTTP
// server in this test that records what we send and answers as Stripe's API does; incoming events
// are signed with the SDK's own generateTestHeaderString, exactly as Stripe signs them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import type {
  CheckoutRecord,
  CheckoutRequest,
  FulfilmentHandler,
  PaymentFacts,
  ReleaseReason,
  RenewalFacts,
  RenewalOutcome,
} from '../../server/payments/index.ts';
import { PaymentProcessorError } from '../../server/payments/index.ts';
import { stripeClient } from '../../server/payments/stripe.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

const SECRET_KEY = 'sk_test_svc123';
const WEBHOOK_SECRET = 'whsec_svctestsecret';

interface StripeCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  form: URLSearchParams;
}

/** Answers POST /v1/checkout/sessions like Stripe's API (same idempotency key -> same session). */
async function startStripeApi(opts: { failWith?: number } = {}) {
  const calls: StripeCall[] = [];
  const byKey = new Map<string, object>();
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      calls.push({ method: req.method!, path: req.url!, headers: req.headers, form: new URLSearchParams(body) });
      res.setHeader('Content-Type', 'application/json');
      if (req.headers.authorization !== `Bearer ${SECRET_KEY}`) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } }));
        return;
      }
      if (opts.failWith) {
        res.statusCode = opts.failWith;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Invalid currency: xyz' } }));
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        const key = String(req.headers['idempotency-key']);
        if (!byKey.has(key)) {
          const id = `cs_test_${String(++n).padStart(4, '0')}`;
          byKey.set(key, {
            id,
            object: 'checkout.session',
            url: `https://checkout.stripe.com/c/pay/${id}`,
            status: 'open',
            payment_status: 'unpaid',
          });
        }
        res.end(JSON.stringify(byKey.get(key)));
        return;
      }
      const subscription = /^\/v1\/subscriptions\/(sub_\w+)$/.exec(req.url ?? '');
      if (req.method === 'POST' && subscription) {
        res.end(JSON.stringify({ id: subscription[1], object: 'subscription', status: 'active' }));
        return;
      }
      const expire = /^\/v1\/checkout\/sessions\/(cs_test_\d+)\/expire$/.exec(req.url ?? '');
      if (req.method === 'POST' && expire) {
        res.end(JSON.stringify({ id: expire[1], object: 'checkout.session', status: 'expired' }));
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    calls,
    client: stripeClient(SECRET_KEY, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let server: TestServer;
let running: TestServer | null = null;
let stripeApi: Awaited<ReturnType<typeof startStripeApi>>;
let rec: {
  completed: Array<{ checkout: CheckoutRecord; payment: PaymentFacts }>;
  released: ReleaseReason[];
  refunded: number[];
  failNext: boolean;
  renewed: RenewalFacts[];
  renewalOutcome: RenewalOutcome;
  ended: Array<string | null>;
};
let communityId: string;

async function start(api: { failWith?: number } = {}) {
  stripeApi = await startStripeApi(api);
  rec = { completed: [], released: [], refunded: [], failNext: false, renewed: [], renewalOutcome: {}, ended: [] };
  const handler: FulfilmentHandler = {
    async completed(_trx, checkout, payment) {
      if (rec.failNext) {
        rec.failNext = false;
        throw new Error('handler failed');
      }
      rec.completed.push({ checkout, payment });
    },
    async released(_trx, _checkout, reason) {
      rec.released.push(reason);
    },
    async refunded(_trx, _checkout, refund) {
      rec.refunded.push(refund.amountRefunded);
    },
    async renewed(_trx, _checkout, renewal) {
      rec.renewed.push(renewal);
      return rec.renewalOutcome;
    },
    async subscriptionEnded(_trx, _checkout, ended) {
      rec.ended.push(ended.subscriptionId);
    },
  };
  server = await startTestServer({
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    payments: { stripe: stripeApi.client, handlers: { test: handler } },
  });
  running = server;
  communityId = (await makeCommunity(server.database.db, 'stripecom')).id;
}

afterEach(async () => {
  await running?.close();
  running = null;
  await stripeApi?.close();
});

function request(over: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    communityId,
    purpose: { kind: 'test' },
    lineItems: [
      { name: 'Ticket', description: 'General admission', unitAmount: 2500, quantity: 2 },
      { name: 'Donation', unitAmount: 300, quantity: 1 },
    ],
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    successUrl: 'https://shop.example/thanks?s={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/cancel',
    ...over,
  };
}

/** As a route opens one: the processor first, then the row in a transaction. */
const open = (over: Partial<CheckoutRequest> = {}) =>
  server.payments.openCheckout(request(over), (prepared) =>
    transaction(server.database.db, async (trx) => {
      await server.payments.persist(trx, prepared);
      return prepared;
    }),
  );

/** Posts an event to /stripe/webhook signed as Stripe signs it. */
async function deliver(type: string, object: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    data: { object },
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
  });
  const signature = stripeApi.client.webhooks.generateTestHeaderString({ payload, secret });
  return server.request('/stripe/webhook', {
    method: 'POST',
    body: payload,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
  });
}

describe('happy', () => {
  beforeEach(() => start());

  it('opens a Checkout Session with line items, currency, URLs, e-mail, expiry, metadata and an idempotency key', async () => {
    const { opened, checkout } = await open();
    expect(opened).toMatchObject({
      sessionId: 'cs_test_0001',
      checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_0001',
    });
    expect(stripeApi.calls).toHaveLength(1);
    const { form, headers, path } = stripeApi.calls[0];
    expect(path).toBe('/v1/checkout/sessions');
    expect(headers['idempotency-key']).toBe(`svc_checkout_${checkout.id}`);
    expect(form.get('mode')).toBe('payment');
    expect(form.get('line_items[0][quantity]')).toBe('2');
    expect(form.get('line_items[0][price_data][currency]')).toBe('eur');
    expect(form.get('line_items[0][price_data][unit_amount]')).toBe('2500');
    expect(form.get('line_items[0][price_data][product_data][name]')).toBe('Ticket');
    expect(form.get('line_items[0][price_data][product_data][description]')).toBe('General admission');
    expect(form.get('line_items[1][price_data][unit_amount]')).toBe('300');
    // The placeholder goes to Stripe untouched: Stripe fills it in on its redirect.
    expect(form.get('success_url')).toBe('https://shop.example/thanks?s={CHECKOUT_SESSION_ID}');
    expect(form.get('cancel_url')).toBe('https://shop.example/cancel');
    expect(form.get('customer_email')).toBe('buyer@example.com');
    expect(form.get('client_reference_id')).toBe(checkout.id);
    expect(Number(form.get('expires_at'))).toBe(Math.floor(Date.parse(checkout.expiresAt) / 1000));
    expect(Number(form.get('expires_at')) - Date.now() / 1000).toBeGreaterThan(29 * 60);
    expect(form.get('metadata[svc_checkout_id]')).toBe(checkout.id);
    expect(form.get('payment_intent_data[metadata][svc_checkout_id]')).toBe(checkout.id);
  });

  it('a paid checkout.session.completed fulfils with the payment intent as the transaction id', async () => {
    const { opened } = await open();
    const res = await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_123',
    });
    expect(res.status).toBe(200);
    expect(rec.completed).toHaveLength(1);
    expect(rec.completed[0].payment).toEqual({ transactionId: 'pi_123', gateway: 'stripe', reopened: false });
  });

  it('the same event delivered twice, or concurrently, fulfils once', async () => {
    const { opened } = await open();
    const object = {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_dup',
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver('checkout.session.completed', object)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(rec.completed).toHaveLength(1);
  });

  it('a delayed payment method completes unpaid and is fulfilled only on async_payment_succeeded', async () => {
    const { opened } = await open();
    await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'unpaid',
      payment_intent: 'pi_sepa',
    });
    expect(rec.completed).toHaveLength(0);
    await deliver('checkout.session.async_payment_succeeded', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_sepa',
    });
    expect(rec.completed).toHaveLength(1);
  });

  it('async_payment_failed and expired release the holds once', async () => {
    const a = await open();
    const b = await open();
    await deliver('checkout.session.async_payment_failed', { id: a.opened.sessionId, object: 'checkout.session' });
    await deliver('checkout.session.expired', { id: b.opened.sessionId, object: 'checkout.session' });
    await deliver('checkout.session.expired', { id: b.opened.sessionId, object: 'checkout.session' });
    expect(rec.released).toEqual(['FAILED', 'EXPIRED']);
  });

  it('a full charge.refunded reaches the handler once; a partial one is left alone', async () => {
    const { opened } = await open();
    await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_ref',
    });
    await deliver('charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      payment_intent: 'pi_ref',
      amount: 5300,
      amount_refunded: 1000,
    });
    expect(rec.refunded).toEqual([]);
    await deliver('charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      payment_intent: 'pi_ref',
      amount: 5300,
      amount_refunded: 5300,
    });
    await deliver('charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      payment_intent: 'pi_ref',
      amount: 5300,
      amount_refunded: 5300,
    });
    expect(rec.refunded).toEqual([5300]);
  });

  it('events we do not handle are acknowledged', async () => {
    const res = await deliver('customer.created', { id: 'cus_1', object: 'customer' });
    expect(res.status).toBe(200);
  });

  it('a failure while fulfilling answers 500 so Stripe retries, and the retry fulfils', async () => {
    const { opened } = await open();
    const object = {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_retry',
    };
    rec.failNext = true;
    const first = await deliver('checkout.session.completed', object);
    expect(first.status).toBe(500);
    expect(first.body).toEqual({
      error: expect.any(String),
      code: 'INTERNAL',
      requestId: first.headers.get('x-request-id'),
    });
    expect(first.text).not.toContain('handler failed');
    expect((await deliver('checkout.session.completed', object)).status).toBe(200);
    expect(rec.completed).toHaveLength(1);
  });

  it('the local checkout page does not exist when Stripe is the gateway', async () => {
    const { opened } = await open();
    expect((await fetch(`${server.url}/checkout/${opened.sessionId}`)).status).toBe(404);
  });
});

describe('subscriptions', () => {
  beforeEach(() => start());

  const subscription = (over: Partial<CheckoutRequest> = {}) =>
    open({
      lineItems: [
        { name: 'Membership', unitAmount: 333, quantity: 1 },
        { name: 'Rounding', unitAmount: 1, quantity: 1, firstChargeOnly: true },
      ],
      recurring: { interval: 'month', intervalCount: 2 },
      installments: { count: 3 },
      ...over,
    });

  /** An invoice as Stripe's current API shapes it: the subscription and its metadata under parent. */
  const invoice = (checkoutId: string, over: Record<string, unknown> = {}) => ({
    id: 'in_1',
    object: 'invoice',
    billing_reason: 'subscription_cycle',
    amount_paid: 333,
    parent: {
      type: 'subscription_details',
      subscription_details: { subscription: 'sub_1', metadata: { svc_checkout_id: checkoutId } },
    },
    ...over,
  });

  it('billing terms open a subscription-mode session: recurring price_data, a first-charge-only line, subscription metadata', async () => {
    const { checkout } = await subscription();
    const { form } = stripeApi.calls[0];
    expect(form.get('mode')).toBe('subscription');
    expect(form.get('line_items[0][price_data][recurring][interval]')).toBe('month');
    expect(form.get('line_items[0][price_data][recurring][interval_count]')).toBe('2');
    expect(form.get('line_items[0][price_data][unit_amount]')).toBe('333');
    expect(form.has('line_items[1][price_data][recurring][interval]')).toBe(false);
    expect(form.get('line_items[1][price_data][unit_amount]')).toBe('1');
    expect(form.get('subscription_data[metadata][svc_checkout_id]')).toBe(checkout.id);
    expect(form.get('subscription_data[metadata][svc_installments]')).toBe('3');
    expect(form.get('metadata[svc_checkout_id]')).toBe(checkout.id);
    // Stripe refuses payment_intent_data in subscription mode.
    expect([...form.keys()].some((k) => k.startsWith('payment_intent_data'))).toBe(false);
  });

  it('a yearly interval is sent as year/1', async () => {
    await open({ recurring: { interval: 'year', intervalCount: 1 } });
    const { form } = stripeApi.calls[0];
    expect(form.get('mode')).toBe('subscription');
    expect(form.get('line_items[0][price_data][recurring][interval]')).toBe('year');
    expect(form.get('line_items[0][price_data][recurring][interval_count]')).toBe('1');
  });

  it('the completion of a subscription checkout tells the handler the subscription id', async () => {
    const { opened } = await subscription();
    await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: null,
      subscription: 'sub_1',
    });
    expect(rec.completed[0].payment).toEqual({
      transactionId: opened.sessionId,
      gateway: 'stripe',
      reopened: false,
      subscriptionId: 'sub_1',
    });
  });

  it("invoice.paid for a later period reaches renewed() once per invoice; the first invoice is the checkout's own", async () => {
    const { opened, checkout } = await subscription();
    await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      subscription: 'sub_1',
    });
    await deliver('invoice.paid', invoice(checkout.id, { id: 'in_0', billing_reason: 'subscription_create' }));
    expect(rec.renewed).toEqual([]);
    expect((await deliver('invoice.paid', invoice(checkout.id))).status).toBe(200);
    expect(rec.renewed).toEqual([{ transactionId: 'in_1', gateway: 'stripe', amount: 333, subscriptionId: 'sub_1' }]);
    // Nothing asked of the subscription: no call to Stripe beyond the session.
    expect(stripeApi.calls.map((c) => c.path)).toEqual(['/v1/checkout/sessions']);
  });

  it('a renewal that finishes the plan cancels the subscription at the period end; one between cycles skips to the next', async () => {
    const { opened, checkout } = await subscription();
    await deliver('checkout.session.completed', {
      id: opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      subscription: 'sub_1',
    });
    rec.renewalOutcome = { stopBilling: true };
    await deliver('invoice.paid', invoice(checkout.id));
    const stop = stripeApi.calls.at(-1)!;
    expect(`${stop.method} ${stop.path}`).toBe('POST /v1/subscriptions/sub_1');
    expect(stop.form.get('cancel_at_period_end')).toBe('true');

    const resume = '2031-01-15T00:00:00.000Z';
    rec.renewalOutcome = { skipUntil: resume };
    await deliver('invoice.paid', invoice(checkout.id, { id: 'in_2' }));
    const skip = stripeApi.calls.at(-1)!;
    expect(skip.form.get('trial_end')).toBe(String(Date.parse(resume) / 1000));
    expect(skip.form.get('proration_behavior')).toBe('none');
  });

  it('customer.subscription.deleted reaches subscriptionEnded(); an invoice of a checkout never paid reaches nothing', async () => {
    const paid = await subscription();
    await deliver('checkout.session.completed', {
      id: paid.opened.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      subscription: 'sub_1',
    });
    await deliver('customer.subscription.deleted', {
      id: 'sub_1',
      object: 'subscription',
      metadata: { svc_checkout_id: paid.checkout.id },
    });
    expect(rec.ended).toEqual(['sub_1']);
    const unpaid = await subscription();
    await deliver('invoice.paid', invoice(unpaid.checkout.id));
    expect(rec.renewed).toEqual([]);
  });
});

describe('paid membership through Stripe', () => {
  /** The real fulfilment handlers (no test kind): POST /apply/checkout opens the session. */
  async function startReal() {
    stripeApi = await startStripeApi();
    server = await startTestServer({
      env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
      payments: { stripe: stripeApi.client },
    });
    running = server;
    const c = await makeCommunity(server.database.db, 'stripeclub');
    const key = (await createSecretKey(server.database.db, c.id, ['WRITE_MEMBERS'])).key;
    const segmentId = newId();
    await server.database.db
      .insertInto('segments')
      .values({
        id: segmentId,
        community_id: c.id,
        name: 'Patrons',
        description: null,
        color: '#123456',
        currency: 'EUR',
        price_monthly: 1000,
        price_quarterly: 2700,
        price_yearly: 10000,
        price_one_time: 30000,
        installment_total_price: 1000,
        installment_count: 3,
        installment_interval_months: 2,
        access_duration_months: 12,
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
    const post = (path: string, json: unknown) =>
      server.request(`/v1/communities/stripeclub${path}`, { method: 'POST', key, json });
    return { c, segmentId, post };
  }

  it('each billing cycle maps to its Stripe session: subscriptions month/1, month/3, year/1, installments month/N, one-time a payment', async () => {
    const { segmentId, post } = await startReal();
    const expected: Record<string, { mode: string; interval?: string; count?: string; amount: string }> = {
      MONTHLY: { mode: 'subscription', interval: 'month', count: '1', amount: '1000' },
      QUARTERLY: { mode: 'subscription', interval: 'month', count: '3', amount: '2700' },
      YEARLY: { mode: 'subscription', interval: 'year', count: '1', amount: '10000' },
      INSTALLMENT_PLAN: { mode: 'subscription', interval: 'month', count: '2', amount: '333' },
      ONE_TIME: { mode: 'payment', amount: '30000' },
    };
    for (const [i, [cycle, want]] of Object.entries(expected).entries()) {
      const submitted = await post(`/segments/${segmentId}/submit`, {
        answers: { email: `cycle${i}@example.com`, name: `Cycle ${i}` },
        billingCycle: cycle,
      });
      const opened = await post('/apply/checkout', { requestId: submitted.body.requestId });
      expect(opened.status).toBe(200);
      const { form } = stripeApi.calls.at(-1)!;
      expect(form.get('mode')).toBe(want.mode);
      expect(form.get('line_items[0][price_data][unit_amount]')).toBe(want.amount);
      expect(form.get('line_items[0][price_data][recurring][interval]')).toBe(want.interval ?? null);
      expect(form.get('line_items[0][price_data][recurring][interval_count]')).toBe(want.count ?? null);
      expect(form.get('customer_email')).toBe(`cycle${i}@example.com`);
      expect(form.get('success_url')).toMatch(
        /^http:\/\/stripeclub\.localhost:\d+\/\?svc_apply=success&session=\{CHECKOUT_SESSION_ID\}$/,
      );
      if (cycle === 'INSTALLMENT_PLAN') {
        expect(form.get('subscription_data[metadata][svc_installments]')).toBe('3');
        expect(form.get('line_items[1][price_data][unit_amount]')).toBe('1');
      }
    }
  });

  it('completion accepts the member with the subscription id; invoice.paid extends access; subscription.deleted ends the billing', async () => {
    const { c, segmentId, post } = await startReal();
    const db = server.database.db;
    const submitted = await post(`/segments/${segmentId}/submit`, {
      answers: { email: 'sub@example.com', name: 'Sub Scriber' },
      billingCycle: 'MONTHLY',
    });
    const opened = await post('/apply/checkout', { requestId: submitted.body.requestId });
    await deliver('checkout.session.completed', {
      id: opened.body.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      subscription: 'sub_m1',
    });
    const membership = await db
      .selectFrom('memberships')
      .selectAll()
      .where('community_id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(membership.status).toBe('ACCEPTED');
    const billing = await db
      .selectFrom('membership_billing')
      .selectAll()
      .where('membership_id', '=', membership.id)
      .executeTakeFirstOrThrow();
    expect(billing).toMatchObject({
      processor_subscription_id: 'sub_m1',
      gateway: 'stripe',
      billing_cycle: 'MONTHLY',
      unit_amount: 1000,
    });
    const checkoutId = billing.checkout_session_id;
    const paidInvoice = {
      id: 'in_m2',
      object: 'invoice',
      billing_reason: 'subscription_cycle',
      amount_paid: 1000,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: 'sub_m1', metadata: { svc_checkout_id: checkoutId } },
      },
    };
    await deliver('invoice.paid', paidInvoice);
    await deliver('invoice.paid', paidInvoice);
    const renewed = await db
      .selectFrom('membership_billing')
      .selectAll()
      .where('id', '=', billing.id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(renewed.access_until!)).toBeGreaterThan(Date.parse(billing.access_until!));
    expect(
      await db.selectFrom('membership_charges').select('kind').where('billing_id', '=', billing.id).execute(),
    ).toHaveLength(2);
    await deliver('customer.subscription.deleted', {
      id: 'sub_m1',
      object: 'subscription',
      metadata: { svc_checkout_id: checkoutId },
    });
    const ended = await db
      .selectFrom('membership_billing')
      .selectAll()
      .where('id', '=', billing.id)
      .executeTakeFirstOrThrow();
    expect(ended).toMatchObject({ status: 'ENDED', next_charge_at: null, access_until: renewed.access_until });
    const approved = await db
      .selectFrom('webhook_events')
      .select('name')
      .where('community_id', '=', c.id)
      .where('name', '=', 'member.approved')
      .execute();
    expect(approved).toHaveLength(1);
  });
});

describe('a donation through Stripe', () => {
  it('redelivered and concurrent completion events record the donation and e-mail its receipt once, with the payment intent as reference', async () => {
    stripeApi = await startStripeApi();
    server = await startTestServer({
      env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
      payments: { stripe: stripeApi.client },
    });
    running = server;
    const db = server.database.db;
    const c = await makeCommunity(db, 'stripegivers', { name: 'Stripe Givers' });
    const key = (await createSecretKey(db, c.id, ['WRITE_SALES'])).key;
    await db
      .insertInto('products')
      .values({
        id: newId(),
        community_id: c.id,
        sku: 'well',
        name: 'Well',
        description: null,
        price_cents: 1000,
        currency: 'USD',
        image_url: null,
        is_active: 1,
        seller_id: null,
        donation_config: JSON.stringify({ enabled: true, mode: 'pwyw', currency: 'USD' }),
        created_at: nowIso(),
        updated_at: nowIso(),
      })
      .execute();
    const opened = await server.request('/v1/communities/stripegivers/products/well/donate', {
      method: 'POST',
      key,
      json: {
        donation: { amount: 2500 },
        customer: { email: 'giver@example.com' },
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/no',
      },
    });
    expect(opened.status).toBe(200);
    const completed = {
      id: opened.body.sessionId,
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_gift',
    };
    await deliver('checkout.session.completed', completed);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => deliver('checkout.session.completed', completed)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await db.selectFrom('donations').select('transaction_id').execute()).toEqual([
      { transaction_id: 'pi_gift' },
    ]);
    const mails = await db
      .selectFrom('mail_outbox')
      .select(['subject', 'text_body'])
      .where('to_address', '=', 'giver@example.com')
      .execute();
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Receipt for your donation to Stripe Givers');
    expect(mails[0].text_body).toContain('Payment reference: pi_gift');
    expect(mails[0].text_body).toContain('Amount donated: $25.00');
  });
});

describe('errors', () => {
  it('a checkout whose transaction fails is discarded at Stripe, and no row is left', async () => {
    await start();
    await expect(
      server.payments.openCheckout(request(), (prepared) =>
        transaction(server.database.db, async (trx) => {
          await server.payments.persist(trx, prepared);
          throw new Error('seats gone');
        }),
      ),
    ).rejects.toThrow('seats gone');
    expect(stripeApi.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v1/checkout/sessions',
      'POST /v1/checkout/sessions/cs_test_0001/expire',
    ]);
    expect(await server.database.db.selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it('a processor refusal surfaces as PaymentProcessorError and leaves no checkout row', async () => {
    await start({ failWith: 400 });
    await expect(open()).rejects.toBeInstanceOf(PaymentProcessorError);
    expect(await server.database.db.selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });
});

describe('security', () => {
  beforeEach(() => start());

  it('an event signed with another secret is refused with advice on fixing the signature, and grants nothing', async () => {
    const { opened } = await open();
    const res = await deliver(
      'checkout.session.completed',
      { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_forged' },
      'whsec_attacker',
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_SIGNATURE',
      requestId: res.headers.get('x-request-id'),
      extras: { reason: expect.any(String) },
    });
    expect(res.body.error).toContain('STRIPE_WEBHOOK_SECRET');
    expect(rec.completed).toHaveLength(0);
  });

  it('an unsigned event, or one whose body was changed after signing, is refused', async () => {
    const { opened } = await open();
    const payload = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { id: opened.sessionId, payment_status: 'paid', payment_intent: 'pi_x' } },
    });
    const unsigned = await server.request('/stripe/webhook', {
      method: 'POST',
      body: payload,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(unsigned.status).toBe(400);
    const signature = stripeApi.client.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = await server.request('/stripe/webhook', {
      method: 'POST',
      body: payload.replace('pi_x', 'pi_y'),
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
    });
    expect(tampered.status).toBe(400);
    expect(rec.completed).toHaveLength(0);
  });

  it('a correctly signed but old event (replayed) is refused', async () => {
    const { opened } = await open();
    const payload = JSON.stringify({
      id: 'evt_old',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { id: opened.sessionId, payment_status: 'paid', payment_intent: 'pi_old' } },
    });
    const signature = stripeApi.client.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    const res = await server.request('/stripe/webhook', {
      method: 'POST',
      body: payload,
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
    });
    expect(res.status).toBe(400);
    expect(rec.completed).toHaveLength(0);
  });

  it('a completion for a session this server never opened grants nothing', async () => {
    const res = await deliver('checkout.session.completed', {
      id: 'cs_test_foreign',
      object: 'checkout.session',
      payment_status: 'paid',
      payment_intent: 'pi_foreign',
    });
    expect(res.status).toBe(200);
    expect(rec.completed).toHaveLength(0);
  });
});
