import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../server/domain/api-keys.ts';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'acme');
  pk = c.pk;
  await makeEvent(db, c.id, { slug: 'launch' });
  keys.admin = await makeKey(db, c.id, ['ADMIN']);
  keys.read = await makeKey(db, c.id, ['READ_PUBLIC']);
  keys.sales = await makeKey(db, c.id, ['WRITE_SALES', 'WRITE_MEMBERS']);
  const other = await makeCommunity(db, 'globex');
  keys.otherAdmin = await makeKey(db, other.id, ['ADMIN']);
  keys.otherPk = other.pk;
});
afterAll(async () => {
  await s.close();
});

const events = '/v1/communities/acme/events';

describe('api keys: happy path', () => {
  it('accepts the publishable key, a READ_PUBLIC secret key and an ADMIN key for public reads', async () => {
    for (const key of [pk, keys.read, keys.admin]) {
      const r = await s.request(events, { key });
      expect(r.status).toBe(200);
    }
  });

  it('provisions one publishable key per community and returns the same one every time', async () => {
    const a = await s.request('/v1/communities/acme/publishable-key');
    const b = await s.request('/v1/communities/acme/publishable-key');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ communityTag: 'acme', publishableKey: pk, scopes: ['READ_PUBLIC'] });
    expect(b.body.publishableKey).toBe(pk);
  });

  it('provisions a key on first call, once, even when the first calls race', async () => {
    await makeCommunity(s.database.db, 'fresh').then(async ({ id }) => {
      await s.database.db.deleteFrom('api_keys').where('community_id', '=', id).execute();
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => s.request('/v1/communities/fresh/publishable-key')),
    );
    const distinct = new Set(results.map((r) => r.body.publishableKey));
    expect(distinct.size).toBe(1);
    expect([...distinct][0]).toMatch(/^pk_live_[A-Za-z0-9_-]{20,}$/);
    const r = await s.request('/v1/communities/fresh/events', { key: [...distinct][0] });
    expect(r.status).toBe(200);
  });
});

describe('api keys: errors', () => {
  it('answers 401 "API key required" for a missing or empty header', async () => {
    for (const headers of [{}, { 'X-API-Key': '' }, { 'X-API-Key': '   ' }] as Record<string, string>[]) {
      const r = await s.request(events, { headers });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: 'API key required', code: 'API_KEY_REQUIRED' });
    }
  });

  it('answers 401 "Invalid API key" for an unknown, malformed or revoked key', async () => {
    const revoked = await makeKey(
      s.database.db,
      (await s.database.db.selectFrom('communities').select('id').where('tag', '=', 'acme').executeTakeFirstOrThrow())
        .id,
      ['ADMIN'],
    );
    await s.database.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('key_hash', '=', hashKey(revoked))
      .execute();
    for (const key of ['sk_live_doesnotexist', 'hello', pk + 'x', revoked]) {
      const r = await s.request(events, { key });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: 'Invalid API key', code: 'INVALID_API_KEY' });
    }
  });

  it('answers 404 "Community not found" for the publishable key of an unknown community', async () => {
    const r = await s.request('/v1/communities/nobody/publishable-key');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'Community not found', code: 'NOT_FOUND' });
  });

  it('checks the key before the input: a bad key with bad input is still a 401', async () => {
    const r = await s.request(`${events}?limit=9999`, { key: 'sk_live_nope' });
    expect(r.status).toBe(401);
  });
});

describe('api keys: security', () => {
  it("answers 403 to a key on another community's path, even an ADMIN key, even for an unknown community", async () => {
    for (const [key, path] of [
      [keys.otherAdmin, events],
      [keys.otherPk, events],
      [keys.admin, '/v1/communities/nobody/events'],
    ]) {
      const r = await s.request(path, { key });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'COMMUNITY_MISMATCH', error: 'API key does not belong to this community' });
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE with grantedScopes to a secret key without READ_PUBLIC', async () => {
    const r = await s.request(events, { key: keys.sales });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(r.body.extras.grantedScopes.sort()).toEqual(['WRITE_MEMBERS', 'WRITE_SALES']);
  });

  it('caps a publishable key at READ_PUBLIC whatever its stored scopes say', async () => {
    await s.database.db
      .updateTable('api_keys')
      .set({ scopes: JSON.stringify(['ADMIN']) })
      .where('key_hash', '=', hashKey(pk))
      .execute();
    const { findApiKey } = await import('../../server/domain/api-keys.ts');
    expect((await findApiKey(s.database.db, pk))?.scopes).toEqual(['READ_PUBLIC']);
  });

  it('stores secret keys only as hashes', async () => {
    const rows = await s.database.db.selectFrom('api_keys').selectAll().where('kind', '=', 'secret').execute();
    const dump = JSON.stringify(rows);
    for (const key of [keys.admin, keys.read, keys.sales]) {
      expect(dump).not.toContain(key);
      expect(dump).toContain(hashKey(key));
    }
  });

  it('never reads the key from the query string', async () => {
    const r = await s.request(`${events}?api_key=${pk}`);
    expect(r.status).toBe(401);
  });
});
