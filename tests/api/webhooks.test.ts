// Outgoing webhooks end to end: emit() in a real transaction, the real worker, real HTTP
// receivers on 127.0.0.1. Signatures are checked with the stripe package, as a receiver would.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { WebhookDeliveryBody } from '../../contract/webhook-events.ts';
import { transaction } from '../../server/db/index.ts';
import { emit } from '../../server/webhooks/emit.ts';
import {
  createEndpoint,
  disableEndpoint,
  listEndpoints,
  rotateSecret,
  WebhookAdminError,
} from '../../server/webhooks/endpoints.ts';
import { listAttempts, replayDelivery, resendFailed } from '../../server/webhooks/deliveries.ts';
import type { SecretBox } from '../../server/webhooks/secret-box.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { createLogger } from '../../server/http/logger.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  addEndpoint,
  approved,
  attemptRows,
  attemptsOnceLogged,
  deliveryRow,
  emitOne,
  startReceiver,
  startWorker,
  testSecretBox,
  waitFor,
  webhookConfig,
  type Receiver,
} from './support/webhooks.ts';

const stripe = new Stripe('sk_test_not_used_for_network');

let server: TestServer;
let secrets: SecretBox;
let receiver: Receiver;
let worker: DeliveryWorker | null;
let community: { id: string; tag: string };

beforeEach(async () => {
  server = await startTestServer();
  secrets = testSecretBox();
  receiver = await startReceiver();
  worker = null;
  community = await makeCommunity(server.database.db, 'hooks');
});

afterEach(async () => {
  await worker?.stop();
  await receiver.close();
  await server.close();
});

const db = () => server.database.db;
const settled = (id: string, status: string) =>
  waitFor(async () => (await deliveryRow(db(), id)).status === status, `${id} to be ${status}`);

describe('webhooks: happy path', () => {
  it('delivers a committed event as a signed POST that stripe.webhooks.constructEvent verifies', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    worker = startWorker(server.database, secrets);
    const data = approved();
    const {
      deliveryIds: [deliveryId],
    } = await emitOne(db(), community, 'member.approved', data);

    await settled(deliveryId, 'SUCCEEDED');
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hooks');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Svc-Webhooks/1.0');
    expect(req.headers['svc-event']).toBe('member.approved');
    expect(req.headers['svc-delivery-id']).toBe(deliveryId);
    expect(deliveryId).toMatch(/^del_[0-9a-f]{32}$/);
    expect(req.headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const verified = stripe.webhooks.constructEvent(
      req.body,
      req.headers['svc-signature'] as string,
      endpoint.secret,
    ) as unknown;
    expect(verified).toEqual({
      event: 'member.approved',
      deliveryId,
      createdAt: expect.any(String),
      communityTag: 'hooks',
      data,
    });
    // The contract's shape of a delivery, key order included (the signature covers the bytes).
    expect(WebhookDeliveryBody.parse(verified)).toEqual(verified);
    expect(Object.keys(JSON.parse(req.body))).toEqual(Object.keys(WebhookDeliveryBody.shape));
    expect(() =>
      stripe.webhooks.constructEvent(
        req.body.replace('hooks', 'hookz'),
        req.headers['svc-signature'] as string,
        endpoint.secret,
      ),
    ).toThrow(/signature/i);
  });

  it('is verified by the receiver example in docs/examples, which also turns away forged and replayed deliveries', async () => {
    const example = await import('../../docs/examples/webhook-receiver.mjs' as string);
    const events: Array<{ deliveryId: string }> = [];
    const docReceiver = http.createServer();
    await new Promise<void>((resolve) => docReceiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(docReceiver.address() as AddressInfo).port}/`;
      const endpoint = await addEndpoint(db(), secrets, community.id, url);
      docReceiver.on(
        'request',
        example.createHandler({
          secret: endpoint.secret,
          onEvent: (e: { deliveryId: string }) => {
            events.push(e);
          },
        }),
      );
      // Signed with the old and the new secret during the overlap: the receiver's old one still works.
      await rotateSecret(db(), secrets, endpoint.id, 60_000);
      worker = startWorker(server.database, secrets);
      const {
        deliveryIds: [id],
      } = await emitOne(db(), community, 'member.approved', approved());
      await settled(id, 'SUCCEEDED');
      expect(events.map((e) => e.deliveryId)).toEqual([id]);

      const [attempt] = await attemptRows(db(), id);
      expect(attempt.status_code).toBe(204);
      const forged = await fetch(url, {
        method: 'POST',
        body: '{"event":"member.approved"}',
        headers: { 'Svc-Signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      });
      expect(forged.status).toBe(400);
      expect(await forged.text()).toMatch(/raw body exactly as received/);
      const stale = await fetch(url, { method: 'POST', body: '{}', headers: { 'Svc-Signature': 'v1=abc' } });
      expect(await stale.text()).toMatch(/t=<unix seconds>/);

      await replayDelivery(db(), id);
      await waitFor(async () => (await attemptRows(db(), id)).length === 2, 'the replay to be logged');
      expect(events).toHaveLength(1);
      expect((await attemptRows(db(), id))[1].response_body).toBe('duplicate');
    } finally {
      docReceiver.closeAllConnections();
      await new Promise((r) => docReceiver.close(r));
    }
  });

  it('writes one delivery per subscribed, enabled endpoint of the community and none for the rest', async () => {
    const all = await addEndpoint(db(), secrets, community.id, receiver.url);
    const approvals = await addEndpoint(db(), secrets, community.id, `${receiver.url}?only=approved`, [
      'member.approved',
    ]);
    const articles = await addEndpoint(db(), secrets, community.id, `${receiver.url}?only=articles`, [
      'article.published',
    ]);
    const off = await addEndpoint(db(), secrets, community.id, `${receiver.url}?off`);
    await disableEndpoint(db(), off.id);
    const other = await makeCommunity(db(), 'other');
    await addEndpoint(db(), secrets, other.id, `${receiver.url}?other`);

    const { deliveryIds } = await emitOne(db(), community, 'member.approved', approved());
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('id', 'in', deliveryIds)
      .execute();
    expect(rows.map((r) => r.endpoint_id).sort()).toEqual([all.id, approvals.id].sort());
    expect(rows.some((r) => r.endpoint_id === articles.id)).toBe(false);
  });

  it("emits nothing when the caller's transaction rolls back, and everything when it commits", async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    await expect(
      transaction(db(), async (trx) => {
        await emit(trx, community, 'member.approved', approved());
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await db().selectFrom('webhook_events').select('id').execute()).toHaveLength(0);
    expect(await db().selectFrom('webhook_deliveries').select('id').execute()).toHaveLength(0);

    const { deliveryIds } = await emitOne(db(), community, 'member.approved', approved());
    worker = startWorker(server.database, secrets);
    await settled(deliveryIds[0], 'SUCCEEDED');
    expect(receiver.requests).toHaveLength(1);
  });

  it('signs with the old and the new secret during a rotation, and only the new one after it', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    const rotated = await rotateSecret(db(), secrets, endpoint.id, 60_000);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    worker = startWorker(server.database, secrets);

    const first = await emitOne(db(), community, 'member.approved', approved());
    await settled(first.deliveryIds[0], 'SUCCEEDED');
    const during = receiver.requests[0];
    expect((during.headers['svc-signature'] as string).match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) {
      expect(() =>
        stripe.webhooks.constructEvent(during.body, during.headers['svc-signature'] as string, secret),
      ).not.toThrow();
    }

    const ended = await rotateSecret(db(), secrets, endpoint.id, 0);
    const second = await emitOne(db(), community, 'member.approved', approved());
    await settled(second.deliveryIds[0], 'SUCCEEDED');
    const after = receiver.requests[1];
    expect((after.headers['svc-signature'] as string).match(/v1=/g)).toHaveLength(1);
    expect(() =>
      stripe.webhooks.constructEvent(after.body, after.headers['svc-signature'] as string, ended.secret),
    ).not.toThrow();
    expect(() =>
      stripe.webhooks.constructEvent(after.body, after.headers['svc-signature'] as string, rotated.secret),
    ).toThrow();
  });

  it('logs every attempt with its status code, the start of the response body and its duration', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle((_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks'));
    worker = startWorker(server.database, secrets);
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    await settled(id, 'SUCCEEDED');
    const [attempt] = await listAttempts(db(), id);
    expect(attempt).toMatchObject({
      number: 1,
      round: 1,
      outcome: 'SUCCEEDED',
      statusCode: 200,
      responseBody: 'thanks',
      error: null,
    });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(attempt.startedAt)).not.toBeNaN();
  });

  it('finishes and records the attempts in flight when the worker stops, and claims nothing more', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle((_q, res) => setTimeout(() => res.writeHead(204).end(), 300));
    worker = startWorker(server.database, secrets);
    const {
      deliveryIds: [inFlight],
    } = await emitOne(db(), community, 'member.approved', approved());
    await waitFor(() => receiver.requests.length === 1, 'the attempt to reach the receiver');
    const stopping = worker.stop();
    const {
      deliveryIds: [later],
    } = await emitOne(db(), community, 'member.approved', approved());
    await stopping;
    worker = null;
    expect((await deliveryRow(db(), inFlight)).status).toBe('SUCCEEDED');
    expect(await deliveryRow(db(), later)).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: null });
    expect(receiver.requests).toHaveLength(1);
  });

  it('replays a delivered delivery with the same delivery id and body', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    worker = startWorker(server.database, secrets);
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    await settled(id, 'SUCCEEDED');

    const replayed = await replayDelivery(db(), id);
    expect(replayed).toMatchObject({ id, status: 'PENDING', round: 2, attempts: 0 });
    await waitFor(() => receiver.requests.length === 2, 'the replay');
    await settled(id, 'SUCCEEDED');
    const [first, again] = receiver.requests;
    expect(again.headers['svc-delivery-id']).toBe(id);
    expect(again.body).toBe(first.body);
    expect((await attemptRows(db(), id)).map((a) => [a.number, a.round, a.outcome])).toEqual([
      [1, 1, 'SUCCEEDED'],
      [2, 2, 'SUCCEEDED'],
    ]);
  });

  it('resends every permanently failed delivery of an endpoint since a time, and nothing older', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle((_q, res) => res.writeHead(500).end());
    worker = startWorker(server.database, secrets, { retryDelaysMs: [10] });
    const old = await emitOne(db(), community, 'member.approved', approved());
    await settled(old.deliveryIds[0], 'PERMANENTLY_FAILED');
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const recent = await emitOne(db(), community, 'member.approved', approved());
    await settled(recent.deliveryIds[0], 'PERMANENTLY_FAILED');

    receiver.handle((_q, res) => res.writeHead(204).end());
    const resent = await resendFailed(db(), endpoint.id, since);
    expect(resent).toEqual(recent.deliveryIds);
    await settled(recent.deliveryIds[0], 'SUCCEEDED');
    expect((await deliveryRow(db(), old.deliveryIds[0])).status).toBe('PERMANENTLY_FAILED');
    expect(receiver.requests.at(-1)!.headers['svc-delivery-id']).toBe(recent.deliveryIds[0]);
  });
});

describe('webhooks: errors', () => {
  it('retries on the configured schedule and gives up as PERMANENTLY_FAILED after the sixth failure', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle((_q, res) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end('try later'));
    const delays = [100, 200, 300, 400, 500];
    worker = startWorker(server.database, secrets, { retryDelaysMs: delays });
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());

    await settled(id, 'PERMANENTLY_FAILED');
    await new Promise((r) => setTimeout(r, 700));
    expect(receiver.requests).toHaveLength(6);
    const gaps = receiver.requests.slice(1).map((r, i) => r.at - receiver.requests[i].at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(delays[i] - 5));
    const attempts = await attemptRows(db(), id);
    expect(attempts.map((a) => a.outcome)).toEqual(Array(6).fill('FAILED'));
    expect(attempts.every((a) => a.status_code === 503 && a.response_body === 'try later')).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.headers['svc-delivery-id']))).toEqual(new Set([id]));
    expect(await deliveryRow(db(), id)).toMatchObject({ attempts: 6, last_status_code: 503, next_attempt_at: null });
  });

  it('counts a redirect as a failure and never follows it', async () => {
    const target = await startReceiver();
    try {
      await addEndpoint(db(), secrets, community.id, receiver.url);
      receiver.handle((_q, res) => res.writeHead(302, { Location: target.url }).end());
      worker = startWorker(server.database, secrets, { retryDelaysMs: [20] });
      const {
        deliveryIds: [id],
      } = await emitOne(db(), community, 'member.approved', approved());
      await settled(id, 'PERMANENTLY_FAILED');
      expect(receiver.requests).toHaveLength(2);
      expect(target.requests).toHaveLength(0);
      const [attempt] = await attemptRows(db(), id);
      expect(attempt).toMatchObject({ outcome: 'FAILED', status_code: 302 });
      expect(attempt.error).toContain('not followed');
    } finally {
      await target.close();
    }
  });

  it('fails an attempt whose receiver does not answer within the timeout', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle(() => {
      /* never answers */
    });
    worker = startWorker(server.database, secrets, { timeoutMs: 300, retryDelaysMs: [60_000] });
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    const [attempt] = await waitFor(async () => {
      const rows = await attemptRows(db(), id);
      return rows.length > 0 ? rows : null;
    }, 'the timed-out attempt');
    expect(attempt).toMatchObject({ outcome: 'FAILED', status_code: null });
    expect(attempt.error).toMatch(/timed out after 300 ms/);
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(290);
    expect(attempt.duration_ms).toBeLessThan(2000);
    expect(await deliveryRow(db(), id)).toMatchObject({ status: 'PENDING', attempts: 1 });
  });

  it('keeps only the first 4 KiB of an endless response body and drops the connection', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    let closed = false;
    receiver.handle((_q, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = 'x'.repeat(1024);
      const pump = setInterval(() => res.write(chunk), 1);
      res.on('close', () => {
        closed = true;
        clearInterval(pump);
      });
    });
    worker = startWorker(server.database, secrets);
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    await settled(id, 'SUCCEEDED');
    const [attempt] = await attemptRows(db(), id);
    expect(attempt.response_body).toBe('x'.repeat(4096));
    // Cut by the cap, not by the 2 s timeout.
    expect(attempt.duration_ms).toBeLessThan(1000);
    await waitFor(() => closed, 'the receiver to see the connection dropped');
  });

  it('counts a refused connection as a failed attempt', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    await addEndpoint(db(), secrets, community.id, url);
    worker = startWorker(server.database, secrets, { retryDelaysMs: [60_000] });
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    const [attempt] = await waitFor(async () => {
      const rows = await attemptRows(db(), id);
      return rows.length > 0 ? rows : null;
    }, 'the failed attempt');
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });

  it('disables the endpoint on a 410 and cancels what was still pending for it', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    receiver.handle((_q, res) => res.writeHead(410).end());
    const {
      deliveryIds: [first],
    } = await emitOne(db(), community, 'member.approved', approved());
    // A second delivery that is not due yet is still pending when the 410 arrives.
    const {
      deliveryIds: [second],
    } = await emitOne(db(), community, 'member.approved', approved());
    await db()
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(Date.now() + 3600_000).toISOString() })
      .where('id', '=', second)
      .execute();
    worker = startWorker(server.database, secrets);

    await settled(first, 'PERMANENTLY_FAILED');
    await settled(second, 'CANCELLED');
    const [summary] = await listEndpoints(db(), { communityTag: 'hooks' });
    expect(summary).toMatchObject({
      id: endpoint.id,
      status: 'DISABLED',
      disabledReason: expect.stringContaining('410'),
    });
    expect((await emitOne(db(), community, 'member.approved', approved())).deliveryIds).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('fails only the attempt of an endpoint whose secret does not decrypt, and sends the others', async () => {
    const broken = await addEndpoint(db(), testSecretBox(), community.id, `${receiver.url}?broken`);
    await addEndpoint(db(), secrets, community.id, `${receiver.url}?fine`);
    worker = startWorker(server.database, secrets, { retryDelaysMs: [60_000] });
    const { deliveryIds } = await emitOne(db(), community, 'member.approved', approved());
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('id', 'in', deliveryIds)
      .execute();
    const brokenId = rows.find((r) => r.endpoint_id === broken.id)!.id;
    const fineId = rows.find((r) => r.endpoint_id !== broken.id)!.id;
    await settled(fineId, 'SUCCEEDED');
    const [attempt] = await attemptsOnceLogged(db(), brokenId);
    expect(attempt).toMatchObject({ outcome: 'FAILED', status_code: null });
    expect(attempt.error).toMatch(/SVC_ENCRYPTION_KEY/);
    expect(await deliveryRow(db(), brokenId)).toMatchObject({ status: 'PENDING', attempts: 1, lease_token: null });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/hooks?fine']);
  });

  it('records a response body containing NUL bytes and carries on with the schedule', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    let calls = 0;
    receiver.handle((_q, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 500 : 200).end('bad\0body');
    });
    worker = startWorker(server.database, secrets, { retryDelaysMs: [20] });
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    await settled(id, 'SUCCEEDED');
    const attempts = await attemptRows(db(), id);
    expect(attempts.map((a) => a.outcome)).toEqual(['FAILED', 'SUCCEEDED']);
    expect(attempts[0].response_body).toMatch(/^bad.body$/);
  });

  it('sends a replayed batch at most `concurrency` at a time, so none times out waiting for a socket', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    let open = 0;
    let peak = 0;
    receiver.handle((_q, res) => {
      open += 1;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open -= 1;
        res.writeHead(204).end();
      }, 150);
    });
    const ids: string[] = [];
    await transaction(db(), async (trx) => {
      for (let i = 0; i < 12; i++) ids.push(...(await emit(trx, community, 'member.approved', approved())).deliveryIds);
    });
    // As the CLI does it: a worker that is never started, sending only what it is told.
    const cli = new DeliveryWorker({
      db: db(),
      dialect: server.database.dialect,
      config: webhookConfig({ concurrency: 4, timeoutMs: 400 }),
      secrets,
      logger: createLogger('silent'),
    });
    const outcomes = await cli.deliverNow(ids);
    await cli.stop();
    expect(outcomes).toHaveLength(12);
    expect(outcomes.every((o) => o.result.ok)).toBe(true);
    expect(peak).toBeLessThanOrEqual(4);
  });

  it("refuses to emit data outside the event catalog and rolls the caller's change back", async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    await expect(
      transaction(db(), async (trx) => {
        await trx.updateTable('communities').set({ name: 'Changed' }).where('id', '=', community.id).execute();
        await emit(trx, community, 'member.approved', {
          memberId: 'm',
          userId: 'u',
          approvedAt: 'yesterday',
          approvedBy: null,
        });
      }),
    ).rejects.toThrow();
    const row = await db()
      .selectFrom('communities')
      .select('name')
      .where('id', '=', community.id)
      .executeTakeFirstOrThrow();
    expect(row.name).not.toBe('Changed');
    expect(await db().selectFrom('webhook_deliveries').select('id').execute()).toHaveLength(0);
  });

  it('refuses an endpoint subscribed to an unknown event', async () => {
    await expect(addEndpoint(db(), secrets, community.id, receiver.url, ['member.approve'])).rejects.toThrow(
      WebhookAdminError,
    );
  });

  it('refuses to replay a delivery of a disabled endpoint until it is enabled', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    await disableEndpoint(db(), endpoint.id);
    expect((await deliveryRow(db(), id)).status).toBe('CANCELLED');
    await expect(replayDelivery(db(), id)).rejects.toThrow(/svc webhook enable/);
  });
});

describe('webhooks: security', () => {
  it('stores the signing secret encrypted and never returns it again', async () => {
    const endpoint = await addEndpoint(db(), secrets, community.id, receiver.url);
    const row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice(6));
    expect(secrets.open(row.secret_ciphertext!, endpoint.id)).toBe(endpoint.secret);
    // Bound to its endpoint: the same ciphertext does not open as another endpoint's secret.
    expect(() => secrets.open(row.secret_ciphertext!, 'another-endpoint')).toThrow();
    const listed = await listEndpoints(db());
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);
  });

  it('refuses a private receiver at registration when private receivers are not allowed', async () => {
    const strict = { allowPrivate: false, lookup: async () => [{ address: '10.0.0.7', family: 4 as const }] };
    await expect(
      createEndpoint(db(), secrets, strict, { communityId: community.id, url: receiver.url }),
    ).rejects.toThrow(/SVC_ALLOW_PRIVATE_WEBHOOKS/);
    await expect(
      createEndpoint(db(), secrets, strict, { communityId: community.id, url: 'https://hooks.example.test/in' }),
    ).rejects.toThrow(WebhookAdminError);
    expect(await db().selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(0);
  });

  it('refuses at connect time a receiver whose name now resolves to a private address (DNS rebinding)', async () => {
    const publicFirst = { allowPrivate: false, lookup: async () => [{ address: '93.184.216.34', family: 4 as const }] };
    await createEndpoint(db(), secrets, publicFirst, {
      communityId: community.id,
      url: 'https://hooks.example.test/in',
    });
    worker = startWorker(
      server.database,
      secrets,
      { allowPrivate: false, retryDelaysMs: [60_000] },
      {
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      },
    );
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    const [attempt] = await waitFor(async () => {
      const rows = await attemptRows(db(), id);
      return rows.length > 0 ? rows : null;
    }, 'the refused attempt');
    expect(attempt).toMatchObject({ outcome: 'FAILED', status_code: null });
    expect(attempt.error).toMatch(/^refused: /);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses to send to an http:// receiver registered while private receivers were allowed, once they are not', async () => {
    await addEndpoint(db(), secrets, community.id, receiver.url);
    worker = startWorker(
      server.database,
      secrets,
      { allowPrivate: false, retryDelaysMs: [60_000] },
      {
        lookup: async () => [{ address: '93.184.216.34', family: 4 }],
      },
    );
    const {
      deliveryIds: [id],
    } = await emitOne(db(), community, 'member.approved', approved());
    const [attempt] = await attemptsOnceLogged(db(), id);
    expect(attempt.error).toMatch(/not https/);
    expect(receiver.requests).toHaveLength(0);
  });

  it("never sends one community's events to another community's endpoints", async () => {
    const other = await makeCommunity(db(), 'elsewhere');
    const otherReceiver = await startReceiver();
    try {
      await addEndpoint(db(), secrets, other.id, otherReceiver.url);
      await addEndpoint(db(), secrets, community.id, receiver.url);
      worker = startWorker(server.database, secrets);
      const {
        deliveryIds: [id],
      } = await emitOne(db(), community, 'member.approved', approved());
      await settled(id, 'SUCCEEDED');
      expect(otherReceiver.requests).toHaveLength(0);
    } finally {
      await otherReceiver.close();
    }
  });
});
