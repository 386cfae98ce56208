// SMS sign-in: phone + 6-digit code. Codes are stored only as keyed hashes, expire, are single use
// and allow a few guesses; the outbox is where the embedded default "sends" them (`svc sms list`).
// Invariants concurrent requests could break are held by the database:
// - at most one live code per phone (partial unique index): a new start supersedes the old one,
//   and of two concurrent starts one retries;
// - one successful use per code and at most SMS_CODE_MAX_ATTEMPTS guesses: conditional UPDATEs.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sms_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('superseded_at', 'text')
    .execute();
  await db.schema
    .createIndex('sms_codes_live')
    .on('sms_codes')
    .column('phone')
    .unique()
    .where(sql.ref('used_at'), 'is', null)
    .where(sql.ref('superseded_at'), 'is', null)
    .execute();
  // Purging codes long past their expiry.
  await db.schema.createIndex('sms_codes_expiry').on('sms_codes').column('expires_at').execute();

  await db.schema
    .createTable('sms_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // When a transport handed it on; null in the outbox-only default, which never sends.
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('sms_outbox_created').on('sms_outbox').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('sms_outbox_to').on('sms_outbox').columns(['to_number', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['sms_outbox', 'sms_codes']) await db.schema.dropTable(t).ifExists().execute();
}
