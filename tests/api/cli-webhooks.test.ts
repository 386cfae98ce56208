// `svc webhook ...` and webhooks in fixtures, as an operator runs them: `node bin/svc.js` child
// processes against a database this test shares with them (a SQLite file under a temporary
// SVC_DATA_DIR, or a schema of its own on DATABASE_URL), with a real receiver on 127.0.0.1. The
// test emits events in process (as the server would) and the CLI lists, replays and resends them.
// The CLI and the test use one SVC_ENCRYPTION_KEY, as a server and its CLI must.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../server/db/index.ts';
import { importFixture, type ImportResult } from '../../server/domain/import.ts';
import { createLogger } from '../../server/http/logger.ts';
import type { AttemptSummary, DeliverySummary } from '../../server/webhooks/deliveries.ts';
import type { CreatedEndpoint, EndpointSummary } from '../../server/webhooks/endpoints.ts';
import { loadSecretBox, type SecretBox } from '../../server/webhooks/secret-box.ts';
import type { LookupFn } from '../../server/webhooks/ssrf.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { makeCommunity } from './support/factory.ts';
import { approved, deliveryRow, emitOne, startReceiver, webhookConfig, type Receiver } from './support/webhooks.ts';
import { closeSharedDatabase, onPostgres, openSharedDatabase, ROOT, runSvc, type CliRun } from './support/cli.ts';

const RUN = crypto.randomBytes(4).toString('hex');
const stripe = new Stripe('sk_test_not_used_for_network');
const SECRET = /whsec_[A-Za-z0-9_-]{32}/;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-hooks-'));
const key = crypto.randomBytes(32);
/** The box the CLI uses for this key, loaded the way the server loads it. */
const boxFor = (k: Buffer): SecretBox => loadSecretBox({ encryptionKey: k, dataDir: tmp });
const env: Record<string, string> = {
  SVC_DATA_DIR: path.join(tmp, 'data'),
  SVC_ENCRYPTION_KEY: key.toString('base64'),
  SVC_ALLOW_PRIVATE_WEBHOOKS: 'true',
  SVC_WEBHOOK_TIMEOUT_MS: '3000',
};
// On PostgreSQL the CLI works in a schema of its own, named in the URL, as an operator could.
const schema = `cli_hooks_${RUN}`;
if (onPostgres) {
  const url = new URL(process.env.DATABASE_URL as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  env.DATABASE_URL = url.toString();
}

const svc = (args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> =>
  runSvc(args, { ...env, ...extraEnv });

/** Runs the CLI with --json, expects success, and parses stdout. */
async function svcJson<T>(args: string[], extraEnv: Record<string, string> = {}): Promise<T> {
  const r = await svc([...args, '--json'], extraEnv);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** The webhook fixture with `{{run}}` and `{{receiver}}` filled in, written to the temp dir. */
function webhookFixture(receiverUrl: string, run = RUN): string {
  const text = fs
    .readFileSync(path.join(ROOT, 'tests/fixtures/cli-webhooks.json'), 'utf8')
    .replaceAll('{{run}}', run)
    .replaceAll('{{receiver}}', receiverUrl);
  const file = path.join(tmp, `cli-webhooks-${run}.json`);
  fs.writeFileSync(file, text);
  return file;
}

let database: DatabaseHandle;
let receiver: Receiver;
let community: { id: string; tag: string };
const db = () => database.db;

beforeAll(async () => {
  database = await openSharedDatabase(schema, env.SVC_DATA_DIR);
  community = await makeCommunity(database.db, `hooks-${RUN}`);
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await closeSharedDatabase(database, schema);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Shared by the tests below, in file order. */
let all: CreatedEndpoint;
let articles: CreatedEndpoint;
let latestSecret: string;
let replayed: string;

describe('svc webhook: happy path', { timeout: 120_000 }, () => {
  it('--help describes every webhook command', async () => {
    const commands = [['webhook'], ['webhook', 'replay'], ['webhook', 'rotate-secret']];
    const runs = await Promise.all(commands.map((c) => svc([...c, '--help'])));
    runs.forEach((r, i) => {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: svc ${commands[i].join(' ')}`);
    });
    for (const name of [
      'add',
      'list',
      'remove',
      'enable',
      'disable',
      'rotate-secret',
      'deliveries',
      'attempts',
      'replay',
      'resend',
    ]) {
      expect(runs[0].stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    expect(runs[1].stdout).toMatch(/--queue-only[\s\S]*--json/);
    expect(runs[2].stdout).toMatch(/--overlap <duration>[\s\S]*\(default: "24h"\)/);
  });

  it('add prints the signing secret once (text and --json); the database holds only its ciphertext', async () => {
    const text = await svc([
      'webhook',
      'add',
      '--community',
      community.tag,
      '--url',
      receiver.url,
      '--description',
      'CRM sync',
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('shown only once');
    expect(text.stdout).toContain(`for community ${community.tag}`);
    expect(text.stdout).toMatch(/events:\s+\* \(all events\)/);
    const secrets = text.stdout.match(new RegExp(SECRET, 'g')) ?? [];
    expect(secrets).toHaveLength(1);
    const id = /Registered webhook endpoint (\S+)/.exec(text.stdout)?.[1] as string;
    all = {
      ...(await svcJson<EndpointSummary[]>(['webhook', 'list', '--community', community.tag]))[0],
      secret: secrets[0] as string,
      resolved: true,
    };
    expect(all).toMatchObject({ id, url: receiver.url, events: ['*'], description: 'CRM sync', status: 'ENABLED' });

    articles = await svcJson<CreatedEndpoint>([
      'webhook',
      'add',
      '--community',
      community.tag,
      '--url',
      `${receiver.url}?b`,
      '--events',
      'article.published, member.banned',
    ]);
    expect(articles).toEqual({
      id: expect.any(String),
      communityTag: community.tag,
      url: `${receiver.url}?b`,
      description: null,
      events: ['article.published', 'member.banned'],
      status: 'ENABLED',
      disabledReason: null,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(SECRET),
      resolved: true,
    });

    const row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', all.id)
      .executeTakeFirstOrThrow();
    expect(Object.values(row)).not.toContain(all.secret);
    expect(boxFor(key).open(row.secret_ciphertext as string, all.id)).toBe(all.secret);
  });

  it('rotate-secret prints the new secret once and says until when the old one signs; --overlap 0 ends it at once', async () => {
    const before = Date.now();
    const text = await svc(['webhook', 'rotate-secret', all.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('shown only once');
    const secret = SECRET.exec(text.stdout)?.[0];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(all.secret);
    const until = /also signs deliveries until (\S+)/.exec(text.stdout)?.[1] as string;
    expect(Date.parse(until) - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    expect(Date.parse(until) - before).toBeLessThan(24 * 3600_000 + 60_000);

    const list = await svc(['webhook', 'list']);
    expect(list.stdout).toContain(`previous secret signs until ${until}`);

    const rotated = await svcJson<CreatedEndpoint & { overlapMs: number }>([
      'webhook',
      'rotate-secret',
      all.id,
      '--overlap',
      '0s',
    ]);
    expect(rotated).toMatchObject({
      id: all.id,
      previousSecretExpiresAt: null,
      overlapMs: 0,
      secret: expect.stringMatching(SECRET),
    });
    expect(rotated).not.toHaveProperty('resolved');
    latestSecret = rotated.secret;
    const row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', all.id)
      .executeTakeFirstOrThrow();
    expect(row.previous_secret_ciphertext).toBeNull();
  });

  it('deliveries lists an emitted event; replay sends it with the same Svc-Delivery-Id; attempts logs both rounds', async () => {
    const { deliveryIds } = await emitOne(db(), community, 'member.approved', approved());
    // Only the endpoint subscribed to every event gets a member.approved.
    expect(deliveryIds).toHaveLength(1);
    replayed = deliveryIds[0];
    const listed = await svcJson<DeliverySummary[]>([
      'webhook',
      'deliveries',
      all.id,
      '--status',
      'pending',
      '--since',
      '5m',
    ]);
    expect(listed).toEqual([
      expect.objectContaining({
        id: replayed,
        endpointId: all.id,
        event: 'member.approved',
        status: 'PENDING',
        totalAttempts: 0,
      }),
    ]);
    expect(await svcJson<DeliverySummary[]>(['webhook', 'deliveries', articles.id])).toEqual([]);

    const sent = await svc(['webhook', 'replay', replayed]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain(`Replaying delivery ${replayed} (member.approved) to ${receiver.url}: round 2.`);
    expect(sent.stdout).toContain('Attempt 1: the receiver answered 204');
    expect(receiver.requests).toHaveLength(1);
    const [first] = receiver.requests;
    expect(first.headers['svc-delivery-id']).toBe(replayed);
    // Signed with the secret rotate-secret printed last.
    const body = stripe.webhooks.constructEvent(
      first.body,
      first.headers['svc-signature'] as string,
      latestSecret,
    ) as unknown;
    expect(body).toMatchObject({ event: 'member.approved', deliveryId: replayed, communityTag: community.tag });

    receiver.handle((_req, res) =>
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`boom\n${'detail '.repeat(60)}`),
    );
    const failed = await svcJson<{
      delivery: DeliverySummary;
      attempt: { ok: boolean; number: number; statusCode: number; error: string };
    }>(['webhook', 'replay', replayed]);
    expect(failed.attempt).toMatchObject({ ok: false, number: 2, statusCode: 500, error: 'receiver answered 500' });
    expect(failed.delivery).toMatchObject({
      id: replayed,
      status: 'PENDING',
      round: 3,
      totalAttempts: 2,
      nextAttemptAt: expect.any(String),
    });
    expect(receiver.requests.map((r) => r.headers['svc-delivery-id'])).toEqual([replayed, replayed]);

    const log = await svcJson<{ delivery: DeliverySummary; attempts: AttemptSummary[] }>([
      'webhook',
      'attempts',
      replayed,
    ]);
    expect(log.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        round: 2,
        outcome: 'SUCCEEDED',
        statusCode: 204,
        error: null,
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({
        number: 2,
        round: 3,
        outcome: 'FAILED',
        statusCode: 500,
        error: 'receiver answered 500',
        responseBody: `boom\n${'detail '.repeat(60)}`,
      }),
    ]);
    const text = await svc(['webhook', 'attempts', replayed]);
    expect(text.stdout).toMatch(/^1\s+2\s+SUCCEEDED\s+\S+\s+\d+ ms\s+204$/m);
    expect(text.stdout).toMatch(/^2\s+3\s+FAILED\s+\S+\s+\d+ ms\s+500$/m);
    // The body in one line of about 80 characters; --json above has all of it.
    const bodyLine = text.stdout.split('\n').find((l) => l.trim().startsWith('body:')) as string;
    expect(bodyLine).toMatch(/body:\s+boom detail detail .*…$/);
    expect(bodyLine.trim().length).toBeLessThanOrEqual(90);
  });

  it('resend --since requeues a PERMANENTLY_FAILED delivery and sends it at once', async () => {
    const {
      deliveryIds: [failing],
    } = await emitOne(db(), community, 'member.approved', approved());
    // What a server's worker does when a receiver keeps failing: here with no retries left.
    const worker = new DeliveryWorker({
      db: db(),
      dialect: database.dialect,
      config: webhookConfig({ retryDelaysMs: [] }),
      secrets: boxFor(key),
      logger: createLogger('silent'),
    });
    await worker.deliverNow([failing]);
    await worker.stop();
    expect((await deliveryRow(db(), failing)).status).toBe('PERMANENTLY_FAILED');
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(
      await svcJson<DeliverySummary[]>([
        'webhook',
        'deliveries',
        all.id,
        '--status',
        'PERMANENTLY_FAILED',
        '--since',
        since,
      ]),
    ).toEqual([expect.objectContaining({ id: failing, lastStatusCode: 500 })]);

    receiver.handle((_req, res) => res.writeHead(200).end('ok'));
    const requestsBefore = receiver.requests.length;
    const r = await svcJson<{
      requeued: string[];
      sent: number;
      succeeded: number;
      failed: number;
      attempts: { deliveryId: string; ok: boolean }[];
    }>(['webhook', 'resend', all.id, '--since', '10m']);
    // The delivery that is still PENDING (from the replay above) is not a failed one: untouched.
    expect(r).toMatchObject({
      requeued: [failing],
      sent: 1,
      succeeded: 1,
      failed: 0,
      attempts: [{ deliveryId: failing, ok: true }],
    });
    expect(receiver.requests.slice(requestsBefore).map((q) => q.headers['svc-delivery-id'])).toEqual([failing]);
    expect(await deliveryRow(db(), failing)).toMatchObject({ status: 'SUCCEEDED', round: 2 });
    expect((await deliveryRow(db(), replayed)).status).toBe('PENDING');

    const none = await svc(['webhook', 'resend', all.id, '--since', since]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No permanently failed deliveries');
  });

  it("import registers the fixture's webhooks and prints their secrets once; a second import registers nothing", async () => {
    const file = webhookFixture(receiver.url);
    const first = await svc(['import', file, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('webhook signing secrets are shown only once');
    const result = JSON.parse(first.stdout) as ImportResult;
    const [c] = result.communities;
    expect(c.counts.webhooks).toEqual({ created: 2, unchanged: 0 });
    expect(c.webhooks).toEqual([
      {
        id: expect.any(String),
        url: receiver.url,
        events: ['*'],
        description: 'every event',
        status: 'ENABLED',
        secret: expect.stringMatching(SECRET),
        resolved: true,
      },
      {
        id: expect.any(String),
        url: `${receiver.url}?only=members`,
        events: ['member.requested', 'member.approved'],
        description: null,
        status: 'ENABLED',
        secret: expect.stringMatching(SECRET),
        resolved: true,
      },
    ]);

    const again = await svc(['import', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/: 0 created, \d+ unchanged/);
    expect(again.stdout).toContain(`webhook ${receiver.url} (all events): exists as ${c.webhooks[0].id} (enabled)`);
    expect(again.stdout).not.toMatch(SECRET);
    expect(again.stderr).not.toContain('shown only once');
    const rows = await db().selectFrom('webhook_endpoints').select('id').where('community_id', '=', c.id).execute();
    expect(rows).toHaveLength(2);
  });
});

describe('svc webhook: errors', { timeout: 120_000 }, () => {
  it('unknown ids and bad option values exit 1 with a clear message and print nothing on stdout', async () => {
    const cases: [string[], string][] = [
      [['webhook', 'remove', 'no-such-id'], 'no webhook endpoint with id no-such-id'],
      [['webhook', 'deliveries', 'no-such-id'], 'no webhook endpoint with id no-such-id'],
      [['webhook', 'replay', 'del_nope'], 'delivery del_nope not found'],
      [['webhook', 'attempts', 'del_nope'], 'delivery del_nope not found'],
      [
        ['webhook', 'deliveries', all.id, '--status', 'DONE'],
        'unknown --status "DONE" (valid: PENDING, SUCCEEDED, PERMANENTLY_FAILED, CANCELLED)',
      ],
      [['webhook', 'deliveries', all.id, '--limit', '0'], '--limit must be a whole number'],
      [['webhook', 'resend', all.id, '--since', 'yesterday'], '--since must be a duration such as 2h'],
      [['webhook', 'rotate-secret', all.id, '--overlap', '5 parsecs'], '--overlap must be a duration'],
      [
        ['webhook', 'add', '--community', community.tag, '--url', receiver.url, '--events', 'member.nope'],
        'unknown event member.nope; known events: member.requested',
      ],
      [['webhook', 'add', '--community', `nope-${RUN}`, '--url', receiver.url], `community "nope-${RUN}" not found`],
      [['webhook', 'add', '--community', community.tag, '--url', 'not a url'], 'not a valid absolute URL'],
      [['webhook', 'resend', all.id], "required option '--since <when>' not specified"],
    ];
    const runs = await Promise.all(cases.map(([args]) => svc(args)));
    runs.forEach((r, i) => {
      expect(r.code, cases[i][0].join(' ')).toBe(1);
      expect(r.stderr).toContain(cases[i][1]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    });
  });

  it('after remove, replay and enable fail with a clear message; the history stays readable', async () => {
    const removed = await svcJson<EndpointSummary & { changed: boolean }>(['webhook', 'remove', all.id]);
    expect(removed).toMatchObject({ id: all.id, status: 'REMOVED', changed: true });
    const [replay, enable, again, history, list] = await Promise.all([
      svc(['webhook', 'replay', replayed]),
      svc(['webhook', 'enable', all.id]),
      svc(['webhook', 'remove', all.id]),
      svcJson<DeliverySummary[]>(['webhook', 'deliveries', all.id]),
      svcJson<EndpointSummary[]>(['webhook', 'list', '--community', community.tag]),
    ]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(
      `webhook endpoint ${all.id} has been removed, so delivery ${replayed} cannot be replayed`,
    );
    expect(enable.code).toBe(1);
    expect(enable.stderr).toContain('has been removed, so it cannot be enabled');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already removed');
    // The pending delivery was cancelled with the endpoint; the history is all there.
    expect(history.find((d) => d.id === replayed)).toMatchObject({ status: 'CANCELLED', totalAttempts: 2 });
    expect(list.map((e) => e.id)).toEqual([articles.id]);
    const withRemoved = await svcJson<EndpointSummary[]>(['webhook', 'list', '--community', community.tag, '--all']);
    expect(withRemoved.map((e) => [e.id, e.status])).toEqual([
      [all.id, 'REMOVED'],
      [articles.id, 'ENABLED'],
    ]);
  });

  it('disable cancels pending deliveries; replay of a disabled endpoint says to enable it; enable brings it back', async () => {
    const {
      deliveryIds: [pending],
    } = await emitOne(db(), community, 'article.published', {
      articleId: 'a1',
      slug: 'hello',
      title: 'Hello',
      publishedAt: new Date().toISOString(),
    });
    const disabled = await svcJson<EndpointSummary>([
      'webhook',
      'disable',
      articles.id,
      '--reason',
      'receiver migration',
    ]);
    expect(disabled).toMatchObject({ status: 'DISABLED', disabledReason: 'receiver migration' });
    expect((await deliveryRow(db(), pending)).status).toBe('CANCELLED');
    const replay = await svc(['webhook', 'replay', pending]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(
      `endpoint ${articles.id} is disabled; enable it first with \`svc webhook enable ${articles.id}\``,
    );
    const enabled = await svc(['webhook', 'enable', articles.id]);
    expect(enabled.stdout).toContain(`Enabled webhook endpoint ${articles.id}`);
    const queued = await svcJson<{ delivery: DeliverySummary; attempt: null }>([
      'webhook',
      'replay',
      pending,
      '--queue-only',
    ]);
    expect(queued).toMatchObject({
      attempt: null,
      delivery: { id: pending, status: 'PENDING', round: 2, totalAttempts: 0 },
    });
  });

  it('importFixture checks the webhooks field by JSON path', async () => {
    const base = JSON.parse(
      fs
        .readFileSync(path.join(ROOT, 'tests/fixtures/cli-webhooks.json'), 'utf8')
        .replaceAll('{{run}}', `${RUN}v`)
        .replaceAll('{{receiver}}', 'https://hooks.example.com/svc'),
    );
    base.communities[0].webhooks = [
      { url: 'https://Hooks.Example.com' },
      { url: 'https://hooks.example.com/', events: ['member.approved', 'member.nope'] },
      { url: 'ftp://hooks.example.com/x', events: [] },
      { url: 'https://hooks.example.com/y', secret: 'mine' },
    ];
    const err = await importFixture(db(), base, {
      webhooks: { secrets: boxFor(key), policy: { allowPrivate: false, lookup: publicDns } },
    }).then(
      () => null,
      (e: unknown) => e as { issues: unknown },
    );
    expect(err?.issues).toEqual([
      {
        path: 'communities[0].webhooks[1].events[1]',
        message: expect.stringMatching(/^unknown event "member.nope"; known events: member.requested, /),
      },
      {
        path: 'communities[0].webhooks[2].url',
        message: 'must be an absolute https:// URL such as https://example.com/webhooks/svc',
      },
      {
        path: 'communities[0].webhooks[2].events',
        message: 'needs at least one event; leave the field out (or use ["*"]) for every event',
      },
      { path: 'communities[0].webhooks[3].secret', message: 'unknown field' },
    ]);
    base.communities[0].webhooks = [{ url: 'https://Hooks.Example.com' }, { url: 'https://hooks.example.com/' }];
    const dup = await importFixture(db(), base, {
      webhooks: { secrets: boxFor(key), policy: { allowPrivate: false, lookup: publicDns } },
    }).then(
      () => null,
      (e: unknown) => e as { issues: unknown },
    );
    expect(dup?.issues).toEqual([
      {
        path: 'communities[0].webhooks[1].url',
        message: 'duplicate webhook URL "https://hooks.example.com/" (first at index 0)',
      },
    ]);
    // Registering needs the encryption key and the receiver policy: a caller that has none cannot import webhooks.
    base.communities[0].webhooks = [{ url: 'https://hooks.example.com/' }];
    await expect(importFixture(db(), base)).rejects.toThrow('options.webhooks');
  });
});

/** A resolver that answers every name with a public address, so no test depends on real DNS. */
const publicDns: LookupFn = async () => [{ address: '93.184.216.34', family: 4 }];

describe('svc webhook: security', { timeout: 120_000 }, () => {
  it('list never prints a signing secret', async () => {
    const [text, json, allRows] = await Promise.all([
      svc(['webhook', 'list', '--all']),
      svc(['webhook', 'list', '--json']),
      svc(['webhook', 'list', '--all', '--json']),
    ]);
    for (const r of [text, json, allRows]) {
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/whsec_/);
      for (const s of [all.secret, articles.secret, latestSecret]) expect(r.stdout).not.toContain(s);
    }
    expect(text.stdout).toContain(articles.id);
  });

  it('without SVC_ALLOW_PRIVATE_WEBHOOKS, add and import refuse http:// and private receivers', async () => {
    const strict = { SVC_ALLOW_PRIVATE_WEBHOOKS: 'false' };
    const run = `${RUN}s`;
    const file = webhookFixture('https://127.0.0.1:8443/hooks', run);
    const [http, loopback, localhost, imported] = await Promise.all([
      svc(['webhook', 'add', '--community', community.tag, '--url', receiver.url], strict),
      svc(['webhook', 'add', '--community', community.tag, '--url', 'https://127.0.0.1/hooks'], strict),
      svc(['webhook', 'add', '--community', community.tag, '--url', 'https://localhost./hooks'], strict),
      svc(['import', file], strict),
    ]);
    expect(http.stderr).toContain('The receiver URL must start with https://');
    expect(loopback.stderr).toContain('127.0.0.1 is a loopback address');
    expect(localhost.stderr).toContain('always points at this machine');
    expect(imported.stderr).toContain(
      'communities[0].webhooks[0].url: Refused webhook receiver: 127.0.0.1 is a loopback address',
    );
    expect(imported.stderr).toContain('communities[0].webhooks[1].url: Refused webhook receiver');
    for (const r of [http, loopback, localhost, imported]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stdout + r.stderr).not.toMatch(/whsec_/);
    }
    // All or nothing: the refused file created no community and no endpoint.
    expect(await db().selectFrom('communities').select('id').where('tag', '=', `cli-hooks-${run}`).execute()).toEqual(
      [],
    );
    expect(
      await db().selectFrom('webhook_endpoints').select('id').where('community_id', '=', community.id).execute(),
    ).toHaveLength(2);
  });

  it('a secret sealed by the CLI opens only with its key and only for its endpoint', async () => {
    const row = await db()
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret_ciphertext'])
      .where('id', '=', articles.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_ciphertext).toMatch(/^v1:/);
    expect(boxFor(key).open(row.secret_ciphertext as string, articles.id)).toBe(articles.secret);
    expect(() => boxFor(crypto.randomBytes(32)).open(row.secret_ciphertext as string, articles.id)).toThrow(
      /SVC_ENCRYPTION_KEY/,
    );
    expect(() => boxFor(key).open(row.secret_ciphertext as string, all.id)).toThrow();
  });
});
