// SMTP delivery of the mail outbox against a real SMTP server (smtp-server, in this process, on a
// random port, with authentication): mail triggered through the API arrives as written; 4xx
// answers and dropped connections are retried, 5xx fails at once; workers on two connections to
// one database deliver each message once; a line break in a subject never becomes a header.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { openDatabase, transaction, type DatabaseHandle } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { listOutbox, OutboxMailer, retryOutboxMessage } from '../../server/mail/mailer.ts';
import { smtpTransport } from '../../server/mail/smtp.ts';
import { MailDeliveryWorker } from '../../server/mail/worker.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { askPasswordReset, failedRow, outboxRow, outboxRowTo, queueMail } from './support/mail.ts';
import { rawRequest } from './support/raw-http.ts';
import { waitFor } from './support/wait.ts';

const SMTP_USER = 'svc-mailer';
const SMTP_PASS = 'p@ss w0rd:secret';
const FROM = 'svc <no-reply@svc.test>';

interface Received {
  from: string;
  to: string[];
  raw: string;
  headers: Map<string, string[]>;
  text: string;
}

/** Per recipient: answer each RCPT with the next code of its script (then 250). */
const scripts = new Map<string, number[]>();
const rcptSeen = new Map<string, number>();
const received: Received[] = [];
let dataDelayMs = 0;
const logLines: string[] = [];

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Header name (lower case) -> values, unfolded; and the text/plain part, quoted-printable decoded. */
function parse(raw: string): { headers: Map<string, string[]>; text: string } {
  const [head] = raw.split(/\r\n\r\n/);
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const part =
    /Content-Type: text\/plain[^\r]*\r\nContent-Transfer-Encoding: ([\w-]+)\r\n\r\n([\s\S]*?)\r\n(?:----|$)/.exec(raw);
  const body = part ? part[2] : '';
  const text =
    part?.[1] === 'quoted-printable'
      ? body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      : body;
  return { headers, text };
}

const smtp = new SMTPServer({
  authOptional: false,
  allowInsecureAuth: true,
  // Plain SMTP on loopback: the test checks the conversation, not TLS.
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth(auth, _session, cb) {
    if (auth.username === SMTP_USER && auth.password === SMTP_PASS) return cb(null, { user: SMTP_USER });
    return cb(smtpError(535, 'Authentication failed'));
  },
  onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, cb) {
    rcptSeen.set(address.address, (rcptSeen.get(address.address) ?? 0) + 1);
    const next = scripts.get(address.address)?.shift();
    if (next && next >= 400) return cb(smtpError(next, next >= 500 ? 'No such mailbox' : 'Try again later'));
    return cb();
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const done = () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...parse(raw),
        });
        cb();
      };
      if (dataDelayMs > 0) setTimeout(done, dataDelayMs);
      else done();
    });
  },
});

let smtpPort = 0;
let server: TestServer;
let port: string;
let worker: MailDeliveryWorker;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mail-smtp-'));

const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  }),
);

function newWorker(database: DatabaseHandle): MailDeliveryWorker {
  return new MailDeliveryWorker({
    db: database.db,
    dialect: database.dialect,
    config: server.config.mail,
    transport: smtpTransport(server.config.mail.smtp!),
    logger,
    seal: server.outboxSeal,
  });
}

const row = (id: string) => outboxRow(server.database.db, id);
const rowTo = (to: string) => outboxRowTo(server.database.db, to);

const queue = (to: string, subject: string, text = 'Hello.\n') => queueMail(server.database.db, to, subject, text);

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as { port: number }).port;
  server = await startTestServer({
    // A file, on SQLite, so a second connection (another "process") sees the same data.
    sqliteFile: path.join(tmp, 'svc.db'),
    env: {
      SMTP_URL: `smtp://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(SMTP_PASS)}@127.0.0.1:${smtpPort}`,
      SVC_MAIL_FROM: FROM,
      SVC_MAIL_RETRY_DELAYS: '150ms,150ms',
      SVC_MAIL_POLL_MS: '100',
      SVC_TRUST_PROXY: '1',
    },
  });
  port = new URL(server.url).port;
  worker = newWorker(server.database);
  worker.start();
});

afterEach(() => {
  dataDelayMs = 0;
  scripts.clear();
});

afterAll(async () => {
  await worker.stop();
  await server.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('happy', () => {
  it('delivers a password reset asked for through the API, with the right From, To, Subject and a working link', async () => {
    const email = 'ada@example.com';
    const asked = await askPasswordReset(server, email);
    const host = `127.0.0.1:${port}`;
    expect(asked.status).toBe(202);

    const mail = await waitFor(() => received.find((m) => m.to.includes(email)), 'the reset e-mail');
    expect(mail.from).toBe('no-reply@svc.test');
    expect(mail.to).toEqual([email]);
    expect(mail.headers.get('from')).toEqual([FROM]);
    expect(mail.headers.get('to')).toEqual([email]);
    expect(mail.headers.get('subject')).toEqual(['Reset your svc password']);
    const link = /(\S+)\/reset-password\?token=(\S+)/.exec(mail.text);
    expect(link?.[1]).toBe(server.url);

    // The link in the delivered e-mail is the one that works.
    const confirmed = await rawRequest(
      port,
      'POST',
      '/api/auth/password-reset/confirm',
      { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
      JSON.stringify({ token: decodeURIComponent(link![2]), password: 'a new password' }),
    );
    expect(confirmed.status).toBe(200);

    const sent = (await rowTo(email))!;
    expect(sent.sent_at).not.toBeNull();
    expect([sent.attempts, sent.next_attempt_at, sent.failed_at, sent.last_error]).toEqual([1, null, null, null]);
    // Dated when it was written, whenever a retry gets it out; over SMTP no file is written.
    expect(new Date(mail.headers.get('date')![0]).getTime()).toBe(
      Math.floor(Date.parse(sent.created_at) / 1000) * 1000,
    );
    expect([sent.from_address, sent.eml_path]).toEqual([FROM, null]);
    const [listed] = await listOutbox(server.database.db, server.outboxSeal, { to: email });
    expect(listed).toMatchObject({ status: 'sent', attempts: 1, lastError: null, from: FROM, emlPath: null });
  });

  it('sends attachments with the message: an inline image keeps its Content-ID', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
    await transaction(server.database.db, (trx) =>
      new OutboxMailer(trx).send({
        to: 'tickets@example.com',
        subject: 'Your ticket',
        text: 'See the QR code.',
        html: '<img src="cid:ticket-1">',
        attachments: [{ filename: 'ticket-1.png', contentType: 'image/png', contentBase64: png, cid: 'ticket-1' }],
      }),
    );
    const mail = await waitFor(() => received.find((m) => m.to.includes('tickets@example.com')), 'the ticket e-mail');
    expect(mail.raw).toContain('Content-ID: <ticket-1>');
    expect(mail.raw).toMatch(/Content-Type: image\/png; name=ticket-1\.png/);
    expect(mail.raw).toContain(png);
    const [listed] = await listOutbox(server.database.db, server.outboxSeal, { to: 'tickets@example.com' });
    expect(listed.attachments).toEqual([
      { filename: 'ticket-1.png', contentType: 'image/png', size: 16, cid: 'ticket-1' },
    ]);
    await expect(
      new OutboxMailer(server.database.db).send({
        to: 'x@example.com',
        subject: 'x',
        text: 'x',
        attachments: [{ filename: 'a\r\nBcc: evil@attacker.test', contentType: 'image/png', contentBase64: png }],
      }),
    ).rejects.toThrow('one line');
  });

  it('retries a 451 and delivers the message exactly once', async () => {
    const to = 'busy@example.com';
    scripts.set(to, [451]);
    const id = await queue(to, 'Retried once');
    await waitFor(async () => (await row(id)).sent_at, 'the retried message to be sent');
    expect(rcptSeen.get(to)).toBe(2);
    expect(received.filter((m) => m.to.includes(to))).toHaveLength(1);
    const r = await row(id);
    expect([r.attempts, r.failed_at, r.last_error]).toEqual([2, null, null]);
  });

  it('two workers on two connections to one database deliver each message once', async () => {
    // The queue is written first and both workers then start together, so they race for the
    // same rows. (Written while a worker on another connection runs, SQLite's synchronous busy
    // wait would stall this one process: two real processes do not share an event loop.)
    await worker.stop();
    const second = openDatabase(server.databaseTarget);
    const subjects = Array.from({ length: 24 }, (_, i) => `Race ${i}`);
    await transaction(server.database.db, async (trx) => {
      for (const subject of subjects)
        await new OutboxMailer(trx).send({ to: 'race@example.com', subject, text: subject });
    });
    const workers = [newWorker(server.database), newWorker(second)];
    const claimedBy: number[] = [];
    try {
      await Promise.all(
        workers.map(async (w, i) => {
          for (;;) {
            const round = await w.deliverDue();
            if (round.length === 0) return;
            claimedBy.push(...round.map(() => i));
          }
        }),
      );
      const got = received.filter((m) => m.to.includes('race@example.com')).map((m) => m.headers.get('subject')![0]);
      expect(got.sort()).toEqual([...subjects].sort());
      expect(rcptSeen.get('race@example.com')).toBe(24);
      expect(claimedBy).toHaveLength(24);
      const rows = await server.database.db
        .selectFrom('mail_outbox')
        .select(['sent_at', 'attempts'])
        .where('to_address', '=', 'race@example.com')
        .execute();
      expect(rows.every((r) => r.sent_at !== null && Number(r.attempts) === 1)).toBe(true);
    } finally {
      for (const w of workers) await w.stop();
      await second.close();
      worker = newWorker(server.database);
      worker.start();
    }
  });

  it('lets the send in flight finish and records it when the worker stops', async () => {
    const database = openDatabase(server.databaseTarget);
    const stopping = newWorker(database);
    // The main worker must not take the message: only `stopping` runs for this one.
    await worker.stop();
    try {
      dataDelayMs = 300;
      const id = await queue('slow@example.com', 'Slow server');
      stopping.start();
      await waitFor(() => rcptSeen.get('slow@example.com'), 'the send to start');
      await stopping.stop();
      const r = await row(id);
      expect(r.sent_at).not.toBeNull();
      expect(r.lease_token).toBeNull();
    } finally {
      await database.close();
      worker = newWorker(server.database);
      worker.start();
    }
  });
});

describe('errors', () => {
  it('fails a message the server refuses with 550 at once, without retrying; svc mail retry queues it again', async () => {
    const to = 'nobody@example.com';
    scripts.set(to, [550]);
    const id = await queue(to, 'Refused');
    const failed = await failedRow(server.database.db, id);
    expect(failed.attempts).toBe(1);
    expect(failed.sent_at).toBeNull();
    expect(failed.next_attempt_at).toBeNull();
    expect(failed.last_error).toContain('550');
    // Past every retry delay: no second attempt.
    await new Promise((r) => setTimeout(r, 500));
    expect(rcptSeen.get(to)).toBe(1);
    const [listed] = await listOutbox(server.database.db, server.outboxSeal, { to });
    expect(listed).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('550') });

    expect(await retryOutboxMessage(server.database.db, id)).toBe('queued');
    await waitFor(async () => (await row(id)).sent_at, 'the retried message to be sent');
    expect(received.filter((m) => m.to.includes(to))).toHaveLength(1);
    expect(await retryOutboxMessage(server.database.db, id)).toBe('not_failed');
    expect(await retryOutboxMessage(server.database.db, newId())).toBe('not_found');
  });

  it('gives up after the last retry with the last error', async () => {
    const to = 'flaky@example.com';
    scripts.set(to, [451, 452, 450, 250]);
    const id = await queue(to, 'Never gets through');
    const failed = await failedRow(server.database.db, id);
    // SVC_MAIL_RETRY_DELAYS has two delays: three attempts.
    expect(failed.attempts).toBe(3);
    expect(failed.last_error).toContain('450');
    expect(rcptSeen.get(to)).toBe(3);
  });

  it('sends nothing for mail written in a transaction that rolled back', async () => {
    await expect(
      transaction(server.database.db, async (trx) => {
        await new OutboxMailer(trx).send({ to: 'rolled@example.com', subject: 'Never', text: 'never' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await queue('after-rollback@example.com', 'After');
    await waitFor(() => received.find((m) => m.to.includes('after-rollback@example.com')), 'the later message');
    expect(rcptSeen.has('rolled@example.com')).toBe(false);
    expect(await rowTo('rolled@example.com')).toBeUndefined();
  });

  it('refuses to start with SMTP but no SVC_MAIL_FROM, or a malformed URL, without echoing the password; defaults without SMTP', () => {
    expect(() => loadConfig({ SMTP_URL: `smtp://u:${SMTP_PASS}@mail.example:587` })).toThrow(
      /SVC_MAIL_FROM: required with SMTP_URL/,
    );
    for (const url of ['http://u:hunter2@mail.example', 'smtp://u:hunter2@mail.example/path']) {
      let message = '';
      try {
        loadConfig({ SMTP_URL: url, SVC_MAIL_FROM: FROM });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain('SMTP_URL');
      expect(message).not.toContain('hunter2');
    }
    expect(loadConfig({}).mail).toMatchObject({ smtp: null, from: 'svc <no-reply@localhost>', worker: true });
    expect(loadConfig({ SVC_MAIL_WORKER: 'false' }).mail.worker).toBe(false);
    expect(() => loadConfig({ SVC_MAIL_WORKER: 'no' })).toThrow(/SVC_MAIL_WORKER/);
    expect(loadConfig({ SMTP_URL: 'smtps://a%40b:c%3Ad@mail.example', SVC_MAIL_FROM: FROM }).mail.smtp).toEqual({
      host: 'mail.example',
      port: 465,
      secure: true,
      user: 'a@b',
      pass: 'c:d',
    });
  });
});

describe('security', () => {
  it('never lets a line break in a subject become a header', async () => {
    // The outbox refuses it on write...
    await expect(
      new OutboxMailer(server.database.db).send({
        to: 'x@example.com',
        subject: 'Hi\r\nBcc: evil@attacker.test',
        text: 'x',
      }),
    ).rejects.toThrow('one line');
    await expect(
      new OutboxMailer(server.database.db).send({
        to: 'x@example.com\r\nBcc: evil@attacker.test',
        subject: 'Hi',
        text: 'x',
      }),
    ).rejects.toThrow('one line');
    // ...and a row that has one anyway (written around the outbox) goes out with one Subject line
    // and no extra header or recipient.
    const to = 'victim@example.com';
    await server.database.db
      .insertInto('mail_outbox')
      .values({
        id: newId(),
        to_address: to,
        subject: 'Hello\r\nBcc: evil@attacker.test\r\nX-Injected: 1',
        text_body: 'body',
        html_body: null,
        created_at: nowIso(),
        sent_at: null,
        next_attempt_at: nowIso(),
      })
      .execute();
    const mail = await waitFor(() => received.find((m) => m.to.includes(to)), 'the message');
    expect(mail.to).toEqual([to]);
    expect(mail.headers.get('subject')).toHaveLength(1);
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.headers.has('x-injected')).toBe(false);
    expect(rcptSeen.has('evil@attacker.test')).toBe(false);
  });

  it('refuses a stored recipient that is more than one address, and sends nothing', async () => {
    const id = newId();
    await server.database.db
      .insertInto('mail_outbox')
      .values({
        id,
        to_address: 'one@example.com, two@attacker.test',
        subject: 'Two',
        text_body: 'x',
        html_body: null,
        created_at: nowIso(),
        sent_at: null,
        next_attempt_at: nowIso(),
      })
      .execute();
    const failed = await failedRow(server.database.db, id);
    expect(failed.last_error).toContain('not a single e-mail address');
    expect(rcptSeen.has('two@attacker.test')).toBe(false);
  });

  it('never logs the SMTP password or a message body', async () => {
    await queue('logged@example.com', 'Logged', 'secret-reset-token-123\n');
    await waitFor(() => received.find((m) => m.to.includes('logged@example.com')), 'the message');
    const log = logLines.join('');
    expect(log).toContain(`127.0.0.1:${smtpPort}`);
    expect(log).toContain('mail sent');
    expect(log).not.toContain(SMTP_PASS);
    expect(log).not.toContain(encodeURIComponent(SMTP_PASS));
    expect(log).not.toContain('secret-reset-token-123');
  });

  it('marks mail too old to send as failed instead of sending it', async () => {
    const id = newId();
    const old = new Date(Date.now() - worker.maxAgeMs - 60_000).toISOString();
    await server.database.db
      .insertInto('mail_outbox')
      .values({
        id,
        to_address: 'stale@example.com',
        subject: 'Stale',
        text_body: 'x',
        html_body: null,
        created_at: old,
        sent_at: null,
        next_attempt_at: old,
      })
      .execute();
    const failed = await waitFor(async () => {
      const r = await row(id);
      return r.failed_at ? r : undefined;
    }, 'the stale message to fail');
    expect(failed.last_error).toContain('too old');
    expect(rcptSeen.has('stale@example.com')).toBe(false);
  });
});
