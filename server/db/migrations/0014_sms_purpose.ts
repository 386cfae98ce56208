// What an SMS code is for: signing in (every code made before this migration) or proving that
// the signed-in user holds a phone number they are adding. A code only works for its own purpose,
// so a sign-in code cannot attach a number to an account and a verification code cannot sign in.
// The "one live code" rule becomes one per purpose:
// - SIGN_IN: one per phone, as before (a new start for the number supersedes the old code);
// - VERIFY_PHONE: one per user, whatever the number (the newest number the user asked to add wins).
//   Per user rather than per phone so that someone else asking to add the same number can never
//   supersede or spend the guesses of the code a user is about to type.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sms_codes')
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('SIGN_IN'))
    .execute();
  await db.schema.dropIndex('sms_codes_live').execute();
  await db.schema
    .createIndex('sms_codes_live')
    .on('sms_codes')
    .column('phone')
    .unique()
    .where(sql.ref('purpose'), '=', 'SIGN_IN')
    .where(sql.ref('used_at'), 'is', null)
    .where(sql.ref('superseded_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('sms_codes_live_verify_phone')
    .on('sms_codes')
    .column('user_id')
    .unique()
    .where(sql.ref('purpose'), '=', 'VERIFY_PHONE')
    .where(sql.ref('used_at'), 'is', null)
    .where(sql.ref('superseded_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sms_codes_live_verify_phone').execute();
  await db.schema.dropIndex('sms_codes_live').execute();
  // Verification codes have no meaning without the column; sign-in codes keep working.
  await db.deleteFrom('sms_codes').where('purpose', '!=', 'SIGN_IN').execute();
  await db.schema.alterTable('sms_codes').dropColumn('purpose').execute();
  await db.schema
    .createIndex('sms_codes_live')
    .on('sms_codes')
    .column('phone')
    .unique()
    .where(sql.ref('used_at'), 'is', null)
    .where(sql.ref('superseded_at'), 'is', null)
    .execute();
}
