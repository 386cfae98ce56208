// Accounts: e-mail + password sign-up and sign-in, password reset by e-mail, and revoking
// sessions. No HTTP here; the site routes (server/site/auth.ts) call these and decide what the
// visitor is told. Passwords are stored only as scrypt hashes (passwords.ts); reset tokens only
// as sha256 hashes (they are 256 random bits, so a fast hash is enough).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { isUniqueViolation, transaction, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { Refusal } from './refusal.ts';
import { SESSION_MAX_SECONDS, type SessionClaims, type SessionSite, type SessionTokens } from './sessions.ts';

/** A reset link works once, within this. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

/** Usertags that would read as something else in URLs and the UI. */
const RESERVED_USERTAGS = new Set([
  'admin',
  'administrator',
  'api',
  'auth',
  'me',
  'moderator',
  'new',
  'null',
  'root',
  'settings',
  'sign-in',
  'sign-up',
  'support',
  'svc',
  'system',
  'undefined',
  'user',
  'users',
]);

/** E-mail addresses compare case-insensitively; they are stored lowercased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('base64url');

/** The users.email comparison the unique index `users_email_lower` serves. */
const LOWER_EMAIL = sql<string>`lower(email)`;

// ---------------------------------------------------------------------------------------------
// Sign-in

let dummyHash: Promise<string> | null = null;
/** A hash of nothing anyone knows: checked when there is no password to check, so timing does not tell. */
const dummy = (): Promise<string> => (dummyHash ??= hashPassword(crypto.randomBytes(32).toString('base64')));

/**
 * The user whose e-mail and password these are, or null. An unknown e-mail, an account without a
 * password and a wrong password cost the same: one scrypt verification.
 */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<string | null> {
  const user = await db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where(LOWER_EMAIL, '=', normalizeEmail(email))
    .executeTakeFirst();
  const stored = user?.password_hash ?? null;
  const ok = await verifyPassword(password, stored ?? (await dummy()));
  return user && stored !== null && ok ? user.id : null;
}

// ---------------------------------------------------------------------------------------------
// Sign-up

/** `Ada Lovelace` -> `ada-lovelace`: lowercase ASCII letters and digits joined by `-`, 2-24 chars. */
export function usertagFromName(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  const tag = ascii
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 24)
    .replace(/-+$/, '');
  return tag.length >= 2 ? tag : 'user';
}

export const isReservedUsertag = (tag: string): boolean => RESERVED_USERTAGS.has(tag);

const randomDigits = (n: number) => String(crypto.randomInt(0, 10 ** n)).padStart(n, '0');

/** The name itself if free, else the name with a short random number; never a reserved tag. */
async function freeUsertag(db: Db, name: string, round: number): Promise<string> {
  const base = usertagFromName(name);
  const digits = 4 + round;
  const candidates = [
    ...(round === 0 && !isReservedUsertag(base) ? [base] : []),
    ...Array.from({ length: 8 }, () => `${base}-${randomDigits(digits)}`),
  ];
  const taken = new Set(
    (await db.selectFrom('users').select('usertag').where('usertag', 'in', candidates).execute()).map((u) => u.usertag),
  );
  return candidates.find((c) => !taken.has(c)) ?? candidates[candidates.length - 1];
}

async function emailTaken(db: Db, email: string): Promise<boolean> {
  return Boolean(
    await db.selectFrom('users').select('id').where(LOWER_EMAIL, '=', normalizeEmail(email)).executeTakeFirst(),
  );
}

/**
 * Creates the user. The e-mail is unique case-insensitively (a unique index holds it); the usertag
 * is the one asked for (taken or reserved: refused) or one made from the name, retried on a race.
 * `passwordHash` is made by the caller, before any lookup, so a taken e-mail costs the same time.
 */
export async function createAccount(
  db: Db,
  input: { email: string; passwordHash: string; name: string; usertag?: string },
): Promise<{ userId: string; usertag: string }> {
  const email = normalizeEmail(input.email);
  if (await emailTaken(db, email)) throw new Refusal('email_in_use');
  if (input.usertag !== undefined && isReservedUsertag(input.usertag)) throw new Refusal('usertag_taken');
  for (let round = 0; round < 4; round += 1) {
    const usertag = input.usertag ?? (await freeUsertag(db, input.name, round));
    const id = newId();
    try {
      await db
        .insertInto('users')
        .values({
          id,
          email,
          name: input.name,
          usertag,
          profile_image: null,
          bio: null,
          phone: null,
          password_hash: input.passwordHash,
          created_at: nowIso(),
        })
        .execute();
      return { userId: id, usertag };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Someone took the e-mail or the usertag in between: say which, or try another tag.
      if (await emailTaken(db, email)) throw new Refusal('email_in_use');
      if (input.usertag !== undefined) throw new Refusal('usertag_taken');
    }
  }
  throw new Error('could not find a free usertag');
}

// ---------------------------------------------------------------------------------------------
// Sessions: issuing after a revocation, and revoking

/**
 * Issues a token that outlives the user's last "revoke everything": revocation voids tokens with
 * `iat` up to a second, so a token issued in that same second is stamped with the next one.
 * The token is bound to `opts.site` (a community tag, or null for the platform); left out, to
 * the site of the request being served (SessionTokens.issue).
 */
export async function issueSession(
  db: Db,
  tokens: SessionTokens,
  userId: string,
  opts: { site?: SessionSite } = {},
): Promise<{ token: string; expiresAt: Date }> {
  const row = await db
    .selectFrom('session_revocations')
    .select('tokens_valid_after')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const now = Date.now();
  const after = row ? Number(row.tokens_valid_after) : -Infinity;
  return tokens.issue(userId, Math.floor(now / 1000) > after ? now : (after + 1) * 1000, undefined, opts.site);
}

/** Voids every token of the user issued up to now (sign out everywhere, password reset). */
export async function revokeAllSessions(db: Db | Trx, userId: string, now = Date.now()): Promise<void> {
  const seconds = Math.floor(now / 1000);
  await db
    .insertInto('session_revocations')
    .values({ user_id: userId, tokens_valid_after: seconds, updated_at: new Date(now).toISOString() })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ tokens_valid_after: seconds, updated_at: new Date(now).toISOString() }),
    )
    .execute();
}

/**
 * Voids one session, every refreshed copy included (sign-out). The row lasts until the session's
 * last possible expiry (90 days after its sign-in); the scheduled purge deletes it after that
 * (server/maintenance/purge.ts). No read needs to skip an expired one: no token of that session
 * verifies any more (userForToken checks the token before the row).
 */
export async function revokeSession(db: Db | Trx, claims: SessionClaims): Promise<void> {
  await db
    .insertInto('revoked_tokens')
    .values({
      session_id: claims.sid,
      user_id: claims.userId,
      expires_at: new Date((claims.authTime + SESSION_MAX_SECONDS) * 1000).toISOString(),
    })
    .onConflict((oc) => oc.column('session_id').doNothing())
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Password reset

/**
 * For a known e-mail: a new single-use token (32 random bytes, base64url; only its hash is
 * stored), valid for an hour, with the address to send it to. For an unknown one: null.
 */
export async function createPasswordReset(
  db: Db,
  email: string,
  now = Date.now(),
): Promise<{ token: string; email: string } | null> {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where(LOWER_EMAIL, '=', normalizeEmail(email))
    .executeTakeFirst();
  if (!user) return null;
  const token = crypto.randomBytes(32).toString('base64url');
  await db
    .insertInto('password_resets')
    .values({
      id: newId(),
      user_id: user.id,
      token_hash: sha256(token),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + PASSWORD_RESET_TTL_MS).toISOString(),
      used_at: null,
    })
    .execute();
  return { token, email: user.email };
}

/**
 * Consumes the token and sets the new password, in one transaction: the conditional UPDATE
 * (`used_at is null and expires_at > now`) lets exactly one of any number of concurrent uses win.
 * Every other open reset of the user is closed and every session signed out. Returns the user,
 * or null for an unknown, used or expired token.
 */
export async function confirmPasswordReset(db: Db, token: string, passwordHash: string): Promise<string | null> {
  return transaction(db, async (trx) => {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const claimed = await trx
      .updateTable('password_resets')
      .set({ used_at: at })
      .where('token_hash', '=', sha256(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .returning('user_id')
      .executeTakeFirst();
    if (!claimed) return null;
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', claimed.user_id).execute();
    await trx
      .updateTable('password_resets')
      .set({ used_at: at })
      .where('user_id', '=', claimed.user_id)
      .where('used_at', 'is', null)
      .execute();
    await revokeAllSessions(trx, claimed.user_id, now);
    return claimed.user_id;
  });
}
