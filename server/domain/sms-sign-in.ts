// Phone + 6-digit SMS code sign-in, and the code machinery that adding a phone (./phone.ts) shares:
// one table, one hashing, expiry, single use and guess limit, told apart by `purpose`. No HTTP
// here; the site routes (server/site/auth.ts, server/site/visitor.ts) decide what the visitor is told.
//
// Codes are stored only as HMAC-SHA256 of `<row id>:<phone>:<code>` under a server key that is not
// in the database. A 6-digit code has a million values, so an unkeyed hash (sha256) would be
// reversed from a database copy in milliseconds, and even scrypt only slows that to minutes while
// costing the server ~50 ms of CPU per start and per guess. Online guessing is bounded by the
// attempt limit, not by hash cost; offline guessing is prevented by the key. The row id and phone
// in the MAC keep a hash from being copied onto another row.
import crypto from 'node:crypto';
import { PostgresAdapter } from 'kysely';
import { isUniqueViolation, transaction, type Db } from '../db/index.ts';
import { newId } from '../db/ids.ts';
import type { SmsCodePurpose } from '../db/schema-sms.ts';

/** A code works within this. */
export const SMS_CODE_TTL_MS = 10 * 60 * 1000;
/** Guesses per code (the right one included): 5 wrong ones and it is dead. */
export const SMS_CODE_MAX_ATTEMPTS = 5;

export const codeHash = (key: Uint8Array, id: string, phone: string, code: string): string =>
  crypto.createHmac('sha256', key).update(`${id}:${phone}:${code}`).digest('base64url');

const sixDigits = (): string => String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');

/** One code to make: whose it is, for which number, for what. */
export interface CodeFor {
  phone: string;
  userId: string;
  purpose: SmsCodePurpose;
}

/**
 * A new code for `target`, valid for SMS_CODE_TTL_MS, superseding the live code it replaces (a
 * sign-in code: the phone's; a verification code: the user's, whatever its number). Only its keyed
 * hash is stored. Shared by sign-in (below) and adding a phone (./phone.ts).
 */
export async function issueSmsCode(db: Db, key: Uint8Array, target: CodeFor, now = Date.now()): Promise<string> {
  const at = new Date(now).toISOString();
  // Expired codes are not deleted here: the scheduled purge does it in small batches
  // (server/maintenance/purge.ts), and every read of a code checks its expiry (spendSmsCode).
  // An expired code nobody used is still "live" to the unique indexes, so it is superseded below
  // like any other.
  // Concurrent starts for one phone (or user) take turns: on PostgreSQL each locks the account's
  // row first (SQLite runs one write transaction at a time anyway). The unique indexes on live
  // codes are the backstop: an insert they refuse retries, superseding the other code (the newest
  // start wins).
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (let round = 0; ; round += 1) {
    const id = newId();
    const code = sixDigits();
    try {
      await transaction(db, async (trx) => {
        if (postgres) await trx.selectFrom('users').select('id').where('id', '=', target.userId).forUpdate().execute();
        let replaced = trx
          .updateTable('sms_codes')
          .set({ superseded_at: at })
          .where('purpose', '=', target.purpose)
          .where('used_at', 'is', null)
          .where('superseded_at', 'is', null);
        replaced =
          target.purpose === 'SIGN_IN'
            ? replaced.where('phone', '=', target.phone)
            : replaced.where('user_id', '=', target.userId);
        await replaced.execute();
        await trx
          .insertInto('sms_codes')
          .values({
            id,
            phone: target.phone,
            user_id: target.userId,
            purpose: target.purpose,
            code_hash: codeHash(key, id, target.phone, code),
            created_at: at,
            expires_at: new Date(now + SMS_CODE_TTL_MS).toISOString(),
            used_at: null,
            superseded_at: null,
          })
          .execute();
      });
      return code;
    } catch (err) {
      if (!isUniqueViolation(err) || round >= 3) throw err;
    }
  }
}

/**
 * Spends one guess of the live code of `phone` for `purpose` (and, when given, of that user) and,
 * if `code` is right, claims it. Returns the user the code was made for, or null for anything
 * else (no such code, wrong, expired, used, superseded, out of attempts). The guess is taken in
 * one conditional UPDATE, so concurrent guesses never exceed SMS_CODE_MAX_ATTEMPTS; a right code
 * is then claimed by a second conditional UPDATE, which exactly one of concurrent uses wins.
 */
export async function spendSmsCode(
  db: Db,
  key: Uint8Array,
  which: { phone: string; purpose: SmsCodePurpose; userId?: string },
  code: string,
  now = Date.now(),
): Promise<string | null> {
  const at = new Date(now).toISOString();
  let guess = db
    .updateTable('sms_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('phone', '=', which.phone)
    .where('purpose', '=', which.purpose)
    .where('used_at', 'is', null)
    .where('superseded_at', 'is', null)
    .where('expires_at', '>', at)
    .where('attempts', '<', SMS_CODE_MAX_ATTEMPTS);
  if (which.userId !== undefined) guess = guess.where('user_id', '=', which.userId);
  const live = await guess.returning(['id', 'code_hash']).executeTakeFirst();
  if (!live) return null;
  const expected = Buffer.from(live.code_hash);
  const given = Buffer.from(codeHash(key, live.id, which.phone, code));
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
  const claimed = await db
    .updateTable('sms_codes')
    .set({ used_at: at })
    .where('id', '=', live.id)
    .where('used_at', 'is', null)
    .where('superseded_at', 'is', null)
    .where('expires_at', '>', at)
    .returning('user_id')
    .executeTakeFirst();
  return claimed?.user_id ?? null;
}

/**
 * For a phone (E.164) that an account has: a new sign-in code, replacing any older sign-in code of
 * the phone. For a phone no account has: null, and nothing is written (nothing is sent, so svc
 * cannot be used to text arbitrary numbers).
 */
export async function createSmsCode(
  db: Db,
  key: Uint8Array,
  phone: string,
  now = Date.now(),
): Promise<{ code: string; userId: string } | null> {
  const user = await db.selectFrom('users').select('id').where('phone', '=', phone).executeTakeFirst();
  if (!user) return null;
  const code = await issueSmsCode(db, key, { phone, userId: user.id, purpose: 'SIGN_IN' }, now);
  return { code, userId: user.id };
}

/**
 * The user a correct, unexpired, unused, live sign-in code of this phone signs in, or null for
 * anything else, a phone verification code included, and a phone since moved to another account
 * or removed.
 */
export async function verifySmsCode(
  db: Db,
  key: Uint8Array,
  phone: string,
  code: string,
  now = Date.now(),
): Promise<string | null> {
  const userId = await spendSmsCode(db, key, { phone, purpose: 'SIGN_IN' }, code, now);
  if (!userId) return null;
  // The phone must still be this account's: a number moved to someone else signs in no one.
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .where('phone', '=', phone)
    .executeTakeFirst();
  return user?.id ?? null;
}
