// Google / Slack / Discord sign-in (docs/sign-in.md, "Google, Slack and Discord"):
// - oauth_identities: which account a provider's user is. (provider, subject) is unique, so one
//   provider account signs in to exactly one svc account; an account may have several.
// - oauth_handoffs: the single-use codes that carry a finished flow from the platform's callback
//   to the community domain it started on. Only a hash of the code is stored, and a row lives 60 s.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    // The provider's stable user id: `sub` (Google, Slack), `id` (Discord). Never the e-mail.
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The address the provider reported when the identity was linked (for support; never matched on).
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('oauth_identities_provider_subject', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('oauth_identities_user').on('oauth_identities').column('user_id').execute();

  await db.schema
    .createTable('oauth_handoffs')
    // sha256 (base64url) of the code put in the redirect; the code itself is never stored.
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    // The origin (`https://club.example`) the code may be redeemed on: where the flow started.
    .addColumn('origin', 'text', (c) => c.notNull())
    // sha256 of the binding cookie set on that origin at the start: the same browser must finish.
    .addColumn('bind_hash', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('name', 'text')
    // The account a signed-in visitor asked to link to; null for a plain sign-in.
    .addColumn('link_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_handoffs_expiry').on('oauth_handoffs').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['oauth_handoffs', 'oauth_identities']) await db.schema.dropTable(t).ifExists().execute();
}
