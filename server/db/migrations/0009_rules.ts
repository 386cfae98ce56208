// Rules acceptance: which member accepted which version of a community's rules, and when. One
// row per (community, user, version), held by the primary key, so repeating an acceptance (or
// two at once) records it once and keeps the first time.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rules_acceptances')
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('rules_version', 'integer', (c) => c.notNull())
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rules_acceptances_pk', ['community_id', 'user_id', 'rules_version'])
    .execute();
  // "Who has accepted the current version" reads by community and version.
  await db.schema
    .createIndex('rules_acceptances_version')
    .on('rules_acceptances')
    .columns(['community_id', 'rules_version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rules_acceptances').ifExists().execute();
}
