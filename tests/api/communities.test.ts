import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let sk: string;

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'acme', { name: 'Acme Hikers', domains: ['hike.acme.test', 'www.acme.test'], themeConfig: { brandColor: '#123456' } });
  pk = c.pk;
  sk = await makeKey(db, c.id, ['ADMIN']);
  const now = new Date().toISOString();
  await db.insertInto('users').values({
    id: '0190a000-0000-7000-8000-00000000f00d', email: 'founder@acme.test', name: 'Fay', usertag: 'fay',
    profile_image: null, bio: null, phone: '+15550100', password_hash: 'scrypt$secret', created_at: now,
  }).execute();
  await db.updateTable('communities').set({ founder_user_id: '0190a000-0000-7000-8000-00000000f00d', landing_url: 'https://acme.test' }).where('id', '=', c.id).execute();
});
afterAll(async () => { await s.close(); });

describe('community object: happy path', () => {
  it('returns the full public community object by tag', async () => {
    const r = await s.request('/api/communities/acme');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      communityTag: 'acme', name: 'Acme Hikers', visibility: 'PUBLIC', accessibility: 'OPEN',
      pageSettings: [{ pageKey: 'EVENTS', enabled: true, visibility: null }],
      storefrontConfig: { header: { storeName: 'acme' } }, themeConfig: { brandColor: '#123456' },
      features: [], domains: ['hike.acme.test', 'www.acme.test'],
    });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('resolves a community by its custom domain, case-insensitively', async () => {
    const r = await s.request('/api/communities/by-domain/HIKE.acme.test');
    expect(r.status).toBe(200);
    expect(r.body.communityTag).toBe('acme');
  });

  it('resolves <tag>.localhost to the community <tag> for development', async () => {
    const r = await s.request('/api/communities/by-domain/acme.localhost');
    expect(r.body.communityTag).toBe('acme');
  });
});

describe('community object: errors', () => {
  it('answers 404 "Community not found" for an unknown tag or domain', async () => {
    for (const path of ['/api/communities/nobody', '/api/communities/by-domain/nowhere.test', '/api/communities/by-domain/nobody.localhost']) {
      const r = await s.request(path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: 'Community not found', code: 'NOT_FOUND' });
    }
  });

  it('answers 400 for a malformed tag or hostname', async () => {
    const r = await s.request('/api/communities/by-domain/bad_host!');
    expect(r.status).toBe(400);
    expect(r.body.extras.field).toBe('hostname');
    const t = await s.request('/api/communities/A');
    expect(t.status).toBe(400);
    expect(t.body.extras.field).toBe('communityTag');
  });

  it('has no write methods', async () => {
    const r = await s.request('/api/communities/acme', { method: 'PATCH', json: { name: 'x' } });
    expect(r.status).toBe(405);
  });
});

describe('community object: security', () => {
  it('never carries secrets, e-mails, phone numbers, keys or the founder', async () => {
    const r = await s.request('/api/communities/acme');
    for (const secret of [pk, sk, 'founder@acme.test', '+15550100', 'scrypt', 'landing', 'embed', '0190a000-0000-7000-8000-00000000f00d']) {
      expect(r.text).not.toContain(secret);
    }
  });
});
