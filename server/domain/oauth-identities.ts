// Which account a Google / Slack / Discord user signs in to, linking, and unlinking
// (docs/sign-in.md, "Linking rules"). No HTTP here: the site routes (server/site/oauth.ts) call
// these once the provider has vouched for the identity, and issue the session themselves.
//
// Signing in (signInWithIdentity), in this order:
// 1. A known (provider, subject) is that account, always (a changed e-mail at the provider
//    changes nothing).
// 2. An e-mail the provider says it verified, equal to an account's e-mail, links to that account,
//    and takes from it whatever could sign in without that mailbox: the password (and, if it had
//    one, its phone and other linked identities), and every session. Sign-up does not verify
//    e-mail, so that account may have been made by someone else, waiting for the real owner to
//    sign in with a provider ("pre-hijacking"); the provider's verification is the first proof
//    that its owner holds the mailbox.
// 3. An e-mail the provider does not vouch for never links to an existing account and never
//    makes one: it is refused. Storing it as a new account's address would let whoever owns the
//    real mailbox take the account by password reset, or lock them out of signing up.
// 4. Otherwise a new account is made with the verified e-mail, its usertag from the name as
//    sign-up makes it.
//
// Linking (linkIdentity) is only ever asked for by a recently signed-in platform session (the
// route checks that): the identity joins that account unless it is another account's.
import crypto from 'node:crypto';
import { PostgresAdapter, sql } from 'kysely';
import { Email } from '../../contract/common.ts';
import { isUniqueViolation, transaction, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import { isReservedUsertag, normalizeEmail, revokeAllSessions, usertagFromName } from './accounts.ts';
import { Refusal } from './refusal.ts';

export interface ExternalIdentity {
  provider: string;
  /** The provider's stable user id. */
  subject: string;
  email: string | null;
  /** The provider says it verified `email`. */
  emailVerified: boolean;
  name: string | null;
}

export type IdentitySignIn =
  { ok: true; userId: string; how: 'known' | 'email_match' | 'created' } | { ok: false; reason: 'email_unverified' };

export type IdentityLink =
  { ok: true; how: 'linked' | 'already_linked' } | { ok: false; reason: 'identity_in_use' | 'account_gone' };

/** An identity just joined an existing account: what its owner is told. */
export interface LinkedIdentity {
  userId: string;
  /** The account's e-mail address. */
  email: string;
  provider: string;
  how: 'linked' | 'email_match';
  /** E-mail match only: the account's password, phone and other identities were removed. */
  credentialsRemoved: boolean;
}

/**
 * Runs inside the transaction that links, so what it writes (the e-mail to the owner, through the
 * outbox) commits or rolls back with the link.
 */
export type OnLinked = (trx: Trx, linked: LinkedIdentity) => Promise<void>;

const LOWER_EMAIL = sql<string>`lower(email)`;
const NAME_MAX = 100;

/**
 * A unique violation is a concurrent flow (or sign-up) that got there first: on PostgreSQL it
 * aborts the transaction, so the whole decision runs again and sees what the other one wrote.
 */
async function retried<T>(db: Db, run: (trx: Trx, round: number) => Promise<T>): Promise<T> {
  for (let round = 0; round < 4; round += 1) {
    try {
      return await transaction(db, (trx) => run(trx, round));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error('could not link the identity after 4 attempts');
}

/** The account `identity` signs in to, per the rules above; `onLinked` runs when rule 2 links. */
export async function signInWithIdentity(
  db: Db,
  identity: ExternalIdentity,
  onLinked?: OnLinked,
): Promise<IdentitySignIn> {
  return retried(db, async (trx, round) => {
    const known = await ownerOf(trx, identity);
    if (known) return { ok: true, userId: known, how: 'known' };

    const email = usableEmail(identity);
    if (!email) return { ok: false, reason: 'email_unverified' };
    const existing = await trx
      .selectFrom('users')
      .select(['id', 'email', 'password_hash'])
      .where(LOWER_EMAIL, '=', email)
      .executeTakeFirst();
    if (existing) {
      const credentialsRemoved = await takeOverByMailbox(trx, existing);
      await addIdentity(trx, identity, existing.id);
      await onLinked?.(trx, {
        userId: existing.id,
        email: existing.email,
        provider: identity.provider,
        how: 'email_match',
        credentialsRemoved,
      });
      return { ok: true, userId: existing.id, how: 'email_match' };
    }
    const userId = await createUser(trx, email, displayName(identity, email), round);
    await addIdentity(trx, identity, userId);
    return { ok: true, userId, how: 'created' };
  });
}

/**
 * Links `identity` to `userId` (a platform session that signed in within the last minutes asked
 * for it); refused when it is another account's. The provider need not vouch for an e-mail: the
 * account is already proven by its session.
 */
export async function linkIdentity(
  db: Db,
  identity: ExternalIdentity,
  userId: string,
  onLinked?: OnLinked,
): Promise<IdentityLink> {
  return retried(db, async (trx) => {
    const known = await ownerOf(trx, identity);
    if (known) return known === userId ? { ok: true, how: 'already_linked' } : { ok: false, reason: 'identity_in_use' };
    const user = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
    // Deleted since its session was checked: nothing to link to.
    if (!user) return { ok: false, reason: 'account_gone' };
    await addIdentity(trx, identity, userId);
    await onLinked?.(trx, {
      userId,
      email: user.email,
      provider: identity.provider,
      how: 'linked',
      credentialsRemoved: false,
    });
    return { ok: true, how: 'linked' };
  });
}

/**
 * Removes the user's identities of `provider`, unless the account would be left with no password
 * and no identity of another provider (a phone does not count: it can be removed without this
 * check, and then nothing would be left). A password reset by e-mail would still get such an
 * account back; refusing keeps the user from locking themselves out by accident.
 */
export async function unlinkProvider(trx: Trx, userId: string, provider: string): Promise<void> {
  // Two unlinks of different providers at once must not each count the other's identity as the
  // one left: on PostgreSQL they take turns on the user's row (SQLite runs one write transaction
  // at a time anyway).
  const locked = trx.selectFrom('users').select('password_hash').where('id', '=', userId);
  const user = await (
    trx.getExecutor().adapter instanceof PostgresAdapter ? locked.forUpdate() : locked
  ).executeTakeFirst();
  if (!user) throw new Refusal('oauth_not_linked');
  const identities = await trx
    .selectFrom('oauth_identities')
    .select('provider')
    .where('user_id', '=', userId)
    .execute();
  if (!identities.some((i) => i.provider === provider)) throw new Refusal('oauth_not_linked');
  if (user.password_hash === null && !identities.some((i) => i.provider !== provider))
    throw new Refusal('last_sign_in_method');
  await trx.deleteFrom('oauth_identities').where('user_id', '=', userId).where('provider', '=', provider).execute();
}

async function ownerOf(trx: Trx, identity: ExternalIdentity): Promise<string | null> {
  const row = await trx
    .selectFrom('oauth_identities')
    .select('user_id')
    .where('provider', '=', identity.provider)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/**
 * Rule 2: the mailbox's owner has just proven it, so nothing set on the account before may keep
 * signing in to it without them. Every session is signed out and the password cleared (they can
 * set one again with a reset, which goes to that mailbox). An account that had a password may
 * have been made by someone else with this address; its phone and other linked identities are
 * theirs as much as the password, so they go too. An account without one was made by a provider
 * sign-in that verified this address (or was cleared like this before): what it holds was added
 * by the mailbox's owner and stays. Returns whether anything was removed.
 */
async function takeOverByMailbox(trx: Trx, user: { id: string; password_hash: string | null }): Promise<boolean> {
  await revokeAllSessions(trx, user.id);
  if (user.password_hash === null) return false;
  await trx.updateTable('users').set({ password_hash: null, phone: null }).where('id', '=', user.id).execute();
  await trx.deleteFrom('oauth_identities').where('user_id', '=', user.id).execute();
  return true;
}

/** The verified e-mail, lowercased, if it is one the rest of svc accepts; else null. */
function usableEmail(identity: ExternalIdentity): string | null {
  if (!identity.emailVerified || !identity.email) return null;
  const email = normalizeEmail(identity.email);
  return Email.safeParse(email).success ? email : null;
}

function displayName(identity: ExternalIdentity, email: string): string {
  const name = identity.name?.replace(/\s+/g, ' ').trim().slice(0, NAME_MAX).trim();
  return name || email.split('@')[0].slice(0, NAME_MAX);
}

async function addIdentity(trx: Trx, identity: ExternalIdentity, userId: string): Promise<void> {
  await trx
    .insertInto('oauth_identities')
    .values({
      id: newId(),
      provider: identity.provider,
      subject: identity.subject,
      user_id: userId,
      email: identity.email ? identity.email.slice(0, 320) : null,
      created_at: nowIso(),
    })
    .execute();
}

const randomDigits = (n: number) => String(crypto.randomInt(0, 10 ** n)).padStart(n, '0');

/**
 * A new account without a password, its usertag made as sign-up makes it: the name's own tag if
 * free, else with a random suffix that grows with each retry.
 */
async function createUser(trx: Trx, email: string, name: string, round: number): Promise<string> {
  const base = usertagFromName(name);
  const candidates = [
    ...(round === 0 && !isReservedUsertag(base) ? [base] : []),
    ...Array.from({ length: 8 }, () => `${base}-${randomDigits(4 + round)}`),
  ];
  const taken = new Set(
    (await trx.selectFrom('users').select('usertag').where('usertag', 'in', candidates).execute()).map(
      (u) => u.usertag,
    ),
  );
  const usertag = candidates.find((c) => !taken.has(c)) ?? candidates[candidates.length - 1];
  const id = newId();
  await trx
    .insertInto('users')
    .values({
      id,
      email,
      name,
      usertag,
      profile_image: null,
      bio: null,
      phone: null,
      password_hash: null,
      created_at: nowIso(),
    })
    .execute();
  return id;
}
