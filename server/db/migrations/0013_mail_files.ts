// Mail without SMTP is written as `.eml` files (server/mail/eml-files.ts). The row records where
// its file went, so `svc mail show` can point at it from any machine that shares the database
// (the path is the server's, not derived from the CLI's own SVC_DATA_DIR), and the From address
// the message actually went out with, since that depends on the sending process's configuration.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('eml_path', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('from_address', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mail_outbox').dropColumn('from_address').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('eml_path').execute();
}
