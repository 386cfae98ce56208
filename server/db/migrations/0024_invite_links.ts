// Invite links (docs/leader-console.md, "Invite links"): how an INVITE_ONLY community takes members.
// A leader makes a link with an expiry, an optional use limit and segment, and a note; `/join/<code>`
// on the community's site makes a signed-in visitor an ACCEPTED member. Only the code's SHA-256 is
// stored (as API keys: docs/decisions/0003), so the database never yields a working link; the
// prefix is what the console shows afterwards. `uses` is raised by one conditional UPDATE that
// also checks the limit, so concurrent joins can never take more uses than the link has.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invite_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('community_id', 'text', (c) => c.notNull().references('communities.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('code_prefix', 'text', (c) => c.notNull())
    // The segment the new member is put in (null: none).
    .addColumn('segment_id', 'text', (c) => c.references('segments.id').onDelete('set null'))
    .addColumn('note', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // null: no limit but the expiry.
    .addColumn('max_uses', 'integer')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_by', 'text')
    .execute();
  await db.schema
    .createIndex('invite_links_by_community')
    .on('invite_links')
    .columns(['community_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('invite_links').execute();
}
