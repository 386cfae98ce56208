// What text a request may carry: no NUL or other control characters (multi-line text keeps tab and
// line breaks), no unpaired surrogates, valid percent-encoding in paths and query strings. Refused
// with 400 INVALID_INPUT naming the field, on every route, before anything reaches the database:
// PostgreSQL refuses NUL in text and unpaired surrogates in jsonb, where SQLite stores them.
// input-fuzz.test.ts checks the same over every operation with generated input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawClient, rawRequest, type RawResponse } from './support/raw-http.ts';
import { pay } from './support/checkout.ts';

let s: TestServer;
let admin: string;
let pk: string;
let tierId: string;
let communityId: string;
const articles = '/v1/communities/acme/articles';

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'acme');
  communityId = c.id;
  pk = c.pk;
  await db
    .updateTable('communities')
    .set({ embed_origins: JSON.stringify(['https://shop.example']) })
    .where('id', '=', c.id)
    .execute();
  admin = await makeKey(db, c.id, ['ADMIN']);
  tierId = (await makeEvent(db, c.id, { slug: 'meetup', tiers: [{ priceCents: 0 }, { priceCents: 1000 }] })).tierIds[0];
});
afterAll(async () => {
  await s.close();
});

type Answer = { status: number; body: any; headers: Headers | RawResponse['headers'] };
const header = (r: Answer, name: string) => (r.headers instanceof Headers ? r.headers.get(name) : r.headers[name]);

function expectRefused(r: Answer, field: string) {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ code: 'INVALID_INPUT', requestId: header(r, 'x-request-id'), extras: { field } });
}

const count = async (table: 'articles' | 'tickets' | 'users') =>
  Number(
    (
      await s.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('text input: happy path', () => {
  it('keeps tabs and line breaks in multi-line text', async () => {
    const excerpt = 'First line,\n\tindented second\r\nthird';
    const r = await s.request(articles, {
      method: 'POST',
      key: admin,
      json: { title: 'Lines', excerpt, content: '<p>a</p>\n\t<p>b</p>' },
    });
    expect(r.status).toBe(201);
    expect(r.body.excerpt).toBe(excerpt);
    expect(r.body.content).toContain('\n\t');
  });

  it('keeps emoji and other characters outside the BMP (surrogate pairs) in one-line text', async () => {
    const r = await s.request(articles, {
      method: 'POST',
      key: admin,
      json: { title: 'Summit 🏔️ 𝄞 李', category: 'Día 👩‍👩‍👧' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ title: 'Summit 🏔️ 𝄞 李', category: 'Día 👩‍👩‍👧' });
  });

  it('decodes well-formed percent-encoding in paths and query strings as before', async () => {
    expect((await s.request('/v1/communities/acme/events/meet%75p', { key: pk })).status).toBe(200);
    expect((await s.request('/v1/communities/acme/events?upcoming=tr%75e', { key: pk })).status).toBe(200);
  });
});

describe('text input: errors', () => {
  const bodies: [string, object, string][] = [
    ['NUL in one-line text', { title: 'a\u0000b' }, 'title'],
    ['NUL in multi-line text', { title: 't', excerpt: 'x\u0000' }, 'excerpt'],
    ['a bell in multi-line text', { title: 't', content: '<p>ding\u0007</p>' }, 'content'],
    ['ESC in multi-line text', { title: 't', excerpt: '\u001b[31mred' }, 'excerpt'],
    ['DEL in multi-line text', { title: 't', excerpt: 'rub\u007fout' }, 'excerpt'],
    ['a line feed in one-line text', { title: 'two\nlines' }, 'title'],
    ['a tab in one-line text', { title: 'tab\there' }, 'title'],
    ['a carriage return in one-line text', { title: 't', category: 'a\rb' }, 'category'],
    ['a lone high surrogate', { title: 't', excerpt: 'broken \ud83d' }, 'excerpt'],
    ['a lone low surrogate', { title: '\udc00' }, 'title'],
    ['an unknown field with NUL in its name', { title: 't', 'x\u0000': 1 }, 'body'],
  ];
  it.each(bodies)('refuses %s with 400 naming the field, and stores nothing', async (_what, json, field) => {
    const before = await count('articles');
    expectRefused(await s.request(articles, { method: 'POST', key: admin, json }), field);
    expect(await count('articles')).toBe(before);
  });

  it('names a field inside arrays and objects by its dotted path, and a bad key by the object holding it', async () => {
    const rsvp = (formAnswers: object) =>
      s.request('/v1/communities/acme/events/meetup/rsvp', {
        method: 'POST',
        key: admin,
        json: { tierId, email: 'ana@example.com', name: 'Ana', formAnswers },
      });
    expectRefused(await rsvp({ q1: ['fine', 'not\u0000fine'] }), 'formAnswers.q1.1');
    expectRefused(await rsvp({ 'q\u0000': 'x' }), 'formAnswers');
    expect(await count('tickets')).toBe(0);
  });

  it('refuses a sign-up with NUL in the name (no key needed) and creates no account', async () => {
    const before = await count('users');
    const r = await rawClient(s).post('/api/auth/sign-up', {
      email: 'nul@example.com',
      password: 'correct horse',
      name: 'Ana\u0000',
    });
    expectRefused(r, 'name');
    expect(await count('users')).toBe(before);
  });

  it('refuses a widget RSVP with NUL in the name, and issues no ticket', async () => {
    const r = await s.request('/api/actions/acme/events/meetup/rsvp', {
      method: 'POST',
      json: { tierId, email: 'w@example.com', name: 'W\u0000' },
      headers: { 'X-API-Key': pk, Origin: 'https://shop.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expectRefused(r, 'name');
    expect(await count('tickets')).toBe(0);
  });

  it("refuses a widget action's preflight with %00 as the community tag", async () => {
    const port = new URL(s.url).port;
    const r = await rawRequest(port, 'OPTIONS', '/api/actions/%00/events/meetup/rsvp', {
      Origin: 'https://shop.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-api-key',
    });
    expectRefused(r, 'communityTag');
  });

  it.each([
    ['/v1/communities/acme/events/%00', 'slug'],
    ['/v1/communities/acme/events/meet%0Aup', 'slug'],
    ['/v1/communities/acme/events/%ED%A0%80', 'slug'],
    ['/v1/communities/%00/events', 'communityTag'],
    ['/api/communities/by-domain/a%00.example', 'hostname'],
    ['/api/users/me/friends/%00/accept', 'usertag'],
  ])(
    'refuses a control character or an encoded surrogate in the path parameter of %s, naming it',
    async (path, field) => {
      const r = await s.request(path, { key: admin, method: path.endsWith('accept') ? 'POST' : 'GET' });
      expectRefused(r, field);
    },
  );

  it.each([
    ['/v1/communities/acme/events?cursor=%00', 'cursor'],
    ['/v1/communities/acme/events?cursor=a%01b', 'cursor'],
    ['/v1/communities/acme/events?cursor=a%0Ab', 'cursor'],
    ['/v1/communities/acme/events?cursor=%E0%A4', 'cursor'],
    ['/v1/communities/acme/events?cursor=%ED%A0%80', 'cursor'],
    ['/v1/communities/acme/events?%00=1', 'query'],
  ])(
    'refuses a control character or a broken encoding in the query string %s, naming the parameter',
    async (path, field) => {
      expectRefused(await s.request(path, { key: admin }), field);
    },
  );

  it.each([
    ['/checkout/%00', 'path'],
    ['/checkout/cs_local_%ED%A0%80', 'path'],
    ['/sign-in?next=%00', 'next'],
    ['/sign-in?next=%E0%A4', 'next'],
    ['/reset-password?token=%00', 'token'],
    ['/notifications?x=%00', 'x'],
  ])('answers the page %s, which is not in the contract, with the same 400', async (path, field) => {
    const r = await rawRequest(new URL(s.url).port, 'GET', path, { Host: `acme.localhost:${new URL(s.url).port}` });
    expectRefused(r, field);
  });

  it('refuses NUL in the e-mail typed on the local checkout page, and issues no ticket', async () => {
    const paidTier = (
      await s.database.db
        .selectFrom('tiers')
        .select('id')
        .where('community_id', '=', communityId)
        .where('price_cents', '=', 1000)
        .executeTakeFirstOrThrow()
    ).id;
    const opened = await s.request('/v1/communities/acme/events/meetup/checkout', {
      method: 'POST',
      key: admin,
      json: {
        tierId: paidTier,
        quantity: 1,
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/no',
      },
    });
    expect(opened.status).toBe(200);
    const refused = await pay(opened.body.checkoutUrl, 'buyer\u0000@example.com');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Enter a valid e-mail address.');
    expect(await count('tickets')).toBe(0);
    expect((await pay(opened.body.checkoutUrl, 'buyer@example.com')).status).toBe(303);
  });
});
