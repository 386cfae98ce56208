// member.* end to end: each membership change over real HTTP, the real outbox and worker,
// deliveries counted (and their signatures verified) at a real HTTP receiver. One event per
// change: none for a paid submit, a refused call, a repeated approval, rejection, kick or ban.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretKey } from '../../server/domain/api-keys.ts';
import { newId } from '../../server/db/ids.ts';
import type { SecretBox } from '../../server/webhooks/secret-box.ts';
import type { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { makeCommunity, makeFounder, makeSegment } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  addEndpoint,
  deliveredTo,
  startReceiver,
  startWorker,
  testSecretBox,
  type Receiver,
} from './support/webhooks.ts';

let s: TestServer;
let secrets: SecretBox;
let receiver: Receiver;
let worker: DeliveryWorker;
let seq = 0;
const db = () => s.database.db;

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

type Delivered = { event: string; data: Record<string, unknown> };

/** A live OPEN community of its own per test, with a receiver subscribed to every event. */
async function setup() {
  const tag = `hooks-apply-${++seq}`;
  const c = await makeCommunity(db(), tag);
  await makeFounder(db(), c.id, `hookfounder${seq}`);
  const writer = await createSecretKey(db(), c.id, ['WRITE_MEMBERS']);
  const endpoint = await addEndpoint(db(), secrets, c.id, receiver.url, ['*']);
  const segment = (fields: { auto_approve?: number; price_monthly?: number | null } = {}) =>
    makeSegment(db(), c.id, fields);
  const post = (path: string, json?: unknown) =>
    s.request(`/v1/communities/${tag}${path}`, { method: 'POST', key: writer.key, json });
  const submit = (segmentId: string, n: string, extra: object = {}) =>
    post(`/segments/${segmentId}/submit`, { answers: { email: `${n}@example.com`, name: `Person ${n}` }, ...extra });
  const userId = async (n: string) =>
    (await db().selectFrom('users').select('id').where('email', '=', `${n}@example.com`).executeTakeFirstOrThrow()).id;

  /** Every delivery of this community's changes, verified, once all have reached the receiver. */
  const delivered = () => deliveredTo<Delivered>(db(), receiver, { id: c.id, tag }, endpoint.secret);
  const names = async () => (await delivered()).map((e) => e.event).sort();
  return { writer, segment, post, submit, userId, delivered, names };
}

describe('member webhooks: happy path', () => {
  it('an auto-approved submit delivers one member.approved with approvedBy null', async () => {
    const t = await setup();
    await t.submit(await t.segment({ auto_approve: 1 }), 'wa');
    const events = await t.delivered();
    expect(events.map((e) => [e.event, e.data.userId, e.data.approvedBy])).toEqual([
      ['member.approved', await t.userId('wa'), null],
    ]);
  });

  it('a reviewed submit delivers member.requested with source and requestId; its approval delivers member.approved by the key', async () => {
    const t = await setup();
    const seg = await t.segment();
    const res = await t.submit(seg, 'wb', { source: 'partner-site' });
    const approved = await t.post(`/applications/${res.body.requestId}/approve`);
    const events = await t.delivered();
    expect(events.map((e) => e.event).sort()).toEqual(['member.approved', 'member.requested']);
    const requested = events.find((e) => e.event === 'member.requested')!;
    expect(requested.data).toEqual({
      requestId: res.body.requestId,
      membershipId: approved.body.membershipId,
      userId: approved.body.userId,
      segmentId: seg,
      source: 'partner-site',
      requestedAt: expect.any(String),
    });
    const approval = events.find((e) => e.event === 'member.approved')!;
    expect(approval.data).toEqual({
      memberId: approved.body.membershipId,
      userId: approved.body.userId,
      approvedAt: expect.any(String),
      approvedBy: t.writer.id,
    });
  });

  it('reject, kick and ban each deliver their one event; the reasons never leave', async () => {
    const t = await setup();
    const seg = await t.segment();
    const rejected = await t.submit(seg, 'wc');
    await t.post(`/applications/${rejected.body.requestId}/reject`, { reason: 'INTERNAL-ONLY' });
    const kicked = await t.submit(seg, 'wd');
    await t.post(`/applications/${kicked.body.requestId}/approve`);
    await t.post(`/members/${await t.userId('wd')}/kick`, { reason: 'INTERNAL-KICK' });
    await t.post(`/members/${await t.userId('wd')}/kick`);
    const banned = await t.submit(seg, 'we');
    await t.post(`/applications/${banned.body.requestId}/approve`);
    await t.post(`/members/${await t.userId('we')}/ban`, { reason: 'INTERNAL-BAN' });
    await t.post(`/members/${await t.userId('we')}/ban`);
    const events = await t.delivered();
    expect(events.map((e) => e.event).sort()).toEqual([
      'member.approved',
      'member.approved',
      'member.banned',
      'member.kicked',
      'member.rejected',
      'member.requested',
      'member.requested',
      'member.requested',
    ]);
    expect(events.find((e) => e.event === 'member.rejected')!.data).toMatchObject({
      requestId: rejected.body.requestId,
      userId: await t.userId('wc'),
      rejectedBy: t.writer.id,
    });
    expect(events.find((e) => e.event === 'member.kicked')!.data).toMatchObject({
      userId: await t.userId('wd'),
      kickedBy: t.writer.id,
    });
    expect(events.find((e) => e.event === 'member.banned')!.data).toMatchObject({
      userId: await t.userId('we'),
      bannedBy: t.writer.id,
    });
    expect(JSON.stringify(events)).not.toMatch(/INTERNAL-/);
  });
});

describe('member webhooks: errors', () => {
  it('delivers nothing for a paid submit, nor for refused submits and decisions', async () => {
    const t = await setup();
    const paid = await t.segment({ price_monthly: 900 });
    const unpaid = await t.submit(paid, 'wf');
    expect(unpaid.body.paymentRequired).toBe(true);
    expect((await t.post(`/applications/${unpaid.body.requestId}/approve`)).status).toBe(422);
    const free = await t.segment();
    const first = await t.submit(free, 'wg');
    expect((await t.submit(free, 'wg')).body.code).toBe('APPLICATION_PENDING');
    await t.post(`/applications/${first.body.requestId}/reject`);
    expect((await t.post(`/applications/${first.body.requestId}/approve`)).status).toBe(422);
    expect((await t.post(`/members/${newId()}/kick`)).status).toBe(404);
    expect(await t.names()).toEqual(['member.rejected', 'member.requested']);
  });
});

describe('member webhooks: security', () => {
  it('delivers exactly one member.approved when one application is approved by many requests at once', async () => {
    const t = await setup();
    const res = await t.submit(await t.segment(), 'wh');
    const rs = await Promise.all(
      Array.from({ length: 8 }, () => t.post(`/applications/${res.body.requestId}/approve`)),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await t.names()).toEqual(['member.approved', 'member.requested']);
  });

  it('delivers one member.kicked and one member.banned when kicks and bans of one member race', async () => {
    const t = await setup();
    const res = await t.submit(await t.segment({ auto_approve: 1 }), 'wi');
    expect(res.body.requestStatus).toBe('APPROVED');
    const user = await t.userId('wi');
    const rs = await Promise.all([
      ...Array.from({ length: 4 }, () => t.post(`/members/${user}/kick`)),
      ...Array.from({ length: 4 }, () => t.post(`/members/${user}/ban`)),
    ]);
    const names = await t.names();
    expect(names.filter((n) => n === 'member.banned')).toHaveLength(1);
    expect(names.filter((n) => n === 'member.kicked').length).toBeLessThanOrEqual(1);
    expect(rs.slice(4).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const bannedAts = new Set(rs.slice(4).map((r) => r.body.bannedAt));
    expect(bannedAts.size).toBe(1);
  });
});
