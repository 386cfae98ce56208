// `svc mail list` and `svc mail retry` as a developer runs them: a child process on a temporary
// SQLite data directory (always SQLite: this suite does not touch DATABASE_URL).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/index.ts';
import { OutboxMailer } from '../../server/mail/mailer.ts';
import { runSvc } from '../api/support/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mail-'));
const env = { SVC_DATA_DIR: path.join(tmp, 'data'), DATABASE_URL: '', REDIS_URL: '' };

beforeAll(async () => {
  const handle = openDatabase({ kind: 'sqlite', file: path.join(env.SVC_DATA_DIR, 'svc.db') });
  await migrate(handle.db);
  const mailer = new OutboxMailer(handle.db);
  await mailer.send({ to: 'ada@example.com', subject: 'Reset your svc password', text: 'Choose a new password here:\nhttp://localhost:3000/reset-password?token=T1\n' });
  await new Promise((r) => setTimeout(r, 5));
  await mailer.send({ to: 'bo@example.com', subject: 'Hello Bo', text: 'Hi.' });
  // What the SMTP worker leaves behind when the server refuses a message for good.
  await new Promise((r) => setTimeout(r, 5));
  await mailer.send({ to: 'gone@example.com', subject: 'Refused', text: 'x' });
  await handle.db.updateTable('mail_outbox')
    .set({ attempts: 1, failed_at: '2025-01-01T00:00:00.000Z', next_attempt_at: null, last_error: '550 No such mailbox' })
    .where('to_address', '=', 'gone@example.com').execute();
  await handle.close();
});
afterAll(() => { fs.rmSync(tmp, { recursive: true, force: true }); });

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
    expect(messages[0]).toMatchObject({ to: 'ada@example.com', subject: 'Reset your svc password', html: null, sentAt: null });
    expect(messages[0].text).toContain('token=T1');
    const one = JSON.parse((await runSvc(['mail', 'list', '--limit', '2', '--json'], env)).stdout);
    expect(one.map((m: { subject: string }) => m.subject)).toEqual(['Refused', 'Hello Bo']);
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
