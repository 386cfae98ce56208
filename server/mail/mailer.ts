// Outgoing e-mail. Everything that sends mail takes a Mailer, so the transport is chosen in one
// place (AppDeps / RouteDeps `mailer`). There is one write path: the `mail_outbox` table, written
// in the caller's transaction, so a change that rolls back sends nothing. MailDeliveryWorker
// (worker.ts) drains the outbox outside any request: over SMTP with SMTP_URL, else into `.eml`
// files under SVC_DATA_DIR/mail. `svc mail list|show` read it back. See docs/mail.md.
import { sql, type Selectable } from 'kysely';
import { afterCommit, transaction, type Db, type Trx } from '../db/index.ts';
import type { MailOutboxTable } from '../db/schema-accounts.ts';
import { DEFAULT_MAIL_FROM } from './config.ts';
import { envelopeAddress } from './transport.ts';
import { newId, nowIso } from '../db/ids.ts';
import { UNREADABLE_SEALED, type OutboxSeal } from '../outbox-seal.ts';
import { wakeMailWorkers } from './wake.ts';
import { renderBroadcastMail, type BroadcastBody, type MergeFields } from './broadcast-render.ts';

/** A file sent with the message; with `cid`, an inline image the HTML shows as `<img src="cid:...">`. */
export interface MailAttachment {
  filename: string;
  contentType: string;
  contentBase64: string;
  cid?: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
  /**
   * The message carries a sign-in secret (a reset link): only a mailer holding the outbox seal
   * writes it, sealed, so the outbox is never a store of live tokens (server/outbox-seal.ts).
   */
  secret?: boolean;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** One line, no control characters: a subject or address can never inject a header. */
export function headerSafe(value: string, what: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error(`mail ${what} must be one line`);
  return value;
}

/** Attachment names and types become MIME headers: one line each, and a cid without brackets. */
function attachmentsSafe(attachments: MailAttachment[] | undefined): string | null {
  if (!attachments || attachments.length === 0) return null;
  return JSON.stringify(
    attachments.map((a) => {
      headerSafe(a.filename, 'attachment filename');
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(a.contentType))
        throw new Error('mail attachment content type must look like image/png');
      if (a.cid !== undefined && !/^[\w.@-]{1,200}$/.test(a.cid))
        throw new Error('mail attachment cid must be letters, digits and . @ - _');
      return {
        filename: a.filename,
        contentType: a.contentType,
        contentBase64: a.contentBase64,
        ...(a.cid !== undefined ? { cid: a.cid } : {}),
      };
    }),
  );
}

/** A message's content as the outbox stores it (sealed or not). */
interface StoredContent {
  text_body: string;
  html_body: string | null;
  attachments: string | null;
}

function sealContent(seal: OutboxSeal, id: string, c: StoredContent): StoredContent {
  const sealOrNull = (value: string | null, column: 'mail_outbox.html_body' | 'mail_outbox.attachments') =>
    value === null ? null : seal.seal(value, column, id);
  return {
    text_body: seal.seal(c.text_body, 'mail_outbox.text_body', id),
    html_body: sealOrNull(c.html_body, 'mail_outbox.html_body'),
    attachments: sealOrNull(c.attachments, 'mail_outbox.attachments'),
  };
}

export interface MailContent {
  text: string;
  html: string | null;
  attachments: MailAttachment[];
}

/** A row's content as it was written; throws when it was sealed under another master key. */
export function openMailContent(seal: OutboxSeal, row: StoredContent & { id: string }): MailContent {
  const attachments = row.attachments === null ? null : seal.open(row.attachments, 'mail_outbox.attachments', row.id);
  return {
    text: seal.open(row.text_body, 'mail_outbox.text_body', row.id),
    html: row.html_body === null ? null : seal.open(row.html_body, 'mail_outbox.html_body', row.id),
    attachments: attachments === null ? [] : (JSON.parse(attachments) as MailAttachment[]),
  };
}

/**
 * Queues every message in the `mail_outbox` table (read back with `svc mail list`). Given the
 * outbox seal, it stores every message sealed; without it, it refuses a message marked `secret`.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Db | Trx,
    private readonly seal?: OutboxSeal,
  ) {}

  async send(message: MailMessage): Promise<void> {
    if (message.secret && !this.seal)
      throw new Error('a message carrying a sign-in secret must be written with the outbox seal');
    const id = newId();
    const now = nowIso();
    const content: StoredContent = {
      text_body: message.text,
      html_body: message.html ?? null,
      attachments: attachmentsSafe(message.attachments),
    };
    await this.db
      .insertInto('mail_outbox')
      .values({
        id,
        to_address: headerSafe(message.to, 'recipient'),
        subject: headerSafe(message.subject, 'subject'),
        ...(this.seal ? sealContent(this.seal, id, content) : content),
        created_at: now,
        sent_at: null,
        next_attempt_at: now,
      })
      .execute();
    // Inside a transaction the worker may look only once it has committed; outside, at once.
    if (this.db.isTransaction) afterCommit(this.db as Trx, wakeMailWorkers);
    else wakeMailWorkers();
  }
}

export type OutboxStatus = 'queued' | 'sent' | 'failed';

export interface OutboxEntry {
  id: string;
  /** The From it went out with; null until sent (it comes from the sending process's SVC_MAIL_FROM). */
  from: string | null;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: string;
  status: OutboxStatus;
  attempts: number;
  /** When a queued message is due (or, while a worker sends it, when its lease ends). */
  nextAttemptAt: string | null;
  sentAt: string | null;
  failedAt: string | null;
  lastError: string | null;
  /** What is attached, without the content; `size` in bytes. */
  attachments: Array<{ filename: string; contentType: string; size: number; cid: string | null }>;
  /** The `.eml` file it was written to (without SMTP), as a path on the server that wrote it. */
  emlPath: string | null;
}

const statusOf = (r: { sent_at: string | null; failed_at: string | null }): OutboxStatus =>
  r.sent_at ? 'sent' : r.failed_at ? 'failed' : 'queued';

type OutboxRow = Selectable<MailOutboxTable>;

/** The bodies of the broadcasts these rows belong to (a broadcast's message is rendered from it, as when sent). */
async function broadcastBodiesOf(db: Db, rows: OutboxRow[]): Promise<Map<string, BroadcastBody>> {
  const ids = [...new Set(rows.map((r) => r.broadcast_id).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom('broadcasts as b')
    .innerJoin('communities as c', 'c.id', 'b.community_id')
    .select(['b.id', 'b.subject', 'b.html', 'b.text', 'b.test_to', 'c.name as communityName'])
    .where('b.id', 'in', ids)
    .execute();
  return new Map(
    found.map((b) => [
      b.id,
      { subject: b.subject, html: b.html, text: b.text, communityName: b.communityName, test: b.test_to !== null },
    ]),
  );
}

/** The content, or a note in its place when this process's key does not open it: one such row must not hide the rest. */
function readableContent(seal: OutboxSeal, r: OutboxRow, bodies: Map<string, BroadcastBody>): MailContent {
  if (r.broadcast_id !== null) {
    const body = bodies.get(r.broadcast_id);
    if (!body) return { text: '(its broadcast no longer exists)', html: null, attachments: [] };
    const fields = JSON.parse(r.merge_fields ?? '{}') as MergeFields;
    const mail = renderBroadcastMail(body, fields, envelopeAddress(r.from_address ?? DEFAULT_MAIL_FROM));
    return { text: mail.text, html: mail.html, attachments: [] };
  }
  try {
    return openMailContent(seal, r);
  } catch {
    return { text: UNREADABLE_SEALED, html: null, attachments: [] };
  }
}

function toEntry(seal: OutboxSeal, r: OutboxRow, bodies: Map<string, BroadcastBody>): OutboxEntry {
  const content = readableContent(seal, r, bodies);
  return {
    id: r.id,
    from: r.from_address,
    to: r.to_address,
    subject: r.subject,
    text: content.text,
    html: content.html,
    createdAt: r.created_at,
    status: statusOf(r),
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at,
    sentAt: r.sent_at,
    failedAt: r.failed_at,
    lastError: r.last_error,
    attachments: content.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      size: Buffer.byteLength(a.contentBase64, 'base64'),
      cid: a.cid ?? null,
    })),
    emlPath: r.eml_path,
  };
}

/** Outbox messages, newest first; `to` matches the recipient case-insensitively. */
export async function listOutbox(
  db: Db,
  seal: OutboxSeal,
  opts: { to?: string; limit?: number } = {},
): Promise<OutboxEntry[]> {
  let q = db.selectFrom('mail_outbox').selectAll();
  if (opts.to) q = q.where(sql<string>`lower(to_address)`, '=', opts.to.trim().toLowerCase());
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.limit ?? 20)
    .execute();
  const bodies = await broadcastBodiesOf(db, rows);
  return rows.map((r) => toEntry(seal, r, bodies));
}

/**
 * The message with this id, or else those whose id starts with it (up to `limit`, oldest first):
 * one is a match, several an ambiguous prefix. substr() rather than LIKE, so `_` and `%` in what
 * was typed mean themselves and the comparison is case-sensitive on both databases.
 */
export async function findOutboxByIdPrefix(
  db: Db,
  seal: OutboxSeal,
  prefix: string,
  limit = 5,
): Promise<OutboxEntry[]> {
  const exact = await db.selectFrom('mail_outbox').selectAll().where('id', '=', prefix).executeTakeFirst();
  if (exact) return [toEntry(seal, exact, await broadcastBodiesOf(db, [exact]))];
  const rows = await db
    .selectFrom('mail_outbox')
    .selectAll()
    .where(sql<string>`substr(id, 1, ${prefix.length})`, '=', prefix)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  const bodies = await broadcastBodiesOf(db, rows);
  return rows.map((r) => toEntry(seal, r, bodies));
}

export type RetryOutcome = 'queued' | 'not_found' | 'not_failed';

/**
 * Queues a failed message again, due now, with a fresh round of attempts. Only failed ones: a
 * queued message is already on its way and a sent one would go out twice. A broadcast's message
 * leaves its broadcast's failed_count in the same transaction: the worker counts its new outcome
 * when it has one, so sent + failed stays the messages with an outcome (the broadcast stays SENT
 * if it was, and emits nothing again).
 */
export async function retryOutboxMessage(db: Db, id: string): Promise<RetryOutcome> {
  const queued = await transaction(db, async (trx) => {
    const row = await trx
      .updateTable('mail_outbox')
      .set({ failed_at: null, next_attempt_at: nowIso(), attempts: 0, lease_token: null })
      .where('id', '=', id)
      .where('failed_at', 'is not', null)
      .where('sent_at', 'is', null)
      .returning('broadcast_id')
      .executeTakeFirst();
    if (row?.broadcast_id)
      await trx
        .updateTable('broadcasts')
        .set((eb) => ({ failed_count: eb('failed_count', '-', 1) }))
        .where('id', '=', row.broadcast_id)
        .where('failed_count', '>', 0)
        .execute();
    return row !== undefined;
  });
  if (queued) return 'queued';
  const row = await db.selectFrom('mail_outbox').select('id').where('id', '=', id).executeTakeFirst();
  return row ? 'not_failed' : 'not_found';
}
