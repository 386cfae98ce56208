// The mail outbox (the embedded default transport) and the account e-mail templates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type DatabaseHandle } from '../../server/db/index.ts';
import crypto from 'node:crypto';
import { listOutbox, openMailContent, OutboxMailer } from '../../server/mail/mailer.ts';
import { OutboxSeal, UNREADABLE_SEALED } from '../../server/outbox-seal.ts';
import { passwordResetMail, signUpAttemptMail } from '../../server/mail/templates.ts';
import { escapeHtml } from '../../server/shared/html.ts';

let handle: DatabaseHandle;
const seal = new OutboxSeal(crypto.randomBytes(32));

beforeAll(async () => {
  handle = openDatabase({ kind: 'sqlite', file: ':memory:' });
  await migrate(handle.db);
});
afterAll(async () => {
  await handle.close();
});

describe('OutboxMailer', () => {
  it('writes each message to mail_outbox, read back newest first, filtered by recipient in any case, limited', async () => {
    const mailer = new OutboxMailer(handle.db);
    await mailer.send({ to: 'a@example.com', subject: 'first', text: 'one' });
    await mailer.send({ to: 'b@example.com', subject: 'second', text: 'two', html: '<p>two</p>' });
    await mailer.send({ to: 'a@example.com', subject: 'third', text: 'three' });
    const all = await listOutbox(handle.db, seal);
    expect(all.map((m) => m.subject)).toEqual(['third', 'second', 'first']);
    expect(all[1]).toMatchObject({ to: 'b@example.com', text: 'two', html: '<p>two</p>', sentAt: null });
    expect(all[0].html).toBeNull();
    expect((await listOutbox(handle.db, seal, { to: 'A@Example.COM' })).map((m) => m.subject)).toEqual([
      'third',
      'first',
    ]);
    expect(await listOutbox(handle.db, seal, { limit: 1 })).toHaveLength(1);
  });

  it('with the outbox seal, stores text, HTML and attachments sealed to their row, and reads them back with the same key only', async () => {
    const png = Buffer.from('not really a png').toString('base64');
    await new OutboxMailer(handle.db, seal).send({
      to: 'sealed@example.com',
      subject: 'Reset',
      text: 'token=TEXT-SECRET',
      html: '<a href="?token=HTML-SECRET">',
      secret: true,
      attachments: [{ filename: 'a.png', contentType: 'image/png', contentBase64: png }],
    });
    const row = await handle.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('to_address', '=', 'sealed@example.com')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toMatch(/TEXT-SECRET|HTML-SECRET|a\.png/);
    expect(row.subject).toBe('Reset');
    expect(openMailContent(seal, row)).toEqual({
      text: 'token=TEXT-SECRET',
      html: '<a href="?token=HTML-SECRET">',
      attachments: [{ filename: 'a.png', contentType: 'image/png', contentBase64: png }],
    });
    // Another key opens nothing, and says so rather than hiding the other messages.
    const elsewhere = await listOutbox(handle.db, new OutboxSeal(crypto.randomBytes(32)));
    expect(elsewhere.find((m) => m.to === 'sealed@example.com')).toMatchObject({
      text: UNREADABLE_SEALED,
      html: null,
      attachments: [],
    });
    expect(elsewhere.find((m) => m.subject === 'second')).toMatchObject({ text: 'two' });
    // Copied onto another row, a sealed body does not open there.
    expect(() => openMailContent(seal, { ...row, id: 'another-row' })).toThrow(/cannot decrypt an outbox message/);
  });

  it('refuses a message that carries a sign-in secret when it has no seal to store it with', async () => {
    await expect(
      new OutboxMailer(handle.db).send({ to: 'a@example.com', subject: 's', text: 'token', secret: true }),
    ).rejects.toThrow(/outbox seal/);
    expect(await handle.db.selectFrom('mail_outbox').select('id').where('text_body', '=', 'token').execute()).toEqual(
      [],
    );
  });

  it('refuses a recipient or subject with a line break (no header injection through a later SMTP transport)', async () => {
    const mailer = new OutboxMailer(handle.db);
    await expect(mailer.send({ to: 'a@example.com\r\nBcc: all@example.com', subject: 's', text: 't' })).rejects.toThrow(
      /one line/,
    );
    await expect(mailer.send({ to: 'a@example.com', subject: 'hi\nBcc: x@example.com', text: 't' })).rejects.toThrow(
      /one line/,
    );
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
    // It carries a sign-in secret: only a sealing outbox may store it.
    expect(mail.secret).toBe(true);
  });

  it('tells an existing account where to sign in or reset, and says nothing changed', () => {
    const mail = signUpAttemptMail({
      to: 'ada@example.com',
      siteName: 'svc',
      signInLink: 'http://x/sign-in',
      resetLink: 'http://x/reset-password',
    });
    expect(mail.text).toContain('http://x/sign-in');
    expect(mail.text).toContain('http://x/reset-password');
    expect(mail.text).toContain('nothing has changed');
  });

  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
