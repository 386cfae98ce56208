// Membership requests (submit, review) and the audit trail of kicks and bans.
//
// A request is one submission to a segment. Its membership (memberships, one row per community
// and user) is written when the request is free: PENDING for review, ACCEPTED when auto-approved.
// A paid request (PAYMENT_PENDING) touches no membership until its payment completes.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('membership_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('segment_id', 'text', (c) => c.notNull().references('segments.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // As typed in the form (lower-cased): where the applicant's e-mails go.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('answers', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('billing_cycle', 'text', (c) =>
      c.check(
        sql`billing_cycle is null or billing_cycle in ('MONTHLY','QUARTERLY','YEARLY','ONE_TIME','INSTALLMENT_PLAN')`,
      ),
    )
    // CANCELLED: closed without a decision (a newer submit replaced an unpaid request, or a ban).
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('PENDING','APPROVED','REJECTED','PAYMENT_PENDING','CANCELLED')`),
    )
    // The reviewer's internal note on a rejection: never sent to the applicant.
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    // The API key that approved or rejected it; null when automatic.
    .addColumn('decided_by', 'text')
    .execute();
  // One open request per person and community: the database settles two submits racing.
  await db.schema
    .createIndex('membership_requests_one_open')
    .on('membership_requests')
    .columns(['community_id', 'user_id'])
    .unique()
    .where(sql<boolean>`status in ('PENDING','PAYMENT_PENDING')`)
    .execute();
  await db.schema
    .createIndex('membership_requests_by_user')
    .on('membership_requests')
    .columns(['community_id', 'user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('member_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('membership_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('KICK','BAN')`))
    .addColumn('reason', 'text')
    .addColumn('actor_key_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('member_audit_by_user')
    .on('member_audit')
    .columns(['community_id', 'user_id', 'created_at'])
    .execute();

  // A kick leaves the membership REJECTED with kicked_at set (cleared when they apply again);
  // a ban leaves it BANNED with banned_at, for good.
  await db.schema.alterTable('memberships').addColumn('kicked_at', 'text').execute();
  await db.schema.alterTable('memberships').addColumn('banned_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('memberships').dropColumn('banned_at').execute();
  await db.schema.alterTable('memberships').dropColumn('kicked_at').execute();
  await db.schema.dropTable('member_audit').execute();
  await db.schema.dropTable('membership_requests').execute();
}
