// The payment gateway seam (server/payments): opening checkouts, the local test checkout page,
// and fulfil()/release()/refund() as the one path from the processor to the domain. The handler
// here is the test's own purchase kind: it records what fulfil() asks of it, which is exactly
// what the tickets, donations and memberships handlers will be asked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../server/config.ts';
import { transaction } from '../../server/db/index.ts';
import type {
  CheckoutRecord,
  CheckoutRequest,
  FulfilmentHandler,
  PaymentFacts,
  ReleaseReason,
} from '../../server/payments/index.ts';
import { PaymentsUnavailableError } from '../../server/payments/index.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

interface Recorded {
  completed: Array<{ checkout: CheckoutRecord; payment: PaymentFacts }>;
  released: Array<{ checkout: CheckoutRecord; reason: ReleaseReason }>;
  refunded: Array<{ checkout: CheckoutRecord; amount: number }>;
  failNext: boolean;
}

function recordingHandler(rec: Recorded): FulfilmentHandler {
  return {
    async completed(trx, checkout, payment) {
      // A write of the handler's own, in fulfil()'s transaction: it must commit or roll back with it.
      await trx
        .updateTable('communities')
        .set({ name: `paid ${checkout.id}` })
        .where('id', '=', checkout.communityId)
        .execute();
      if (rec.failNext) {
        rec.failNext = false;
        throw new Error('handler failed');
      }
      rec.completed.push({ checkout, payment });
    },
    async released(_trx, checkout, reason) {
      rec.released.push({ checkout, reason });
    },
    async refunded(_trx, checkout, refund) {
      rec.refunded.push({ checkout, amount: refund.amountRefunded });
    },
  };
}

let server: TestServer;
let running: TestServer | null = null;
let rec: Recorded;
let communityId: string;

async function start(env: Record<string, string> = {}) {
  rec = { completed: [], released: [], refunded: [], failNext: false };
  server = await startTestServer({ env, payments: { handlers: { test: recordingHandler(rec) } } });
  running = server;
  communityId = (await makeCommunity(server.database.db, 'paycom', { name: 'Pay Community' })).id;
}

function request(over: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    communityId,
    purpose: { kind: 'test', what: 'two tickets' },
    lineItems: [
      { name: 'Ticket', unitAmount: 1250, quantity: 2 },
      { name: 'Donation', unitAmount: 500, quantity: 1 },
    ],
    currency: 'eur',
    customerEmail: 'buyer@example.com',
    successUrl: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://shop.example/cancelled',
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

/** A form post as the checkout page's own buttons make it. */
const press = (
  sessionId: string,
  button: 'pay' | 'cancel',
  headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' },
) => fetch(`${server.url}/checkout/${sessionId}/${button}`, { method: 'POST', redirect: 'manual', headers });

const status = async (sessionId: string) => (await server.payments.find(sessionId))!.status;

afterEach(async () => {
  await running?.close();
  running = null;
});

describe('happy', () => {
  beforeEach(() => start());

  it('opens a local checkout whose page shows the items, the total in the currency, and the buyer', async () => {
    const { opened, checkout } = await open();
    expect(opened.sessionId).toMatch(/^cs_local_[0-9a-f]{32}$/);
    expect(opened.checkoutUrl).toBe(`${server.url}/checkout/${opened.sessionId}`);
    expect(checkout.amountTotal).toBe(3000);
    expect(checkout.currency).toBe('EUR');
    const res = await fetch(opened.checkoutUrl);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Pay Community');
    expect(html).toContain('Ticket &times; 2');
    expect(html).toContain('€25.00');
    expect(html).toContain('€30.00');
    expect(html).toContain('buyer@example.com');
    expect(html).toContain('Test checkout');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it("formats amounts with the currency's own decimals", async () => {
    const { opened } = await open({ currency: 'JPY', lineItems: [{ name: 'Seat', unitAmount: 1500, quantity: 1 }] });
    expect(await (await fetch(opened.checkoutUrl)).text()).toContain('¥1,500');
  });

  it('Pay fulfils once and redirects to the success URL with the session id filled in', async () => {
    const { opened } = await open();
    const res = await press(opened.sessionId, 'pay');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`https://shop.example/thanks?session=${opened.sessionId}`);
    expect(rec.completed).toHaveLength(1);
    expect(rec.completed[0].payment).toMatchObject({ gateway: 'local', reopened: false });
    expect(rec.completed[0].payment.transactionId).toMatch(/^pi_local_/);
    expect(rec.completed[0].checkout.purpose).toEqual({ kind: 'test', what: 'two tickets' });
    expect(await status(opened.sessionId)).toBe('COMPLETED');
  });

  it('a second Pay lands on the success URL again without fulfilling twice', async () => {
    const { opened } = await open();
    await press(opened.sessionId, 'pay');
    const again = await press(opened.sessionId, 'pay');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toContain(opened.sessionId);
    expect(rec.completed).toHaveLength(1);
  });

  it('Cancel releases the holds and redirects to the cancel URL', async () => {
    const { opened } = await open();
    const res = await press(opened.sessionId, 'cancel');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://shop.example/cancelled');
    expect(rec.released.map((r) => r.reason)).toEqual(['CANCELLED']);
    expect(await status(opened.sessionId)).toBe('CANCELLED');
  });

  it('the same completion delivered concurrently is fulfilled exactly once', async () => {
    const { opened } = await open();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => server.payments.fulfil(opened.sessionId, 'pi_same')),
    );
    expect(outcomes.filter((o) => o === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(19);
    expect(rec.completed).toHaveLength(1);
  });

  it('two different payment ids reported for one checkout still fulfil it once', async () => {
    const { opened } = await open();
    expect(await server.payments.fulfil(opened.sessionId, 'pi_a')).toBe('fulfilled');
    expect(await server.payments.fulfil(opened.sessionId, 'pi_b')).toBe('duplicate');
    expect(rec.completed).toHaveLength(1);
  });

  it('an expiry arriving after the payment changes nothing', async () => {
    const { opened } = await open();
    await server.payments.fulfil(opened.sessionId, 'pi_1');
    expect(await server.payments.release(opened.sessionId, 'EXPIRED')).toBe(false);
    expect(rec.released).toHaveLength(0);
    expect(await status(opened.sessionId)).toBe('COMPLETED');
  });

  it('a payment arriving after an expiry is fulfilled and tells the handler its holds were released', async () => {
    const { opened } = await open();
    expect(await server.payments.release(opened.sessionId, 'EXPIRED')).toBe(true);
    expect(await server.payments.fulfil(opened.sessionId, 'pi_late')).toBe('fulfilled');
    expect(rec.completed[0].payment.reopened).toBe(true);
    expect(await status(opened.sessionId)).toBe('COMPLETED');
  });

  it('a full refund reaches the handler once', async () => {
    const { opened } = await open();
    await server.payments.fulfil(opened.sessionId, 'pi_r');
    expect(await server.payments.refund('pi_r', 3000)).toBe(true);
    expect(await server.payments.refund('pi_r', 3000)).toBe(false);
    expect(rec.refunded).toEqual([expect.objectContaining({ amount: 3000 })]);
  });

  it('a checkout whose transaction fails after persisting leaves no row behind', async () => {
    await expect(
      server.payments.openCheckout(request(), (prepared) =>
        transaction(server.database.db, async (trx) => {
          await server.payments.persist(trx, prepared);
          throw new Error('the caller failed after opening');
        }),
      ),
    ).rejects.toThrow('the caller failed');
    expect(await server.database.db.selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it('a completion and a refund of one payment racing: a grant is always followed by its refund, never lost', async () => {
    for (let round = 0; round < 10; round++) {
      rec.completed.length = 0;
      rec.refunded.length = 0;
      rec.released.length = 0;
      const { opened } = await open();
      const tx = `pi_race_${round}`;
      await Promise.all([server.payments.fulfil(opened.sessionId, tx), server.payments.refund(tx, 3000)]);
      // Either the completion came first (granted, then refunded) or the refund did (nothing granted, holds released).
      if (rec.completed.length === 1) expect(rec.refunded).toHaveLength(1);
      else expect(rec.released.map((r) => r.reason)).toEqual(['FAILED']);
      expect(
        await server.database.db
          .selectFrom('early_refunds')
          .select('transaction_id')
          .where('transaction_id', '=', tx)
          .execute(),
      ).toHaveLength(0);
    }
  });

  it('a refund that arrives before its completion makes the completion grant nothing', async () => {
    const { opened } = await open();
    expect(await server.payments.refund('pi_early', 3000)).toBe(false);
    expect(await server.payments.fulfil(opened.sessionId, 'pi_early')).toBe('refunded_before_fulfilment');
    expect(rec.completed).toHaveLength(0);
    expect(rec.released.map((r) => r.reason)).toEqual(['FAILED']);
    expect(await status(opened.sessionId)).toBe('COMPLETED');
    expect(await server.payments.fulfil(opened.sessionId, 'pi_early')).toBe('duplicate');
  });

  it('a handler failure rolls back the whole fulfilment, and the next delivery succeeds', async () => {
    const { opened } = await open();
    rec.failNext = true;
    await expect(server.payments.fulfil(opened.sessionId, 'pi_f')).rejects.toThrow('handler failed');
    expect(await status(opened.sessionId)).toBe('OPEN');
    const community = await server.database.db
      .selectFrom('communities')
      .select('name')
      .where('id', '=', communityId)
      .executeTakeFirstOrThrow();
    expect(community.name).toBe('Pay Community');
    expect(await server.payments.fulfil(opened.sessionId, 'pi_f')).toBe('fulfilled');
    expect(rec.completed).toHaveLength(1);
  });
});

describe('expiry', () => {
  beforeEach(() => start({ SVC_CHECKOUT_TTL: '300ms' }));

  it('an unpaid local checkout expires: its page says so, Pay is refused, and its holds are released once', async () => {
    const { opened } = await open();
    await new Promise((r) => setTimeout(r, 400));
    const page = await fetch(opened.checkoutUrl);
    expect(await page.text()).toContain('has expired');
    const pay = await press(opened.sessionId, 'pay');
    expect(pay.status).toBe(410);
    expect(rec.completed).toHaveLength(0);
    expect(rec.released.map((r) => r.reason)).toEqual(['EXPIRED']);
  });

  it('the expiry sweep releases every open local checkout past its time', async () => {
    await open();
    await open();
    await new Promise((r) => setTimeout(r, 400));
    expect(await server.payments.expireDue()).toBe(2);
    expect(await server.payments.expireDue()).toBe(0);
    expect(rec.released).toHaveLength(2);
  });
});

describe('errors', () => {
  beforeEach(() => start());

  it('an unknown or malformed session id is a 404 page', async () => {
    expect((await fetch(`${server.url}/checkout/cs_local_${'0'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${server.url}/checkout/cs_test_abc`)).status).toBe(404);
    expect((await press(`cs_local_${'0'.repeat(32)}`, 'pay')).status).toBe(404);
  });

  it('a payment for a checkout this server never opened is ignored', async () => {
    expect(await server.payments.fulfil('cs_local_unknown', 'pi_x')).toBe('unknown_session');
    expect(rec.completed).toHaveLength(0);
  });

  it('cancelling a paid checkout does not release it', async () => {
    const { opened } = await open();
    await press(opened.sessionId, 'pay');
    expect((await press(opened.sessionId, 'cancel')).status).toBe(409);
    expect(rec.released).toHaveLength(0);
  });

  it('refunding a payment that was never fulfilled does nothing', async () => {
    expect(await server.payments.refund('pi_never', 100)).toBe(false);
  });
});

describe('security', () => {
  beforeEach(() => start());

  it('a Pay posted from another site is refused and nothing is fulfilled', async () => {
    const { opened } = await open();
    const res = await press(opened.sessionId, 'pay', { 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(403);
    expect(rec.completed).toHaveLength(0);
    expect(await status(opened.sessionId)).toBe('OPEN');
  });

  it('the checkout page escapes what the buyer and the seller supplied', async () => {
    const { opened } = await open({
      customerEmail: '<script>alert(1)</script>@x.example',
      lineItems: [{ name: '<img src=x onerror=alert(1)>', unitAmount: 100, quantity: 1 }],
    });
    const html = await (await fetch(opened.checkoutUrl)).text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('the page cannot be framed and runs no script', async () => {
    const { opened } = await open();
    const res = await fetch(opened.checkoutUrl);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('configuration', () => {
  it('picks Stripe when a key is set, the local checkout on a development machine, and nothing in production or on PostgreSQL without a key', () => {
    expect(loadConfig({}).payments.gateway).toBe('local');
    expect(loadConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }).payments.gateway).toBe(
      'stripe',
    );
    expect(loadConfig({ NODE_ENV: 'production' }).payments.gateway).toBe('off');
    expect(loadConfig({ NODE_ENV: 'production', SVC_PAYMENTS: 'local' }).payments.gateway).toBe('local');
    // A PostgreSQL deployment is not a development machine either.
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example/svc' }).payments.gateway).toBe('off');
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example/svc', SVC_PAYMENTS: 'local' }).payments.gateway).toBe(
      'local',
    );
  });

  it('refuses a Stripe key without its webhook secret, malformed keys, and a TTL Stripe would reject', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_abc' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'pk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow(
      ConfigError,
    );
    expect(() =>
      loadConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', SVC_CHECKOUT_TTL: '5m' }),
    ).toThrow(/SVC_CHECKOUT_TTL/);
    expect(() => loadConfig({ SVC_CHECKOUT_TTL: 'soon' })).toThrow(/SVC_CHECKOUT_TTL/);
  });

  it('with payments off, opening a checkout fails with PaymentsUnavailableError and the checkout page does not exist', async () => {
    await start({ NODE_ENV: 'production' });
    await expect(open()).rejects.toBeInstanceOf(PaymentsUnavailableError);
    expect((await fetch(`${server.url}/checkout/cs_local_${'0'.repeat(32)}`)).status).toBe(404);
  });
});
