// Phone + 6-digit SMS code sign-in. No HTTP here; the site routes (server/site/auth.ts) call these
// and decide what the visitor is told.
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

/** A code works within this. */
export const SMS_CODE_TTL_MS = 10 * 60 * 1000;
/** Guesses per code (the right one included): 5 wrong ones and it is dead. */
export const SMS_CODE_MAX_ATTEMPTS = 5;
/** Codes this long past expiry are deleted when a new code is made. */
const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

export const codeHash = (key: Uint8Array, id: string, phone: string, code: string): string =>
  crypto.createHmac('sha256', key).update(`${id}:${phone}:${code}`).digest('base64url');

const sixDigits = (): string => String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * For a phone (E.164) that an account has: a new code, valid for SMS_CODE_TTL_MS, replacing any
 * older code of the phone; only its keyed hash is stored. For a phone no account has: null, and
 * nothing is written (nothing is sent, so svc cannot be used to text arbitrary numbers).
 */
export async function createSmsCode(db: Db, key: Uint8Array, phone: string, now = Date.now()): Promise<{ code: string; userId: string } | null> {
  const user = await db.selectFrom('users').select('id').where('phone', '=', phone).executeTakeFirst();
  if (!user) return null;
  const at = new Date(now).toISOString();
  await db.deleteFrom('sms_codes').where('expires_at', '<', new Date(now - PURGE_AFTER_MS).toISOString()).execute();
  // Concurrent starts for one phone take turns: on PostgreSQL each locks the account's row first
  // (SQLite runs one write transaction at a time anyway). The unique index on live codes is the
  // backstop: an insert it refuses retries, superseding the other code (the newest start wins).
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (let round = 0; ; round += 1) {
    const id = newId();
    const code = sixDigits();
    try {
      await transaction(db, async (trx) => {
        if (postgres) await trx.selectFrom('users').select('id').where('id', '=', user.id).forUpdate().execute();
        await trx.updateTable('sms_codes').set({ superseded_at: at })
          .where('phone', '=', phone).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
        await trx.insertInto('sms_codes').values({
          id, phone, user_id: user.id, code_hash: codeHash(key, id, phone, code), created_at: at,
          expires_at: new Date(now + SMS_CODE_TTL_MS).toISOString(), used_at: null, superseded_at: null,
        }).execute();
      });
      return { code, userId: user.id };
    } catch (err) {
      if (!isUniqueViolation(err) || round >= 3) throw err;
    }
  }
}

/**
 * The user a correct, unexpired, unused, live code of this phone signs in, or null for anything
 * else (no code, wrong code, expired, used, superseded, out of attempts, phone since moved to
 * another account or removed). Each call spends one attempt of the live code first, in one
 * conditional UPDATE, so concurrent guesses never exceed SMS_CODE_MAX_ATTEMPTS; a right code is
 * then claimed by a second conditional UPDATE, which exactly one of concurrent uses wins.
 */
export async function verifySmsCode(db: Db, key: Uint8Array, phone: string, code: string, now = Date.now()): Promise<string | null> {
  const at = new Date(now).toISOString();
  const live = await db.updateTable('sms_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('phone', '=', phone).where('used_at', 'is', null).where('superseded_at', 'is', null)
    .where('expires_at', '>', at).where('attempts', '<', SMS_CODE_MAX_ATTEMPTS)
    .returning(['id', 'code_hash', 'user_id'])
    .executeTakeFirst();
  if (!live) return null;
  const expected = Buffer.from(live.code_hash);
  const given = Buffer.from(codeHash(key, live.id, phone, code));
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
  const claimed = await db.updateTable('sms_codes').set({ used_at: at })
    .where('id', '=', live.id).where('used_at', 'is', null).where('superseded_at', 'is', null).where('expires_at', '>', at)
    .returning('user_id')
    .executeTakeFirst();
  if (!claimed) return null;
  // The phone must still be this account's: a number moved to someone else signs in no one.
  const user = await db.selectFrom('users').select('id').where('id', '=', claimed.user_id).where('phone', '=', phone).executeTakeFirst();
  return user?.id ?? null;
}
