// Outgoing e-mail. Everything that sends mail takes a Mailer, so the transport is chosen in one
// place (AppDeps / RouteDeps `mailer`). The only transport built is the database outbox: the
// embedded default works offline, and `svc mail list` shows what was "sent". An SMTP transport
// (SVC_SMTP_URL) needs nodemailer, which is not a dependency yet; see docs/sign-in.md.
import { sql } from 'kysely';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** One line, no control characters: a subject or address can never inject a header. */
function headerSafe(value: string, what: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error(`mail ${what} must be one line`);
  return value;
}

/** Writes every message to the `mail_outbox` table (newest read back with `svc mail list`). */
export class OutboxMailer implements Mailer {
  constructor(private readonly db: Db | Trx) {}

  async send(message: MailMessage): Promise<void> {
    await this.db.insertInto('mail_outbox').values({
      id: newId(),
      to_address: headerSafe(message.to, 'recipient'),
      subject: headerSafe(message.subject, 'subject'),
      text_body: message.text,
      html_body: message.html ?? null,
      created_at: nowIso(),
      sent_at: null,
    }).execute();
  }
}

export interface OutboxEntry {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** Outbox messages, newest first; `to` matches the recipient case-insensitively. */
export async function listOutbox(db: Db, opts: { to?: string; limit?: number } = {}): Promise<OutboxEntry[]> {
  let q = db.selectFrom('mail_outbox').selectAll();
  if (opts.to) q = q.where(sql<string>`lower(to_address)`, '=', opts.to.trim().toLowerCase());
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit ?? 20).execute();
  return rows.map((r) => ({
    id: r.id, to: r.to_address, subject: r.subject, text: r.text_body, html: r.html_body, createdAt: r.created_at, sentAt: r.sent_at,
  }));
}
