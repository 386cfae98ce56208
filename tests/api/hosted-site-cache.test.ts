// The anonymous page cache (docs/hosted-site.md, "Caching"): a request that sends no sign-in cookie
// gets the page every such visitor gets, kept per community for SVC_READ_CACHE_MS and dropped by
// any write of that community in this process; nothing signed-in is ever served from it or put in it.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeEvent, makeMembership, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let server: TestServer;
let port: string;
let clubId: string;
let memberCookie: string;

/** Renames the event behind the cache's back: a direct write invalidates nothing. */
const rename = (slug: string, name: string) =>
  server.database.db.updateTable('events').set({ name }).where('slug', '=', slug).execute();
const get = (path: string, headers: Record<string, string> = {}) =>
  rawRequest(port, 'GET', path, { Host: `club.localhost:${port}`, ...headers });

beforeAll(async () => {
  // A long lifetime, so what the tests see is the cache's doing and not the clock's.
  server = await startTestServer({ env: { SVC_READ_CACHE_MS: '60000' } });
  port = new URL(server.url).port;
  const db = server.database.db;
  const club = await makeCommunity(db, 'club', { name: 'The Club', domains: ['club.example'] });
  clubId = club.id;
  await makeEvent(db, club.id, { slug: 'walk', name: 'Walk One' });
  await makeEvent(db, club.id, { slug: 'inner', name: 'Inner', visibility: 'MEMBERS_ONLY' });
  const member = await makeUser(db, 'cache-member');
  await makeMembership(db, club.id, member.id, 'ACCEPTED');
  memberCookie = `svc_auth_club=${(await server.sessions.issue(member.id, Date.now(), undefined, 'club')).token}`;
});

afterAll(async () => {
  await server?.close();
});

describe('hosted site page cache: happy path', () => {
  it('serves an anonymous page again from the cache, the same bytes and ETag, until a write of the community', async () => {
    const first = await get('/events/walk');
    expect(first.text).toContain('Walk One');
    await rename('walk', 'Walk Two');
    const again = await get('/events/walk');
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
    expect((await get('/events/walk', { 'If-None-Match': String(first.headers.etag) })).status).toBe(304);
    // What a write through the app does: the community's cached answers go.
    server.readCache.invalidate(clubId);
    expect((await get('/events/walk')).text).toContain('Walk Two');
  });

  it('keeps one entry per host and path: the canonical URL is the host the visitor used', async () => {
    const local = await get('/events');
    const custom = await rawRequest(port, 'GET', '/events', { Host: `club.example:${port}` });
    expect(local.text).toContain(`<link rel="canonical" href="http://club.localhost:${port}/events">`);
    expect(custom.text).toContain(`<link rel="canonical" href="http://club.example:${port}/events">`);
  });

  it('sends a kept page gzipped to a client that accepts it, with its own ETag, and the same page inside', async () => {
    const plain = await get('/events');
    const zipped = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) =>
      http
        .get(
          {
            host: '127.0.0.1',
            port,
            path: '/events',
            headers: { Host: `club.localhost:${port}`, 'Accept-Encoding': 'gzip' },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        )
        .on('error', reject),
    );
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(zipped.body).toString('utf8')).toBe(plain.text);
    expect(zipped.body.length).toBeLessThan(plain.text.length / 2);
    expect(zipped.headers.vary).toBe('Cookie, Accept-Encoding');
    expect(plain.headers.vary).toBe('Cookie, Accept-Encoding');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers.etag).toBe(String(plain.headers.etag).replace(/"$/, '-gzip"'));
  });
});

describe('hosted site page cache: security', () => {
  it('never serves the anonymous copy to a request with a sign-in cookie, nor keeps a signed-in page', async () => {
    const anonymous = await get('/events');
    expect(anonymous.text).not.toContain('Inner');
    const member = await get('/events', { Cookie: memberCookie });
    expect(member.text).toContain('Inner');
    expect(member.headers['cache-control']).toBe('private, no-store');
    // The member's page went nowhere: the next anonymous visitor still sees the public list only.
    expect((await get('/events')).text).not.toContain('Inner');
    // A cookie that is not a valid sign-in still skips the cache (and reads as anonymous).
    const bogus = await get('/events', { Cookie: 'svc_auth_club=not-a-token' });
    expect(bogus.text).not.toContain('Inner');
  });

  it('keeps no gate, not-found or error page', async () => {
    expect((await get('/events/inner')).status).toBe(403);
    expect((await get('/nope')).status).toBe(404);
    await makeEvent(server.database.db, clubId, { slug: 'late', name: 'Late' });
    // Not found a moment ago; found now, with no write through the app in between.
    expect((await get('/events/late')).status).toBe(200);
  });
});

describe('hosted site page cache: errors', () => {
  it('is off with SVC_READ_CACHE_MS=0: every anonymous page is rendered afresh', async () => {
    const off = await startTestServer({ env: { SVC_READ_CACHE_MS: '0' } });
    try {
      const c = await makeCommunity(off.database.db, 'club', { name: 'The Club' });
      await makeEvent(off.database.db, c.id, { slug: 'walk', name: 'Before' });
      const p = new URL(off.url).port;
      const at = () => rawRequest(p, 'GET', '/events/walk', { Host: `club.localhost:${p}` });
      expect((await at()).text).toContain('Before');
      await off.database.db.updateTable('events').set({ name: 'After' }).where('slug', '=', 'walk').execute();
      expect((await at()).text).toContain('After');
    } finally {
      await off.close();
    }
  });
});
