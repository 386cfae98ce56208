// Friend request rejections, remembered so the same sender cannot ask the same person again
// before a cooldown ends (server/domain/friends.ts). Rejecting still deletes the request row of
// 0004 (one row per pair, PENDING or ACCEPTED); this table only says who turned down whom, when.
// One row per (sender, recipient): a later rejection moves its time forward.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('friend_request_rejections')
    .addColumn('requester_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('addressee_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('rejected_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('friend_request_rejections_pk', ['requester_id', 'addressee_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('friend_request_rejections').ifExists().execute();
}
