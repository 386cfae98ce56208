// The leader console (docs/leader-console.md): every change a founder or admin makes through it is
// written to `audit_log` in the transaction of the change (who, what, when, before and after), so
// the log and the community never disagree. Leaders read it newest first, paged by (created_at, id).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    // The leader who made the change (a user id); kept when the account goes, so the log stays whole.
    .addColumn('actor_user_id', 'text', (c) => c.notNull())
    // e.g. `settings.update`, `member.kick`, `key.create`.
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    // JSON of what changed, before and after (never a secret: keys and webhook secrets are recorded by prefix).
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_by_community')
    .on('audit_log')
    .columns(['community_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
