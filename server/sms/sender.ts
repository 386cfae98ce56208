// Outgoing SMS. Everything that sends a text message takes an SmsSender, so the transport is chosen
// in one place (AppDeps / RouteDeps `smsSender`). The only transport built is the database outbox:
// the embedded default works offline, and `svc sms list` shows what was "sent". A real gateway
// (Twilio, Vonage, ...) is a class implementing SmsSender; see docs/sign-in.md.
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { OutboxSeal } from '../outbox-seal.ts';

export interface SmsSender {
  /** `to` is an E.164 number (`+14155550123`); `text` is the whole message. */
  send(to: string, text: string): Promise<void>;
}

/**
 * Writes every message to the `sms_outbox` table (read back, newest first, with `svc sms list`),
 * sealed: every text svc sends is a sign-in or verification code (server/outbox-seal.ts).
 */
export class OutboxSmsSender implements SmsSender {
  constructor(
    private readonly db: Db | Trx,
    private readonly seal: OutboxSeal,
  ) {}

  async send(to: string, text: string): Promise<void> {
    const id = newId();
    await this.db
      .insertInto('sms_outbox')
      .values({
        id,
        to_number: to,
        text_body: this.seal.seal(text, 'sms_outbox.text_body', id),
        created_at: nowIso(),
        sent_at: null,
      })
      .execute();
  }
}

export interface SmsOutboxEntry {
  id: string;
  to: string;
  text: string;
  createdAt: string;
  sentAt: string | null;
}

/** Outbox messages, newest first; `to` is an E.164 number (normalise it first). */
export async function listSmsOutbox(
  db: Db,
  seal: OutboxSeal,
  opts: { to?: string; limit?: number } = {},
): Promise<SmsOutboxEntry[]> {
  let q = db.selectFrom('sms_outbox').selectAll();
  if (opts.to) q = q.where('to_number', '=', opts.to);
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.limit ?? 20)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    to: r.to_number,
    text: seal.read(r.text_body, 'sms_outbox.text_body', r.id),
    createdAt: r.created_at,
    sentAt: r.sent_at,
  }));
}
