// Restart safety and concurrency of the delivery worker: a real server process killed with
// SIGKILL while its deliveries are in flight, then started again, still delivers every committed
// event; two workers on one database never send the same attempt twice.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transaction, openDatabase } from '../../server/db/index.ts';
import { emit } from '../../server/webhooks/emit.ts';
import { loadSecretBox, SecretBox } from '../../server/webhooks/secret-box.ts';
import type { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  addEndpoint,
  approved,
  emitOne,
  startReceiver,
  startWorker,
  waitFor,
  type Receiver,
} from './support/webhooks.ts';

let server: TestServer;
let receiver: Receiver;
let dir: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hooks-'));
  server = await startTestServer({ sqliteFile: path.join(dir, 'svc.db') });
  receiver = await startReceiver();
});

afterEach(async () => {
  await receiver.close();
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const db = () => server.database.db;

/** The server as `npm start` runs it, on the test's database. */
function startServerProcess(encryptionKey: Buffer) {
  const target = server.databaseTarget;
  const databaseUrl =
    target.kind === 'postgres'
      ? `${target.url}${target.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${target.schema}`)}`
      : '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      REDIS_URL: '',
      PORT: '0',
      SVC_SEED_DEMO: 'false',
      SVC_DATA_DIR: dir,
      DATABASE_URL: databaseUrl,
      SVC_ENCRYPTION_KEY: encryptionKey.toString('base64'),
      SVC_WEBHOOK_TIMEOUT_MS: '500',
      SVC_WEBHOOK_POLL_MS: '50',
      SVC_WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms,100ms',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, output: () => output };
}

describe('webhook worker: restart safety', () => {
  it('delivers every committed event after the server is killed with SIGKILL mid-delivery and started again', async () => {
    const key = crypto.randomBytes(32);
    // The box the server process will derive from SVC_ENCRYPTION_KEY.
    const secrets = loadSecretBox({ encryptionKey: key, dataDir: dir });
    const community = await makeCommunity(db(), 'restart');
    await addEndpoint(db(), secrets, community.id, receiver.url);
    // The first process's attempts hang at the receiver until the process is killed.
    receiver.handle(() => {
      /* hold the request open */
    });

    const committed: string[] = [];
    for (let i = 0; i < 20; i++)
      committed.push(...(await emitOne(db(), community, 'member.approved', approved())).deliveryIds);
    await transaction(db(), async (trx) => {
      await emit(trx, community, 'member.approved', approved('rolled-back'));
      throw new Error('rolled back');
    }).catch(() => undefined);

    const first = startServerProcess(key);
    try {
      await waitFor(
        () => new Set(receiver.requests.map((r) => r.headers['svc-delivery-id'])).size === 20,
        'all 20 deliveries to be in flight',
        30_000,
      );
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    expect(
      await db().selectFrom('webhook_deliveries').select('id').where('status', '=', 'SUCCEEDED').execute(),
    ).toHaveLength(0);

    receiver.handle((_q, res) => res.writeHead(204).end());
    const second = startServerProcess(key);
    try {
      await waitFor(
        async () => {
          const done = await db()
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'SUCCEEDED')
            .execute();
          return done.length === 20;
        },
        'every delivery to succeed after the restart',
        30_000,
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }

    const received = new Set(receiver.requests.map((r) => r.headers['svc-delivery-id']));
    expect([...received].sort()).toEqual([...committed].sort());
    expect(receiver.requests.some((r) => r.body.includes('rolled-back'))).toBe(false);
    // The killed attempts are in the log as ABANDONED, and did not use up one of the six.
    const rows = await db().selectFrom('webhook_deliveries').select(['attempts', 'total_attempts']).execute();
    expect(rows.every((r) => r.attempts === 1 && r.total_attempts === 2)).toBe(true);
    const outcomes = await db()
      .selectFrom('webhook_attempts')
      .select(['outcome', 'number'])
      .orderBy('number')
      .execute();
    expect(outcomes.filter((o) => o.outcome === 'ABANDONED' && o.number === 1)).toHaveLength(20);
    expect(outcomes.filter((o) => o.outcome === 'SUCCEEDED' && o.number === 2)).toHaveLength(20);
  }, 60_000);
});

describe('webhook worker: two workers on one database', () => {
  let workers: DeliveryWorker[] = [];
  let second: ReturnType<typeof openDatabase> | null = null;

  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    await second?.close();
    second = null;
  });

  it('never sends the same attempt twice, through first attempts and retries', async () => {
    const secrets = new SecretBox(crypto.randomBytes(32));
    const community = await makeCommunity(db(), 'pair');
    await addEndpoint(db(), secrets, community.id, receiver.url);
    // Every delivery fails its first attempt and succeeds on its second: exactly two requests each.
    const seen = new Map<string, number>();
    receiver.handle((req, res) => {
      const id = req.headers['svc-delivery-id'] as string;
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      res.writeHead(n === 1 ? 500 : 204).end();
    });

    const ids: string[] = [];
    await transaction(db(), async (trx) => {
      for (let i = 0; i < 300; i++)
        ids.push(...(await emit(trx, community, 'member.approved', approved())).deliveryIds);
    });
    second = openDatabase(server.databaseTarget);
    workers = [
      startWorker(server.database, secrets, { concurrency: 8, retryDelaysMs: [10] }),
      startWorker(second, secrets, { concurrency: 8, retryDelaysMs: [10] }),
    ];
    await waitFor(
      async () => {
        const done = await db()
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'SUCCEEDED')
          .execute();
        return done.length === 300;
      },
      'all 300 deliveries to succeed',
      60_000,
    );

    expect(seen.size).toBe(300);
    expect([...seen.values()].every((n) => n === 2)).toBe(true);
    expect(receiver.requests).toHaveLength(600);
    const attempts = await db().selectFrom('webhook_attempts').select(['outcome']).execute();
    expect(attempts.filter((a) => a.outcome === 'FAILED')).toHaveLength(300);
    expect(attempts.filter((a) => a.outcome === 'SUCCEEDED')).toHaveLength(300);
  }, 90_000);

  it('disables an endpoint on concurrent 410s from both workers without losing an attempt', async () => {
    const secrets = new SecretBox(crypto.randomBytes(32));
    const community = await makeCommunity(db(), 'gone');
    await addEndpoint(db(), secrets, community.id, receiver.url);
    // Hold every request until all are in flight, then answer them all 410 at once.
    const held: Array<() => void> = [];
    receiver.handle((_q, res) => {
      held.push(() => res.writeHead(410).end());
    });
    const ids: string[] = [];
    await transaction(db(), async (trx) => {
      for (let i = 0; i < 40; i++) ids.push(...(await emit(trx, community, 'member.approved', approved())).deliveryIds);
    });
    second = openDatabase(server.databaseTarget);
    workers = [
      startWorker(server.database, secrets, { concurrency: 20 }),
      startWorker(second, secrets, { concurrency: 20 }),
    ];
    await waitFor(() => held.length === 40, 'all 40 requests to be in flight');
    for (const answer of held) answer();
    await waitFor(async () => {
      const rows = await db().selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', ids).execute();
      return rows.length === 40;
    }, 'all 40 attempts to be logged');
    // The worker disables the endpoint after the attempt's commit, in a transaction of its own
    // (server/webhooks/worker.ts), so the last attempt can be logged a moment before it.
    await waitFor(async () => {
      const row = await db().selectFrom('webhook_endpoints').select(['status']).executeTakeFirstOrThrow();
      return row.status === 'DISABLED';
    }, 'the endpoint to be disabled');
    const deliveries = await db().selectFrom('webhook_deliveries').select(['status']).where('id', 'in', ids).execute();
    // Each ends failed by its own 410, or cancelled by the other worker's 410 first: never pending.
    expect(deliveries.every((d) => d.status === 'PERMANENTLY_FAILED' || d.status === 'CANCELLED')).toBe(true);
    const endpoint = await db().selectFrom('webhook_endpoints').select(['status']).executeTakeFirstOrThrow();
    expect(endpoint.status).toBe('DISABLED');
    expect(receiver.requests).toHaveLength(40);
  }, 60_000);
});
