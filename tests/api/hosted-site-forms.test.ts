// Plain form posts on the hosted site (docs/hosted-site.md, "Form posts"): the CSRF scheme every
// post passes (the cookie-write origin checks plus the `_csrf` synchronizer token), the RSVP
// without JavaScript on `/events/<slug>` through the same use-case as the API and the widget, and
// CHAT (`/conversations`, a thread and its send form) on the messaging domain, and `/apply`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import { createConversation, postMessage } from '../../server/domain/conversations.ts';
import { CONVERSATIONS_LIMIT, MESSAGES_LIMIT } from '../../server/site/pages/chat.ts';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { makeCommunity, makeEvent, makeFounder, makeMembership, makeSegment, makeUser } from './support/factory.ts';
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
      { name: 'Questions', priceCents: 0, form: [{ id: 'diet', type: 'short_text', label: 'Diet', required: true }] },
    ],
  });
  [tierIds.free, tierIds.paid, tierIds.one, tierIds.asks] = picnic.tierIds;
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
  it('a signed-in viewer gets the RSVP form posting tierId and _csrf without JavaScript; paid tiers need JavaScript', async () => {
    const v = await visitor('ann');
    const res = await get('/events/picnic', v.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    // The server-rendered <svc-rsvp>: its form is a plain post to the RSVP route, one radio per tier.
    const forms = res.text.match(/<form [^>]*method="post" action="\/events\/picnic\/rsvp">[\s\S]*?<\/form>/g);
    expect(forms).toHaveLength(1);
    for (const id of [tierIds.free, tierIds.one])
      expect(forms![0]).toContain(`<input type="radio" name="tierId" value="${id}"/>`);
    expect(res.text).toContain('<p class="meta nojs">Buying a paid ticket needs JavaScript.</p>');
    // The token is the HMAC of this session, under the key derived from the session secret.
    const sid = JSON.parse(Buffer.from(v.token.split('.')[1], 'base64url').toString()).sid as string;
    expect(forms![0]).toContain(
      `<input type="hidden" name="_csrf" value="${csrfTokenFor(csrfKey(server.sessions), sid)}">`,
    );
  });

  it('an anonymous viewer gets a sign-in link returning to the event instead of a way to post', async () => {
    const res = await get('/events/picnic');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('name="_csrf"');
    expect(res.text).not.toContain('type="submit"');
    expect(res.text).toContain('href="/sign-in?next=%2Fevents%2Fpicnic">Sign in to RSVP</a>');
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
    // Widget actions act as the public, so this event's page gives the member the plain forms.
    const page = (await get('/events/inner', v.cookie)).text;
    expect(page).not.toContain('<svc-rsvp');
    expect(page).toContain(`<input type="hidden" name="tierId" value="${tierIds.inner}">`);
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

  it("a free tier whose form has required questions is refused with the form's message and 422", async () => {
    const v = await visitor('ned');
    const res = await post('/events/picnic/rsvp', { tierId: tierIds.asks, _csrf: await csrfOf(v.cookie) }, v.cookie);
    expect(res.status).toBe(422);
    expect(res.text).toContain('Required form fields are missing');
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

// ---------------------------------------------------------------------------------------------
// CHAT: /conversations and a thread's send form
// ---------------------------------------------------------------------------------------------

async function conversationBetween(a: string, usertags: string[], ...bodies: [string, string][]) {
  return transaction(server.database.db, async (trx) => {
    const { conversation } = await createConversation(trx, a, usertags);
    for (const [sender, body] of bodies) await postMessage(trx, sender, conversation.id, body);
    return conversation.id;
  });
}
const messagesIn = (conversationId: string) =>
  server.database.db
    .selectFrom('messages')
    .select(['body', 'sender_id'])
    .where('conversation_id', '=', conversationId)
    .orderBy('seq')
    .execute();

describe('hosted site chat: happy path', () => {
  it("a member's conversations, most recent activity first, with the other participants and the last message", async () => {
    const me = await visitor('chat-me', 'ACCEPTED');
    const pal = await visitor('chat-pal', 'ACCEPTED');
    const old = await visitor('chat-old', 'ACCEPTED');
    const first = await conversationBetween(me.id, ['chat-old'], [old.id, 'From long ago']);
    const second = await conversationBetween(me.id, ['chat-pal'], [pal.id, 'Hello <b>there</b>']);
    const res = await get('/conversations', me.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const order = [second, first].map((id) => res.text.indexOf(`href="/conversations/${id}"`));
    expect(order[0]).toBeGreaterThan(-1);
    expect(order[1]).toBeGreaterThan(order[0]);
    expect(res.text).toContain(`href="/conversations/${second}">User chat-pal</a> <strong>(1 unread)</strong>`);
    expect(res.text).toContain('User chat-pal: Hello &lt;b&gt;there&lt;/b&gt;');
    // A message moves its conversation to the top.
    await conversationBetween(me.id, ['chat-old'], [old.id, 'Back again']);
    const again = (await get('/conversations', me.cookie)).text;
    expect(again.indexOf(`/conversations/${first}"`)).toBeLessThan(again.indexOf(`/conversations/${second}"`));
  });

  it('pages a long list of conversations and a long thread, as the messaging API does (by offset)', async () => {
    const me = await visitor('pager-me', 'ACCEPTED');
    const pals = [];
    for (let i = 0; i <= CONVERSATIONS_LIMIT; i++) pals.push(await visitor(`pager-${i}`, 'ACCEPTED'));
    for (const pal of pals) await conversationBetween(me.id, [`pager-${pals.indexOf(pal)}`], [pal.id, 'hi']);
    const list = (await get('/conversations', me.cookie)).text;
    expect(list.match(/<li><a href="\/conversations\//g)).toHaveLength(CONVERSATIONS_LIMIT);
    expect(list).toContain(`<a href="/conversations?offset=${CONVERSATIONS_LIMIT}">Older conversations</a>`);
    const older = (await get(`/conversations?offset=${CONVERSATIONS_LIMIT}`, me.cookie)).text;
    expect(older.match(/<li><a href="\/conversations\//g)).toHaveLength(1);
    expect(older).not.toContain('Older conversations');

    const lines: [string, string][] = [];
    for (let i = 0; i < MESSAGES_LIMIT + 2; i++) lines.push([me.id, `line ${i}.`]);
    const id = await conversationBetween(me.id, ['pager-0'], ...lines);
    const latest = (await get(`/conversations/${id}`, me.cookie)).text;
    expect(latest).toContain(`line ${MESSAGES_LIMIT + 1}.`);
    expect(latest).not.toContain('>line 0.<');
    expect(latest).toContain(`<a href="/conversations/${id}?offset=${MESSAGES_LIMIT}">Earlier messages</a>`);
    const earlier = (await get(`/conversations/${id}?offset=${MESSAGES_LIMIT}`, me.cookie)).text;
    expect(earlier).toContain('>line 0.<');
    expect(earlier).not.toContain('Earlier messages');
    expect(earlier).toContain(`<a href="/conversations/${id}">Latest messages</a>`);
  });

  it('a thread reads oldest to newest and its send form posts the message, then 303s back', async () => {
    const me = await visitor('thread-me', 'ACCEPTED');
    const pal = await visitor('thread-pal', 'ACCEPTED');
    const id = await conversationBetween(me.id, ['thread-pal'], [pal.id, 'First words'], [me.id, 'Second words']);
    const page = await get(`/conversations/${id}`, me.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>User thread-pal</h1>');
    expect(page.text.indexOf('First words')).toBeLessThan(page.text.indexOf('Second words'));
    expect(page.text).toContain(`<form method="post" action="/conversations/${id}" class="message-form">`);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const res = await post(
      `/conversations/${id}`,
      { body: '  See you <there> & then\nbye  ', _csrf: token },
      me.cookie,
    );
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/conversations/${id}`);
    expect((await messagesIn(id)).at(-1)).toEqual({ body: 'See you <there> & then\nbye', sender_id: me.id });
    expect((await get(`/conversations/${id}`, me.cookie)).text).toContain('See you &lt;there&gt; &amp; then\nbye');
  });
});

describe('hosted site chat: errors', () => {
  it('an empty, too long or control-character message is refused with 400 and the thread, and nothing is sent', async () => {
    const me = await visitor('empty-me', 'ACCEPTED');
    await visitor('empty-pal', 'ACCEPTED');
    const id = await conversationBetween(me.id, ['empty-pal']);
    const token = await csrfOf(me.cookie, `/conversations/${id}`);
    for (const [body, text] of [
      ['   ', 'Write a message of 1 to 4000 characters.'],
      ['x'.repeat(4001), 'Write a message of 1 to 4000 characters.'],
      ['bell\u0007', 'The message holds a control character and was not sent.'],
    ]) {
      const res = await post(`/conversations/${id}`, { body, _csrf: token }, me.cookie);
      expect(res.status).toBe(400);
      expect(res.text).toContain(text);
      expect(res.text).toContain('class="message-form"');
    }
    expect(await messagesIn(id)).toEqual([]);
  });

  it("a conversation the member is not in, or that does not exist, is not found, and can't be posted to", async () => {
    const a = await visitor('pair-a', 'ACCEPTED');
    await visitor('pair-b', 'ACCEPTED');
    const outsider = await visitor('pair-out', 'ACCEPTED');
    const id = await conversationBetween(a.id, ['pair-b'], [a.id, 'Private words']);
    for (const path of [
      `/conversations/${id}`,
      '/conversations/00000000-0000-4000-8000-000000000000',
      '/conversations/not-a-uuid',
    ]) {
      const res = await get(path, outsider.cookie);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('Private words');
    }
    const token = await csrfOf(outsider.cookie);
    const res = await post(`/conversations/${id}`, { body: 'Intruding', _csrf: token }, outsider.cookie);
    expect(res.status).toBe(404);
    expect(await messagesIn(id)).toEqual([{ body: 'Private words', sender_id: a.id }]);
  });
});

describe('hosted site chat: security', () => {
  it('anyone but an ACCEPTED member gets the gate, on a public community too', async () => {
    const pending = await visitor('chat-pending', 'PENDING');
    const stranger = await visitor('chat-stranger');
    for (const cookie of [undefined, pending.cookie, stranger.cookie]) {
      const res = await get('/conversations', cookie);
      expect(res.status).toBe(403);
      expect(res.text).toContain('<h1>Members only</h1>');
    }
  });

  it('a send without the form token, or from another origin, is refused and sends nothing', async () => {
    const me = await visitor('csrf-me', 'ACCEPTED');
    await visitor('csrf-pal', 'ACCEPTED');
    const id = await conversationBetween(me.id, ['csrf-pal']);
    const token = await csrfOf(me.cookie, `/conversations/${id}`);
    expect((await post(`/conversations/${id}`, { body: 'hi' }, me.cookie)).status).toBe(403);
    const cross = await post(`/conversations/${id}`, { body: 'hi', _csrf: token }, me.cookie, {
      Origin: 'http://evil.example',
    });
    expect(cross.status).toBe(403);
    expect(await messagesIn(id)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// /apply: the segments and their application forms
// ---------------------------------------------------------------------------------------------

const APPLY_FORM = [
  { id: 'why', type: 'long_text', label: 'Why <join>?', required: true },
  { id: 'level', type: 'select', label: 'Level', required: false, options: ['new', 'old'] },
  { id: 'likes', type: 'multi_select', label: 'Likes', required: false, options: ['tea', 'cake', 'walks'] },
  { id: 'age', type: 'number', label: 'Age', required: false },
  { id: 'rules', type: 'checkbox', label: 'I accept the rules', required: true },
];
const seg: Record<string, string> = {};

const requestsOf = (email: string) =>
  server.database.db
    .selectFrom('membership_requests')
    .select(['segment_id', 'answers', 'status', 'source'])
    .where('email', '=', email)
    .execute();

async function applyToken(cookie: string): Promise<string> {
  return csrfOf(cookie, '/apply');
}

describe('hosted site apply', () => {
  beforeAll(async () => {
    const db = server.database.db;
    const c = await db.selectFrom('communities').select('id').where('tag', '=', TAG).executeTakeFirstOrThrow();
    // A founder makes the community live: its auto-approving segments approve.
    await makeFounder(db, c.id, 'forms-founder');
    seg.reviewed = await makeSegment(db, c.id, { name: 'Reviewed <b>tier</b>', sort_order: 1 }, APPLY_FORM);
    seg.auto = await makeSegment(db, c.id, { name: 'Open door', auto_approve: 1, sort_order: 2 });
    seg.paid = await makeSegment(db, c.id, { name: 'Patron', price_yearly: 5000, sort_order: 3 });
    seg.closed = await makeSegment(db, c.id, { name: 'Closed one', is_active: 0, sort_order: 4 });
    const invite = await makeCommunity(db, 'invite');
    await db.updateTable('communities').set({ accessibility: 'INVITE_ONLY' }).where('id', '=', invite.id).execute();
    await makeSegment(db, invite.id, { name: 'Invited' });
    const priv = await makeCommunity(db, 'privapply', { visibility: 'MEMBERS_ONLY' });
    await makeSegment(db, priv.id, { name: 'Private door' });
  });

  describe('happy path', () => {
    it('an anonymous viewer sees the open segments and is asked to sign in, returning to /apply', async () => {
      const res = await get('/apply');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
      expect(res.text).toContain('<h2 id="seg-' + seg.reviewed + '">Reviewed &lt;b&gt;tier&lt;/b&gt;</h2>');
      expect(res.text).toContain('Open door');
      expect(res.text).toContain('Patron');
      expect(res.text).toContain('€50.00 a year');
      expect(res.text).not.toContain('Closed one');
      expect(res.text).toContain('href="/sign-in?next=%2Fapply">Sign in to apply</a>');
      expect(res.text).not.toContain('<form');
    });

    it("a signed-in viewer gets a plain form per free segment, with the form's fields and their own address prefilled", async () => {
      const v = await visitor('app-ann');
      const res = await get('/apply', v.cookie);
      expect(res.status).toBe(200);
      const forms = res.text.match(/<form method="post" action="\/apply" class="apply-form">[\s\S]*?<\/form>/g)!;
      expect(forms).toHaveLength(2);
      expect(forms[0]).toContain(`<input type="hidden" name="segmentId" value="${seg.reviewed}">`);
      expect(forms[0]).toContain('name="a:email" value="app-ann@example.com"');
      expect(forms[0]).toContain('name="a:name" value="User app-ann"');
      expect(forms[0]).toContain('Why &lt;join&gt;? (required)');
      expect(forms[0]).toContain('<textarea id="f-' + seg.reviewed + '-why" name="a:why"');
      expect(forms[0]).toContain('name="a:likes" value="cake"');
      expect(forms[0]).toContain('type="number"');
      expect(forms[0]).toMatch(/name="_csrf" value="[^"]+"/);
      expect(forms[1]).toContain(`value="${seg.auto}"`);
      expect(res.text).toContain('Paying for this membership needs JavaScript.');
      // No plain form for it (the server-rendered <svc-apply>'s radio carries its id, for the checkout).
      expect(res.text).not.toContain(`name="segmentId" value="${seg.paid}"`);
    });

    it('the post applies through the API use-case (answers typed by field) and 303s to the confirmation', async () => {
      const v = await visitor('app-bea');
      const body = new URLSearchParams([
        ['segmentId', seg.reviewed],
        ['a:email', v.email],
        ['a:name', 'Bea Applicant'],
        ['a:why', 'Because'],
        ['a:level', 'old'],
        ['a:likes', 'tea'],
        ['a:likes', 'walks'],
        ['a:age', '42'],
        ['a:rules', 'yes'],
        ['_csrf', await applyToken(v.cookie)],
      ]);
      const res = await rawRequest(
        port,
        'POST',
        '/apply',
        {
          Host: host(),
          Origin: `http://${host()}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: v.cookie,
        },
        body.toString(),
      );
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/apply?applied=pending');
      const [request] = await requestsOf(v.email);
      expect(request).toMatchObject({ segment_id: seg.reviewed, status: 'PENDING', source: 'hosted site' });
      expect(JSON.parse(request.answers)).toMatchObject({
        email: v.email,
        name: 'Bea Applicant',
        why: 'Because',
        level: 'old',
        likes: ['tea', 'walks'],
        age: 42,
        rules: true,
      });
      expect((await get(res.headers.location!, v.cookie)).text).toContain('Your application was sent.');
    });

    it('an auto-approving free segment makes the applicant a member at once', async () => {
      const v = await visitor('app-cai');
      const res = await post(
        '/apply',
        { segmentId: seg.auto, 'a:email': v.email, 'a:name': 'Cai', _csrf: await applyToken(v.cookie) },
        v.cookie,
      );
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/apply?applied=approved');
      expect((await get('/apply?applied=approved', v.cookie)).text).toContain('your membership is active');
    });

    it("a members-only community's /apply is open to non-members: it is where the gate leads", async () => {
      const res = await rawRequest(port, 'GET', '/apply', { Host: `privapply.localhost:${port}` });
      expect(res.status).toBe(200);
      expect(res.text).toContain('Private door');
    });
  });

  describe('errors', () => {
    it('a missing required answer re-renders the form with the message, what was typed, and 400', async () => {
      const v = await visitor('app-dee');
      const res = await post(
        '/apply',
        {
          segmentId: seg.reviewed,
          'a:email': v.email,
          'a:name': 'Dee',
          'a:why': 'Kept <text>',
          _csrf: await applyToken(v.cookie),
        },
        v.cookie,
      );
      expect(res.status).toBe(400);
      expect(res.text).toContain('role="alert"');
      expect(res.text).toContain('>Kept &lt;text&gt;</textarea>');
      expect(await requestsOf(v.email)).toEqual([]);
    });

    it('an existing member is refused with the API refusal, and a paid or unknown segment with 400', async () => {
      const member = await visitor('app-eli', 'ACCEPTED');
      // A member's /apply has no forms ("already a member"); a forged-by-hand post is refused all the same.
      expect((await get('/apply', member.cookie)).text).toContain('You are already a member of Form Club.');
      const token = await csrfOf(member.cookie);
      const again = await post(
        '/apply',
        { segmentId: seg.auto, 'a:email': member.email, 'a:name': 'Eli', _csrf: token },
        member.cookie,
      );
      expect(again.status).toBe(400);
      expect(again.text).toContain('role="alert"');
      const v = await visitor('app-fay');
      const t2 = await applyToken(v.cookie);
      for (const segmentId of [seg.paid, seg.closed, '00000000-0000-4000-8000-000000000000']) {
        const res = await post('/apply', { segmentId, 'a:email': v.email, 'a:name': 'Fay', _csrf: t2 }, v.cookie);
        expect(res.status).toBe(400);
      }
      expect(
        (await post('/apply', { segmentId: seg.paid, 'a:email': v.email, 'a:name': 'Fay', _csrf: t2 }, v.cookie)).text,
      ).toContain('Paying for this membership needs JavaScript.');
      expect(await requestsOf(v.email)).toEqual([]);
    });

    it('an INVITE_ONLY community has no /apply, to read or to post', async () => {
      expect((await rawRequest(port, 'GET', '/apply', { Host: `invite.localhost:${port}` })).status).toBe(404);
    });
  });

  describe('security', () => {
    it('a post without the token, from another origin or without the cookie applies nothing', async () => {
      const v = await visitor('app-gus');
      const fields = { segmentId: seg.auto, 'a:email': v.email, 'a:name': 'Gus' };
      const token = await applyToken(v.cookie);
      for (const res of [
        await post('/apply', fields, v.cookie),
        await post('/apply', { ...fields, _csrf: token }, v.cookie, { Origin: 'http://evil.example' }),
        await post('/apply', { ...fields, _csrf: token }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.text).toContain('<h1>Form not accepted</h1>');
      }
      expect(await requestsOf(v.email)).toEqual([]);
    });
  });
});
