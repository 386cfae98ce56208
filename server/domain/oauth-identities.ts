// Which account a Google / Slack / Discord user signs in to (docs/sign-in.md, "Linking rules").
// No HTTP here: the site routes (server/site/oauth.ts) call signInWithIdentity once the provider
// has vouched for the identity, and issue the session themselves.
//
// 1. A known (provider, subject) is that account, always (a changed e-mail at the provider
//    changes nothing).
// 2. A signed-in visitor who started the flow links the identity to their own account, unless
//    it already belongs to another account.
// 3. An e-mail the provider says it verified, equal to an account's e-mail, links to that account.
// 4. An e-mail the provider does not vouch for never links to an existing account and never
//    makes one: it is refused. Storing it as a new account's address would let whoever owns the
//    real mailbox take the account by password reset, or lock them out of signing up.
// 5. Otherwise a new account is made with the verified e-mail, its usertag from the name as
//    sign-up makes it.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { Email } from '../../contract/common.ts';
import { isUniqueViolation, transaction, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import { isReservedUsertag, normalizeEmail, usertagFromName } from './accounts.ts';

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
  | { ok: true; userId: string; how: 'known' | 'linked' | 'email_match' | 'created' }
  | { ok: false; reason: 'identity_in_use' | 'email_unverified' };

const LOWER_EMAIL = sql<string>`lower(email)`;
const NAME_MAX = 100;

/** The account `identity` signs in to (or is linked to, with `linkUserId`), per the rules above. */
export async function signInWithIdentity(db: Db, identity: ExternalIdentity, linkUserId: string | null): Promise<IdentitySignIn> {
  // A unique violation is a concurrent flow (or sign-up) that got there first: on PostgreSQL it
  // aborts the transaction, so the whole decision runs again and sees what the other one wrote.
  for (let round = 0; round < 4; round += 1) {
    try {
      return await transaction(db, (trx) => decide(trx, identity, linkUserId, round));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error('could not link the identity after 4 attempts');
}

async function decide(trx: Trx, identity: ExternalIdentity, linkUserId: string | null, round: number): Promise<IdentitySignIn> {
  const known = await trx.selectFrom('oauth_identities').select('user_id')
    .where('provider', '=', identity.provider).where('subject', '=', identity.subject)
    .executeTakeFirst();
  if (linkUserId) {
    if (known) return known.user_id === linkUserId ? { ok: true, userId: linkUserId, how: 'known' } : { ok: false, reason: 'identity_in_use' };
    await addIdentity(trx, identity, linkUserId);
    return { ok: true, userId: linkUserId, how: 'linked' };
  }
  if (known) return { ok: true, userId: known.user_id, how: 'known' };

  const email = usableEmail(identity);
  if (!email) return { ok: false, reason: 'email_unverified' };
  const existing = await trx.selectFrom('users').select('id').where(LOWER_EMAIL, '=', email).executeTakeFirst();
  if (existing) {
    await addIdentity(trx, identity, existing.id);
    return { ok: true, userId: existing.id, how: 'email_match' };
  }
  const userId = await createUser(trx, email, displayName(identity, email), round);
  await addIdentity(trx, identity, userId);
  return { ok: true, userId, how: 'created' };
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
  await trx.insertInto('oauth_identities').values({
    id: newId(), provider: identity.provider, subject: identity.subject, user_id: userId,
    email: identity.email ? identity.email.slice(0, 320) : null, created_at: nowIso(),
  }).execute();
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
  const taken = new Set((await trx.selectFrom('users').select('usertag').where('usertag', 'in', candidates).execute()).map((u) => u.usertag));
  const usertag = candidates.find((c) => !taken.has(c)) ?? candidates[candidates.length - 1];
  const id = newId();
  await trx.insertInto('users').values({
    id, email, name, usertag, profile_image: null, bio: null, phone: null, password_hash: null, created_at: nowIso(),
  }).execute();
  return id;
}

/** The providers linked to an account (for support and tests). */
export async function identitiesOf(db: Db, userId: string): Promise<{ provider: string; subject: string; email: string | null }[]> {
  return db.selectFrom('oauth_identities').select(['provider', 'subject', 'email'])
    .where('user_id', '=', userId).orderBy('created_at').execute();
}
