// `svc mail list`, `svc mail show` and `svc mail retry` as a developer runs them: a child process
// on a temporary SQLite data directory (always SQLite: this suite does not touch DATABASE_URL);
// and the formatting of `svc mail show` on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/index.ts';
import { OutboxMailer, type OutboxEntry } from '../../server/mail/mailer.ts';
import { byteSize, formatMailShow } from '../../server/cli/mail.ts';
import { runSvc } from './support/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mail-'));
const env = { SVC_DATA_DIR: path.join(tmp, 'data'), DATABASE_URL: '', REDIS_URL: '', SMTP_URL: '', SVC_MAIL_FROM: '' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  const handle = openDatabase({ kind: 'sqlite', file: path.join(env.SVC_DATA_DIR, 'svc.db') });
  await migrate(handle.db);
  const mailer = new OutboxMailer(handle.db);
  await mailer.send({
    to: 'ada@example.com',
    subject: 'Reset your svc password',
    text: 'Choose a new password here:\nhttp://localhost:3000/reset-password?token=T1\n',
  });
  await new Promise((r) => setTimeout(r, 5));
  await mailer.send({ to: 'bo@example.com', subject: 'Hello Bo', text: 'Hi.' });
  // What the SMTP worker leaves behind when the server refuses a message for good.
  await new Promise((r) => setTimeout(r, 5));
  await mailer.send({ to: 'gone@example.com', subject: 'Refused', text: 'x' });
  await handle.db
    .updateTable('mail_outbox')
    .set({
      attempts: 1,
      failed_at: '2025-01-01T00:00:00.000Z',
      next_attempt_at: null,
      last_error: '550 No such mailbox',
    })
    .where('to_address', '=', 'gone@example.com')
    .execute();
  await new Promise((r) => setTimeout(r, 5));
  await mailer.send({
    to: 'tix@example.com',
    subject: 'Your ticket',
    text: 'Show this QR code at the door.\n',
    html: '<img src="cid:ticket-1">',
    attachments: [
      { filename: 'ticket-1.png', contentType: 'image/png', contentBase64: PNG.toString('base64'), cid: 'ticket-1' },
    ],
  });
  await handle.close();
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('svc mail list', { timeout: 60_000 }, () => {
  it('prints the outbox newest first, with the text body so the link can be opened', async () => {
    const r = await runSvc(['mail', 'list'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.indexOf('Hello Bo')).toBeLessThan(r.stdout.indexOf('Reset your svc password'));
    expect(r.stdout).toContain('Status:  queued');
    expect(r.stdout).toContain('To:      ada@example.com');
    expect(r.stdout).toContain('http://localhost:3000/reset-password?token=T1');
  });

  it('filters by --to, limits with --limit, and prints JSON with --json', async () => {
    const to = await runSvc(['mail', 'list', '--to', 'ADA@example.com', '--json'], env);
    expect(to.code).toBe(0);
    const messages = JSON.parse(to.stdout);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      to: 'ada@example.com',
      subject: 'Reset your svc password',
      html: null,
      sentAt: null,
    });
    expect(messages[0].text).toContain('token=T1');
    const one = JSON.parse((await runSvc(['mail', 'list', '--limit', '2', '--json'], env)).stdout);
    expect(one.map((m: { subject: string }) => m.subject)).toEqual(['Your ticket', 'Refused']);
    const none = await runSvc(['mail', 'list', '--to', 'nobody@example.com'], env);
    expect(none.stdout.trim()).toBe('No mail to nobody@example.com.');
  });

  it('refuses bad options with a message and exit code 1', async () => {
    const bad = await runSvc(['mail', 'list', '--limit', '0'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--limit must be a whole number from 1 to 1000');
    const notEmail = await runSvc(['mail', 'list', '--to', 'ada'], env);
    expect(notEmail.code).toBe(1);
    expect(notEmail.stderr).toContain('--to must be an e-mail address');
  });
});

describe('svc mail retry', { timeout: 60_000 }, () => {
  it('shows a failed message with its attempts and error, and queues it again', async () => {
    const listed = await runSvc(['mail', 'list', '--to', 'gone@example.com'], env);
    expect(listed.stdout).toContain('Status:  failed 2025-01-01T00:00:00.000Z after 1 attempt');
    expect(listed.stdout).toContain('Error:   550 No such mailbox');
    const [failed] = JSON.parse((await runSvc(['mail', 'list', '--to', 'gone@example.com', '--json'], env)).stdout);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastError: '550 No such mailbox' });

    const retried = await runSvc(['mail', 'retry', failed.id], env);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`Mail ${failed.id} is queued again.`);
    const [queued] = JSON.parse((await runSvc(['mail', 'list', '--to', 'gone@example.com', '--json'], env)).stdout);
    expect(queued).toMatchObject({ status: 'queued', attempts: 0, failedAt: null });
    expect(queued.nextAttemptAt).not.toBeNull();
  });

  it('refuses a message that has not failed, and an unknown id, with exit code 1', async () => {
    const [queued] = JSON.parse((await runSvc(['mail', 'list', '--to', 'bo@example.com', '--json'], env)).stdout);
    const again = await runSvc(['mail', 'retry', queued.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('has not failed');
    const unknown = await runSvc(['mail', 'retry', 'no-such-id'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No mail with id no-such-id.');
  });
});

describe('svc mail show', { timeout: 60_000 }, () => {
  it('prints a queued message with the From this configuration sends with, its text and attachments, and no file yet', async () => {
    const [queued] = JSON.parse((await runSvc(['mail', 'list', '--to', 'tix@example.com', '--json'], env)).stdout);
    const r = await runSvc(['mail', 'show', queued.id], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `Mail ${queued.id}`,
        'From:     svc <no-reply@localhost>',
        'To:       tix@example.com',
        'Subject:  Your ticket',
        `Date:     ${queued.createdAt}`,
        'Status:   queued',
        '',
        'Show this QR code at the door.',
        '',
        'Attachments (1):',
        '  ticket-1.png  image/png  16 bytes  cid:ticket-1',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await runSvc(['mail', 'show', queued.id, '--json'], env)).stdout);
    expect(json).toMatchObject({
      id: queued.id,
      from: null,
      emlPath: null,
      attachments: [{ filename: 'ticket-1.png', contentType: 'image/png', size: 16, cid: 'ticket-1' }],
    });
  });

  it('finds a message by the beginning of its id and prints its text (the reset link)', async () => {
    const [reset] = JSON.parse((await runSvc(['mail', 'list', '--to', 'ada@example.com', '--json'], env)).stdout);
    const r = await runSvc(['mail', 'show', reset.id.slice(0, 30)], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Mail ${reset.id}\n`);
    expect(r.stdout).toContain('Subject:  Reset your svc password\n');
    expect(r.stdout).toContain('http://localhost:3000/reset-password?token=T1');
    expect(r.stdout).not.toContain('Attachments');
  });

  it('refuses an unknown id with exit code 1', async () => {
    const r = await runSvc(['mail', 'show', 'no-such-id'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No mail with id no-such-id.');
  });
});

describe('formatMailShow', () => {
  const entry: OutboxEntry = {
    id: '0197aaaa-0000-7000-8000-000000000001',
    from: 'Club <no-reply@club.example>',
    to: 'ada@example.com',
    subject: 'Hi',
    text: 'Hello.\n\n',
    html: null,
    createdAt: '2025-06-01T10:00:00.000Z',
    status: 'failed',
    attempts: 3,
    nextAttemptAt: null,
    sentAt: null,
    failedAt: '2025-06-01T12:00:00.000Z',
    lastError: 'ENOSPC: no space left on device',
    emlPath: null,
    attachments: [
      { filename: 'ticket-1.png', contentType: 'image/png', size: 2048, cid: 'ticket-1' },
      { filename: 'terms.pdf', contentType: 'application/pdf', size: 3 * 1024 * 1024, cid: null },
    ],
  };

  it('prints the From it went out with, the last error, and each attachment with its size and cid', () => {
    expect(formatMailShow(entry, { defaultFrom: 'svc <no-reply@localhost>', fileExists: false })).toEqual([
      `Mail ${entry.id}`,
      'From:     Club <no-reply@club.example>',
      'To:       ada@example.com',
      'Subject:  Hi',
      'Date:     2025-06-01T10:00:00.000Z',
      'Status:   failed 2025-06-01T12:00:00.000Z after 3 attempts',
      'Error:    ENOSPC: no space left on device',
      '',
      'Hello.',
      '',
      'Attachments (2):',
      '  ticket-1.png  image/png  2.0 KB (2048 bytes)  cid:ticket-1',
      '  terms.pdf  application/pdf  3.0 MB (3145728 bytes)',
    ]);
  });

  it('names the .eml file, and says so when it is not on the machine the command runs on', () => {
    const written: OutboxEntry = {
      ...entry,
      status: 'sent',
      failedAt: null,
      lastError: null,
      sentAt: '2025-06-01T10:00:01.000Z',
      attempts: 1,
      emlPath: '/srv/svc/data/mail/x.eml',
      attachments: [],
    };
    const here = formatMailShow(written, { defaultFrom: 'unused', fileExists: true });
    expect(here).toContain('Status:   sent 2025-06-01T10:00:01.000Z (1 attempt)');
    expect(here).toContain('File:     /srv/svc/data/mail/x.eml');
    expect(here).not.toContain('Error:    ENOSPC: no space left on device');
    expect(formatMailShow(written, { defaultFrom: 'unused', fileExists: false })).toContain(
      'File:     /srv/svc/data/mail/x.eml (not on this machine)',
    );
  });

  it('falls back to the configured From for a message not sent yet', () => {
    expect(
      formatMailShow({ ...entry, from: null }, { defaultFrom: 'svc <no-reply@localhost>', fileExists: false })[1],
    ).toBe('From:     svc <no-reply@localhost>');
  });

  it('sizes in bytes, then KB and MB with the exact count', () => {
    expect([byteSize(0), byteSize(1023), byteSize(1536), byteSize(5 * 1024 * 1024)]).toEqual([
      '0 bytes',
      '1023 bytes',
      '1.5 KB (1536 bytes)',
      '5.0 MB (5242880 bytes)',
    ]);
  });
});
