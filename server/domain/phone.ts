// A signed-in user adds a phone number by proving they hold it: a 6-digit code texted to the
// number (the same codes as SMS sign-in, ./sms-sign-in.ts, with purpose VERIFY_PHONE), typed back
// by the same user. Only then is `users.phone` set, and from then on the number signs in to the
// account. No HTTP here; server/site/visitor.ts decides what the visitor is told.
//
// A number verified by another account is refused (`in_use`), never moved: moving it would let
// whoever holds the number now take it off an account that may still depend on it for signing in,
// without that account's owner ever being asked. The refusal comes only once the code is right,
// i.e. to someone who holds the number, so it cannot be used to probe which numbers have accounts.
import type { Db, Trx } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import { Refusal } from './refusal.ts';
import { issueSmsCode, spendSmsCode } from './sms-sign-in.ts';

/**
 * A new verification code for `phone`, made for `userId`, replacing any code the user asked for
 * before (for this or another number). Whether another account has the number is not looked at:
 * the answer to the start must not depend on it.
 */
export async function startPhoneVerification(
  db: Db,
  key: Uint8Array,
  userId: string,
  phone: string,
  now = Date.now(),
): Promise<string> {
  return issueSmsCode(db, key, { phone, userId, purpose: 'VERIFY_PHONE' }, now);
}

/**
 * Spends one guess of the user's live verification code for `phone`; true when the code was right
 * (and is now used). Sign-in codes never match: they have another purpose.
 */
export async function checkPhoneCode(
  db: Db,
  key: Uint8Array,
  userId: string,
  phone: string,
  code: string,
  now = Date.now(),
): Promise<boolean> {
  return (await spendSmsCode(db, key, { phone, purpose: 'VERIFY_PHONE', userId }, code, now)) === userId;
}

/**
 * Makes `phone` the user's (replacing any number they had); refused (phone_in_use) when another account has it. The
 * unique index on `users.phone` settles two users verifying one number at once: the loser's
 * UPDATE fails, which {@link isPhoneTaken} recognises once the transaction has rolled back.
 */
export async function attachPhone(trx: Trx, userId: string, phone: string): Promise<void> {
  const holder = await trx
    .selectFrom('users')
    .select('id')
    .where('phone', '=', phone)
    .where('id', '!=', userId)
    .executeTakeFirst();
  if (holder) throw new Refusal('phone_in_use');
  await trx.updateTable('users').set({ phone }).where('id', '=', userId).execute();
}

/** True when `err` is attachPhone losing the race for a number to another account. */
export const isPhoneTaken = (err: unknown): boolean => isUniqueViolation(err);

/**
 * Removes the user's phone: it no longer signs in. Live sign-in codes sent to it die with it
 * (verifySmsCode checks the account still has the number).
 */
export async function removePhone(trx: Trx, userId: string): Promise<void> {
  await trx.updateTable('users').set({ phone: null }).where('id', '=', userId).execute();
}
