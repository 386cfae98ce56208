// The mail outbox (the embedded default transport) and the account e-mail templates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type DatabaseHandle } from '../../server/db/index.ts';
import { listOutbox, OutboxMailer } from '../../server/mail/mailer.ts';
import { escapeHtml, passwordResetMail, signUpAttemptMail } from '../../server/mail/templates.ts';

let handle: DatabaseHandle;

beforeAll(async () => {
  handle = openDatabase({ kind: 'sqlite', file: ':memory:' });
  await migrate(handle.db);
});
afterAll(async () => { await handle.close(); });

describe('OutboxMailer', () => {
  it('writes each message to mail_outbox, read back newest first, filtered by recipient in any case, limited', async () => {
    const mailer = new OutboxMailer(handle.db);
    await mailer.send({ to: 'a@example.com', subject: 'first', text: 'one' });
    await mailer.send({ to: 'b@example.com', subject: 'second', text: 'two', html: '<p>two</p>' });
    await mailer.send({ to: 'a@example.com', subject: 'third', text: 'three' });
    const all = await listOutbox(handle.db);
    expect(all.map((m) => m.subject)).toEqual(['third', 'second', 'first']);
    expect(all[1]).toMatchObject({ to: 'b@example.com', text: 'two', html: '<p>two</p>', sentAt: null });
    expect(all[0].html).toBeNull();
    expect((await listOutbox(handle.db, { to: 'A@Example.COM' })).map((m) => m.subject)).toEqual(['third', 'first']);
    expect(await listOutbox(handle.db, { limit: 1 })).toHaveLength(1);
  });

  it('refuses a recipient or subject with a line break (no header injection through a later SMTP transport)', async () => {
    const mailer = new OutboxMailer(handle.db);
    await expect(mailer.send({ to: 'a@example.com\r\nBcc: all@example.com', subject: 's', text: 't' })).rejects.toThrow(/one line/);
    await expect(mailer.send({ to: 'a@example.com', subject: 'hi\nBcc: x@example.com', text: 't' })).rejects.toThrow(/one line/);
  });
});

describe('account e-mail templates', () => {
  it('puts the reset link in the text as is and escapes everything in the HTML', () => {
    const link = 'https://club.example/reset-password?token=abc_DEF-123';
    const mail = passwordResetMail({ to: 'ada@example.com', siteName: 'Club <script>"&"', link, expiresInMinutes: 60 });
    expect(mail.subject).toBe('Reset your Club <script>"&" password');
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain('60 minutes');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Club &lt;script&gt;&quot;&amp;&quot;');
    expect(mail.html).toContain(`href="${link}"`);
  });

  it('tells an existing account where to sign in or reset, and says nothing changed', () => {
    const mail = signUpAttemptMail({ to: 'ada@example.com', siteName: 'svc', signInLink: 'http://x/sign-in', resetLink: 'http://x/reset-password' });
    expect(mail.text).toContain('http://x/sign-in');
    expect(mail.text).toContain('http://x/reset-password');
    expect(mail.text).toContain('nothing has changed');
  });

  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
