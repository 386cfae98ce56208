// The leader console's integrations (docs/leader-console.md, "Integrations"): secret keys shown once,
// with their last use, revoked at once; webhook receivers behind the SSRF guard, their secret shown
// once and rotated with two signatures during the overlap; deliveries with their attempt log,
// replayed and resent to a real receiver on 127.0.0.1 by the real delivery worker.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecretBox } from '../../server/webhooks/secret-box.ts';
import type { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { approved, emitOne, startReceiver, startWorker, waitFor, type Receiver } from './support/webhooks.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let worker: DeliveryWorker;
const receivers: Receiver[] = [];
/** The SQL of every `last_used_at` write the server made. */
const lastUseWrites: string[] = [];
const stripe = new Stripe('sk_test_not_used_for_network');

beforeAll(async () => {
  server = await startTestServer({
    onQuery: (sql) => {
      if (/update "api_keys" set "last_used_at"/.test(sql)) lastUseWrites.push(sql);
    },
  });
  club = await leaderFixture(server, 'int');
  other = await leaderFixture(server, 'oth');
  // The delivery worker a server runs (main.ts), with the server's secrets and a schedule in milliseconds.
  worker = startWorker(server.database, loadSecretBox(server.config));
});
afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await server?.close();
});

const api = (
  f: LeaderFixture,
  who: Person | null,
  method: string,
  path: string,
  json?: unknown,
  origin?: string | null,
) =>
  onSite(server, f.tag, method, `/api/admin/${f.tag}${path}`, {
    cookie: who ? f.cookies[who] : undefined,
    // A cookie write says it is JSON, even without fields (the CSRF rule of docs/api.md); a DELETE has no body.
    json: json === undefined && method !== 'GET' && method !== 'DELETE' ? {} : json,
    origin,
    headers: method === 'DELETE' ? { 'Content-Type': 'application/json' } : undefined,
  });

const auditOf = async (f: LeaderFixture) =>
  server.database.db
    .selectFrom('audit_log')
    .selectAll()
    .where('community_id', '=', f.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const v1Events = (f: LeaderFixture, key: string) => server.request(`/v1/communities/${f.tag}/events`, { key });

describe('happy', () => {
  it('creates a secret key shown once, which works on /v1 until it is revoked, and then at once', async () => {
    const created = await api(club, 'admin', 'POST', '/keys', { name: 'Shop sync', scopes: ['READ_PUBLIC'] });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { key, secret } = created.body;
    expect(secret).toMatch(/^sk_live_/);
    expect(key).toMatchObject({ name: 'Shop sync', scopes: ['READ_PUBLIC'], revokedAt: null, lastUsedAt: null });
    expect(secret.startsWith(key.prefix)).toBe(true);

    // Used once, so the resolver has it cached when it is revoked.
    expect((await v1Events(club, secret)).status).toBe(200);
    const list = await api(club, 'founder', 'GET', '/keys');
    expect(list.status).toBe(200);
    expect(list.body.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(list.text).not.toContain(secret);

    const revoked = await api(club, 'founder', 'POST', `/keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const after = await v1Events(club, secret);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('INVALID_API_KEY');

    const audit = (await auditOf(club)).filter((e) => e.target_id === key.id);
    expect(audit.map((e) => e.action)).toEqual(['key.create', 'key.revoke']);
    expect(JSON.parse(audit[0].after!)).toEqual({ prefix: key.prefix, name: 'Shop sync', scopes: ['READ_PUBLIC'] });
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it.runIf(onPostgres && process.env.REDIS_URL)(
    'stops a revoked key at once on a second server that had it cached, through Redis',
    async () => {
      const second = await startTestServer({ sharedWith: server });
      try {
        const { body } = await api(club, 'founder', 'POST', '/keys', { scopes: ['READ_PUBLIC'] });
        const onSecond = () => second.request(`/v1/communities/${club.tag}/events`, { key: body.secret });
        // Looked up there now, and trusted for SVC_KEY_CACHE_MS (5 s) without the announcement.
        expect(second.config.keyCacheMs).toBeGreaterThanOrEqual(5000);
        expect((await onSecond()).status).toBe(200);
        const revokedAt = Date.now();
        expect((await api(club, 'founder', 'POST', `/keys/${body.key.id}/revoke`)).status).toBe(200);
        let status = 200;
        while (status === 200 && Date.now() - revokedAt < 2000) {
          status = (await onSecond()).status;
          if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(status).toBe(401);
        expect(Date.now() - revokedAt).toBeLessThan(2000);
      } finally {
        await second.close();
      }
    },
  );

  it('records when a key was last used, with one write for many requests', async () => {
    const { body } = await api(club, 'founder', 'POST', '/keys', { scopes: ['ADMIN'] });
    const writesBefore = lastUseWrites.length;
    for (let i = 0; i < 25; i++) expect((await v1Events(club, body.secret)).status).toBe(200);
    const used = await waitFor(async () => {
      const list = await api(club, 'founder', 'GET', '/keys');
      return list.body.find((k: { id: string; lastUsedAt: string | null }) => k.id === body.key.id && k.lastUsedAt);
    }, 'the last use to be written');
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(lastUseWrites.length - writesBefore).toBe(1);
  });

  it('registers a receiver with its secret shown once, logs every attempt, and replays to the real receiver', async () => {
    const f = await leaderFixture(server, 'rp');
    const hook = await receiver();
    const created = await api(f, 'founder', 'POST', '/webhooks', {
      url: hook.url,
      events: ['member.approved'],
      description: 'CRM',
    });
    expect(created.status).toBe(201);
    const { receiver: r, secret } = created.body;
    expect(secret).toMatch(/^whsec_/);
    expect(r).toMatchObject({ url: hook.url, events: ['member.approved'], status: 'ENABLED', description: 'CRM' });

    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    await waitFor(() => hook.requests.length === 1, 'the first delivery');
    const deliveries = await waitFor(async () => {
      const res = await api(f, 'admin', 'GET', `/webhooks/${r.id}/deliveries`);
      return res.body[0]?.status === 'SUCCEEDED' ? res : null;
    }, 'the delivery to succeed');
    expect(deliveries.headers['x-total-count']).toBe('1');
    const deliveryId = deliveries.body[0].id;

    hook.handle((_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('seen it'));
    const replay = await api(f, 'admin', 'POST', `/webhooks/${r.id}/deliveries/${deliveryId}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: deliveryId, status: 'PENDING', round: 2 });
    await waitFor(() => hook.requests.length === 2, 'the replay');
    const [first, again] = hook.requests;
    expect(again.headers['svc-delivery-id']).toBe(first.headers['svc-delivery-id']);
    expect(again.body).toBe(first.body);
    const event = stripe.webhooks.constructEvent(again.body, again.headers['svc-signature'] as string, secret);
    expect((event as unknown as { deliveryId: string }).deliveryId).toBe(deliveryId);

    const detail = await waitFor(async () => {
      const res = await api(f, 'founder', 'GET', `/webhooks/${r.id}/deliveries/${deliveryId}`);
      return res.body.attempts?.length === 2 ? res : null;
    }, 'two logged attempts');
    expect(detail.body.delivery).toMatchObject({ status: 'SUCCEEDED', round: 2, totalAttempts: 2 });
    expect(detail.body.attempts[0]).toMatchObject({ number: 1, round: 1, outcome: 'SUCCEEDED', statusCode: 204 });
    expect(detail.body.attempts[1]).toMatchObject({ number: 2, round: 2, statusCode: 200, responseBody: 'seen it' });
    expect(detail.body.attempts[1].durationMs).toEqual(expect.any(Number));

    const audit = await auditOf(f);
    expect(audit.map((e) => e.action)).toEqual(['webhook.create', 'webhook.replay']);
    expect(JSON.parse(audit[0].after!).secret).toBe(`${secret.slice(0, 12)}…`);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('rotates the secret: during the overlap every delivery carries a valid signature with each secret', async () => {
    const f = await leaderFixture(server, 'rot');
    const hook = await receiver();
    const { body: made } = await api(f, 'founder', 'POST', '/webhooks', { url: hook.url });
    const rotated = await api(f, 'admin', 'POST', `/webhooks/${made.receiver.id}/rotate-secret`, {
      overlapSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(Date.parse(rotated.body.receiver.previousSecretExpiresAt)).toBeGreaterThan(Date.now() + 3500_000);

    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    await waitFor(() => hook.requests.length === 1, 'a delivery');
    const { body, headers } = hook.requests[0];
    const header = headers['svc-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [made.secret, rotated.body.secret]) {
      expect(() => stripe.webhooks.constructEvent(body, header, secret)).not.toThrow();
    }
    // Nothing read afterwards shows either secret again.
    for (const path of ['/webhooks', `/webhooks/${made.receiver.id}`, '/audit-log']) {
      const res = await api(f, 'founder', 'GET', path);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(made.secret);
      expect(res.text).not.toContain(rotated.body.secret);
    }
  });

  it('changes URL and events, disables, enables and deletes a receiver, each change audited once', async () => {
    const f = await leaderFixture(server, 'chg');
    const [a, b] = [await receiver(), await receiver()];
    const { body: made } = await api(f, 'founder', 'POST', '/webhooks', { url: a.url });
    const id = made.receiver.id;
    const patched = await api(f, 'founder', 'PATCH', `/webhooks/${id}`, {
      url: b.url,
      events: ['article.published', 'donation.received'],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: b.url, events: ['article.published', 'donation.received'] });
    expect((await api(f, 'founder', 'POST', `/webhooks/${id}/disable`)).body.status).toBe('DISABLED');
    // Asking again changes nothing and logs nothing.
    expect((await api(f, 'founder', 'POST', `/webhooks/${id}/disable`)).status).toBe(200);
    expect((await api(f, 'founder', 'POST', `/webhooks/${id}/enable`)).body.status).toBe('ENABLED');
    const deleted = await api(f, 'founder', 'DELETE', `/webhooks/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.status).toBe('REMOVED');
    expect((await api(f, 'founder', 'GET', '/webhooks')).body).toEqual([]);

    const audit = await auditOf(f);
    expect(audit.map((e) => e.action)).toEqual([
      'webhook.create',
      'webhook.update',
      'webhook.disable',
      'webhook.enable',
      'webhook.delete',
    ]);
    expect(JSON.parse(audit[1].before!)).toMatchObject({ url: a.url, events: ['*'] });
    expect(JSON.parse(audit[1].after!)).toMatchObject({ url: b.url });
  });

  it('resends the permanently failed deliveries of a receiver once it answers again', async () => {
    const f = await leaderFixture(server, 'rs');
    const hook = await receiver();
    hook.handle((_q, res) => res.writeHead(500).end('down'));
    const { body: made } = await api(f, 'founder', 'POST', '/webhooks', { url: hook.url });
    const since = new Date(Date.now() - 1000).toISOString();
    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    const failed = await waitFor(async () => {
      const res = await api(f, 'founder', 'GET', `/webhooks/${made.receiver.id}/deliveries?status=PERMANENTLY_FAILED`);
      return res.body.length === 1 ? res.body[0] : null;
    }, 'the delivery to fail for good');
    expect(failed.totalAttempts).toBe(6);

    hook.handle((_q, res) => res.writeHead(204).end());
    const resent = await api(f, 'admin', 'POST', `/webhooks/${made.receiver.id}/resend`, { since });
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ requeued: [failed.id] });
    await waitFor(async () => {
      const res = await api(f, 'founder', 'GET', `/webhooks/${made.receiver.id}/deliveries/${failed.id}`);
      return res.body.delivery.status === 'SUCCEEDED';
    }, 'the resent delivery to succeed');
    expect((await auditOf(f)).map((e) => e.action)).toEqual(['webhook.create', 'webhook.resend']);
  });
});

describe('error', () => {
  it('refuses no scopes, an unknown scope, an unknown event and a malformed URL with 400 naming the field', async () => {
    const before = (await auditOf(club)).length;
    const cases: Array<[string, unknown, string]> = [
      ['/keys', { scopes: [] }, 'scopes'],
      ['/keys', { scopes: ['EVERYTHING'] }, 'scopes.0'],
      ['/keys', { name: 'a\u0000b', scopes: ['ADMIN'] }, 'name'],
      ['/webhooks', { url: 'https://93.184.215.14/h', events: ['member.teleported'] }, 'events.0'],
      ['/webhooks', { url: 'not a url' }, 'url'],
      ['/webhooks', { url: 'https://93.184.215.14/h', events: [] }, 'events'],
    ];
    for (const [path, json, field] of cases) {
      const res = await api(club, 'founder', 'POST', path, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.extras.field, JSON.stringify(json)).toBe(field);
    }
    expect((await auditOf(club)).length).toBe(before);
  });

  it('answers 404 for a key, receiver or delivery that does not exist', async () => {
    const missing = '0197a8c0-e2b3-7c5d-9f21-a0b4c6d8e0f1';
    const { body } = await api(club, 'founder', 'POST', '/webhooks', { url: 'https://93.184.215.14/404' });
    for (const [method, path] of [
      ['POST', `/keys/${missing}/revoke`],
      ['GET', `/webhooks/${missing}`],
      ['PATCH', `/webhooks/${missing}`],
      ['GET', `/webhooks/${body.receiver.id}/deliveries/del_${'0'.repeat(32)}`],
    ]) {
      const res = await api(club, 'founder', method, path, method === 'PATCH' ? { events: ['*'] } : undefined);
      expect(res.status, path).toBe(404);
      expect(res.body.code, path).toBe('NOT_FOUND');
    }
  });

  it('answers 409 replaying or resending to a disabled receiver, and changing a deleted one', async () => {
    const f = await leaderFixture(server, 'dis');
    const hook = await receiver();
    const { body: made } = await api(f, 'founder', 'POST', '/webhooks', { url: hook.url });
    const id = made.receiver.id;
    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    const [delivery] = await waitFor(async () => {
      const res = await api(f, 'founder', 'GET', `/webhooks/${id}/deliveries`);
      return res.body[0]?.status === 'SUCCEEDED' ? res.body : null;
    }, 'a delivery');
    await api(f, 'founder', 'POST', `/webhooks/${id}/disable`);
    const replay = await api(f, 'founder', 'POST', `/webhooks/${id}/deliveries/${delivery.id}/replay`);
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('INVALID_STATE');
    const resend = await api(f, 'founder', 'POST', `/webhooks/${id}/resend`, { since: '2020-01-01T00:00:00Z' });
    expect(resend.status).toBe(409);
    await api(f, 'founder', 'DELETE', `/webhooks/${id}`);
    for (const [path, json] of [
      [`/webhooks/${id}/rotate-secret`, {}],
      [`/webhooks/${id}/enable`, undefined],
    ] as const) {
      const res = await api(f, 'founder', 'POST', path, json);
      expect(res.status, path).toBe(409);
    }
    expect((await api(f, 'founder', 'PATCH', `/webhooks/${id}`, { description: 'x' })).status).toBe(409);
    // The history of a deleted receiver stays readable.
    expect((await api(f, 'founder', 'GET', `/webhooks/${id}/deliveries`)).body).toHaveLength(1);
  });

  it('refuses an overlap beyond 7 days or a fraction of a second', async () => {
    const { body } = await api(club, 'founder', 'POST', '/webhooks', { url: 'https://93.184.215.14/o' });
    for (const overlapSeconds of [7 * 24 * 3600 + 1, 1.5, -1]) {
      const res = await api(club, 'founder', 'POST', `/webhooks/${body.receiver.id}/rotate-secret`, { overlapSeconds });
      expect(res.status).toBe(400);
      expect(res.body.extras.field).toBe('overlapSeconds');
    }
  });
});

describe('security', () => {
  it('an admin cannot make a key that kicks or bans (WRITE_MEMBERS, ADMIN): it would remove other admins through /v1', async () => {
    const f = await leaderFixture(server, 'intkeys');
    const keysBefore = (await api(f, 'founder', 'GET', '/keys')).body.length;
    for (const scopes of [['WRITE_MEMBERS'], ['ADMIN'], ['READ_PUBLIC', 'WRITE_MEMBERS']]) {
      const res = await api(f, 'admin', 'POST', '/keys', { scopes });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FOUNDER_ONLY', extras: { field: 'scopes' } });
    }
    expect((await api(f, 'founder', 'GET', '/keys')).body).toHaveLength(keysBefore);
    expect(await auditOf(f)).toHaveLength(0);
    expect((await api(f, 'admin', 'POST', '/keys', { scopes: ['WRITE_SALES'] })).status).toBe(201);
    expect((await api(f, 'founder', 'POST', '/keys', { scopes: ['WRITE_MEMBERS'] })).status).toBe(201);
  });

  it('answers only the founder and admins: every other person gets 403 NOT_A_LEADER, no cookie 401', async () => {
    const before = (await auditOf(club)).length;
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as const) {
      for (const [method, path, json] of [
        ['GET', '/keys', undefined],
        ['POST', '/keys', { scopes: ['ADMIN'] }],
        ['GET', '/webhooks', undefined],
        ['POST', '/webhooks', { url: 'https://93.184.215.14/x' }],
      ] as const) {
        const res = await api(club, who, method, path, json);
        expect(res.status, `${who} ${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('NOT_A_LEADER');
      }
    }
    expect((await api(club, null, 'GET', '/keys')).status).toBe(401);
    expect((await api(club, null, 'POST', '/keys', { scopes: ['ADMIN'] })).status).toBe(401);
    expect((await auditOf(club)).length).toBe(before);
    for (const who of ['founder', 'admin'] as const) expect((await api(club, who, 'GET', '/keys')).status).toBe(200);
  });

  it("refuses another community's founder, and never reaches another community's key or receiver by id", async () => {
    const there = await onSite(server, other.tag, 'POST', `/api/admin/${club.tag}/keys`, {
      cookie: other.cookies.founder,
      json: { scopes: ['ADMIN'] },
    });
    expect(there.status).toBe(403);
    expect(there.body.code).toBe('NOT_A_LEADER');

    const theirKey = (await api(other, 'founder', 'POST', '/keys', { scopes: ['READ_PUBLIC'] })).body;
    const hook = await receiver();
    const theirs = (await api(other, 'founder', 'POST', '/webhooks', { url: hook.url })).body.receiver;
    await emitOne(server.database.db, { id: other.id, tag: other.tag }, 'member.approved', approved());
    const [delivery] = await waitFor(async () => {
      const res = await api(other, 'founder', 'GET', `/webhooks/${theirs.id}/deliveries`);
      return res.body.length ? res.body : null;
    }, "the other community's delivery");
    const before = (await auditOf(club)).length;
    for (const [method, path, json] of [
      ['POST', `/keys/${theirKey.key.id}/revoke`, undefined],
      ['GET', `/webhooks/${theirs.id}`, undefined],
      ['PATCH', `/webhooks/${theirs.id}`, { url: 'https://93.184.215.14/stolen' }],
      ['POST', `/webhooks/${theirs.id}/disable`, undefined],
      ['POST', `/webhooks/${theirs.id}/rotate-secret`, {}],
      ['DELETE', `/webhooks/${theirs.id}`, undefined],
      ['GET', `/webhooks/${theirs.id}/deliveries`, undefined],
      ['GET', `/webhooks/${theirs.id}/deliveries/${delivery.id}`, undefined],
      ['POST', `/webhooks/${theirs.id}/deliveries/${delivery.id}/replay`, undefined],
      ['POST', `/webhooks/${theirs.id}/resend`, { since: '2020-01-01T00:00:00Z' }],
    ] as const) {
      const res = await api(club, 'founder', method, path, json);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // A receiver of this community does not lead to another's delivery either.
    const ours = (await api(club, 'founder', 'POST', '/webhooks', { url: 'https://93.184.215.14/ours' })).body.receiver;
    const crossed = await api(club, 'founder', 'GET', `/webhooks/${ours.id}/deliveries/${delivery.id}`);
    expect(crossed.status).toBe(404);
    expect((await v1Events(other, theirKey.secret)).status).toBe(200);
    expect((await api(other, 'founder', 'GET', `/webhooks/${theirs.id}`)).body).toMatchObject({
      url: hook.url,
      status: 'ENABLED',
      previousSecretExpiresAt: null,
    });
    expect((await auditOf(club)).length).toBe(before + 1);
  });

  it('refuses a write with a foreign Origin or none (CSRF), changing nothing', async () => {
    const before = (await auditOf(club)).length;
    for (const origin of ['https://evil.example', null]) {
      const res = await api(club, 'founder', 'POST', '/keys', { scopes: ['ADMIN'] }, origin);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CROSS_SITE_REQUEST');
    }
    expect((await auditOf(club)).length).toBe(before);
  });

  it('refuses an Idempotency-Key where the answer holds a secret, so no stored answer can show it again', async () => {
    const { body } = await api(club, 'founder', 'POST', '/webhooks', { url: 'https://93.184.215.14/i' });
    const keysBefore = (await api(club, 'founder', 'GET', '/keys')).body.length;
    for (const [path, json] of [
      ['/keys', { scopes: ['ADMIN'] }],
      ['/webhooks', { url: 'https://93.184.215.14/j' }],
      [`/webhooks/${body.receiver.id}/rotate-secret`, {}],
    ] as const) {
      const res = await onSite(server, club.tag, 'POST', `/api/admin/${club.tag}${path}`, {
        cookie: club.cookies.founder,
        json,
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      expect(res.status, path).toBe(400);
      expect(res.body.extras.field).toBe('Idempotency-Key');
    }
    expect((await api(club, 'founder', 'GET', '/keys')).body.length).toBe(keysBefore);
    const stored = await server.database.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(stored)).not.toMatch(/sk_live_|whsec_/);
  });

  it('refuses protected fields in a body (mass assignment) with 400', async () => {
    const { body } = await api(club, 'founder', 'POST', '/webhooks', { url: 'https://93.184.215.14/m' });
    for (const [method, path, json] of [
      ['POST', '/keys', { scopes: ['READ_PUBLIC'], kind: 'publishable' }],
      ['POST', '/keys', { scopes: ['READ_PUBLIC'], communityId: other.id }],
      ['POST', '/webhooks', { url: 'https://93.184.215.14/m', status: 'ENABLED', secret: 'whsec_mine' }],
      ['PATCH', `/webhooks/${body.receiver.id}`, { status: 'ENABLED' }],
      ['PATCH', `/webhooks/${body.receiver.id}`, { communityId: other.id }],
      ['POST', `/webhooks/${body.receiver.id}/rotate-secret`, { secret: 'whsec_mine' }],
    ] as const) {
      const res = await api(club, 'founder', method, path, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
  });

  it('refuses a receiver URL on a private or loopback address when the SSRF guard is on', async () => {
    const strict = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'false' } });
    try {
      const f = await leaderFixture(strict, 'ssrf');
      const post = (path: string, method: string, json: unknown) =>
        onSite(strict, f.tag, method, `/api/admin/${f.tag}${path}`, { cookie: f.cookies.founder, json });
      for (const url of [
        'http://127.0.0.1:9/hooks',
        'https://127.0.0.1/hooks',
        'https://169.254.169.254/latest/meta-data',
        'https://localhost/hooks',
        'https://2130706433/hooks',
        'https://[::ffff:127.0.0.1]/hooks',
      ]) {
        const res = await post('/webhooks', 'POST', { url });
        expect(res.status, url).toBe(400);
        expect(res.body.extras.field, url).toBe('url');
      }
      const ok = await post('/webhooks', 'POST', { url: 'https://93.184.215.14/hooks' });
      expect(ok.status).toBe(201);
      const moved = await post(`/webhooks/${ok.body.receiver.id}`, 'PATCH', { url: 'https://10.0.0.5/hooks' });
      expect(moved.status).toBe(400);
      expect(moved.body.extras.field).toBe('url');
      const audit = await strict.database.db.selectFrom('audit_log').select('action').execute();
      expect(audit.map((e) => e.action)).toEqual(['webhook.create']);
    } finally {
      await strict.close();
    }
  });
});
