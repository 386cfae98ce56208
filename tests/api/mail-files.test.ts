// Mail without SMTP_URL: the delivery worker writes each message as an `.eml` file under
// SVC_DATA_DIR/mail, composed as the SMTP path would send it (attachments and inline cid images
// included), and marks the row sent. Mail is queued through the real API (a password reset, an
// RSVP ticket); the files are read back as MIME text. Also: retries of failed disk writes, two
// workers writing each message once, the server process starting the worker (and
// SVC_MAIL_WORKER=false not), and `svc mail show` printing what was written.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, transaction, type DatabaseHandle } from '../../server/db/index.ts';
import { newId, nowIso } from '../../server/db/ids.ts';
import { chooseMailTransport, mailFilesDir } from '../../server/mail/choose-transport.ts';
import { emlFileName, emlFileTransport } from '../../server/mail/eml-files.ts';
import { OutboxMailer } from '../../server/mail/mailer.ts';
import { OutboxSeal } from '../../server/outbox-seal.ts';
import { MailDeliveryWorker } from '../../server/mail/worker.ts';
import type { MailTransport } from '../../server/mail/transport.ts';
import { createLogger } from '../../server/http/logger.ts';
import { runSvc, schemaUrl } from './support/cli.ts';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { onPostgres, startTestServer, type TestServer } from './support/harness.ts';
import { askPasswordReset, failedRow, outboxRow, outboxRowTo, queueMail } from './support/mail.ts';
import { decoded, parseMime, partOfType } from './support/mime.ts';
import { startServerProcess } from './support/server-process.ts';
import { rawRequest } from './support/raw-http.ts';
import { waitFor } from './support/wait.ts';

const DEFAULT_FROM = 'svc <no-reply@localhost>';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mail-files-'));
const dataDir = path.join(tmp, 'data');
const mailDir = mailFilesDir(dataDir);
const logger = createLogger('silent');

let server: TestServer;
let worker: MailDeliveryWorker;

// ---

const row = (id: string) => outboxRow(server.database.db, id);
const rowTo = (to: string) => outboxRowTo(server.database.db, to);
const sentRow = (id: string) =>
  waitFor(async () => {
    const r = await row(id);
    return r.sent_at ? r : undefined;
  }, `mail ${id} to be written`);

function newWorker(
  database: DatabaseHandle,
  transport: MailTransport = chooseMailTransport(server.config.mail, server.config.dataDir),
) {
  return new MailDeliveryWorker({
    db: database.db,
    dialect: database.dialect,
    config: server.config.mail,
    transport,
    logger,
    seal: server.outboxSeal,
  });
}

/** Runs `fn` with the shared worker stopped, so only the workers `fn` starts take mail. */
async function withoutSharedWorker(fn: () => Promise<void>): Promise<void> {
  await worker.stop();
  try {
    await fn();
  } finally {
    worker = newWorker(server.database);
    worker.start();
  }
}

const queue = (to: string, subject: string) => queueMail(server.database.db, to, subject, `${subject}\n`);

const cliEnv = (): Record<string, string> => ({
  SVC_DATA_DIR: dataDir,
  DATABASE_URL: onPostgres && server.databaseTarget.kind === 'postgres' ? schemaUrl(server.databaseTarget.schema!) : '',
  REDIS_URL: '',
});

beforeAll(async () => {
  server = await startTestServer({
    // On SQLite, the file in SVC_DATA_DIR, so `svc` and a second connection see the same data.
    sqliteFile: path.join(dataDir, 'svc.db'),
    env: { SVC_DATA_DIR: dataDir, SVC_MAIL_RETRY_DELAYS: '150ms,150ms', SVC_MAIL_POLL_MS: '100' },
  });
  worker = newWorker(server.database);
  worker.start();
});

afterAll(async () => {
  await worker.stop();
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('happy', () => {
  it('writes a password reset asked for through the API to SVC_DATA_DIR/mail/<created>-<id>.eml and marks it sent', async () => {
    expect(server.config.mail.smtp).toBeNull();
    const email = 'ada@example.com';
    const asked = await askPasswordReset(server, email);
    expect(asked.status).toBe(202);

    const queued = (await rowTo(email))!;
    const sent = await sentRow(queued.id);
    const file = path.join(mailDir, emlFileName(sent.created_at, sent.id));
    expect(path.basename(file)).toBe(`${sent.created_at.replace(/[-:]/g, '')}-${sent.id}.eml`);
    expect([
      sent.eml_path,
      sent.from_address,
      Number(sent.attempts),
      sent.next_attempt_at,
      sent.failed_at,
      sent.last_error,
    ]).toEqual([file, DEFAULT_FROM, 1, null, null, null]);

    const message = parseMime(fs.readFileSync(file, 'utf8'));
    expect(message.headers.get('from')).toBe(DEFAULT_FROM);
    expect(message.headers.get('to')).toBe(email);
    expect(message.headers.get('subject')).toBe('Reset your svc password');
    expect(new Date(message.headers.get('date')!).getTime()).toBe(
      Math.floor(Date.parse(sent.created_at) / 1000) * 1000,
    );
    expect(message.headers.get('message-id')).toMatch(/^<.+@localhost>$/);
    const text = decoded(partOfType(message, 'text/plain')!).toString('utf8');
    const link = /(\S+)\/reset-password\?token=(\S+)/.exec(text);
    expect(link?.[1]).toBe(server.url);
    expect(decoded(partOfType(message, 'text/html')!).toString('utf8')).toContain('Choose a new password');
  });

  it('writes the RSVP ticket e-mail with its QR code as an inline image/png part with a Content-ID', async () => {
    const community = await makeCommunity(server.database.db, 'filed', { name: 'Filed Club' });
    const sales = await makeKey(server.database.db, community.id, ['WRITE_SALES']);
    const ev = await makeEvent(server.database.db, community.id, {
      slug: 'meetup',
      name: 'Filed Meetup',
      tiers: [{ name: 'Free', priceCents: 0, capacity: 10 }],
    });
    const res = await server.request(`/v1/communities/${community.tag}/events/meetup/rsvp`, {
      method: 'POST',
      key: sales,
      json: { tierId: ev.tierIds[0], email: 'bo@example.com', name: 'Bo' },
    });
    expect(res.status).toBe(200);

    const sent = await sentRow((await rowTo('bo@example.com'))!.id);
    const message = parseMime(fs.readFileSync(sent.eml_path!, 'utf8'));
    expect(message.headers.get('subject')).toBe('Your ticket for Filed Meetup');
    const image = partOfType(message, 'image/png')!;
    expect(image).toBeDefined();
    expect(image.headers.get('content-id')).toBe(`<ticket-${res.body.rsvpId}>`);
    expect(image.headers.get('content-type')).toContain('name=ticket-1.png');
    expect(decoded(image).equals(Buffer.from(res.body.qrCode, 'base64'))).toBe(true);
    // The HTML shows that very part: it sits next to it in a multipart/related.
    expect(decoded(partOfType(message, 'text/html')!).toString('utf8')).toContain(`cid:ticket-${res.body.rsvpId}`);
    const related = message.parts
      .flatMap((p) => [p, ...p.parts])
      .find((p) => (p.headers.get('content-type') ?? '').startsWith('multipart/related'));
    expect(related?.parts.map((p) => p.headers.get('content-type')!.split(';')[0])).toEqual(['text/html', 'image/png']);
    expect(decoded(partOfType(message, 'text/plain')!).toString('utf8')).toContain('Show this QR code at the door.');
  });

  it('two workers on two connections to one database write each message once', async () => {
    await withoutSharedWorker(async () => {
      // Written first, then both workers start together and race for the same rows.
      const subjects = Array.from({ length: 24 }, (_, i) => `Race ${i}`);
      await transaction(server.database.db, async (trx) => {
        for (const subject of subjects)
          await new OutboxMailer(trx).send({ to: 'race@example.com', subject, text: subject });
      });
      const second = openDatabase(server.databaseTarget);
      const workers = [newWorker(server.database), newWorker(second)];
      const written: string[] = [];
      try {
        await Promise.all(
          workers.map(async (w) => {
            for (;;) {
              const round = await w.deliverDue();
              if (round.length === 0) return;
              written.push(...round.filter((r) => r.outcome === 'sent').map((r) => r.id));
            }
          }),
        );
      } finally {
        for (const w of workers) await w.stop();
        await second.close();
      }
      const rows = await server.database.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('to_address', '=', 'race@example.com')
        .execute();
      expect(written.sort()).toEqual(rows.map((r) => r.id).sort());
      expect(rows.every((r) => r.sent_at !== null && Number(r.attempts) === 1)).toBe(true);
      const files = rows.map((r) => r.eml_path!);
      expect(new Set(files).size).toBe(24);
      const subjectsOnDisk = files.map((f) => parseMime(fs.readFileSync(f, 'utf8')).headers.get('subject'));
      expect(subjectsOnDisk.sort()).toEqual([...subjects].sort());
    });
  });

  it(
    'svc mail show prints the headers, status, text, attachments and .eml path of a message, by id or a unique prefix',
    { timeout: 60_000 },
    async () => {
      const sent = await sentRow((await rowTo('bo@example.com'))!.id);
      const shown = await runSvc(['mail', 'show', sent.id.slice(0, -6)], cliEnv());
      expect(shown.stderr).toBe('');
      expect(shown.code).toBe(0);
      const [attachment] = JSON.parse(sent.attachments!) as Array<{ contentBase64: string; cid: string }>;
      const size = Buffer.byteLength(attachment.contentBase64, 'base64');
      expect(shown.stdout).toContain(`Mail ${sent.id}\n`);
      expect(shown.stdout).toContain(`From:     ${DEFAULT_FROM}\n`);
      expect(shown.stdout).toContain('To:       bo@example.com\n');
      expect(shown.stdout).toContain('Subject:  Your ticket for Filed Meetup\n');
      expect(shown.stdout).toContain(`Date:     ${sent.created_at}\n`);
      expect(shown.stdout).toContain(`Status:   sent ${sent.sent_at} (1 attempt)\n`);
      expect(shown.stdout).toContain(`File:     ${sent.eml_path}\n`);
      expect(shown.stdout).toContain('Show this QR code at the door.');
      expect(shown.stdout).toMatch(
        new RegExp(
          `Attachments \\(1\\):\\n  ticket-1\\.png  image/png  (?:[\\d.]+ KB \\()?${size} bytes\\)?  cid:${attachment.cid}\n`,
        ),
      );

      const json = await runSvc(['mail', 'show', sent.id, '--json'], cliEnv());
      expect(JSON.parse(json.stdout)).toMatchObject({
        id: sent.id,
        from: DEFAULT_FROM,
        to: 'bo@example.com',
        status: 'sent',
        emlPath: sent.eml_path,
        attachments: [{ filename: 'ticket-1.png', contentType: 'image/png', size, cid: attachment.cid }],
      });
    },
  );
});

describe('errors', () => {
  it('retries a failed disk write on the schedule and writes the file once the disk lets it', async () => {
    // A plain file where the mail directory's parent should be: mkdir fails with ENOTDIR.
    const blocked = path.join(tmp, 'blocked');
    fs.writeFileSync(blocked, 'not a directory');
    const dir = path.join(blocked, 'mail');
    await withoutSharedWorker(async () => {
      const id = await queue('disk@example.com', 'Disk trouble');
      const w = newWorker(server.database, emlFileTransport(dir));
      try {
        const [first] = await w.deliverDue();
        expect(first).toMatchObject({ id, outcome: 'retry' });
        const waiting = await row(id);
        expect([Number(waiting.attempts), waiting.sent_at, waiting.failed_at]).toEqual([1, null, null]);
        expect(waiting.last_error).toContain('ENOTDIR');
        // Due again after the first delay (150 ms), not before.
        expect(Date.parse(waiting.next_attempt_at!) - Date.parse(waiting.last_attempt_at!)).toBeGreaterThanOrEqual(150);

        fs.rmSync(blocked);
        w.start();
        const sent = await sentRow(id);
        expect([Number(sent.attempts), sent.last_error, sent.eml_path]).toEqual([
          2,
          null,
          path.join(dir, emlFileName(sent.created_at, id)),
        ]);
        expect(fs.existsSync(sent.eml_path!)).toBe(true);
      } finally {
        await w.stop();
      }
    });
  });

  it(
    "retries a sealed message this process's key does not open, and delivers it once the key is the writer's",
    { timeout: 60_000 },
    async () => {
      let id = '';
      await withoutSharedWorker(async () => {
        await transaction(server.database.db, (trx) =>
          new OutboxMailer(trx, server.outboxSeal).send({
            to: 'sealed@example.com',
            subject: 'Sealed',
            text: 'https://svc.example/reset-password?token=sealed-token',
            secret: true,
          }),
        );
        id = (await rowTo('sealed@example.com'))!.id;
        const wrongKey = new MailDeliveryWorker({
          db: server.database.db,
          dialect: server.database.dialect,
          config: server.config.mail,
          logger,
          transport: chooseMailTransport(server.config.mail, server.config.dataDir),
          seal: new OutboxSeal(crypto.randomBytes(32)),
        });
        const [first] = await wrongKey.deliverDue();
        expect(first).toMatchObject({
          id,
          outcome: 'retry',
          error: expect.stringContaining('cannot decrypt an outbox message'),
        });
        expect((await row(id)).sent_at).toBeNull();
        const w = newWorker(server.database);
        w.start();
        try {
          const sent = await sentRow(id);
          const text = decoded(partOfType(parseMime(fs.readFileSync(sent.eml_path!, 'utf8')), 'text/plain')!).toString(
            'utf8',
          );
          expect(text.trim()).toBe('https://svc.example/reset-password?token=sealed-token');
        } finally {
          await w.stop();
        }
      });
      // The admin CLI on the same data directory (so the same key file) opens it too.
      const shown = await runSvc(['mail', 'show', id], cliEnv());
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('https://svc.example/reset-password?token=sealed-token');
    },
  );

  it('fails the message with the last disk error after the last retry', async () => {
    const blocked = path.join(tmp, 'blocked-for-good');
    fs.writeFileSync(blocked, 'not a directory');
    await withoutSharedWorker(async () => {
      const id = await queue('never@example.com', 'Never written');
      const w = newWorker(server.database, emlFileTransport(path.join(blocked, 'mail')));
      w.start();
      try {
        const failed = await failedRow(server.database.db, id);
        // SVC_MAIL_RETRY_DELAYS has two delays: three attempts.
        expect([Number(failed.attempts), failed.sent_at, failed.eml_path]).toEqual([3, null, null]);
        expect(failed.last_error).toContain('ENOTDIR');
      } finally {
        await w.stop();
      }
    });
  });

  it(
    'svc mail show refuses an unknown id, an ambiguous prefix and something that is no id, with exit code 1',
    { timeout: 60_000 },
    async () => {
      const unknown = await runSvc(['mail', 'show', 'ffffffff-no-such'], cliEnv());
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No mail with id ffffffff-no-such.');
      const race = await server.database.db
        .selectFrom('mail_outbox')
        .select('id')
        .where('to_address', '=', 'race@example.com')
        .execute();
      expect(race.length).toBeGreaterThan(1);
      // Time-ordered ids written in one go share their first characters.
      const common = race
        .map((r) => r.id)
        .reduce((a, b) => {
          let i = 0;
          while (i < a.length && a[i] === b[i]) i++;
          return a.slice(0, i);
        });
      expect(common.length).toBeGreaterThan(0);
      const ambiguous = await runSvc(['mail', 'show', common], cliEnv());
      expect(ambiguous.code).toBe(1);
      expect(ambiguous.stderr).toContain(`${common} is the beginning of more than one message id`);
      const bad = await runSvc(['mail', 'show', "x' or 1=1 --"], cliEnv());
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('is not a message id');
    },
  );
});

describe('security', () => {
  it('keeps the mail directory 0700 and each file 0600, and leaves no temp file behind', async () => {
    expect(fs.statSync(mailDir).mode & 0o777).toBe(0o700);
    const names = fs.readdirSync(mailDir);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => /^\d{8}T\d{6}\.\d{3}Z-[\w-]+\.eml$/.test(n))).toBe(true);
    for (const n of names) expect(fs.statSync(path.join(mailDir, n)).mode & 0o777).toBe(0o600);
  });

  it('never lets a stored id lead the file out of the mail directory', async () => {
    const id = `../../escape-${newId()}`;
    await server.database.db
      .insertInto('mail_outbox')
      .values({
        id,
        to_address: 'escape@example.com',
        subject: 'Escape',
        text_body: 'x',
        html_body: null,
        created_at: nowIso(),
        sent_at: null,
        next_attempt_at: nowIso(),
      })
      .execute();
    const sent = await sentRow(id);
    expect(path.dirname(sent.eml_path!)).toBe(mailDir);
    expect(path.basename(sent.eml_path!)).toMatch(/^\d{8}T\d{6}\.\d{3}Z-______escape-[\w-]+\.eml$/);
  });

  it('keeps a line break in a stored subject out of the headers of the file', async () => {
    const id = newId();
    await server.database.db
      .insertInto('mail_outbox')
      .values({
        id,
        to_address: 'victim@example.com',
        subject: 'Hello\r\nBcc: evil@attacker.test',
        text_body: 'body',
        html_body: null,
        created_at: nowIso(),
        sent_at: null,
        next_attempt_at: nowIso(),
      })
      .execute();
    const sent = await sentRow(id);
    const message = parseMime(fs.readFileSync(sent.eml_path!, 'utf8'));
    expect(message.headers.has('bcc')).toBe(false);
    expect(message.headers.get('subject')).toBe('Hello Bcc: evil@attacker.test');
  });
});

describe('the server process', () => {
  const startProcess = (dir: string, env: Record<string, string>) =>
    startServerProcess(dir, { SVC_SEED_DEMO: 'false', ...env });

  /** Signs up and asks for a reset link through the API: one e-mail queued. */
  async function askForReset(p: string, email: string) {
    const host = `127.0.0.1:${p}`;
    const headers = { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' };
    expect(
      (
        await rawRequest(
          p,
          'POST',
          '/api/auth/sign-up',
          headers,
          JSON.stringify({ email, password: 'a long password', name: 'Cy' }),
        )
      ).status,
    ).toBe(201);
    expect((await rawRequest(p, 'POST', '/api/auth/password-reset', headers, JSON.stringify({ email }))).status).toBe(
      202,
    );
  }

  it(
    'runs the mail worker without SMTP_URL: the reset e-mail lands in SVC_DATA_DIR/mail',
    { timeout: 60_000 },
    async () => {
      const dir = path.join(tmp, 'process-on');
      const p = await startProcess(dir, {});
      try {
        await askForReset(p.port, 'cy@example.com');
        const file = await waitFor(
          () =>
            fs.existsSync(path.join(dir, 'mail')) &&
            fs.readdirSync(path.join(dir, 'mail')).find((n) => n.endsWith('.eml')),
          'the .eml file',
        );
        expect(fs.readFileSync(path.join(dir, 'mail', file), 'utf8')).toContain('Subject: Reset your svc password');
      } finally {
        expect(await p.stop()).toBe(0);
      }
    },
  );

  it(
    'with SVC_MAIL_WORKER=false sends nothing: the mail stays queued for another process',
    { timeout: 60_000 },
    async () => {
      const dir = path.join(tmp, 'process-off');
      const p = await startProcess(dir, { SVC_MAIL_WORKER: 'false', SVC_MAIL_POLL_MS: '50' });
      try {
        await askForReset(p.port, 'di@example.com');
        // A running worker would be woken by the write at once and poll every 50 ms besides.
        await new Promise((r) => setTimeout(r, 1500));
        expect(fs.existsSync(path.join(dir, 'mail'))).toBe(false);
      } finally {
        expect(await p.stop()).toBe(0);
      }
      const database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'svc.db') });
      try {
        const rows = await database.db
          .selectFrom('mail_outbox')
          .select(['sent_at', 'attempts'])
          .where('to_address', '=', 'di@example.com')
          .execute();
        expect(rows).toEqual([{ sent_at: null, attempts: 0 }]);
      } finally {
        await database.close();
      }
    },
  );
});
