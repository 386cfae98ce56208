// The mail outbox of a test server: its rows, a message queued as the app queues one, and a
// password reset asked for through the API (the mail every delivery path is tried with).
import type { Db } from '../../../server/db/index.ts';
import { transaction } from '../../../server/db/index.ts';
import { newId, nowIso } from '../../../server/db/ids.ts';
import { hashPassword } from '../../../server/domain/passwords.ts';
import { listOutbox, OutboxMailer, type OutboxEntry } from '../../../server/mail/mailer.ts';
import type { TestServer } from './harness.ts';
import { rawRequest, type RawResponse } from './raw-http.ts';
import { waitFor } from './wait.ts';

export const outboxRow = (db: Db, id: string) =>
  db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
export const outboxRowTo = (db: Db, to: string) =>
  db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).executeTakeFirst();
/** Every row to `to`, oldest first, as stored (messages written without the outbox seal read as they are). */
export const outboxRowsTo = (db: Db, to: string) =>
  db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).orderBy('created_at').orderBy('id').execute();

/** The messages to `to` (every message without it), newest first, opened with the server's key as `svc mail list` does. */
export const outboxTo = (server: TestServer, to?: string): Promise<OutboxEntry[]> =>
  listOutbox(server.database.db, server.outboxSeal, { to, limit: 1000 });

/** Writes a message as the app does (the outbox, in a transaction), and returns its row id. */
export async function queueMail(db: Db, to: string, subject: string, text: string): Promise<string> {
  await transaction(db, (trx) => new OutboxMailer(trx).send({ to, subject, text }));
  return (await outboxRowTo(db, to))!.id;
}

/** The row once the worker has given up on it. */
export const failedRow = (db: Db, id: string) =>
  waitFor(async () => {
    const r = await outboxRow(db, id);
    return r.failed_at ? r : undefined;
  }, 'the message to fail');

/** Ada, with a password, asks for a reset link from the platform's own pages. */
export async function askPasswordReset(server: TestServer, email: string): Promise<RawResponse> {
  await server.database.db
    .insertInto('users')
    .values({
      id: newId(),
      email,
      name: 'Ada',
      usertag: 'ada',
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: await hashPassword('old password'),
      created_at: nowIso(),
    })
    .execute();
  const port = new URL(server.url).port;
  const host = `127.0.0.1:${port}`;
  return rawRequest(
    port,
    'POST',
    '/api/auth/password-reset',
    { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
    JSON.stringify({ email }),
  );
}
