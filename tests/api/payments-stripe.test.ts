// The Stripe gateway, offline: the real `stripe` SDK is pointed (host/port/protocol) at an HTTP
// server in this test that records what we send and answers as Stripe's API does; incoming events
// are signed with the SDK's own generateTestHeaderString, exactly as Stripe signs them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import type { CheckoutRecord, CheckoutRequest, FulfilmentHandler, PaymentFacts, ReleaseReason } from '../../server/payments/index.ts';
import { PaymentProcessorError } from '../../server/payments/index.ts';
import { stripeClient } from '../../server/payments/stripe.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

const SECRET_KEY = 'sk_test_svc123';
const WEBHOOK_SECRET = 'whsec_svctestsecret';

interface StripeCall { method: string; path: string; headers: http.IncomingHttpHeaders; form: URLSearchParams }

/** Answers POST /v1/checkout/sessions like Stripe's API (same idempotency key -> same session). */
async function startStripeApi(opts: { failWith?: number } = {}) {
  const calls: StripeCall[] = [];
  const byKey = new Map<string, object>();
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
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
          byKey.set(key, { id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}`, status: 'open', payment_status: 'unpaid' });
        }
        res.end(JSON.stringify(byKey.get(key)));
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
let rec: { completed: Array<{ checkout: CheckoutRecord; payment: PaymentFacts }>; released: ReleaseReason[]; refunded: number[]; failNext: boolean };
let communityId: string;

async function start(api: { failWith?: number } = {}) {
  stripeApi = await startStripeApi(api);
  rec = { completed: [], released: [], refunded: [], failNext: false };
  const handler: FulfilmentHandler = {
    async completed(_trx, checkout, payment) {
      if (rec.failNext) { rec.failNext = false; throw new Error('handler failed'); }
      rec.completed.push({ checkout, payment });
    },
    async released(_trx, _checkout, reason) { rec.released.push(reason); },
    async refunded(_trx, _checkout, refund) { rec.refunded.push(refund.amountRefunded); },
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
    lineItems: [{ name: 'Ticket', description: 'General admission', unitAmount: 2500, quantity: 2 }, { name: 'Donation', unitAmount: 300, quantity: 1 }],
    currency: 'EUR',
    customerEmail: 'buyer@example.com',
    successUrl: 'https://shop.example/thanks?s={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/cancel',
    ...over,
  };
}

/** As a route opens one: the processor first, then the row in a transaction. */
const open = (over: Partial<CheckoutRequest> = {}) =>
  server.payments.openCheckout(request(over), (prepared) => transaction(server.database.db, async (trx) => {
    await server.payments.persist(trx, prepared);
    return prepared;
  }));

/** Posts an event to /stripe/webhook signed as Stripe signs it. */
async function deliver(type: string, object: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({ id: `evt_${Math.random().toString(36).slice(2)}`, object: 'event', type, data: { object }, api_version: '2025-01-01', created: Math.floor(Date.now() / 1000) });
  const signature = stripeApi.client.webhooks.generateTestHeaderString({ payload, secret });
  return server.request('/stripe/webhook', { method: 'POST', body: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } });
}

describe('happy', () => {
  beforeEach(() => start());

  it('opens a Checkout Session with line items, currency, URLs, e-mail, expiry, metadata and an idempotency key', async () => {
    const { opened, checkout } = await open();
    expect(opened).toMatchObject({ sessionId: 'cs_test_0001', checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_0001' });
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
    const res = await deliver('checkout.session.completed', { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_123' });
    expect(res.status).toBe(200);
    expect(rec.completed).toHaveLength(1);
    expect(rec.completed[0].payment).toEqual({ transactionId: 'pi_123', gateway: 'stripe', reopened: false });
  });

  it('the same event delivered twice, or concurrently, fulfils once', async () => {
    const { opened } = await open();
    const object = { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_dup' };
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver('checkout.session.completed', object)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(rec.completed).toHaveLength(1);
  });

  it('a delayed payment method completes unpaid and is fulfilled only on async_payment_succeeded', async () => {
    const { opened } = await open();
    await deliver('checkout.session.completed', { id: opened.sessionId, object: 'checkout.session', payment_status: 'unpaid', payment_intent: 'pi_sepa' });
    expect(rec.completed).toHaveLength(0);
    await deliver('checkout.session.async_payment_succeeded', { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_sepa' });
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
    await deliver('checkout.session.completed', { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_ref' });
    await deliver('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: 'pi_ref', amount: 5300, amount_refunded: 1000 });
    expect(rec.refunded).toEqual([]);
    await deliver('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: 'pi_ref', amount: 5300, amount_refunded: 5300 });
    await deliver('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: 'pi_ref', amount: 5300, amount_refunded: 5300 });
    expect(rec.refunded).toEqual([5300]);
  });

  it('events we do not handle are acknowledged', async () => {
    const res = await deliver('customer.created', { id: 'cus_1', object: 'customer' });
    expect(res.status).toBe(200);
  });

  it('a failure while fulfilling answers 500 so Stripe retries, and the retry fulfils', async () => {
    const { opened } = await open();
    const object = { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_retry' };
    rec.failNext = true;
    const first = await deliver('checkout.session.completed', object);
    expect(first.status).toBe(500);
    expect(first.text).not.toContain('handler failed');
    expect((await deliver('checkout.session.completed', object)).status).toBe(200);
    expect(rec.completed).toHaveLength(1);
  });

  it('the local checkout page does not exist when Stripe is the gateway', async () => {
    const { opened } = await open();
    expect((await fetch(`${server.url}/checkout/${opened.sessionId}`)).status).toBe(404);
  });
});

describe('errors', () => {
  it('a checkout whose transaction fails is discarded at Stripe, and no row is left', async () => {
    await start();
    await expect(server.payments.openCheckout(request(), (prepared) => transaction(server.database.db, async (trx) => {
      await server.payments.persist(trx, prepared);
      throw new Error('seats gone');
    }))).rejects.toThrow('seats gone');
    expect(stripeApi.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/checkout/sessions', 'POST /v1/checkout/sessions/cs_test_0001/expire']);
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
    const res = await deliver('checkout.session.completed', { id: opened.sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_forged' }, 'whsec_attacker');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    expect(res.body.error).toContain('STRIPE_WEBHOOK_SECRET');
    expect(rec.completed).toHaveLength(0);
  });

  it('an unsigned event, or one whose body was changed after signing, is refused', async () => {
    const { opened } = await open();
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: { id: opened.sessionId, payment_status: 'paid', payment_intent: 'pi_x' } } });
    const unsigned = await server.request('/stripe/webhook', { method: 'POST', body: payload, headers: { 'Content-Type': 'application/json' } });
    expect(unsigned.status).toBe(400);
    const signature = stripeApi.client.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = await server.request('/stripe/webhook', { method: 'POST', body: payload.replace('pi_x', 'pi_y'), headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } });
    expect(tampered.status).toBe(400);
    expect(rec.completed).toHaveLength(0);
  });

  it('a correctly signed but old event (replayed) is refused', async () => {
    const { opened } = await open();
    const payload = JSON.stringify({ id: 'evt_old', object: 'event', type: 'checkout.session.completed', data: { object: { id: opened.sessionId, payment_status: 'paid', payment_intent: 'pi_old' } } });
    const signature = stripeApi.client.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const res = await server.request('/stripe/webhook', { method: 'POST', body: payload, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature } });
    expect(res.status).toBe(400);
    expect(rec.completed).toHaveLength(0);
  });

  it('a completion for a session this server never opened grants nothing', async () => {
    const res = await deliver('checkout.session.completed', { id: 'cs_test_foreign', object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_foreign' });
    expect(res.status).toBe(200);
    expect(rec.completed).toHaveLength(0);
  });
});
