// Broadcasts end to end through the real pieces (issue 17): POST with a WRITE_BROADCASTS key, the
// broadcast dispatcher the server process runs, the mail worker with the transport the server
// chooses (no SMTP_URL: `.eml` files under SVC_DATA_DIR/mail), the List-Unsubscribe URL read from a
// file and used as a mail provider's one-click POST on the community's host, then the counts the
// API answers and `broadcast.sent` once. The delivery tests (broadcasts-delivery.test.ts) write
// their broadcasts with tests/api/support/broadcasts.ts; a test here shows that helper writes the
// row the API writes. And a cancel racing the dispatcher's claim: one of them wins, never both.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/index.ts';
import { createLogger } from '../../server/http/logger.ts';
import { chooseMailTransport, mailFilesDir } from '../../server/mail/choose-transport.ts';
import { MailDeliveryWorker } from '../../server/mail/worker.ts';
import { dispatcherFor, queueBroadcast } from './support/broadcasts.ts';
import { makeCommunity, makeKey, makeMembership, makeSegment, makeUser } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { decoded, parseMime, partOfType, type MimePart } from './support/mime.ts';
import { rawRequest } from './support/raw-http.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-broadcasts-e2e-'));
const dataDir = path.join(tmp, 'data');

let server: TestServer;
let db: Db;
let port: string;

beforeAll(async () => {
  server = await startTestServer({ sqliteFile: path.join(dataDir, 'svc.db'), env: { SVC_DATA_DIR: dataDir } });
  db = server.database.db;
  port = new URL(server.url).port;
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let seq = 0;
/** A community with the broadcasts feature, a WRITE_BROADCASTS key and its hosted site at `<tag>.localhost`. */
async function community() {
  const c = await makeCommunity(db, `e2e${++seq}${Date.now().toString(36)}`, { name: `Club ${seq}` });
  await db
    .updateTable('communities')
    .set({ features: JSON.stringify(['broadcasts']) })
    .where('id', '=', c.id)
    .execute();
  return { ...c, key: await makeKey(db, c.id, ['WRITE_BROADCASTS']) };
}

async function member(communityId: string, name: string) {
  const user = await makeUser(db);
  await db.updateTable('users').set({ name }).where('id', '=', user.id).execute();
  await makeMembership(db, communityId, user.id, 'ACCEPTED');
  return { ...user, email: `${user.usertag}@example.com` };
}

/** The mail worker as the server process builds it (main.ts): the transport SMTP_URL chooses, here files. */
const mailWorker = () =>
  new MailDeliveryWorker({
    db,
    dialect: server.database.dialect,
    config: server.config.mail,
    transport: chooseMailTransport(server.config.mail, dataDir),
    logger: createLogger('silent'),
    seal: server.outboxSeal,
  });

/** Every `.eml` file written so far, parsed, by recipient. */
function mailFiles(): Map<string, MimePart> {
  const dir = mailFilesDir(dataDir);
  const byTo = new Map<string, MimePart>();
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!f.endsWith('.eml')) continue;
    const mail = parseMime(fs.readFileSync(path.join(dir, f), 'utf8'));
    byTo.set(mail.headers.get('to')!, mail);
  }
  return byTo;
}

const textOf = (mail: MimePart) => decoded(partOfType(mail, 'text/plain')!).toString('utf8').replace(/\r\n/g, '\n');
const htmlOf = (mail: MimePart) => decoded(partOfType(mail, 'text/html')!).toString('utf8');

const sentEvents = async (broadcastId: string) =>
  (await db.selectFrom('webhook_events').selectAll().where('name', '=', 'broadcast.sent').execute())
    .map((e) => JSON.parse(e.data) as Record<string, unknown>)
    .filter((d) => d.broadcastId === broadcastId);

describe('happy', () => {
  it('a broadcast POSTed with a WRITE_BROADCASTS key reaches each member as an .eml file, unsubscribes by one click and completes once', async () => {
    const c = await community();
    const ada = await member(c.id, 'Ada <b>Lovelace</b>');
    const bob = await member(c.id, 'Bob');
    const api = (p: string, init: RequestInit & { json?: unknown } = {}) =>
      server.request(`/v1/communities/${c.tag}/broadcasts${p}`, { key: c.key, ...init });

    const queued = await api('', {
      method: 'POST',
      json: { subject: 'News for {{name}}', html: '<h1>Hello {{ name }}</h1><p>Our news.</p><script>x()</script>' },
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'QUEUED', recipients: 2 });
    const id = queued.body.id as string;
    const test = await api('', {
      method: 'POST',
      json: { subject: 'News for {{name}}', text: 'Draft for {{name}}', testTo: 'editor@news.example' },
    });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ status: 'QUEUED', recipients: 1 });

    // What the server process runs: the dispatcher expands, the mail worker sends.
    expect((await dispatcherFor(server).dispatchDue()).map((r) => [r.broadcastId, r.written, r.outcome])).toEqual([
      [id, 2, 'expanded'],
      [test.body.id, 1, 'expanded'],
    ]);
    const worker = mailWorker();
    while ((await worker.deliverDue()).length > 0);

    const files = mailFiles();
    const adaMail = files.get(ada.email)!;
    const bobMail = files.get(bob.email)!;
    expect(adaMail.headers.get('subject')).toBe('News for Ada <b>Lovelace</b>');
    expect(bobMail.headers.get('subject')).toBe('News for Bob');
    expect(htmlOf(adaMail)).toContain('<h1>Hello Ada &lt;b&gt;Lovelace&lt;/b&gt;</h1>');
    expect(htmlOf(adaMail)).not.toContain('<script>');
    expect(htmlOf(bobMail)).toContain('<h1>Hello Bob</h1>');
    // The text part was derived from the html, with the placeholder kept for each recipient.
    expect(textOf(bobMail)).toMatch(/^Hello Bob\n/);
    const testMail = files.get('editor@news.example')!;
    expect(testMail.headers.get('subject')).toBe('[TEST] News for editor');
    expect(textOf(testMail)).toContain('Draft for editor\n');

    const listUnsubscribe = bobMail.headers.get('list-unsubscribe')!;
    const m = /^<(http:\/\/[^>]+)>, <mailto:no-reply@localhost\?subject=unsubscribe%20([\w.-]+)>$/.exec(
      listUnsubscribe,
    );
    expect(m, listUnsubscribe).not.toBeNull();
    expect(bobMail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const url = new URL(m![1]);
    expect([url.host, url.pathname, url.searchParams.get('token')]).toEqual([
      `${c.tag}.localhost:${port}`,
      '/unsubscribe',
      m![2],
    ]);
    expect(adaMail.headers.get('list-unsubscribe')).not.toBe(listUnsubscribe);

    // RFC 8058: the mail provider POSTs the URL as it is, cross-site, without cookies.
    const oneClick = await rawRequest(
      port,
      'POST',
      `${url.pathname}${url.search}`,
      {
        Host: url.host,
        Origin: 'https://mail.provider.example',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      'List-Unsubscribe=One-Click',
    );
    expect(oneClick.status).toBe(200);
    expect(oneClick.text).toContain('You are unsubscribed');

    const got = await api(`/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      status: 'SENT',
      test: false,
      counts: { recipients: 2, sent: 2, failed: 0, unsubscribed: 1 },
    });
    expect(got.body.completedAt).not.toBeNull();
    const gotTest = await api(`/${test.body.id}`);
    expect(gotTest.body).toMatchObject({ status: 'SENT', test: true, testTo: 'editor@news.example' });
    expect(gotTest.body.counts).toMatchObject({ recipients: 1, sent: 1, unsubscribed: 0 });

    // Running both again changes nothing: one broadcast.sent, none for the test.
    await dispatcherFor(server).dispatchDue();
    while ((await worker.deliverDue()).length > 0);
    expect(await sentEvents(id)).toEqual([
      {
        broadcastId: id,
        subject: 'News for {{name}}',
        recipients: 2,
        sent: 2,
        failed: 0,
        sendAt: queued.body.sendAt,
        completedAt: got.body.completedAt,
      },
    ]);
    expect(await sentEvents(test.body.id)).toEqual([]);

    // The next broadcast leaves Bob out.
    const next = await api('', { method: 'POST', json: { subject: 'Again', text: 'Hi {{name}}' } });
    expect(next.body.recipients).toBe(1);
  });

  it('the test helper writes the row the API writes', async () => {
    const c = await community();
    await member(c.id, 'Ada');
    const segment = await makeSegment(db, c.id);
    const inSegment = await makeUser(db);
    const membershipId = await makeMembership(db, c.id, inSegment.id, 'ACCEPTED');
    await db.updateTable('memberships').set({ segment_id: segment }).where('id', '=', membershipId).execute();
    const sendAt = new Date(Date.now() + 3_600_000).toISOString().replace('Z', '+00:00');
    const inputs = [
      {
        subject: 'Hi {{name}}',
        html: '<h2>Hi {{name}}</h2><p onclick="x()">News <a href="https://x.example">here</a></p>',
      },
      { subject: 'Hi', text: 'Plain', audience: { segmentIds: [segment] }, sendAt },
      { subject: 'Draft', html: '<p>Draft</p>', text: 'Draft text', testTo: 'qa@news.example' },
    ];
    for (const input of inputs) {
      const res = await server.request(`/v1/communities/${c.tag}/broadcasts`, {
        method: 'POST',
        key: c.key,
        json: input,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const helperId = await queueBroadcast(db, c.id, { ...input, segmentIds: input.audience?.segmentIds });
      const [apiRow, helperRow] = await Promise.all(
        [res.body.id as string, helperId].map((id) =>
          db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
        ),
      );
      // Only what is made at the moment of writing differs: the id, and "now".
      const now = (r: typeof apiRow) => ({
        ...r,
        id: 'ID',
        created_at: 'NOW',
        send_at: input.sendAt ? r.send_at : 'NOW',
      });
      expect(now(helperRow)).toEqual(now(apiRow));
      expect(Date.parse(helperRow.created_at) - Date.parse(apiRow.created_at)).toBeLessThan(5_000);
    }
  });
});

describe('error', () => {
  it('a cancel racing the dispatcher for a due scheduled broadcast: exactly one of them wins', async () => {
    const c = await community();
    await member(c.id, 'Ada');
    for (let round = 0; round < 8; round++) {
      const id = await queueBroadcast(db, c.id, {
        subject: `Race ${round}`,
        text: 'Hi',
        sendAt: new Date(Date.now() - 1000).toISOString(),
      });
      const [cancel, dispatched] = await Promise.all([
        server.request(`/v1/communities/${c.tag}/broadcasts/${id}`, { method: 'DELETE', key: c.key }),
        dispatcherFor(server).dispatchDue(),
      ]);
      const row = await db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const written = await db.selectFrom('mail_outbox').select('id').where('broadcast_id', '=', id).execute();
      if (cancel.status === 200) {
        expect([row.status, written.length, dispatched.some((d) => d.broadcastId === id)]).toEqual([
          'CANCELLED',
          0,
          false,
        ]);
      } else {
        expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
        expect([row.status, row.cancelled_at, written.length]).toEqual(['SENDING', null, 1]);
      }
    }
    const worker = mailWorker();
    while ((await worker.deliverDue()).length > 0);
  });
});
