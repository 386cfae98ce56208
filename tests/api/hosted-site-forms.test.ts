// Plain form posts on the hosted site (docs/hosted-site.md, "Form posts"): the CSRF scheme every
// post passes (the cookie-write origin checks plus the `_csrf` synchronizer token), and the RSVP
// without JavaScript on `/events/<slug>` through the same use-case as the API and the widget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;
const DAY = 24 * 3600_000;
const TAG = 'forms';
const tierIds: Record<string, string> = {};

const host = () => `${TAG}.localhost:${port}`;
const get = (path: string, cookie?: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: host(), ...(cookie ? { Cookie: cookie } : {}) });

/** A form post as the site's own page sends it; `headers` overrides (a value '' drops the header). */
function post(path: string, fields: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) {
  const h: Record<string, string> = {
    Host: host(),
    Origin: `http://${host()}`,
    'Content-Type': 'application/x-www-form-urlencoded',
    'Sec-Fetch-Site': 'same-origin',
    ...(cookie ? { Cookie: cookie } : {}),
    ...headers,
  };
  for (const k of Object.keys(h)) if (h[k] === '') delete h[k];
  return rawRequest(port, 'POST', path, h, new URLSearchParams(fields).toString());
}

/** A signed-in user of the community's site (member when `status` is given): their cookie. */
async function visitor(usertag: string, status?: 'ACCEPTED' | 'PENDING') {
  const db = server.database.db;
  const c = await db.selectFrom('communities').select('id').where('tag', '=', TAG).executeTakeFirstOrThrow();
  const user = await makeUser(db, usertag);
  if (status) await makeMembership(db, c.id, user.id, status);
  const { token } = await server.sessions.issue(user.id, Date.now(), undefined, TAG);
  return { id: user.id, email: `${usertag}@example.com`, cookie: `svc_auth_${TAG}=${token}`, token };
}

/** The `_csrf` a page embeds for this cookie. */
async function csrfOf(cookie: string, path = '/events/picnic'): Promise<string> {
  const m = /name="_csrf" value="([^"]+)"/.exec((await get(path, cookie)).text);
  expect(m, 'the page embeds a form token').not.toBeNull();
  return m![1];
}

const ticketsOf = (email: string) =>
  server.database.db.selectFrom('tickets').select(['id', 'tier_id']).where('email', '=', email).execute();
const soldOf = async (tierId: string) =>
  Number(
    (await server.database.db.selectFrom('tiers').select('sold').where('id', '=', tierId).executeTakeFirstOrThrow())
      .sold,
  );

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  const c = await makeCommunity(db, TAG, { name: 'Form Club' });
  const soon = new Date(Date.now() + 2 * DAY).toISOString();
  const picnic = await makeEvent(db, c.id, {
    slug: 'picnic',
    name: 'Picnic',
    startDate: soon,
    tiers: [
      { name: 'Blanket', priceCents: 0 },
      { name: 'Hamper', priceCents: 2500 },
      { name: 'Last seat', priceCents: 0, capacity: 1 },
    ],
  });
  [tierIds.free, tierIds.paid, tierIds.one] = picnic.tierIds;
  const inner = await makeEvent(db, c.id, {
    slug: 'inner',
    name: 'Inner',
    startDate: soon,
    visibility: 'MEMBERS_ONLY',
    tiers: [{ name: 'Members', priceCents: 0 }],
  });
  tierIds.inner = inner.tierIds[0];
  const other = await makeEvent(db, c.id, {
    slug: 'other',
    startDate: soon,
    tiers: [{ name: 'Other', priceCents: 0 }],
  });
  tierIds.other = other.tierIds[0];
});
afterAll(async () => {
  await server.close();
});

describe('hosted site forms: happy path', () => {
  it('a signed-in viewer gets one plain RSVP form per free tier, with tierId and _csrf; paid tiers need JavaScript', async () => {
    const v = await visitor('ann');
    const res = await get('/events/picnic', v.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const forms = res.text.match(
      /<form method="post" action="\/events\/picnic\/rsvp" class="rsvp-form">[\s\S]*?<\/form>/g,
    );
    expect(forms).toHaveLength(2);
    expect(forms![0]).toContain(`<input type="hidden" name="tierId" value="${tierIds.free}">`);
    expect(forms![1]).toContain(`<input type="hidden" name="tierId" value="${tierIds.one}">`);
    expect(res.text).not.toContain(`value="${tierIds.paid}"`);
    expect(res.text).toContain('Buying a paid ticket needs JavaScript.');
    // The token is the HMAC of this session, under the key derived from the session secret.
    const sid = JSON.parse(Buffer.from(v.token.split('.')[1], 'base64url').toString()).sid as string;
    for (const f of forms!)
      expect(f).toContain(`<input type="hidden" name="_csrf" value="${csrfTokenFor(csrfKey(server.sessions), sid)}">`);
  });

  it('an anonymous viewer gets a sign-in link returning to the event instead of the form', async () => {
    const res = await get('/events/picnic');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<form');
    expect(res.text).toContain('href="/sign-in?next=%2Fevents%2Fpicnic">Sign in to register</a>');
  });

  it('the RSVP post books the signed-in viewer and answers 303 to the confirmation', async () => {
    const v = await visitor('bea');
    const before = await soldOf(tierIds.free);
    const res = await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: await csrfOf(v.cookie) }, v.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/events/picnic?rsvp=confirmed');
    expect(await ticketsOf(v.email)).toEqual([expect.objectContaining({ tier_id: tierIds.free })]);
    expect(await soldOf(tierIds.free)).toBe(before + 1);
    const page = await get(res.headers.location!, v.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You are registered.');
  });

  it('a member RSVPs to a members-only event from its page', async () => {
    const v = await visitor('cai', 'ACCEPTED');
    const res = await post(
      '/events/inner/rsvp',
      { tierId: tierIds.inner, _csrf: await csrfOf(v.cookie, '/events/inner') },
      v.cookie,
    );
    expect(res.status).toBe(303);
    expect(await ticketsOf(v.email)).toHaveLength(1);
  });
});

describe('hosted site forms: errors', () => {
  it('a sold-out tier re-renders the event page with the refusal and 422; the seat count holds', async () => {
    const first = await visitor('dee');
    const second = await visitor('eli');
    const ok = await post(
      '/events/picnic/rsvp',
      { tierId: tierIds.one, _csrf: await csrfOf(first.cookie) },
      first.cookie,
    );
    expect(ok.status).toBe(303);
    const res = await post(
      '/events/picnic/rsvp',
      { tierId: tierIds.one, _csrf: await csrfOf(second.cookie) },
      second.cookie,
    );
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<h1>Picnic</h1>');
    expect(res.text).toContain('This tier is sold out');
    expect(await ticketsOf(second.email)).toEqual([]);
    expect(await soldOf(tierIds.one)).toBe(1);
  });

  it('a second RSVP to the same tier answers 409, already registered, and takes no seat', async () => {
    const v = await visitor('fay');
    const token = await csrfOf(v.cookie);
    expect((await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: token }, v.cookie)).status).toBe(303);
    const sold = await soldOf(tierIds.free);
    const again = await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: token }, v.cookie);
    expect(again.status).toBe(409);
    expect(again.text).toContain('You are already registered');
    expect(await soldOf(tierIds.free)).toBe(sold);
  });

  it('a paid tier, a tier of another event or no tier is refused with 400 and the page', async () => {
    const v = await visitor('gus');
    const token = await csrfOf(v.cookie);
    for (const tierId of [tierIds.paid, tierIds.other, '']) {
      const res = await post('/events/picnic/rsvp', { tierId, _csrf: token }, v.cookie);
      expect(res.status).toBe(400);
      expect(res.text).toContain('<h1>Picnic</h1>');
    }
    expect(await ticketsOf(v.email)).toEqual([]);
  });

  it('an event that does not exist is the not-found page', async () => {
    const v = await visitor('hal');
    const res = await post('/events/nope/rsvp', { tierId: tierIds.free, _csrf: await csrfOf(v.cookie) }, v.cookie);
    expect(res.status).toBe(404);
  });
});

describe('hosted site forms: security (CSRF)', () => {
  async function expectRefused(res: RawResponse, email: string) {
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toContain('<h1>Form not accepted</h1>');
    expect(res.text).not.toMatch(/"error"|at .*\.ts:\d+/);
    expect(await ticketsOf(email)).toEqual([]);
  }

  it('refuses a post without a token, with a wrong one, or with the token of another session', async () => {
    const v = await visitor('ivy');
    const other = await visitor('jon');
    const good = await csrfOf(v.cookie);
    await expectRefused(await post('/events/picnic/rsvp', { tierId: tierIds.free }, v.cookie), v.email);
    await expectRefused(
      await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: 'x'.repeat(good.length) }, v.cookie),
      v.email,
    );
    await expectRefused(
      await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: await csrfOf(other.cookie) }, v.cookie),
      v.email,
    );
    // A second session of the same user is another session too.
    const { token } = await server.sessions.issue(v.id, Date.now(), undefined, TAG);
    await expectRefused(
      await post('/events/picnic/rsvp', { tierId: tierIds.free, _csrf: good }, `svc_auth_${TAG}=${token}`),
      v.email,
    );
  });

  it('refuses another Origin, no Origin, and Sec-Fetch-Site cross-site or same-site, even with the right token', async () => {
    const v = await visitor('kim');
    const fields = { tierId: tierIds.free, _csrf: await csrfOf(v.cookie) };
    await expectRefused(
      await post('/events/picnic/rsvp', fields, v.cookie, { Origin: 'http://evil.example' }),
      v.email,
    );
    await expectRefused(await post('/events/picnic/rsvp', fields, v.cookie, { Origin: `https://${host()}` }), v.email);
    await expectRefused(await post('/events/picnic/rsvp', fields, v.cookie, { Origin: '' }), v.email);
    await expectRefused(
      await post('/events/picnic/rsvp', fields, v.cookie, { 'Sec-Fetch-Site': 'cross-site' }),
      v.email,
    );
    await expectRefused(
      await post('/events/picnic/rsvp', fields, v.cookie, { 'Sec-Fetch-Site': 'same-site' }),
      v.email,
    );
    // Without Fetch Metadata (older browsers) the Origin and the token decide.
    expect((await post('/events/picnic/rsvp', fields, v.cookie, { 'Sec-Fetch-Site': '' })).status).toBe(303);
  });

  it('refuses a post without the sign-in cookie, or as another content type', async () => {
    const v = await visitor('lou');
    const fields = { tierId: tierIds.free, _csrf: await csrfOf(v.cookie) };
    await expectRefused(await post('/events/picnic/rsvp', fields), v.email);
    await expectRefused(
      await post('/events/picnic/rsvp', fields, v.cookie, { 'Content-Type': 'multipart/form-data; boundary=x' }),
      v.email,
    );
    await expectRefused(await post('/events/picnic/rsvp', fields, v.cookie, { 'Content-Type': 'text/plain' }), v.email);
  });

  it('a non-member cannot RSVP to a members-only event, token or not', async () => {
    const v = await visitor('max', 'PENDING');
    const res = await post('/events/inner/rsvp', { tierId: tierIds.inner, _csrf: await csrfOf(v.cookie) }, v.cookie);
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Members only</h1>');
    expect(await ticketsOf(v.email)).toEqual([]);
  });
});
