// Broadcast delivery (issue 17, slice B): the dispatcher expands a broadcast's audience into the
// mail outbox in batches behind a cursor; the mail worker renders each copy at send time (merge
// fields, the unsubscribe footer, List-Unsubscribe with a URL and a mailto, List-Unsubscribe-Post),
// as real `.eml` files and through a real SMTP server (smtp-server, one recipient refused 550);
// `broadcast.sent` once with the counts; the unsubscribe page on the community host (GET confirms,
// POST one-click records, forged tokens refused); the web version on the feed for the audience only.
// Broadcasts are written as the API writes them (tests/api/support/broadcasts.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Trx } from '../../server/db/index.ts';
import { nowIso } from '../../server/db/ids.ts';
import { hashPassword } from '../../server/domain/passwords.ts';
import { createLogger } from '../../server/http/logger.ts';
import { emlFileTransport } from '../../server/mail/eml-files.ts';
import { listOutbox, retryOutboxMessage } from '../../server/mail/mailer.ts';
import { smtpTransport } from '../../server/mail/smtp.ts';
import type { MailTransport } from '../../server/mail/transport.ts';
import { MailDeliveryWorker } from '../../server/mail/worker.ts';
import { broadcastRow, dispatcherFor, queueBroadcast, tokensOf } from './support/broadcasts.ts';
import { makeAcceptedMembers, makeCommunity, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { decoded, parseMime, partOfType } from './support/mime.ts';
import { rawRequest } from './support/raw-http.ts';
import { runSvc, schemaUrl } from './support/cli.ts';
import { queueMail } from './support/mail.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-broadcasts-'));
const dataDir = path.join(tmp, 'data');
const mailDir = path.join(tmp, 'eml');

let server: TestServer;
let db: Db;
let port: string;

// ---------------------------------------------------------------- a real SMTP server

/** Addresses the SMTP server refuses at RCPT with 550. */
const refused = new Set<string>();
const received: Array<{ to: string[]; raw: string }> = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(address: SMTPServerAddress, _session, cb) {
    if (refused.has(address.address)) return cb(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
    cb();
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
      cb();
    });
  },
});
let smtpPort = 0;

/** Every worker made, stopped before the SMTP server closes: an open pooled connection would hold its close for 30 s. */
const workers: MailDeliveryWorker[] = [];

function mailWorker(transport: MailTransport): MailDeliveryWorker {
  const worker = new MailDeliveryWorker({
    db,
    dialect: server.database.dialect,
    config: server.config.mail,
    transport,
    logger: createLogger('silent'),
    seal: server.outboxSeal,
  });
  workers.push(worker);
  return worker;
}

/** Sends everything due now, round after round, until nothing is left. */
async function drain(worker: MailDeliveryWorker): Promise<void> {
  for (;;) if ((await worker.deliverDue()).length === 0) return;
}

const emlWorker = () => mailWorker(emlFileTransport(mailDir));
const smtpWorker = () =>
  mailWorker(smtpTransport({ host: '127.0.0.1', port: smtpPort, secure: false, user: null, pass: null }));

// ---------------------------------------------------------------- data

let seq = 0;
/** A community with a founder, `n` ACCEPTED members (with names) and its hosted site at `<tag>.localhost`. */
async function club(extra: { name?: string } = {}) {
  const tag = `club${++seq}`;
  const c = await makeCommunity(db, tag, { name: extra.name ?? `Club ${seq}` });
  // FEED on and public; EVENTS as the factory sets it.
  await db
    .updateTable('communities')
    .set({ page_settings: JSON.stringify([{ pageKey: 'FEED', enabled: true, visibility: null }]) })
    .where('id', '=', c.id)
    .execute();
  return c;
}

async function member(
  communityId: string,
  status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED' = 'ACCEPTED',
  opts: { name?: string; segmentId?: string; role?: 'member' | 'admin' | 'founder' } = {},
) {
  const user = await makeUser(db);
  const email = `${user.usertag}@example.com`;
  if (opts.name) await db.updateTable('users').set({ name: opts.name }).where('id', '=', user.id).execute();
  const membershipId = await makeMembership(db, communityId, user.id, status);
  if (opts.segmentId || opts.role)
    await db
      .updateTable('memberships')
      .set({ segment_id: opts.segmentId ?? null, role: opts.role ?? 'member' })
      .where('id', '=', membershipId)
      .execute();
  return { ...user, email, membershipId };
}

/** `n` ACCEPTED members written in bulk (the batch tests need thousands). */
const manyMembers = (communityId: string, n: number) => makeAcceptedMembers(db, communityId, n, `bulk${++seq}x`);

const outboxOf = (broadcastId: string) =>
  db.selectFrom('mail_outbox').selectAll().where('broadcast_id', '=', broadcastId).orderBy('to_address').execute();

const sentEvents = async (broadcastId: string) =>
  (await db.selectFrom('webhook_events').selectAll().where('name', '=', 'broadcast.sent').execute())
    .map((e) => JSON.parse(e.data) as Record<string, unknown>)
    .filter((d) => d.broadcastId === broadcastId);

/** The unsubscribe link of one outbox row, as path + Host for a request to the test server. */
function linkOf(row: { merge_fields: string | null }) {
  const url = new URL((JSON.parse(row.merge_fields!) as { unsubscribeUrl: string }).unsubscribeUrl);
  return { url, host: url.host, path: `${url.pathname}${url.search}`, token: url.searchParams.get('token')! };
}

const oneClick = (host: string, pathAndQuery: string, headers: Record<string, string> = {}) =>
  rawRequest(
    port,
    'POST',
    pathAndQuery,
    {
      Host: host,
      // A mail provider's RFC 8058 POST: cross-site, no cookies, no CSRF token.
      Origin: 'https://mail.provider.example',
      'Content-Type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    'List-Unsubscribe=One-Click',
  );

const unsubscribed = (communityId: string) =>
  db.selectFrom('broadcast_unsubscribes').selectAll().where('community_id', '=', communityId).execute();

/** Broadcast and send: expand it, then deliver everything with `worker`. */
async function send(worker: MailDeliveryWorker): Promise<void> {
  await dispatcherFor(server).dispatchDue();
  await drain(worker);
}

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as { port: number }).port;
  // On SQLite, the file in SVC_DATA_DIR, so `svc` sees the same data (and the same master key).
  server = await startTestServer({ sqliteFile: path.join(dataDir, 'svc.db'), env: { SVC_DATA_DIR: dataDir } });
  db = server.database.db;
  port = new URL(server.url).port;
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await server.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('happy', () => {
  it('expands one outbox message per ACCEPTED member, leaving out PENDING, REJECTED, BANNED and unsubscribed members', async () => {
    const c = await club();
    const ada = await member(c.id, 'ACCEPTED', { name: 'Ada' });
    const bob = await member(c.id, 'ACCEPTED', { name: 'Bob' });
    const gone = await member(c.id);
    await db
      .insertInto('broadcast_unsubscribes')
      .values({ community_id: c.id, user_id: gone.id, broadcast_id: null, unsubscribed_at: nowIso() })
      .execute();
    for (const status of ['PENDING', 'REJECTED', 'BANNED'] as const) await member(c.id, status);
    const id = await queueBroadcast(db, c.id, { subject: 'Hello {{ name }}', text: 'Hi {{name}}.' });
    expect((await broadcastRow(db, id)).recipients).toBe(2);

    const [result] = await dispatcherFor(server).dispatchDue();
    expect(result).toMatchObject({ broadcastId: id, written: 2, batches: 1, outcome: 'expanded' });
    const rows = await outboxOf(id);
    expect(rows.map((r) => [r.to_address, r.subject, r.text_body, r.html_body])).toEqual(
      [
        [ada.email, 'Hello Ada', '', null],
        [bob.email, 'Hello Bob', '', null],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count, b.failed_count]).toEqual(['SENDING', 2, 0, 0]);
    expect(b.expanded_at).not.toBeNull();
    expect(b.lease_token).toBeNull();
    // Nothing is due a second time.
    expect(await dispatcherFor(server).dispatchDue()).toEqual([]);
    await drain(emlWorker());
  });

  it('sends a segment broadcast to the members of the listed segments only', async () => {
    const c = await club();
    const gold = await makeSegment(db, c.id);
    const silver = await makeSegment(db, c.id);
    const inGold = await member(c.id, 'ACCEPTED', { segmentId: gold });
    await member(c.id, 'ACCEPTED', { segmentId: silver });
    await member(c.id);
    await member(c.id, 'PENDING', { segmentId: gold });
    const id = await queueBroadcast(db, c.id, { subject: 'Gold only', text: 'Hi.', segmentIds: [gold] });
    await dispatcherFor(server).dispatchDue();
    expect((await outboxOf(id)).map((r) => r.to_address)).toEqual([inGold.email]);
    await drain(emlWorker());
  });

  it('sends transactional mail written after a broadcast before the broadcast’s copies', async () => {
    const c = await club();
    for (let i = 0; i < 12; i++) await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Big news', text: 'Hi {{name}}.' });
    await dispatcherFor(server).dispatchDue();
    expect(await outboxOf(id)).toHaveLength(12);
    // Written after all twelve copies, so it is the latest due message.
    const reset = await queueMail(db, 'reset-me@example.com', 'Reset your password', 'Your link.');
    const worker = emlWorker();
    const firstRound = await worker.deliverDue();
    expect(firstRound.map((r) => r.id)).toContain(reset);
    await drain(worker);
  });

  it('writes 2,500 members in three batches of at most 1,000, each recipient once', async () => {
    const c = await club();
    await manyMembers(c.id, 2500);
    const id = await queueBroadcast(db, c.id, { subject: 'Big', text: 'Hi.' });
    const [result] = await dispatcherFor(server).dispatchDue();
    expect(result).toMatchObject({ written: 2500, batches: 3, outcome: 'expanded' });
    const rows = await outboxOf(id);
    expect(new Set(rows.map((r) => r.to_address)).size).toBe(2500);
    expect((await broadcastRow(db, id)).recipients).toBe(2500);
    // Not sent here: the other tests drain the outbox.
    await db.deleteFrom('mail_outbox').where('broadcast_id', '=', id).execute();
    await db.updateTable('broadcasts').set({ status: 'CANCELLED' }).where('id', '=', id).execute();
  });

  it('resumes after a crash mid-expansion from the cursor, without writing anyone twice', async () => {
    const c = await club();
    await manyMembers(c.id, 2500);
    const id = await queueBroadcast(db, c.id, { subject: 'Resumed', text: 'Hi.' });
    // A process whose database goes away after its first batch: the second batch never commits.
    let transactions = 0;
    const dying = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'transaction' && ++transactions > 1) throw new Error('connection lost');
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await expect(dispatcherFor(server, { db: dying as Db }).dispatchDue()).rejects.toThrow('connection lost');
    expect((await outboxOf(id)).length).toBe(1000);
    const held = await broadcastRow(db, id);
    expect([held.status, held.expanded_at, held.lease_token === null]).toEqual(['SENDING', null, false]);
    // Its lease is live: another dispatcher leaves it alone until it runs out.
    expect(await dispatcherFor(server).dispatchDue()).toEqual([]);
    await db
      .updateTable('broadcasts')
      .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    const [resumed] = await dispatcherFor(server).dispatchDue();
    expect(resumed).toMatchObject({ written: 1500, batches: 2, outcome: 'expanded' });
    const rows = await outboxOf(id);
    expect(rows.length).toBe(2500);
    expect(new Set(rows.map((r) => r.to_address)).size).toBe(2500);
    expect((await broadcastRow(db, id)).recipients).toBe(2500);
    await db.deleteFrom('mail_outbox').where('broadcast_id', '=', id).execute();
    await db.updateTable('broadcasts').set({ status: 'CANCELLED' }).where('id', '=', id).execute();
  });

  it('completes when the expansion ends after every message was already sent: the last (empty) batch emits broadcast.sent once', async () => {
    const c = await club();
    await member(c.id);
    await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Sent before expanded', text: 'Hi.' });
    // Batches of 2: the first writes both members, then the process dies before the empty last one.
    let transactions = 0;
    const dying = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'transaction' && ++transactions > 1) throw new Error('connection lost');
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await expect(dispatcherFor(server, { db: dying as Db, batchSize: 2 }).dispatchDue()).rejects.toThrow(
      'connection lost',
    );
    await drain(emlWorker());
    const sending = await broadcastRow(db, id);
    expect([sending.status, sending.expanded_at, sending.sent_count]).toEqual(['SENDING', null, 2]);
    expect(await sentEvents(id)).toEqual([]);

    await db
      .updateTable('broadcasts')
      .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    const [resumed] = await dispatcherFor(server, { batchSize: 2 }).dispatchDue();
    expect(resumed).toMatchObject({ broadcastId: id, written: 0, outcome: 'expanded' });
    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count, b.failed_count]).toEqual(['SENT', 2, 2, 0]);
    expect(await sentEvents(id)).toEqual([expect.objectContaining({ recipients: 2, sent: 2, failed: 0 })]);
    await drain(emlWorker());
    expect((await sentEvents(id)).length).toBe(1);
  });

  it('an audience that is empty by send time completes at once with 0 recipients and one broadcast.sent', async () => {
    const c = await club();
    const ada = await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'To nobody by now', text: 'Hi.' });
    expect((await broadcastRow(db, id)).recipients).toBe(1);
    await db.updateTable('memberships').set({ status: 'REJECTED' }).where('id', '=', ada.membershipId).execute();
    const results = await dispatcherFor(server).dispatchDue();
    expect(results.find((r) => r.broadcastId === id)).toMatchObject({ written: 0, outcome: 'expanded' });
    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count, b.failed_count]).toEqual(['SENT', 0, 0, 0]);
    expect(await sentEvents(id)).toEqual([expect.objectContaining({ recipients: 0, sent: 0, failed: 0 })]);
    expect(await outboxOf(id)).toEqual([]);
  });

  it('writes each copy as an .eml file with List-Unsubscribe (URL and mailto), List-Unsubscribe-Post and {{name}} per recipient, escaped in the html', async () => {
    const c = await club({ name: 'Chess & Co' });
    const ada = await member(c.id, 'ACCEPTED', { name: 'Ada <b>Love</b> & Co' });
    const bob = await member(c.id, 'ACCEPTED', { name: 'Bob' });
    const id = await queueBroadcast(db, c.id, {
      subject: 'News for {{name}}',
      html: '<h1>Hello {{name}}</h1><p>Our <a href="https://chess.example/x">news</a>.</p>',
      text: 'Hello {{name}}\n\nOur news [https://chess.example/x].',
    });
    await send(emlWorker());

    const rows = await outboxOf(id);
    expect(rows.every((r) => r.sent_at !== null && r.eml_path !== null)).toBe(true);
    const byTo = new Map(rows.map((r) => [r.to_address, r]));
    const adaRow = byTo.get(ada.email)!;
    const mail = parseMime(fs.readFileSync(adaRow.eml_path!, 'utf8'));
    const link = linkOf(adaRow);
    expect(link.url.origin).toBe(`http://${c.tag}.localhost:${port}`);
    expect(link.url.pathname).toBe('/unsubscribe');
    expect(mail.headers.get('list-unsubscribe')).toBe(
      `<${link.url.href}>, <mailto:no-reply@localhost?subject=unsubscribe%20${link.token}>`,
    );
    expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.headers.get('to')).toBe(ada.email);
    const text = decoded(partOfType(mail, 'text/plain')!).toString('utf8').replace(/\r\n/g, '\n');
    const html = decoded(partOfType(mail, 'text/html')!).toString('utf8');
    expect(text).toContain('Hello Ada <b>Love</b> & Co\n');
    expect(text).toContain(`Unsubscribe from these e-mails: ${link.url.href}`);
    expect(text).toContain('You receive this as a member of Chess & Co.');
    expect(html).toContain('<h1>Hello Ada &lt;b&gt;Love&lt;/b&gt; &amp; Co</h1>');
    expect(html).not.toContain('<b>Love</b>');
    expect(html).toContain(`<a href="${link.url.href.replace(/&/g, '&amp;')}">Unsubscribe from these e-mails</a>`);
    const bobMail = parseMime(fs.readFileSync(byTo.get(bob.email)!.eml_path!, 'utf8'));
    expect(decoded(partOfType(bobMail, 'text/plain')!).toString('utf8')).toContain('Hello Bob\r\n');
    // Each recipient's link is their own.
    expect(linkOf(byTo.get(bob.email)!).token).not.toBe(link.token);

    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count, b.failed_count]).toEqual(['SENT', 2, 2, 0]);
    expect(b.completed_at).not.toBeNull();
    expect(await sentEvents(id)).toEqual([
      {
        broadcastId: id,
        subject: 'News for {{name}}',
        recipients: 2,
        sent: 2,
        failed: 0,
        sendAt: b.send_at,
        completedAt: b.completed_at,
      },
    ]);
    // `svc mail show` renders a broadcast's row as it was sent.
    const [listed] = await listOutbox(db, server.outboxSeal, { to: ada.email });
    expect(listed.subject).toBe('News for Ada <b>Love</b> & Co');
    expect(listed.text).toBe(text);
    expect(listed.html).toContain('Hello Ada &lt;b&gt;Love');
  });

  it('through SMTP, a recipient refused with 550 fails alone; the others are sent and broadcast.sent is emitted once with the counts', async () => {
    const c = await club();
    const members: Array<{ email: string }> = [];
    for (let i = 0; i < 6; i++) members.push(await member(c.id, 'ACCEPTED', { name: `M${i}` }));
    refused.add(members[2].email);
    const id = await queueBroadcast(db, c.id, {
      subject: 'Over SMTP',
      html: '<p>Hi {{name}}</p>',
      text: 'Hi {{name}}',
    });
    await send(smtpWorker());
    refused.clear();

    const rows = await outboxOf(id);
    const failed = rows.filter((r) => r.failed_at !== null);
    expect(failed.map((r) => [r.to_address, r.attempts])).toEqual([[members[2].email, 1]]);
    expect(failed[0].last_error).toMatch(/550/);
    expect(rows.filter((r) => r.sent_at !== null).length).toBe(5);
    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count, b.failed_count]).toEqual(['SENT', 6, 5, 1]);
    expect(await sentEvents(id)).toEqual([expect.objectContaining({ recipients: 6, sent: 5, failed: 1 })]);

    const got = received.filter((m) => members.some((x) => m.to.includes(x.email)));
    expect(got.length).toBe(5);
    const one = parseMime(got.find((m) => m.to.includes(members[0].email))!.raw);
    expect(one.headers.get('list-unsubscribe')).toMatch(
      new RegExp(
        `^<http://${c.tag}\\.localhost:${port}/unsubscribe\\?token=[\\w.-]+>, <mailto:no-reply@localhost\\?subject=unsubscribe%20[\\w.-]+>$`,
      ),
    );
    expect(one.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(decoded(partOfType(one, 'text/html')!).toString('utf8')).toContain('<p>Hi M0</p>');
  });

  it('svc mail retry of a failed broadcast message moves it from failed to sent once it goes: the counts add up to the recipients', async () => {
    const c = await club();
    const ada = await member(c.id, 'ACCEPTED', { name: 'Ada' });
    await member(c.id, 'ACCEPTED', { name: 'Bob' });
    refused.add(ada.email);
    const id = await queueBroadcast(db, c.id, { subject: 'Retry me', text: 'Hi {{name}}' });
    await send(smtpWorker());
    refused.clear();
    const b = await broadcastRow(db, id);
    expect([b.status, b.sent_count, b.failed_count]).toEqual(['SENT', 1, 1]);

    const failed = (await outboxOf(id)).find((r) => r.to_address === ada.email)!;
    expect(await retryOutboxMessage(db, failed.id)).toBe('queued');
    expect((await broadcastRow(db, id)).failed_count).toBe(0);
    await drain(smtpWorker());
    const after = await broadcastRow(db, id);
    expect([after.status, after.recipients, after.sent_count, after.failed_count]).toEqual(['SENT', 2, 2, 0]);
    // It was SENT before the retry: no second event.
    expect(await sentEvents(id)).toEqual([expect.objectContaining({ recipients: 2, sent: 1, failed: 1 })]);
    // A retry of what is not failed (now sent) changes no counter.
    expect(await retryOutboxMessage(db, failed.id)).toBe('not_failed');
    expect((await broadcastRow(db, id)).sent_count).toBe(2);
  });

  it('a test send goes to its one address marked [TEST], emits no webhook and counts no audience', async () => {
    const c = await club();
    await member(c.id);
    const id = await queueBroadcast(db, c.id, {
      subject: 'Draft for {{name}}',
      text: 'Hello {{name}}',
      testTo: 'editor@news.example',
    });
    await send(emlWorker());
    const rows = await outboxOf(id);
    expect(rows.map((r) => [r.to_address, r.subject])).toEqual([['editor@news.example', '[TEST] Draft for editor']]);
    const b = await broadcastRow(db, id);
    expect([b.status, b.recipients, b.sent_count]).toEqual(['SENT', 1, 1]);
    expect(await sentEvents(id)).toEqual([]);
    // Its link says it was a test and changes nothing.
    const link = linkOf(rows[0]);
    const res = await oneClick(link.host, link.path);
    expect([res.status, res.text.includes('This was a test e-mail')]).toEqual([200, true]);
    expect(await unsubscribed(c.id)).toEqual([]);
  });

  it('a one-click POST unsubscribes the member once; a later broadcast leaves them out; transactional mail still reaches them', async () => {
    const c = await club();
    const ada = await member(c.id, 'ACCEPTED', { name: 'Ada' });
    const bob = await member(c.id);
    const first = await queueBroadcast(db, c.id, { subject: 'First', text: 'Hi.' });
    await send(emlWorker());
    const adaRow = (await outboxOf(first)).find((r) => r.to_address === ada.email)!;
    const link = linkOf(adaRow);

    const res = await oneClick(link.host, link.path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are unsubscribed');
    expect((await unsubscribed(c.id)).map((u) => [u.user_id, u.broadcast_id])).toEqual([[ada.id, first]]);
    expect((await broadcastRow(db, first)).unsubscribed_count).toBe(1);
    // Again: nothing more is recorded or counted.
    expect((await oneClick(link.host, link.path)).status).toBe(200);
    expect((await unsubscribed(c.id)).length).toBe(1);
    expect((await broadcastRow(db, first)).unsubscribed_count).toBe(1);

    const second = await queueBroadcast(db, c.id, { subject: 'Second', text: 'Hi.' });
    expect((await broadcastRow(db, second)).recipients).toBe(1);
    await send(emlWorker());
    expect((await outboxOf(second)).map((r) => r.to_address)).toEqual([bob.email]);

    // A password reset (transactional) is written for the unsubscribed member all the same.
    await db
      .updateTable('users')
      .set({ password_hash: await hashPassword('a password') })
      .where('id', '=', ada.id)
      .execute();
    const host = `127.0.0.1:${port}`;
    const reset = await rawRequest(
      port,
      'POST',
      '/api/auth/password-reset',
      { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
      JSON.stringify({ email: ada.email }),
    );
    expect(reset.status).toBe(202);
    const resetRows = await db
      .selectFrom('mail_outbox')
      .select(['subject', 'broadcast_id'])
      .where('to_address', '=', ada.email)
      .where('broadcast_id', 'is', null)
      .execute();
    expect(resetRows.map((r) => r.subject)).toEqual(['Reset your svc password']);
    await drain(emlWorker());
  });

  it('the page form unsubscribes too (the same POST the GET page offers)', async () => {
    const c = await club();
    const ada = await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Hi', text: 'Hi.' });
    await send(emlWorker());
    const link = linkOf((await outboxOf(id))[0]);
    const page = await rawRequest(port, 'GET', link.path, { Host: link.host });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Unsubscribe from Club \d+'s e-mails\?/);
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)![1].replace(/&amp;/g, '&');
    expect(action).toBe(link.path);
    const posted = await rawRequest(
      port,
      'POST',
      action,
      { Host: link.host, Origin: `http://${link.host}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      'List-Unsubscribe=One-Click',
    );
    expect(posted.status).toBe(200);
    expect((await unsubscribed(c.id)).map((u) => u.user_id)).toEqual([ada.id]);
    const after = await rawRequest(port, 'GET', link.path, { Host: link.host });
    expect(after.text).toContain('You are unsubscribed');
  });

  it('svc broadcasts unsubscribe applies the subject of a mailto request', async () => {
    const c = await club();
    const ada = await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Hi', text: 'Hi.' });
    await send(emlWorker());
    const row = (await outboxOf(id))[0];
    const env = {
      SVC_DATA_DIR: dataDir,
      DATABASE_URL:
        onPostgres && server.databaseTarget.kind === 'postgres' ? schemaUrl(server.databaseTarget.schema!) : '',
      REDIS_URL: '',
    };
    const run = await runSvc(['broadcasts', 'unsubscribe', `unsubscribe ${linkOf(row).token}`], env);
    expect([run.code, run.stdout.trim()]).toEqual([0, `unsubscribed: ${ada.email} from ${c.tag}'s broadcasts`]);
    expect((await unsubscribed(c.id)).map((u) => u.user_id)).toEqual([ada.id]);
    expect((await broadcastRow(db, id)).unsubscribed_count).toBe(1);
    const again = await runSvc(['broadcasts', 'unsubscribe', linkOf(row).url.href], env);
    expect([again.code, again.stdout.trim()]).toEqual([
      0,
      `already unsubscribed: ${ada.email} from ${c.tag}'s broadcasts`,
    ]);
    const forged = await runSvc(['broadcasts', 'unsubscribe', `${linkOf(row).token}x`], env);
    expect([forged.code, forged.stderr]).toEqual([1, expect.stringContaining('not a valid unsubscribe token')]);
  });

  it("shows a SENT broadcast as its web version on the feed to its audience, with the viewer's name", async () => {
    const c = await club();
    const gold = await makeSegment(db, c.id);
    const reader = await member(c.id, 'ACCEPTED', { name: 'Reader <i>' });
    const goldMember = await member(c.id, 'ACCEPTED', { name: 'Goldie', segmentId: gold });
    const admin = await member(c.id, 'ACCEPTED', { name: 'Admin', role: 'admin' });
    const pending = await member(c.id, 'PENDING');
    const outsider = await makeUser(db);
    const all = await queueBroadcast(db, c.id, {
      subject: 'For {{name}}',
      html: '<p>Dear {{name}}, the news.</p>',
      text: 'Dear {{name}}',
    });
    const goldOnly = await queueBroadcast(db, c.id, {
      subject: 'Gold news',
      text: 'Line one\nline two',
      segmentIds: [gold],
    });
    const test = await queueBroadcast(db, c.id, { subject: 'Test', text: 'Hi', testTo: 'x@news.example' });
    await send(emlWorker());
    const cookie = async (userId: string) =>
      `svc_auth_${c.tag}=${(await server.sessions.issue(userId, Date.now(), undefined, c.tag)).token}`;
    const get = async (p: string, userId: string | null) =>
      rawRequest(port, 'GET', p, {
        Host: `${c.tag}.localhost:${port}`,
        ...(userId ? { Cookie: await cookie(userId) } : {}),
      });

    const seen = await get(`/feed/post/broadcast-${all}`, reader.id);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('Dear Reader &lt;i&gt;, the news.');
    expect(seen.text).toContain('For Reader &lt;i&gt;');
    expect((await get('/feed', reader.id)).text).toContain(`/feed/post/broadcast-${all}`);
    expect((await get(`/feed/post/broadcast-${goldOnly}`, goldMember.id)).text).toContain('Line one<br />line two');
    expect((await get(`/feed/post/broadcast-${goldOnly}`, admin.id)).status).toBe(200);

    expect((await get(`/feed/post/broadcast-${goldOnly}`, reader.id)).status).toBe(404);
    expect((await get('/feed', reader.id)).text).not.toContain(goldOnly);
    for (const viewer of [null, pending.id, outsider.id]) {
      expect((await get(`/feed/post/broadcast-${all}`, viewer)).status, String(viewer)).toBe(404);
      expect((await get('/feed', viewer)).text).not.toContain('broadcast-');
    }
    expect((await get(`/feed/post/broadcast-${test}`, admin.id)).status).toBe(404);
  });

  it('a scheduled broadcast waits for its send_at, and a running dispatcher wakes for it', async () => {
    const c = await club();
    const ada = await member(c.id);
    const id = await queueBroadcast(db, c.id, {
      subject: 'Later',
      text: 'Hi.',
      sendAt: new Date(Date.now() + 600).toISOString(),
    });
    expect((await broadcastRow(db, id)).status).toBe('SCHEDULED');
    expect(await dispatcherFor(server).dispatchDue()).toEqual([]);
    // A long poll: only the wake at send_at gets it out in time.
    const running = dispatcherFor(server, { pollMs: 60_000 });
    running.start();
    try {
      const deadline = Date.now() + 5000;
      while ((await outboxOf(id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await running.stop();
    }
    expect((await outboxOf(id)).map((r) => r.to_address)).toEqual([ada.email]);
    await drain(emlWorker());
    expect((await broadcastRow(db, id)).status).toBe('SENT');
  });
});

describe('error', () => {
  it('GET of the unsubscribe page only confirms: nothing is recorded', async () => {
    const c = await club();
    await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Hi', text: 'Hi.' });
    await send(emlWorker());
    const link = linkOf((await outboxOf(id))[0]);
    for (let i = 0; i < 3; i++) {
      const res = await rawRequest(port, 'GET', link.path, { Host: link.host });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toMatch(/private|no-store/);
    }
    expect(await unsubscribed(c.id)).toEqual([]);
    expect((await broadcastRow(db, id)).unsubscribed_count).toBe(0);
  });

  it('an unsubscribe link without a token is 400 on GET and POST', async () => {
    const c = await club();
    const host = `${c.tag}.localhost:${port}`;
    expect((await rawRequest(port, 'GET', '/unsubscribe', { Host: host })).status).toBe(400);
    expect((await oneClick(host, '/unsubscribe')).status).toBe(400);
  });

  it('a lease lost mid-expansion rolls that batch back; the new holder writes the rest once', async () => {
    const c = await club();
    await manyMembers(c.id, 1500);
    const id = await queueBroadcast(db, c.id, { subject: 'Stolen', text: 'Hi.' });
    // Before its second batch, another dispatcher takes the broadcast over (its lease had run out).
    let transactions = 0;
    const slow = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'transaction' && ++transactions === 2) {
          return () => ({
            execute: async (fn: (trx: Trx) => Promise<unknown>) => {
              await target
                .updateTable('broadcasts')
                .set({ lease_token: 'another dispatcher', lease_until: new Date(Date.now() + 60_000).toISOString() })
                .where('id', '=', id)
                .execute();
              return target.transaction().execute(fn);
            },
          });
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const [lost] = await dispatcherFor(server, { db: slow as Db }).dispatchDue();
    expect(lost).toMatchObject({ written: 1000, batches: 1, outcome: 'lease-lost' });
    expect((await outboxOf(id)).length).toBe(1000);
    // The other dispatcher dies in turn; once its lease runs out the broadcast is claimed again.
    await db
      .updateTable('broadcasts')
      .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    const [rest] = await dispatcherFor(server).dispatchDue();
    expect(rest).toMatchObject({ written: 500, outcome: 'expanded' });
    const rows = await outboxOf(id);
    expect(new Set(rows.map((r) => r.to_address)).size).toBe(1500);
    await db.deleteFrom('mail_outbox').where('broadcast_id', '=', id).execute();
    await db.updateTable('broadcasts').set({ status: 'CANCELLED' }).where('id', '=', id).execute();
  });
});

describe('security', () => {
  it("the web version is not shown before the broadcast is SENT, nor on another community's site", async () => {
    const c = await club();
    const other = await club();
    const ada = await member(c.id, 'ACCEPTED', { name: 'Ada' });
    await makeMembership(db, other.id, ada.id, 'ACCEPTED');
    const id = await queueBroadcast(db, c.id, { subject: 'Soon', text: 'Hi {{name}}' });
    const get = async (tag: string, p: string) =>
      rawRequest(port, 'GET', p, {
        Host: `${tag}.localhost:${port}`,
        Cookie: `svc_auth_${tag}=${(await server.sessions.issue(ada.id, Date.now(), undefined, tag)).token}`,
      });
    const post = `/feed/post/broadcast-${id}`;
    expect((await get(c.tag, post)).status).toBe(404);
    await dispatcherFor(server).dispatchDue();
    expect((await broadcastRow(db, id)).status).toBe('SENDING');
    expect((await get(c.tag, post)).status).toBe(404);
    expect((await get(c.tag, '/feed')).text).not.toContain(id);
    await drain(emlWorker());
    expect((await broadcastRow(db, id)).status).toBe('SENT');
    const shown = await get(c.tag, post);
    expect([shown.status, shown.text.includes('Hi Ada')]).toEqual([200, true]);
    // The same member, signed in on another community's site, gets nothing there.
    expect((await get(other.tag, post)).status).toBe(404);
  });

  it('a forged, altered or another community’s token is refused with 400 and records nothing', async () => {
    const c = await club();
    const other = await club();
    const ada = await member(c.id);
    await member(other.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Hi', text: 'Hi.' });
    const otherId = await queueBroadcast(db, other.id, { subject: 'Hi', text: 'Hi.' });
    await send(emlWorker());
    const link = linkOf((await outboxOf(id))[0]);
    const host = link.host;
    const [payload, mac] = link.token.split('.');
    const tokens = tokensOf(server);

    // Another member's id in the payload, with the original MAC.
    const swapped = Buffer.from(
      Buffer.from(payload, 'base64url')
        .toString()
        .replace(ada.id, (await member(c.id)).id),
    ).toString('base64url');
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const otherToken = linkOf((await outboxOf(otherId))[0]).token;
    const forged = [
      `${swapped}.${mac}`,
      `${payload}.${flipped}`,
      `${payload}.`,
      payload,
      'not-a-token',
      // Signed with another key.
      `${payload}.${Buffer.alloc(16, 7).toString('base64url')}`,
      // A genuine token of another community, used on this community's host.
      otherToken,
    ];
    expect(tokens.verify(otherToken)).not.toBeNull();
    for (const token of forged) {
      const p = `/unsubscribe?token=${encodeURIComponent(token)}`;
      expect((await oneClick(host, p)).status, token).toBe(400);
      expect((await rawRequest(port, 'GET', p, { Host: host })).status, token).toBe(400);
    }
    expect(await unsubscribed(c.id)).toEqual([]);
    expect(await unsubscribed(other.id)).toEqual([]);
    expect((await broadcastRow(db, id)).unsubscribed_count).toBe(0);
  });

  it('the unsubscribe page is not on the platform host or an unknown host', async () => {
    const c = await club();
    await member(c.id);
    const id = await queueBroadcast(db, c.id, { subject: 'Hi', text: 'Hi.' });
    await send(emlWorker());
    const link = linkOf((await outboxOf(id))[0]);
    expect((await oneClick(`127.0.0.1:${port}`, link.path)).status).toBe(404);
    expect((await oneClick(`nobody.example:${port}`, link.path)).status).toBe(404);
    expect(await unsubscribed(c.id)).toEqual([]);
  });
});
