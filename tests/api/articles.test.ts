// Articles over real HTTP on a real database: public reads, ADMIN writes, the spec's publishing
// state machine, slugs, read time, sanitizing on write, and who may do what.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeKey, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

let s: TestServer;
let pk: string;
let admin: string;
let writeMembers: string;
let otherAdmin: string;
let communityId: string;
const base = '/v1/communities/writers/articles';
const banner = 'https://img.example/banner.jpg';

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'writers', { name: 'The Writers' });
  communityId = c.id;
  pk = c.pk;
  const founder = await makeUser(db, 'ada');
  await db
    .updateTable('users')
    .set({ name: 'Ada Founder', profile_image: 'https://img.example/ada.png' })
    .where('id', '=', founder.id)
    .execute();
  await db.updateTable('communities').set({ founder_user_id: founder.id }).where('id', '=', c.id).execute();
  admin = await makeKey(db, c.id, ['ADMIN']);
  writeMembers = await makeKey(db, c.id, ['READ_PUBLIC', 'WRITE_MEMBERS', 'WRITE_SALES']);
  const other = await makeCommunity(db, 'rivals');
  otherAdmin = await makeKey(db, other.id, ['ADMIN']);
});
afterAll(async () => {
  await s.close();
});

const create = (json: unknown, key = admin, headers: Record<string, string> = {}) =>
  s.request(base, { method: 'POST', key, json, headers });
const patch = (id: string, json: unknown, key = admin) => s.request(`${base}/${id}`, { method: 'PATCH', key, json });
const publish = (id: string, key = admin) => s.request(`${base}/${id}/publish`, { method: 'POST', key });
const unpublish = (id: string, key = admin) => s.request(`${base}/${id}/unpublish`, { method: 'POST', key });
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

async function publishedArticle(title: string) {
  const a = (await create({ title, bannerUrl: banner, content: '<p>Body</p>' })).body;
  const p = await publish(a.id);
  expect(p.status).toBe(200);
  return p.body;
}

describe('articles: happy path', () => {
  it('creates a DRAFT with an empty content, a slug from the title and the founder as author', async () => {
    const r = await create({ title: '  First steps  ' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      slug: 'first-steps',
      title: 'First steps',
      excerpt: '',
      publishedAt: null,
      bannerUrl: null,
      author: { name: 'Ada Founder', usertag: 'ada', profileImage: 'https://img.example/ada.png' },
      readTimeMinutes: 1,
      content: '',
      category: null,
      status: 'DRAFT',
    });
  });

  it('folds accents into the slug, numbers clashes -2, -3 and falls back to "article" for titles without letters', async () => {
    const slugs = [];
    for (const title of ['Ça déménage à Zürich!', 'Ca demenage a Zurich', 'ÇA DÉMÉNAGE — À ZÜRICH', '🎉🎉', '🎉']) {
      slugs.push((await create({ title })).body.slug);
    }
    expect(slugs).toEqual([
      'ca-demenage-a-zurich',
      'ca-demenage-a-zurich-2',
      'ca-demenage-a-zurich-3',
      'article',
      'article-2',
    ]);
  });

  it('gives concurrent creates with one title distinct slugs', async () => {
    const rs = await Promise.all(Array.from({ length: 6 }, () => create({ title: 'Race day' })));
    expect(rs.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(rs.map((r) => r.body.slug).sort()).toEqual([
      'race-day',
      'race-day-2',
      'race-day-3',
      'race-day-4',
      'race-day-5',
      'race-day-6',
    ]);
  });

  it('keeps the slug when the title is edited', async () => {
    const a = (await create({ title: 'Original title' })).body;
    const r = await patch(a.id, { title: 'A completely new title' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'A completely new title', slug: 'original-title' });
  });

  it('sanitizes content on create and on edit', async () => {
    const a = await create({
      title: 'Dirty',
      content: '<p onclick="x()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">x</a></p>',
    });
    expect(a.body.content).toBe('<p>Hi <a rel="noopener noreferrer nofollow">x</a></p>');
    const e = await patch(a.body.id, {
      content: '<h2>T</h2><img src="https://img.example/x.png" onerror="alert(1)"><a href="https://ok.example">ok</a>',
    });
    expect(e.body.content).toBe(
      '<h2>T</h2><img src="https://img.example/x.png" /><a href="https://ok.example/" rel="noopener noreferrer nofollow">ok</a>',
    );
  });

  it('derives readTimeMinutes from the words of the content (225 a minute, rounded up, at least 1)', async () => {
    const cases: [string, number][] = [
      ['', 1],
      [`<p>${words(225)}</p>`, 1],
      [`<p>${words(226)}</p>`, 2],
      [`<ul><li>${words(450)}</li></ul><p>${words(1)}</p>`, 3],
    ];
    for (const [content, minutes] of cases) {
      const r = await create({ title: 'Timing', content });
      expect(r.body.readTimeMinutes).toBe(minutes);
    }
  });

  it('publishes a draft with a banner: PUBLISHED, publishedAt set, listed and served by slug', async () => {
    const a = (await create({ title: 'Going live', bannerUrl: banner, excerpt: 'Short', category: 'News' })).body;
    const before = Date.now();
    const p = await publish(a.id);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      id: a.id,
      status: 'PUBLISHED',
      excerpt: 'Short',
      category: 'News',
      bannerUrl: banner,
    });
    expect(Date.parse(p.body.publishedAt)).toBeGreaterThanOrEqual(before - 1000);
    const one = await s.request(`${base}/slug/going-live`, { key: pk });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(p.body);
    const list = await s.request(`${base}?limit=100`, { key: pk });
    expect(list.body.map((x: any) => x.id)).toContain(a.id);
  });

  it('answers a second publish 200 with the row unchanged', async () => {
    const first = await publishedArticle('Twice');
    const again = await publish(first.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
  });

  it('unpublishes to DRAFT keeping publishedAt, hides the article, and a republish keeps the first publishedAt', async () => {
    const a = await publishedArticle('Now you see it');
    const u = await unpublish(a.id);
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ status: 'DRAFT', publishedAt: a.publishedAt });
    expect((await s.request(`${base}/slug/${a.slug}`, { key: pk })).status).toBe(404);
    expect((await s.request(`${base}?limit=100`, { key: pk })).body.map((x: any) => x.id)).not.toContain(a.id);
    const again = await publish(a.id);
    expect(again.body).toMatchObject({ status: 'PUBLISHED', publishedAt: a.publishedAt });
  });

  it('answers unpublish of a draft 200 as a no-op', async () => {
    const a = (await create({ title: 'Still a draft' })).body;
    const u = await unpublish(a.id);
    expect(u.status).toBe(200);
    expect(u.body).toEqual(a);
  });

  it('publishes through PATCH status=PUBLISHED without a banner, and hides again with status=DRAFT', async () => {
    const a = (await create({ title: 'No banner needed' })).body;
    const p = await patch(a.id, { status: 'PUBLISHED' });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ status: 'PUBLISHED', bannerUrl: null, publishedAt: expect.any(String) });
    expect((await s.request(`${base}/slug/no-banner-needed`, { key: pk })).status).toBe(200);
    const d = await patch(a.id, { status: 'DRAFT' });
    expect(d.body).toMatchObject({ status: 'DRAFT', publishedAt: p.body.publishedAt });
    expect((await s.request(`${base}/slug/no-banner-needed`, { key: pk })).status).toBe(404);
  });

  it('clears excerpt, category and bannerUrl with null and leaves fields that are not sent', async () => {
    const a = (
      await create({ title: 'Edit me', excerpt: 'E', category: 'C', bannerUrl: banner, content: '<p>keep</p>' })
    ).body;
    const r = await patch(a.id, { excerpt: null, category: null, bannerUrl: null });
    expect(r.body).toMatchObject({
      title: 'Edit me',
      excerpt: '',
      category: null,
      bannerUrl: null,
      content: '<p>keep</p>',
    });
    const blank = await patch(a.id, { category: '   ' });
    expect(blank.body.category).toBeNull();
  });

  it('lists published articles newest first by publishedAt, paged by limit and offset', async () => {
    const db = s.database.db;
    const c = await makeCommunity(db, 'paged');
    const key = await makeKey(db, c.id, ['ADMIN']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const a = await s.request('/v1/communities/paged/articles', {
        method: 'POST',
        key,
        json: { title: `Post ${i}`, bannerUrl: banner },
      });
      await s.request(`/v1/communities/paged/articles/${a.body.id}/publish`, { method: 'POST', key });
      ids.push(a.body.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    await s.request('/v1/communities/paged/articles', { method: 'POST', key, json: { title: 'Unpublished' } });
    const all = await s.request('/v1/communities/paged/articles', { key: c.pk });
    expect(all.body.map((a: any) => a.id)).toEqual([...ids].reverse());
    expect(all.headers.get('x-total-count')).toBe('5');
    expect(all.headers.get('link')).toBeNull();
    const page = await s.request('/v1/communities/paged/articles?limit=2&offset=2', { key: c.pk });
    expect(page.body.map((a: any) => a.id)).toEqual([ids[2], ids[1]]);
    const link = page.headers.get('link')!;
    expect(new URL(link.slice(1, link.indexOf('>'))).searchParams.get('offset')).toBe('4');
  });

  it('replays a create sent again with the same Idempotency-Key and writes one article', async () => {
    const first = await create({ title: 'Exactly once' }, admin, { 'Idempotency-Key': 'create-once-1' });
    const second = await create({ title: 'Exactly once' }, admin, { 'Idempotency-Key': 'create-once-1' });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const rows = await s.database.db
      .selectFrom('articles')
      .select('id')
      .where('community_id', '=', communityId)
      .where('title', '=', 'Exactly once')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('accepts the X-Idempotency-Key spelling too: a replayed edit does not undo a later one', async () => {
    const a = (await create({ title: 'Edited once' })).body;
    const send = (title: string) =>
      s.request(`${base}/${a.id}`, {
        method: 'PATCH',
        key: admin,
        json: { title },
        headers: { 'X-Idempotency-Key': `edit-${a.id}` },
      });
    const first = await send('First edit');
    await patch(a.id, { title: 'Later edit' });
    const replay = await send('First edit');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const row = await s.database.db
      .selectFrom('articles')
      .select('title')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.title).toBe('Later edit');
  });

  it('declares every article operation in the OpenAPI document', async () => {
    const doc = (await s.request('/openapi.json')).body;
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) =>
      Object.values(p).map((o) => o.operationId),
    );
    for (const id of [
      'listArticles',
      'getArticleBySlug',
      'createArticle',
      'updateArticle',
      'publishArticle',
      'unpublishArticle',
    ]) {
      expect(ops).toContain(id);
    }
  });
});

describe('articles: errors', () => {
  const invalid: [string, unknown, string][] = [
    ['a missing title', {}, 'title'],
    ['a blank title', { title: '   ' }, 'title'],
    ['an excerpt over 500 characters', { title: 't', excerpt: 'x'.repeat(501) }, 'excerpt'],
    ['a category over 100 characters', { title: 't', category: 'x'.repeat(101) }, 'category'],
    ['a javascript: banner', { title: 't', bannerUrl: 'javascript:alert(1)' }, 'bannerUrl'],
    ['a status on create', { title: 't', status: 'PUBLISHED' }, 'status'],
    ['a non-string content', { title: 't', content: 5 }, 'content'],
  ];
  it.each(invalid)('answers a create with %s with 400 naming the field', async (_what, json, field) => {
    const r = await create(json);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field } });
  });

  it('accepts an excerpt of exactly 500 and a category of exactly 100 characters', async () => {
    const r = await create({ title: 't', excerpt: 'x'.repeat(500), category: 'y'.repeat(100) });
    expect(r.status).toBe(201);
  });

  it('answers invalid edits with 400 naming the field', async () => {
    const a = (await create({ title: 'Target' })).body;
    for (const [json, field] of [
      [{ title: '' }, 'title'],
      [{ status: 'ARCHIVED' }, 'status'],
      [{ excerpt: 'x'.repeat(501) }, 'excerpt'],
      [{ slug: 'new' }, 'slug'],
    ] as const) {
      const r = await patch(a.id, json);
      expect(r.status).toBe(400);
      expect(r.body.extras.field).toBe(field);
    }
  });

  it('answers publish without a bannerUrl with 409 and the spec message, leaving the draft alone', async () => {
    const a = (await create({ title: 'Bannerless' })).body;
    const r = await publish(a.id);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'INVALID_STATE',
      error: 'Article must have a bannerUrl before it can be published',
    });
    const row = await s.database.db
      .selectFrom('articles')
      .select(['status', 'published_at'])
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'DRAFT', published_at: null });
  });

  it('answers 404 "Article not found in this community" for an unknown slug and for a draft', async () => {
    await create({ title: 'Hidden draft' });
    for (const slug of ['no-such-article', 'hidden-draft']) {
      const r = await s.request(`${base}/slug/${slug}`, { key: pk });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 'NOT_FOUND', error: 'Article not found in this community' });
    }
  });

  it('answers 404 for writes to an unknown article id and 400 for a malformed one', async () => {
    const unknown = '0190a000-0000-7000-8000-000000000000';
    for (const r of [
      await patch(unknown, { title: 'x' }),
      await patch(unknown, { status: 'PUBLISHED' }),
      await publish(unknown),
      await unpublish(unknown),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 'NOT_FOUND', error: 'Article not found in this community' });
    }
    const bad = await publish('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.extras.field).toBe('articleId');
  });

  it('refuses a publish or unpublish body with fields (the spec says no body), and accepts none or {}', async () => {
    const a = (await create({ title: 'Bodies', bannerUrl: banner })).body;
    for (const action of ['publish', 'unpublish']) {
      const url = `${base}/${a.id}/${action}`;
      const withField = await s.request(url, { method: 'POST', key: admin, json: { status: 'ARCHIVED' } });
      expect(withField.status).toBe(400);
      expect(withField.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'status' } });
      const notAnObject = await s.request(url, { method: 'POST', key: admin, json: ['x'] });
      expect(notAnObject.status).toBe(400);
      expect(notAnObject.body).toMatchObject({ code: 'INVALID_INPUT', extras: { field: 'body' } });
      expect((await s.request(url, { method: 'POST', key: admin, json: {} })).status).toBe(200);
      expect((await s.request(url, { method: 'POST', key: admin })).status).toBe(200);
    }
  });

  it('answers bad paging parameters with 400', async () => {
    for (const qs of ['limit=0', 'limit=101', 'offset=-1', 'sort=title']) {
      const r = await s.request(`${base}?${qs}`, { key: pk });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('INVALID_INPUT');
    }
  });
});

describe('articles: security', () => {
  it("answers 403 COMMUNITY_MISMATCH to another community's key on every route and changes nothing", async () => {
    const a = (await create({ title: 'Guarded', bannerUrl: banner })).body;
    const calls = [
      s.request(base, { key: otherAdmin }),
      s.request(`${base}/slug/guarded`, { key: otherAdmin }),
      create({ title: 'Intruder' }, otherAdmin),
      patch(a.id, { title: 'Owned' }, otherAdmin),
      publish(a.id, otherAdmin),
      unpublish(a.id, otherAdmin),
    ];
    for (const r of await Promise.all(calls)) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('COMMUNITY_MISMATCH');
    }
    const row = await s.database.db
      .selectFrom('articles')
      .select(['title', 'status'])
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ title: 'Guarded', status: 'DRAFT' });
  });

  it('refuses the publishable key on every ADMIN route with 403 and grantedScopes', async () => {
    const a = (await create({ title: 'Not for pk', bannerUrl: banner })).body;
    for (const r of [
      await create({ title: 'x' }, pk),
      await patch(a.id, { title: 'x' }, pk),
      await publish(a.id, pk),
      await unpublish(a.id, pk),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'INSUFFICIENT_SCOPE', extras: { grantedScopes: ['READ_PUBLIC'] } });
    }
  });

  it('refuses a secret key without ADMIN with 403 listing its scopes', async () => {
    const a = (await create({ title: 'Admins only', bannerUrl: banner })).body;
    for (const r of [
      await create({ title: 'x' }, writeMembers),
      await patch(a.id, { status: 'PUBLISHED' }, writeMembers),
      await publish(a.id, writeMembers),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('INSUFFICIENT_SCOPE');
      expect([...r.body.extras.grantedScopes].sort()).toEqual(['READ_PUBLIC', 'WRITE_MEMBERS', 'WRITE_SALES']);
    }
    expect((await s.request(`${base}/slug/admins-only`, { key: pk })).status).toBe(404);
  });

  it("cannot reach another community's article by id through its own path", async () => {
    const theirs = (
      await s.request('/v1/communities/rivals/articles', {
        method: 'POST',
        key: otherAdmin,
        json: { title: 'Theirs', bannerUrl: banner },
      })
    ).body;
    const r = await publish(theirs.id);
    expect(r.status).toBe(404);
    const row = await s.database.db
      .selectFrom('articles')
      .select('status')
      .where('id', '=', theirs.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('DRAFT');
  });

  it('never serves stored script or event handlers, even after publishing', async () => {
    const a = (
      await create({
        title: 'XSS attempt',
        bannerUrl: banner,
        content:
          '<img src="https://i.example/a.png" onerror="alert(1)"><svg onload="alert(2)"></svg><script>alert(3)</script>',
      })
    ).body;
    await publish(a.id);
    const served = await s.request(`${base}/slug/xss-attempt`, { key: pk });
    expect(served.body.content).toBe('<img src="https://i.example/a.png" />');
    expect(served.text).not.toMatch(/onerror|onload|<script|alert/);
  });

  it('a members-only blog is kept from the publishable key, not from secret keys', async () => {
    const db = s.database.db;
    const closed = await makeCommunity(db, 'private-pen');
    await db
      .updateTable('communities')
      .set({ page_settings: JSON.stringify([{ pageKey: 'BLOG', enabled: true, visibility: 'MEMBERS_ONLY' }]) })
      .where('id', '=', closed.id)
      .execute();
    const key = await makeKey(db, closed.id, ['ADMIN']);
    const a = await s.request('/v1/communities/private-pen/articles', {
      method: 'POST',
      key,
      json: { title: 'Members news', bannerUrl: banner },
    });
    expect(a.status).toBe(201);
    expect(
      (await s.request(`/v1/communities/private-pen/articles/${a.body.id}/publish`, { method: 'POST', key })).status,
    ).toBe(200);
    const reader = await makeKey(db, closed.id, ['READ_PUBLIC']);
    for (const secret of [reader, key]) {
      const list = await s.request('/v1/communities/private-pen/articles', { key: secret });
      expect(list.status).toBe(200);
      expect(list.body.map((x: any) => x.title)).toEqual(['Members news']);
      const one = await s.request('/v1/communities/private-pen/articles/slug/members-news', { key: secret });
      expect(one.status).toBe(200);
      expect(one.body.title).toBe('Members news');
    }
    for (const path of [
      '/v1/communities/private-pen/articles',
      '/v1/communities/private-pen/articles/slug/members-news',
    ]) {
      const r = await s.request(path, { key: closed.pk });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'PAGE_MEMBERS_ONLY' });
      expect(r.text).not.toContain('Members news');
    }
  });
});
