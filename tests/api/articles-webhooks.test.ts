// article.published end to end: each publishing path over real HTTP, the real outbox and worker,
// deliveries counted at a real HTTP receiver. The spec's table: publish and PATCH
// status=PUBLISHED fire once per publish; a second publish, unpublish and a refused publish
// fire nothing; there is no article.unpublished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretBox } from '../../server/webhooks/secret-box.ts';
import type { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  addEndpoint,
  deliveredTo,
  startReceiver,
  startWorker,
  testSecretBox,
  type Receiver,
} from './support/webhooks.ts';

const banner = 'https://img.example/banner.jpg';

let s: TestServer;
let secrets: SecretBox;
let receiver: Receiver;
let worker: DeliveryWorker;
let seq = 0;

beforeAll(async () => {
  s = await startTestServer();
  secrets = testSecretBox();
  receiver = await startReceiver();
  worker = startWorker(s.database, secrets);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await s.close();
});

/** A community of its own per test, with a receiver subscribed to every event. */
async function setup() {
  const tag = `pub-${++seq}`;
  const c = await makeCommunity(s.database.db, tag);
  const key = await makeKey(s.database.db, c.id, ['ADMIN']);
  const endpoint = await addEndpoint(s.database.db, secrets, c.id, receiver.url, ['*']);
  const call = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    s.request(`/v1/communities/${tag}/articles${path}`, { method, key, json, headers });
  const draft = async (json: Record<string, unknown> = {}) =>
    (await call('POST', '', { title: `Story ${seq}`, bannerUrl: banner, ...json })).body;
  /** Every delivery this community's changes produced, once all of them have reached the receiver. */
  const delivered = () =>
    deliveredTo<{ event: string; data: { articleId: string; slug: string; title: string; publishedAt: string } }>(
      s.database.db,
      receiver,
      { id: c.id, tag },
      endpoint.secret,
    );
  return { call, draft, delivered };
}

describe('article webhooks: happy path', () => {
  it('POST /publish fires one article.published carrying the article', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft();
    const p = await call('POST', `/${a.id}/publish`);
    const events = await delivered();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'article.published',
      data: { articleId: a.id, slug: a.slug, title: a.title, publishedAt: p.body.publishedAt },
    });
  });

  it('PATCH status=PUBLISHED fires one article.published, banner or not', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft({ bannerUrl: null });
    expect((await call('PATCH', `/${a.id}`, { status: 'PUBLISHED', title: 'Renamed on publish' })).status).toBe(200);
    const events = await delivered();
    expect(events.map((e) => [e.event, e.data.articleId, e.data.title])).toEqual([
      ['article.published', a.id, 'Renamed on publish'],
    ]);
  });

  it('publish → unpublish → publish fires twice, and the unpublish fires nothing', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft();
    await call('POST', `/${a.id}/publish`);
    await call('POST', `/${a.id}/unpublish`);
    await call('POST', `/${a.id}/publish`);
    await call('PATCH', `/${a.id}`, { status: 'DRAFT' });
    await call('PATCH', `/${a.id}`, { status: 'PUBLISHED' });
    const events = await delivered();
    expect(events.map((e) => e.event)).toEqual(['article.published', 'article.published', 'article.published']);
  });
});

describe('article webhooks: errors', () => {
  it('fires nothing for a second publish, by POST or by PATCH', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft();
    await call('POST', `/${a.id}/publish`);
    expect((await call('POST', `/${a.id}/publish`)).status).toBe(200);
    expect((await call('PATCH', `/${a.id}`, { status: 'PUBLISHED' })).status).toBe(200);
    expect((await delivered()).map((e) => e.event)).toEqual(['article.published']);
  });

  it('fires nothing for a publish refused with 409, nor for edits and unpublishing drafts', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft({ bannerUrl: null });
    expect((await call('POST', `/${a.id}/publish`)).status).toBe(409);
    await call('POST', `/${a.id}/unpublish`);
    await call('PATCH', `/${a.id}`, { title: 'Edited', status: 'DRAFT' });
    expect(await delivered()).toEqual([]);
    const rows = await s.database.db
      .selectFrom('webhook_events')
      .select('name')
      .where('community_tag', '=', `pub-${seq}`)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('article webhooks: security', () => {
  it('fires exactly one event when one draft is published by many requests at once', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft();
    const rs = await Promise.all([
      ...Array.from({ length: 6 }, () => call('POST', `/${a.id}/publish`)),
      ...Array.from({ length: 4 }, () => call('PATCH', `/${a.id}`, { status: 'PUBLISHED' })),
    ]);
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(rs.map((r) => r.body.publishedAt)).size).toBe(1);
    expect((await delivered()).map((e) => e.data.articleId)).toEqual([a.id]);
  });

  it('replays a publish sent again with its Idempotency-Key without publishing or firing again', async () => {
    const { call, draft, delivered } = await setup();
    const a = await draft();
    const first = await call('POST', `/${a.id}/publish`, undefined, { 'Idempotency-Key': 'publish-1' });
    await call('POST', `/${a.id}/unpublish`);
    const replay = await call('POST', `/${a.id}/publish`, undefined, { 'Idempotency-Key': 'publish-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const row = await s.database.db
      .selectFrom('articles')
      .select('status')
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('DRAFT');
    expect(await delivered()).toHaveLength(1);
  });
});
