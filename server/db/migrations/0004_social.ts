// Social: notifications, friendships and conversations (the visitor endpoints of issue 4).
// Portable types only (text, integer), as in 0001. Invariants that concurrent requests could
// break are held by the database:
// - one friendship row per pair of users, whoever asked first (unique (user_low, user_high));
// - one direct (1:1) conversation per pair (unique direct_key = "<low id>:<high id>");
// - one message per sequence number in a conversation (unique (conversation_id, seq)); unread
//   counts compare a member's last_read_seq with it, so they are exact whatever the clocks say.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('community_id', 'text', (c) => c.references('communities.id').onDelete('cascade'))
    // Who caused it (the requester of a friend request), shown with public fields only.
    .addColumn('actor_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('read_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The list: newest first per user.
  await db.schema
    .createIndex('notifications_by_user')
    .on('notifications')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
  // The bell: unread per user, without walking what was read long ago.
  await db.schema
    .createIndex('notifications_unread')
    .on('notifications')
    .column('user_id')
    .where(sql.ref('read_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('friendships')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The pair ordered by id (in code: the order is not left to a collation), so A->B and B->A
    // are the same row.
    .addColumn('user_low', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('user_high', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('requester_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('addressee_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('PENDING','ACCEPTED')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addUniqueConstraint('friendships_pair', ['user_low', 'user_high'])
    .addCheckConstraint(
      'friendships_valid_pair',
      sql`user_low <> user_high and (
      (requester_id = user_low and addressee_id = user_high) or (requester_id = user_high and addressee_id = user_low))`,
    )
    .execute();
  await db.schema
    .createIndex('friendships_incoming')
    .on('friendships')
    .columns(['addressee_id', 'status', 'created_at'])
    .execute();
  await db.schema.createIndex('friendships_outgoing').on('friendships').columns(['requester_id', 'status']).execute();

  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('direct','group')`))
    // "<low user id>:<high user id>" for a direct conversation, null for a group.
    .addColumn('direct_key', 'text', (c) => c.unique())
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    // Sequence of the newest message; each post takes the next number under the row's lock.
    .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_message_id', 'text')
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('conversations_direct_key', sql`(kind = 'direct') = (direct_key is not null)`)
    .execute();

  await db.schema
    .createTable('conversation_members')
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('joined_at', 'text', (c) => c.notNull())
    // Messages with seq above this are unread for the member (their own posts excepted).
    .addColumn('last_read_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_read_at', 'text')
    .addPrimaryKeyConstraint('conversation_members_pk', ['conversation_id', 'user_id'])
    .execute();
  // "My conversations" and "my unread counts" start from the member rows of one user.
  await db.schema
    .createIndex('conversation_members_by_user')
    .on('conversation_members')
    .columns(['user_id', 'conversation_id', 'last_read_seq'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Also the index of the message list (newest first) and of the unread counts (seq > n).
    .addUniqueConstraint('messages_conversation_seq', ['conversation_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['messages', 'conversation_members', 'conversations', 'friendships', 'notifications']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
