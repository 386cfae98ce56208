// Tickets: free RSVP and paid checkout of event tiers (POST /events/{slug}/rsvp and /checkout),
// through the local gateway's real checkout page, with the capacity invariant under concurrency,
// the QR code decoded and verified, the ticket e-mail and the webhook events.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pay } from './support/checkout.ts';
import { outboxRowsTo } from './support/mail.ts';
import { makeCommunity, makeEvent, makeKey, makeUser } from './support/factory.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';

let server: TestServer;
let running: TestServer | null = null;
let community: { id: string; tag: string; pk: string };
let sales: string;
const db = () => server.database.db;

async function start(env: Record<string, string> = {}) {
  server = await startTestServer({ env });
  running = server;
  community = await makeCommunity(db(), 'tix', { name: 'Tix Club' });
  sales = await makeKey(db(), community.id, ['WRITE_SALES']);
}

afterEach(async () => {
  await running?.close();
  running = null;
});

const base = () => `/v1/communities/${community.tag}`;
const rsvp = (slug: string, json: object, key = sales) =>
  server.request(`${base()}/events/${slug}/rsvp`, { method: 'POST', key, json });
const checkout = (slug: string, json: object, key = sales, headers?: Record<string, string>) =>
  server.request(`${base()}/events/${slug}/checkout`, { method: 'POST', key, json, headers });
const URLS = { successUrl: 'https://tix.example/ok', cancelUrl: 'https://tix.example/no' };
const verify = (code: string, key = sales) =>
  server.request(`${base()}/tickets/verify`, { method: 'POST', key, json: { code } });

const tier = (id: string) =>
  db()
    .selectFrom('tiers')
    .select(['sold', 'held', 'capacity'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
    .then((t) => ({ sold: Number(t.sold), held: Number(t.held) }));
const eventsNamed = async (name: string) =>
  (
    await db().selectFrom('webhook_events').select(['data']).where('name', '=', name).orderBy('created_at').execute()
  ).map((r) => JSON.parse(r.data));
const mailTo = (to: string) => outboxRowsTo(db(), to);
const ticketCount = async () =>
  Number(
    (
      await db()
        .selectFrom('tickets')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

function decodeQr(base64: string): string {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  const result = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!result) throw new Error('not a readable QR code');
  return result.data;
}

const FORM = [
  { id: 'diet', type: 'select', label: 'Diet', required: true, options: ['vegan', 'any'] },
  { id: 'age', type: 'number', label: 'Age', required: false },
];

describe('happy', () => {
  beforeEach(() => start());

  it('an RSVP answers with a QR code that decodes to a ticket code the server verifies', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'meetup',
      tiers: [{ name: 'Free', priceCents: 0, capacity: 10 }],
    });
    const res = await rsvp('meetup', { tierId: ev.tierIds[0], email: 'Ana@Example.com', name: 'Ana' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, tierId: ev.tierIds[0] });
    const code = decodeQr(res.body.qrCode);
    expect(code).toMatch(/^svt1\./);
    const checked = await verify(code);
    expect(checked.body).toMatchObject({
      valid: true,
      ticket: {
        id: res.body.rsvpId,
        kind: 'RSVP',
        eventSlug: 'meetup',
        name: 'Ana',
        email: 'ana@example.com',
        refunded: false,
      },
    });
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 1, held: 0 });
  });

  it('e-mails the same QR code as an inline attachment, and emits rsvp.confirmed once', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'mailed',
      name: 'Mailed Meetup',
      tiers: [{ priceCents: 0 }],
    });
    const res = await rsvp('mailed', { tierId: ev.tierIds[0], email: 'bo@example.com', name: 'Bo' });
    const [mail] = await mailTo('bo@example.com');
    expect(mail.subject).toBe('Your ticket for Mailed Meetup');
    const attachments = JSON.parse(mail.attachments!);
    expect(attachments).toHaveLength(1);
    expect(attachments[0]).toMatchObject({ contentType: 'image/png', cid: `ticket-${res.body.rsvpId}` });
    expect(decodeQr(attachments[0].contentBase64)).toBe(decodeQr(res.body.qrCode));
    expect(mail.html_body).toContain(`cid:ticket-${res.body.rsvpId}`);
    expect(await eventsNamed('rsvp.confirmed')).toEqual([
      expect.objectContaining({ rsvpId: res.body.rsvpId, eventSlug: 'mailed', email: 'bo@example.com' }),
    ]);
  });

  it('a second RSVP from the same address returns the first one and sends nothing more', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'again', tiers: [{ priceCents: 0, capacity: 5 }] });
    const first = await rsvp('again', { tierId: ev.tierIds[0], email: 'cy@example.com', name: 'Cy' });
    const second = await rsvp('again', { tierId: ev.tierIds[0], email: 'CY@example.com', name: 'Cy again' });
    expect(second.status).toBe(200);
    expect(second.body.rsvpId).toBe(first.body.rsvpId);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 1, held: 0 });
    expect(await mailTo('cy@example.com')).toHaveLength(1);
    expect(await eventsNamed('rsvp.confirmed')).toHaveLength(1);
  });

  it('notifies the signed-up user whose address RSVPd', async () => {
    const user = await makeUser(db(), 'dora');
    const ev = await makeEvent(db(), community.id, { slug: 'notify', tiers: [{ priceCents: 0 }] });
    await rsvp('notify', { tierId: ev.tierIds[0], email: 'dora@example.com', name: 'Dora' });
    const rows = await db().selectFrom('notifications').select(['kind', 'user_id']).execute();
    expect(rows).toEqual([{ kind: 'rsvp.confirmed', user_id: user.id }]);
  });

  it('keeps valid form answers', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'formed', tiers: [{ priceCents: 0, form: FORM }] });
    const res = await rsvp('formed', {
      tierId: ev.tierIds[0],
      email: 'e@example.com',
      name: 'E',
      formAnswers: { diet: 'vegan', age: 30 },
    });
    expect(res.status).toBe(200);
    const row = await db()
      .selectFrom('tickets')
      .select('form_answers')
      .where('id', '=', res.body.rsvpId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.form_answers!)).toEqual({ diet: 'vegan', age: 30 });
  });

  it(`never exceeds capacity: 500 concurrent RSVPs on 50 seats give exactly 50 tickets (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'race', tiers: [{ priceCents: 0, capacity: 50 }] });
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        rsvp('race', { tierId: ev.tierIds[0], email: `racer${i}@example.com`, name: `Racer ${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 422)).toHaveLength(450);
    expect(results.find((r) => r.status === 422)!.body.code).toBe('UNPROCESSABLE');
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 50, held: 0 });
    expect(await ticketCount()).toBe(50);
    expect(await eventsNamed('rsvp.confirmed')).toHaveLength(50);
  }, 120_000);

  it('a paid checkout holds seats, and Pay on the checkout page issues one ticket per seat, e-mails them and emits order.completed', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'gala',
      name: 'Gala',
      tiers: [{ name: 'Seat', priceCents: 2500, capacity: 10 }],
    });
    const res = await checkout('gala', {
      tierId: ev.tierIds[0],
      quantity: 3,
      successUrl: 'https://tix.example/ok?s={CHECKOUT_SESSION_ID}',
      cancelUrl: 'https://tix.example/no',
    });
    expect(res.status).toBe(200);
    expect(res.body.checkoutUrl).toBe(`${server.url}/checkout/${res.body.sessionId}`);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 3 });
    const page = await (await fetch(res.body.checkoutUrl)).text();
    expect(page).toContain('Gala: Seat &times; 3');
    expect(page).toContain('$75.00');
    expect(await ticketCount()).toBe(0);

    const paid = await pay(res.body.checkoutUrl, 'Buyer@Example.com');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`https://tix.example/ok?s=${res.body.sessionId}`);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 3, held: 0 });
    const tickets = await db().selectFrom('tickets').select(['id', 'kind', 'email']).execute();
    expect(tickets).toHaveLength(3);
    expect(tickets.every((t) => t.kind === 'PAID' && t.email === 'buyer@example.com')).toBe(true);
    const [mail] = await mailTo('buyer@example.com');
    expect(mail.subject).toBe('Your 3 tickets for Gala');
    expect(JSON.parse(mail.attachments!)).toHaveLength(3);
    const [order] = await eventsNamed('order.completed');
    expect(order).toMatchObject({
      eventSlug: 'gala',
      quantity: 3,
      amount: 7500,
      currency: 'USD',
      donationAmount: 0,
      customerEmail: 'buyer@example.com',
    });
    expect(order.ticketIds.sort()).toEqual(tickets.map((t) => t.id).sort());
    for (const a of JSON.parse(mail.attachments!))
      expect((await verify(decodeQr(a.contentBase64))).body.valid).toBe(true);
  });

  it('a sidecar donation is its own line item, with no minimum', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'side',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ priceCents: 1000 }],
    });
    const res = await checkout('side', {
      tierId: ev.tierIds[0],
      quantity: 1,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
      email: 'f@example.com',
      donation: { amount: 5 },
    });
    expect(res.status).toBe(200);
    const row = await db().selectFrom('checkout_sessions').selectAll().executeTakeFirstOrThrow();
    expect(JSON.parse(row.line_items)).toEqual([
      { name: expect.stringMatching(/^Event \d+: Tier 0$/), unitAmount: 1000, quantity: 1 },
      { name: 'Donation to Tix Club', unitAmount: 5, quantity: 1 },
    ]);
    expect(row.amount_total).toBe(1005);
    await pay(res.body.checkoutUrl);
    expect((await eventsNamed('order.completed'))[0]).toMatchObject({ amount: 1005, donationAmount: 5 });
  });

  it('a sidecar donation is recorded as a donation to the event, once, with donation.received and one receipt beside the tickets', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'rec',
      name: 'Rec Night',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ name: 'Door', priceCents: 1000 }],
    });
    const res = await checkout('rec', {
      tierId: ev.tierIds[0],
      quantity: 1,
      ...URLS,
      email: 'd@example.com',
      name: 'Dee',
      donation: { amount: 7 },
    });
    await Promise.all([pay(res.body.checkoutUrl), pay(res.body.checkoutUrl)]);
    await server.payments.fulfil(res.body.sessionId, 'pi_reported_again');
    const rows = await db().selectFrom('donations').select(['target_type', 'target_id', 'amount', 'sidecar']).execute();
    expect(rows).toEqual([{ target_type: 'EVENT', target_id: ev.id, amount: 7, sidecar: 1 }]);
    const [received] = await eventsNamed('donation.received');
    expect(await eventsNamed('donation.received')).toEqual([
      expect.objectContaining({ amount: 7, target: { type: 'EVENT', id: ev.id }, donorEmail: 'd@example.com' }),
    ]);
    const mails = await mailTo('d@example.com');
    expect(mails.map((m) => m.subject).sort()).toEqual(['Your receipt from Tix Club', 'Your ticket for Rec Night']);
    const receipt = mails.find((m) => m.subject === 'Your receipt from Tix Club')!;
    for (const line of [
      'Receipt no.: R-000001',
      `Payment reference: ${received.transactionId}`,
      'Rec Night: Door: $10.00',
      'Donation to Tix Club: $0.07',
      'Total paid: $10.07',
      'Donor: Dee <d@example.com>',
      'Recipient: Tix Club',
      'Amount donated: $0.07',
      'This donation was made with a purchase of $10.00 in the same payment; only $0.07 of it is a donation.',
    ]) {
      expect(receipt.text_body).toContain(line);
    }
  });

  it('a payment that commits after its checkout was cancelled still seats the buyer while seats remain', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'race2', tiers: [{ priceCents: 1000, capacity: 5 }] });
    const res = await checkout('race2', {
      tierId: ev.tierIds[0],
      quantity: 2,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
      email: 'r@example.com',
    });
    expect(await server.payments.release(res.body.sessionId, 'CANCELLED')).toBe(true);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 0 });
    expect(await server.payments.fulfil(res.body.sessionId, 'pi_after_cancel')).toBe('fulfilled');
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 2, held: 0 });
    expect(await ticketCount()).toBe(2);
  });

  it('a payment after its hold expired, when the seats have gone, issues no ticket and says seated: false', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'late', tiers: [{ priceCents: 1000, capacity: 2 }] });
    const res = await checkout('late', {
      tierId: ev.tierIds[0],
      quantity: 2,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
      email: 'l@example.com',
    });
    await server.payments.release(res.body.sessionId, 'EXPIRED');
    const other = await checkout('late', {
      tierId: ev.tierIds[0],
      quantity: 2,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
      email: 'm@example.com',
    });
    await server.payments.fulfil(other.body.sessionId, 'pi_other');
    expect(await server.payments.fulfil(res.body.sessionId, 'pi_late')).toBe('fulfilled');
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 2, held: 0 });
    expect(await ticketCount()).toBe(2);
    const orders = await eventsNamed('order.completed');
    expect(orders.map((o) => [o.transactionId, o.seated, o.ticketIds.length])).toEqual([
      ['pi_other', true, 2],
      ['pi_late', false, 0],
    ]);
  });

  it('Cancel on the checkout page gives the held seats back', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'cancel', tiers: [{ priceCents: 1000, capacity: 4 }] });
    const res = await checkout('cancel', {
      tierId: ev.tierIds[0],
      quantity: 4,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
    });
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 4 });
    const cancelled = await fetch(`${res.body.checkoutUrl}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(cancelled.headers.get('location')).toBe('https://tix.example/no');
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 0 });
    expect(await ticketCount()).toBe(0);
  });

  it('the same completion delivered concurrently issues the tickets and the e-mail once (a ticket order without a donation has no receipt: its tickets are the e-mail)', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'dup', tiers: [{ priceCents: 1000, capacity: 10 }] });
    const res = await checkout('dup', {
      tierId: ev.tierIds[0],
      quantity: 2,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
      email: 'g@example.com',
    });
    await Promise.all(Array.from({ length: 10 }, () => server.payments.fulfil(res.body.sessionId, 'pi_same')));
    expect(await ticketCount()).toBe(2);
    expect(await mailTo('g@example.com')).toHaveLength(1);
    expect(await eventsNamed('order.completed')).toHaveLength(1);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 2, held: 0 });
  });

  it('an RSVP with a donation becomes a checkout, and paying it makes the RSVP', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'give',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ priceCents: 0, capacity: 3 }],
    });
    const res = await rsvp('give', {
      tierId: ev.tierIds[0],
      email: 'h@example.com',
      name: 'H',
      donation: { amount: 500 },
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      checkoutUrl: expect.stringContaining('/checkout/cs_local_'),
      sessionId: expect.any(String),
    });
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 1 });
    await pay(res.body.checkoutUrl);
    const [ticket] = await db().selectFrom('tickets').select(['kind', 'email']).execute();
    expect(ticket).toEqual({ kind: 'RSVP', email: 'h@example.com' });
    const receipt = (await mailTo('h@example.com')).find((m) => m.subject === 'Your receipt from Tix Club');
    expect(receipt?.text_body).toContain('Amount donated: $5.00');
    expect(receipt?.text_body).toContain(
      'This donation was made with a free order in the same payment; the whole payment is the donation.',
    );
    expect(await eventsNamed('rsvp.confirmed')).toHaveLength(1);
    expect((await eventsNamed('order.completed'))[0]).toMatchObject({ amount: 500, donationAmount: 500 });
  });

  it("a member named by X-Svc-Auth-Token (the site's token or the platform's) buys as themselves: the tickets and a sidecar donation are theirs", async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'members-gala',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ priceCents: 2000, capacity: 10 }],
    });
    const mira = await makeUser(db(), 'mira');
    const siteToken = (await server.sessions.issue(mira.id, Date.now(), undefined, community.tag)).token;
    const platformToken = (await server.sessions.issue(mira.id, Date.now(), undefined, null)).token;
    // The body's e-mail is ignored for a named member, as customer.email is on donate.
    const body = { tierId: ev.tierIds[0], ...URLS, email: 'someone-else@example.com' };
    const bySite = await checkout('members-gala', { ...body, quantity: 2, donation: { amount: 300 } }, sales, {
      'X-Svc-Auth-Token': siteToken,
    });
    const byPlatform = await checkout('members-gala', { ...body, quantity: 1, name: 'Mira M.' }, sales, {
      'X-Svc-Auth-Token': platformToken,
    });
    expect([bySite.status, byPlatform.status]).toEqual([200, 200]);
    for (const res of [bySite, byPlatform]) {
      expect(
        (
          await db()
            .selectFrom('checkout_sessions')
            .select('customer_email')
            .where('processor_session_id', '=', res.body.sessionId)
            .executeTakeFirstOrThrow()
        ).customer_email,
      ).toBe('mira@example.com');
      await pay(res.body.checkoutUrl);
    }
    // Without the token the same address is an anonymous buyer: an address alone makes nothing anyone's.
    await pay((await checkout('members-gala', { ...body, quantity: 1, email: 'mira@example.com' })).body.checkoutUrl);

    const tickets = await db().selectFrom('tickets').select(['user_id', 'email', 'name']).execute();
    expect(tickets.map((t) => `${t.user_id} ${t.email} ${t.name}`).sort()).toEqual([
      `${mira.id} mira@example.com Mira M.`,
      `${mira.id} mira@example.com User mira`,
      `${mira.id} mira@example.com User mira`,
      'null mira@example.com mira@example.com',
    ]);
    expect(await db().selectFrom('donations').select(['donor_user_id', 'donor_email', 'amount']).execute()).toEqual([
      { donor_user_id: mira.id, donor_email: 'mira@example.com', amount: 300 },
    ]);
    expect(
      (await mailTo('mira@example.com')).filter((m) => /^Your (ticket|\d+ tickets) for/.test(m.subject)),
    ).toHaveLength(3);
    expect(await mailTo('someone-else@example.com')).toHaveLength(0);
  });

  it('the widget action books a public event with the publishable key from an allowed origin', async () => {
    await db()
      .updateTable('communities')
      .set({ embed_origins: JSON.stringify(['https://shop.example']) })
      .where('id', '=', community.id)
      .execute();
    const ev = await makeEvent(db(), community.id, { slug: 'widget', tiers: [{ priceCents: 0 }] });
    const res = await server.request(`/api/actions/${community.tag}/events/widget/rsvp`, {
      method: 'POST',
      json: { tierId: ev.tierIds[0], email: 'w@example.com', name: 'W' },
      headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(decodeQr(res.body.qrCode)).toMatch(/^svt1\./);
  });
});

describe('expiry', () => {
  beforeEach(() => start({ SVC_CHECKOUT_TTL: '300ms' }));

  it('an unpaid checkout expires and its seats come back', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'exp', tiers: [{ priceCents: 1000, capacity: 2 }] });
    await checkout('exp', {
      tierId: ev.tierIds[0],
      quantity: 2,
      successUrl: 'https://tix.example/ok',
      cancelUrl: 'https://tix.example/no',
    });
    expect(
      (
        await checkout('exp', {
          tierId: ev.tierIds[0],
          quantity: 1,
          successUrl: 'https://tix.example/ok',
          cancelUrl: 'https://tix.example/no',
        })
      ).status,
    ).toBe(422);
    await new Promise((r) => setTimeout(r, 400));
    expect(await server.payments.expireDue()).toBe(1);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 0 });
    expect(
      (
        await checkout('exp', {
          tierId: ev.tierIds[0],
          quantity: 2,
          successUrl: 'https://tix.example/ok',
          cancelUrl: 'https://tix.example/no',
        })
      ).status,
    ).toBe(200);
  });
});

describe('errors', () => {
  beforeEach(() => start());

  /** Sends and asserts the refusal changed nothing. */
  async function refused(send: Promise<{ status: number; body: any }>, status: number, code: string, field?: string) {
    const before = await ticketCount();
    const res = await send;
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    if (field) expect(res.body.extras?.field).toBe(field);
    expect(await ticketCount()).toBe(before);
    return res;
  }

  it('a paid tier cannot be RSVPd: the 400 says to use checkout', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'paid', tiers: [{ priceCents: 500 }] });
    const res = await refused(
      rsvp('paid', { tierId: ev.tierIds[0], email: 'a@example.com', name: 'A' }),
      400,
      'INVALID_INPUT',
      'tierId',
    );
    expect(res.body.error).toContain('/events/paid/checkout');
  });

  it('a free tier cannot be checked out', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'free', tiers: [{ priceCents: 0 }] });
    await refused(
      checkout('free', {
        tierId: ev.tierIds[0],
        quantity: 1,
        successUrl: 'https://a.example/',
        cancelUrl: 'https://a.example/',
      }),
      400,
      'INVALID_INPUT',
      'tierId',
    );
  });

  it('refuses inactive tiers, tiers of other events, unknown events and past events', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'e1',
      tiers: [{ priceCents: 0, isActive: false }, { priceCents: 0 }],
    });
    const other = await makeEvent(db(), community.id, { slug: 'e2', tiers: [{ priceCents: 0 }] });
    const past = await makeEvent(db(), community.id, {
      slug: 'old',
      startDate: '2020-01-01T10:00:00Z',
      tiers: [{ priceCents: 0 }],
    });
    const who = { email: 'a@example.com', name: 'A' };
    await refused(rsvp('e1', { tierId: ev.tierIds[0], ...who }), 400, 'INVALID_INPUT', 'tierId');
    await refused(rsvp('e1', { tierId: other.tierIds[0], ...who }), 400, 'INVALID_INPUT', 'tierId');
    await refused(rsvp('nope', { tierId: ev.tierIds[1], ...who }), 404, 'NOT_FOUND');
    await refused(rsvp('old', { tierId: past.tierIds[0], ...who }), 422, 'UNPROCESSABLE');
  });

  it('validates e-mail, name and form answers (missing required answers are 422, malformed ones 400)', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'v', tiers: [{ priceCents: 0, form: FORM }] });
    const t = ev.tierIds[0];
    await refused(
      rsvp('v', { tierId: t, email: 'not-an-email', name: 'A', formAnswers: { diet: 'any' } }),
      400,
      'INVALID_EMAIL',
      'email',
    );
    await refused(
      rsvp('v', { tierId: t, email: 'a@example.com', name: '  ', formAnswers: { diet: 'any' } }),
      400,
      'INVALID_INPUT',
      'name',
    );
    await refused(
      rsvp('v', { tierId: t, email: 'a@example.com', name: 'A' }),
      422,
      'UNPROCESSABLE',
      'formAnswers.diet',
    );
    await refused(
      rsvp('v', { tierId: t, email: 'a@example.com', name: 'A', formAnswers: { diet: 'meat' } }),
      400,
      'INVALID_INPUT',
      'formAnswers.diet',
    );
    await refused(
      rsvp('v', { tierId: t, email: 'a@example.com', name: 'A', formAnswers: { diet: 'any', age: 'old' } }),
      400,
      'INVALID_INPUT',
      'formAnswers.age',
    );
    await refused(
      rsvp('v', { tierId: t, email: 'a@example.com', name: 'A', formAnswers: { diet: 'any', shoe: 42 } }),
      400,
      'INVALID_INPUT',
      'formAnswers.shoe',
    );
    await refused(
      rsvp('v', { tierId: 'not-a-uuid', email: 'a@example.com', name: 'A' }),
      400,
      'INVALID_INPUT',
      'tierId',
    );
  });

  it('validates quantity, URLs and the donation', async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'q',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ priceCents: 100, capacity: 5 }, { priceCents: 0 }],
    });
    const ok = { tierId: ev.tierIds[0], successUrl: 'https://a.example/', cancelUrl: 'https://a.example/' };
    await refused(checkout('q', { ...ok, quantity: 0 }), 400, 'INVALID_INPUT', 'quantity');
    await refused(checkout('q', { ...ok, quantity: 11 }), 400, 'INVALID_INPUT', 'quantity');
    await refused(checkout('q', { ...ok, quantity: 1.5 }), 400, 'INVALID_INPUT', 'quantity');
    await refused(checkout('q', { ...ok, quantity: 1, successUrl: '/relative' }), 400, 'INVALID_INPUT', 'successUrl');
    await refused(
      checkout('q', { ...ok, quantity: 1, cancelUrl: 'javascript:alert(1)' }),
      400,
      'INVALID_INPUT',
      'cancelUrl',
    );
    await refused(
      checkout('q', { ...ok, quantity: 1, donation: { amount: 0 } }),
      400,
      'INVALID_AMOUNT',
      'donation.amount',
    );
    const r = { tierId: ev.tierIds[1], email: 'a@example.com', name: 'A' };
    await refused(
      rsvp('q', { ...r, donation: { amount: 49 }, successUrl: 'https://a.example/', cancelUrl: 'https://a.example/' }),
      400,
      'INVALID_DONATION_AMOUNT',
      'donation.amount',
    );
    await refused(rsvp('q', { ...r, donation: { amount: 100 } }), 400, 'INVALID_INPUT', 'successUrl');
  });

  it("a sidecar donation on a tier in another currency than the event's donations is refused", async () => {
    const ev = await makeEvent(db(), community.id, {
      slug: 'fx',
      donationConfig: { enabled: true, mode: 'pwyw', currency: 'USD' },
      tiers: [{ priceCents: 100 }, { priceCents: 100 }],
    });
    await db().updateTable('tiers').set({ currency: 'EUR' }).where('id', '=', ev.tierIds[1]).execute();
    const res = await refused(
      checkout('fx', {
        tierId: ev.tierIds[1],
        quantity: 1,
        successUrl: 'https://a.example/',
        cancelUrl: 'https://a.example/',
        donation: { amount: 5 },
      }),
      400,
      'INVALID_INPUT',
      'donation',
    );
    expect(res.body.error).toContain('USD');
    expect(
      (
        await checkout('fx', {
          tierId: ev.tierIds[0],
          quantity: 1,
          successUrl: 'https://a.example/',
          cancelUrl: 'https://a.example/',
          donation: { amount: 5 },
        })
      ).status,
    ).toBe(200);
  });

  it('a donation to an event whose donations are off is refused', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'nodon', tiers: [{ priceCents: 100 }] });
    await refused(
      checkout('nodon', {
        tierId: ev.tierIds[0],
        quantity: 1,
        successUrl: 'https://a.example/',
        cancelUrl: 'https://a.example/',
        donation: { amount: 5 },
      }),
      400,
      'INVALID_INPUT',
      'donation',
    );
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
  });

  it('more seats than remain is a 422 that says how many are left, counting seats held by open checkouts', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'few', tiers: [{ priceCents: 100, capacity: 5 }] });
    const ok = { tierId: ev.tierIds[0], successUrl: 'https://a.example/', cancelUrl: 'https://a.example/' };
    expect((await checkout('few', { ...ok, quantity: 3 })).status).toBe(200);
    const res = await checkout('few', { ...ok, quantity: 3 });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Only 2 seats are left in this tier');
    expect(res.body.extras).toMatchObject({ field: 'quantity', remaining: 2 });
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 3 });
  });

  it('a forged or mistyped ticket code is not valid', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'f', tiers: [{ priceCents: 0 }] });
    const code = decodeQr((await rsvp('f', { tierId: ev.tierIds[0], email: 'a@example.com', name: 'A' })).body.qrCode);
    const flipped = code.slice(0, -1) + (code.endsWith('A') ? 'B' : 'A');
    expect((await verify(flipped)).body).toEqual({ valid: false });
    expect((await verify('svt1.0123456789abcdef0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAA')).body).toEqual({
      valid: false,
    });
    expect((await verify('hello')).body).toEqual({ valid: false });
  });
});

describe('security', () => {
  beforeEach(() => start());

  it('needs WRITE_SALES: a READ_PUBLIC key, and the publishable key, are refused', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 's', tiers: [{ priceCents: 0 }] });
    const reader = await makeKey(db(), community.id, ['READ_PUBLIC']);
    const body = { tierId: ev.tierIds[0], email: 'a@example.com', name: 'A' };
    const res = await rsvp('s', body, reader);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(res.body.extras.grantedScopes).toEqual(['READ_PUBLIC']);
    expect((await rsvp('s', body, community.pk)).status).toBe(403);
    expect(await ticketCount()).toBe(0);
  });

  it("another community's key cannot book this community's events", async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'mine', tiers: [{ priceCents: 0 }] });
    const other = await makeCommunity(db(), 'other');
    const otherKey = await makeKey(db(), other.id, ['WRITE_SALES']);
    const res = await rsvp('mine', { tierId: ev.tierIds[0], email: 'a@example.com', name: 'A' }, otherKey);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('COMMUNITY_MISMATCH');
    expect(await ticketCount()).toBe(0);
  });

  it("a checkout with a bad X-Svc-Auth-Token, or another community's site token, is 401 and holds nothing", async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'named', tiers: [{ priceCents: 1000, capacity: 5 }] });
    const user = await makeUser(db(), 'nell');
    const other = await makeCommunity(db(), 'other-site');
    const otherSiteToken = (await server.sessions.issue(user.id, Date.now(), undefined, other.tag)).token;
    const body = { tierId: ev.tierIds[0], quantity: 1, ...URLS, email: 'nell@example.com' };
    for (const token of ['not-a-token', `${otherSiteToken.slice(0, -2)}xx`, otherSiteToken]) {
      const res = await checkout('named', body, sales, { 'X-Svc-Auth-Token': token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'SIGN_IN_REQUIRED', extras: { field: 'X-Svc-Auth-Token' } });
    }
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(0);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 0 });
  });

  it('a genuine ticket code of another community is not valid here', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'here', tiers: [{ priceCents: 0 }] });
    const code = decodeQr(
      (await rsvp('here', { tierId: ev.tierIds[0], email: 'a@example.com', name: 'A' })).body.qrCode,
    );
    const other = await makeCommunity(db(), 'elsewhere');
    const otherKey = await makeKey(db(), other.id, ['WRITE_SALES']);
    const res = await server.request(`/v1/communities/elsewhere/tickets/verify`, {
      method: 'POST',
      key: otherKey,
      json: { code },
    });
    expect(res.body).toEqual({ valid: false });
  });

  it('a members-only event cannot be booked through the public widget action', async () => {
    await db()
      .updateTable('communities')
      .set({ embed_origins: JSON.stringify(['https://shop.example']) })
      .where('id', '=', community.id)
      .execute();
    const ev = await makeEvent(db(), community.id, {
      slug: 'private',
      visibility: 'MEMBERS_ONLY',
      tiers: [{ priceCents: 0 }],
    });
    const res = await server.request(`/api/actions/${community.tag}/events/private/rsvp`, {
      method: 'POST',
      json: { tierId: ev.tierIds[0], email: 'w@example.com', name: 'W' },
      headers: { 'X-API-Key': community.pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(res.status).toBe(404);
    expect(await ticketCount()).toBe(0);
  });

  const widgetCall = (slug: string, action: 'rsvp' | 'checkout', json: object, origin = 'https://shop.example') =>
    server.request(`/api/actions/${community.tag}/events/${slug}/${action}`, {
      method: 'POST',
      json,
      headers: { 'X-API-Key': community.pk, Origin: origin, 'Sec-Fetch-Site': 'cross-site' },
    });
  const allowShop = () =>
    db()
      .updateTable('communities')
      .set({ embed_origins: JSON.stringify(['https://shop.example']) })
      .where('id', '=', community.id)
      .execute();

  it('a repeated RSVP through the widget never hands out the existing ticket: 409, and the ticket is e-mailed to its owner again', async () => {
    await allowShop();
    const ev = await makeEvent(db(), community.id, { slug: 'steal', tiers: [{ priceCents: 0 }] });
    const first = await rsvp('steal', { tierId: ev.tierIds[0], email: 'owner@example.com', name: 'Owner' });
    const res = await widgetCall('steal', 'rsvp', { tierId: ev.tierIds[0], email: 'owner@example.com', name: 'Thief' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: expect.any(String),
      code: 'INVALID_STATE',
      requestId: res.headers.get('x-request-id'),
      extras: { field: 'email' },
    });
    expect(JSON.stringify(res.body)).not.toContain(first.body.qrCode.slice(0, 40));
    expect(await mailTo('owner@example.com')).toHaveLength(2);
  });

  it('a replayed 409 of the widget RSVP carries the request id of the replay, not of the first answer', async () => {
    await allowShop();
    const ev = await makeEvent(db(), community.id, { slug: 'replayed', tiers: [{ priceCents: 0 }] });
    await rsvp('replayed', { tierId: ev.tierIds[0], email: 'owner@example.com', name: 'Owner' });
    const again = () =>
      server.request(`/api/actions/${community.tag}/events/replayed/rsvp`, {
        method: 'POST',
        json: { tierId: ev.tierIds[0], email: 'owner@example.com', name: 'Owner' },
        headers: {
          'X-API-Key': community.pk,
          Origin: 'https://shop.example',
          'Sec-Fetch-Site': 'cross-site',
          'Idempotency-Key': 'rsvp-replayed-1',
        },
      });
    const first = await again();
    const replay = await again();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([first.status, replay.status]).toEqual([409, 409]);
    expect(replay.body.requestId).toBe(replay.headers.get('x-request-id'));
    expect(replay.body.requestId).not.toBe(first.body.requestId);
  });

  it('the per-caller hold cap holds under concurrency: 15 parallel checkouts of 10 seats hold 10', async () => {
    await allowShop();
    const ev = await makeEvent(db(), community.id, { slug: 'hoard2', tiers: [{ priceCents: 100, capacity: 500 }] });
    const body = {
      tierId: ev.tierIds[0],
      quantity: 10,
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/no',
    };
    const results = await Promise.all(Array.from({ length: 15 }, () => widgetCall('hoard2', 'checkout', body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 10 });
    expect(await db().selectFrom('checkout_sessions').select('id').execute()).toHaveLength(1);
  });

  it("widget checkouts may only return to the community's own sites", async () => {
    await allowShop();
    const ev = await makeEvent(db(), community.id, { slug: 'redir', tiers: [{ priceCents: 100 }] });
    const body = {
      tierId: ev.tierIds[0],
      quantity: 1,
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/no',
    };
    expect((await widgetCall('redir', 'checkout', body)).status).toBe(200);
    const evil = await widgetCall('redir', 'checkout', { ...body, successUrl: 'https://evil.example/phish' });
    expect(evil.status).toBe(400);
    expect(evil.body.extras.field).toBe('successUrl');
    expect(
      (await widgetCall('redir', 'checkout', { ...body, cancelUrl: 'https://evil.example/' })).body.extras.field,
    ).toBe('cancelUrl');
  });

  it('one widget caller cannot hold more than 10 seats of a tier in open checkouts', async () => {
    await allowShop();
    const ev = await makeEvent(db(), community.id, { slug: 'hoard', tiers: [{ priceCents: 100, capacity: 100 }] });
    const body = { tierId: ev.tierIds[0], successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' };
    expect((await widgetCall('hoard', 'checkout', { ...body, quantity: 8 })).status).toBe(200);
    const more = await widgetCall('hoard', 'checkout', { ...body, quantity: 3 });
    expect(more.status).toBe(422);
    expect(more.body.error).toContain('8 seats');
    expect(await tier(ev.tierIds[0])).toEqual({ sold: 0, held: 8 });
    // A server with its key is not capped: it books for many buyers.
    expect((await checkout('hoard', { ...body, quantity: 10 })).status).toBe(200);
  });

  it('the widget action refuses an origin the community does not list', async () => {
    const ev = await makeEvent(db(), community.id, { slug: 'wo', tiers: [{ priceCents: 0 }] });
    const res = await server.request(`/api/actions/${community.tag}/events/wo/rsvp`, {
      method: 'POST',
      json: { tierId: ev.tierIds[0], email: 'w@example.com', name: 'W' },
      headers: { 'X-API-Key': community.pk, Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(res.status).toBe(403);
    expect(await ticketCount()).toBe(0);
  });
});
