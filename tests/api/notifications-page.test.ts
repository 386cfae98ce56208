// The hosted notifications page (GET /notifications), where the header's bell leads: a redirect to
// sign-in for a signed-out visitor, the visitor's own notifications for a signed-in one, under the
// hosted pages' nonce CSP, with every piece of data escaped. Raw HTTP with the sign-in cookie.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transaction } from '../../server/db/index.ts';
import { notify, type NotifyInput } from '../../server/domain/notifications.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let club: { id: string };
let ada: { id: string; usertag: string };
let bob: { id: string; usertag: string };
/** Ada's cookie on the platform host and on the club's hosted domain. */
let platformCookie: string;
let clubCookie: string;

const hostOf = (host?: string) => (host ? `${host}:${port}` : `127.0.0.1:${port}`);
const page = (path: string, opts: { host?: string; cookie?: string } = {}) =>
  rawRequest(port, 'GET', path, { Host: hostOf(opts.host), ...(opts.cookie ? { Cookie: opts.cookie } : {}) });
const clubPage = (path = '/notifications') => page(path, { host: 'club.localhost', cookie: clubCookie });

async function send(input: Omit<NotifyInput, 'kind'> & { kind?: NotifyInput['kind'] }): Promise<string> {
  const id = await transaction(server.database.db, (trx) => notify(trx, { kind: 'friend.requested', ...input }));
  // Distinct timestamps keep "newest first" unambiguous.
  await new Promise((r) => setTimeout(r, 3));
  return id;
}
/** The rendered items, in order: id, whether marked unread, and their text without tags. */
const items = (html: string) =>
  [...html.matchAll(/<li data-id="([^"]+)"( class="unread")?>([\s\S]*?)<\/li>/g)].map(([, id, unread, inner]) => ({
    id,
    unread: Boolean(unread),
    text: inner
      .replace(/<time[\s\S]*<\/time>/, '')
      .replace(/<[^>]+>/g, '')
      .trim(),
  }));

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  const db = server.database.db;
  club = await makeCommunity(db, 'club', { name: 'The Club', themeConfig: { brandColor: '#aa3300' } });
  ada = await makeUser(db, 'ada');
  bob = await makeUser(db, 'bob');
  await db.updateTable('users').set({ name: 'Bob Builder' }).where('id', '=', bob.id).execute();
  platformCookie = `svc_auth=${(await server.sessions.issue(ada.id, Date.now(), undefined, null)).token}`;
  clubCookie = `svc_auth_club=${(await server.sessions.issue(ada.id, Date.now(), undefined, 'club')).token}`;
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await server.database.db.deleteFrom('notifications').execute();
});

describe('notifications page: happy path', () => {
  it('lists my notifications newest first, each kind in words, unread ones marked', async () => {
    await send({ userId: ada.id, actorId: bob.id, kind: 'friend.requested' });
    const accepted = await send({ userId: ada.id, actorId: bob.id, kind: 'friend.accepted' });
    await send({ userId: ada.id, communityId: club.id, kind: 'membership.approved' });
    await send({
      userId: ada.id,
      communityId: club.id,
      kind: 'rsvp.confirmed',
      data: { eventSlug: 'summit-day', eventName: 'Summit Day', tierName: 'Free', rsvpId: 'x' },
    });
    await server.database.db
      .updateTable('notifications')
      .set({ read_at: new Date().toISOString() })
      .where('id', '=', accepted)
      .execute();

    const res = await clubPage();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>Notifications · The Club</title>');
    expect(items(res.text).map(({ unread, text }) => ({ unread, text }))).toEqual([
      { unread: true, text: 'Unread: Your place at Summit Day is confirmed (Free).' },
      { unread: true, text: 'Unread: Your membership of The Club was approved. Welcome!' },
      { unread: false, text: 'Bob Builder (@bob) accepted your friend request.' },
      { unread: true, text: 'Unread: Bob Builder (@bob) sent you a friend request.' },
    ]);
    // The event links to its page on its own community's site.
    expect(res.text).toContain('<a href="/events/summit-day">Summit Day</a>');
    expect(res.text).toContain('<button id="mark-all" type="button">Mark all as read</button>');
    expect(res.text).toContain('--brand: #aa3300');
    expect(res.text).not.toContain('id="more"');
  });

  it('names the community and links no event when the page is on another site (the platform)', async () => {
    await send({
      userId: ada.id,
      communityId: club.id,
      kind: 'rsvp.confirmed',
      data: { eventSlug: 'summit-day', eventName: 'Summit Day', tierName: 'Free' },
    });
    const res = await page('/notifications', { cookie: platformCookie });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<title>Notifications · svc</title>');
    expect(items(res.text).map((i) => i.text)).toEqual([
      'Unread: Your place at Summit Day is confirmed (Free) in The Club.',
    ]);
    expect(res.text).not.toContain('href="/events/');
  });

  it('shows only my own notifications, and no "Mark all as read" once nothing is unread', async () => {
    await send({ userId: bob.id, actorId: ada.id, kind: 'friend.requested' });
    const mine = await send({ userId: ada.id, actorId: bob.id, kind: 'friend.accepted' });
    await server.database.db
      .updateTable('notifications')
      .set({ read_at: new Date().toISOString() })
      .where('id', '=', mine)
      .execute();
    const res = await clubPage();
    expect(items(res.text)).toEqual([
      { id: mine, unread: false, text: 'Bob Builder (@bob) accepted your friend request.' },
    ]);
    expect(res.text).not.toContain('id="mark-all"');
  });

  it('says so when there are none', async () => {
    const res = await clubPage();
    expect(items(res.text)).toEqual([]);
    expect(res.text).toContain('No notifications yet.');
  });

  it('pages 20 at a time: "Load more" points at the next offset, the last page has none', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push(await send({ userId: ada.id, actorId: bob.id }));
    const first = await clubPage();
    expect(items(first.text).map((i) => i.id)).toEqual(ids.slice(3).reverse());
    expect(first.text).toContain('<a id="more" href="/notifications?offset=20">Load more</a>');
    const second = await clubPage('/notifications?offset=20');
    expect(items(second.text).map((i) => i.id)).toEqual(ids.slice(0, 3).reverse());
    expect(second.text).not.toContain('id="more"');
    // A nonsensical offset is the first page.
    expect(items((await clubPage('/notifications?offset=-5')).text)).toHaveLength(20);
  });

  it('accepts the page\'s own "Mark all as read" call (same origin, JSON, the cookie); then nothing is marked unread', async () => {
    await send({ userId: ada.id, actorId: bob.id });
    await send({ userId: ada.id, actorId: bob.id, kind: 'friend.accepted' });
    const marked = await rawRequest(
      port,
      'PATCH',
      '/api/users/me/notifications/mark-read',
      {
        Host: hostOf('club.localhost'),
        Origin: `http://${hostOf('club.localhost')}`,
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        Cookie: clubCookie,
      },
      JSON.stringify({ all: true }),
    );
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ updated: 2 });
    const res = await clubPage();
    expect(items(res.text).map((i) => i.unread)).toEqual([false, false]);
    expect(res.text).not.toContain('id="mark-all"');
  });
});

describe('notifications page: errors', () => {
  it('sends a signed-out visitor to sign in, coming back here after', async () => {
    for (const host of [undefined, 'club.localhost']) {
      const res = await page('/notifications', { host });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?next=/notifications');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('treats a token of another site, a forged one and one of a deleted user as signed out', async () => {
    await send({ userId: ada.id, actorId: bob.id });
    // The platform's token on the club's domain (tokens are bound to their site).
    expect(
      (
        await page('/notifications', {
          host: 'club.localhost',
          cookie: platformCookie.replace('svc_auth=', 'svc_auth_club='),
        })
      ).status,
    ).toBe(302);
    const [head, payload] = clubCookie.split('=')[1].split('.');
    expect(
      (await page('/notifications', { host: 'club.localhost', cookie: `svc_auth_club=${head}.${payload}.AAAA` }))
        .status,
    ).toBe(302);
    const gone = await makeUser(server.database.db);
    const goneCookie = `svc_auth=${(await server.sessions.issue(gone.id, Date.now(), undefined, null)).token}`;
    await server.database.db.deleteFrom('users').where('id', '=', gone.id).execute();
    expect((await page('/notifications', { cookie: goneCookie })).status).toBe(302);
  });
});

describe('notifications page: security', () => {
  it('escapes every piece of notification data: names, usertags, event names, slugs, community names', async () => {
    const evil = '<img src=x onerror=alert(1)>"\'&';
    const mallory = await makeUser(server.database.db, 'mallory');
    await server.database.db
      .updateTable('users')
      .set({ name: `<script>alert('name')</script>` })
      .where('id', '=', mallory.id)
      .execute();
    const shady = await makeCommunity(server.database.db, 'shady', { name: `Shady <b>&</b> "Co"` });
    await send({ userId: ada.id, actorId: mallory.id, kind: 'friend.requested' });
    await send({ userId: ada.id, communityId: shady.id, kind: 'membership.approved' });
    await send({
      userId: ada.id,
      communityId: club.id,
      kind: 'rsvp.confirmed',
      data: { eventSlug: `"><script>alert(2)</script>`, eventName: evil, tierName: evil },
    });
    const res = await clubPage();
    expect(res.status).toBe(200);
    // One inline script; the hosted chrome adds only module files and JSON data (hosted-site-ssr.test.ts).
    expect(res.text.match(/<script(?![^>]* src=|[^>]*type="application\/json")/g)).toHaveLength(1);
    expect(res.text).not.toContain('<img');
    expect(res.text).not.toContain('<b>');
    expect(res.text).toContain('&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;');
    expect(res.text).toContain('Shady &lt;b&gt;&amp;&lt;/b&gt; &quot;Co&quot;');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
    expect(res.text).toContain('href="/events/%22%3E%3Cscript%3Ealert(2)%3C%2Fscript%3E"');
  });

  it('is sent under a fresh nonce CSP that allows only its own inline script and style, and is never framed or cached', async () => {
    await send({ userId: ada.id, actorId: bob.id });
    const res = await clubPage();
    const csp = String(res.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String((await clubPage()).headers['content-security-policy'])).not.toContain(nonce!);
  });
});
