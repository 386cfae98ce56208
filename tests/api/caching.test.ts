// The key cache and the public read cache, seen from outside: fresh enough, and never a way
// around auth or across communities.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedKeyResolver, hashKey } from '../../server/domain/api-keys.ts';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let acme: { id: string; pk: string };
let globex: { id: string; pk: string };
const TTL = 300;

beforeAll(async () => {
  s = await startTestServer({ env: { SVC_READ_CACHE_MS: String(TTL), SVC_KEY_CACHE_MS: String(TTL) } });
  acme = await makeCommunity(s.database.db, 'acme');
  globex = await makeCommunity(s.database.db, 'globex');
  await makeEvent(s.database.db, acme.id, { slug: 'acme-walk', name: 'Acme walk' });
  await makeEvent(s.database.db, globex.id, { slug: 'globex-walk', name: 'Globex walk' });
});
afterAll(async () => {
  await s.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('caching: happy path', () => {
  it('shows a change made elsewhere once the read-cache TTL has passed', async () => {
    const before = await s.request('/v1/communities/acme/events', { key: acme.pk });
    expect(before.body.map((e: any) => e.slug)).toEqual(['acme-walk']);
    await makeEvent(s.database.db, acme.id, { slug: 'acme-late' });
    const cached = await s.request('/v1/communities/acme/events', { key: acme.pk });
    expect(cached.body).toHaveLength(1);
    expect(cached.headers.get('x-total-count')).toBe('1');
    await sleep(TTL + 50);
    const fresh = await s.request('/v1/communities/acme/events', { key: acme.pk });
    expect(fresh.body.map((e: any) => e.slug)).toEqual(['acme-walk', 'acme-late']);
    expect(fresh.headers.get('x-total-count')).toBe('2');
  });

  it('caches by URL: the same URL is served from the cache, another page is another entry', async () => {
    await sleep(TTL + 50);
    const one = await s.request('/v1/communities/acme/events?limit=1', { key: acme.pk });
    const two = await s.request('/v1/communities/acme/events?limit=1&offset=1', { key: acme.pk });
    expect(one.body[0].slug).not.toBe(two.body[0].slug);
    await s.database.db.updateTable('events').set({ name: 'Renamed' }).where('community_id', '=', acme.id).execute();
    const again = await s.request('/v1/communities/acme/events?limit=1&offset=1', { key: acme.pk });
    expect(again.body).toEqual(two.body);
    const otherSpelling = await s.request('/v1/communities/acme/events?offset=1&limit=1', { key: acme.pk });
    expect(otherSpelling.body[0].name).toBe('Renamed');
    await sleep(TTL + 50);
    const fresh = await s.request('/v1/communities/acme/events?limit=1&offset=1', { key: acme.pk });
    expect(fresh.body[0].name).toBe('Renamed');
  });

  it('drops cached reads of a community at once when the app invalidates it', async () => {
    await s.request('/v1/communities/globex/events', { key: globex.pk });
    await makeEvent(s.database.db, globex.id, { slug: 'globex-new' });
    s.readCache.invalidate(globex.id);
    const r = await s.request('/v1/communities/globex/events', { key: globex.pk });
    expect(r.body.map((e: any) => e.slug)).toContain('globex-new');
  });
});

describe('caching: security', () => {
  it("never serves one community's cached list to another community's key", async () => {
    await s.request('/v1/communities/acme/events', { key: acme.pk });
    const other = await s.request('/v1/communities/globex/events', { key: globex.pk });
    expect(other.body.map((e: any) => e.slug)).not.toContain('acme-walk');
    expect(other.body.map((e: any) => e.slug)).toContain('globex-walk');
    const cross = await s.request('/v1/communities/acme/events', { key: globex.pk });
    expect(cross.status).toBe(403);
  });

  it('still authenticates on a cache hit', async () => {
    await s.request('/v1/communities/acme/events', { key: acme.pk });
    expect((await s.request('/v1/communities/acme/events')).status).toBe(401);
    expect((await s.request('/v1/communities/acme/events', { key: 'pk_live_nope' })).status).toBe(401);
  });

  it('never caches a refused request: a bad query is refused every time', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await s.request('/v1/communities/acme/events?limit=0', { key: acme.pk });
      expect(r.status).toBe(400);
    }
  });

  it('does not cache a key read before it was forgotten (a revocation announced while the lookup ran)', async () => {
    const sk = await makeKey(s.database.db, acme.id, ['READ_PUBLIC']);
    const keys = cachedKeyResolver(s.database.db, 60_000);
    // The lookup's query is in flight when the announcement arrives.
    const racing = keys.lookup(sk);
    keys.forgetCommunity(acme.id);
    expect((await racing)?.community).not.toBeNull();
    // Not cached: the next lookup reads the database again (`community` is only set by a read).
    expect((await keys.lookup(sk))?.community).not.toBeNull();
    // Once nothing was forgotten during it, the key is cached as before.
    expect((await keys.lookup(sk))?.community).toBeNull();
  });

  it('stops honouring a key revoked elsewhere once the key-cache TTL has passed', async () => {
    const sk = await makeKey(s.database.db, acme.id, ['READ_PUBLIC']);
    expect((await s.request('/v1/communities/acme/events', { key: sk })).status).toBe(200);
    await s.database.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('key_hash', '=', hashKey(sk))
      .execute();
    await sleep(TTL + 50);
    expect((await s.request('/v1/communities/acme/events', { key: sk })).status).toBe(401);
  });
});
