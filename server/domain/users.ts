// Users: the owner's own view (with private fields) and public profiles without them.
import type { Db, Trx } from '../db/index.ts';

export interface OwnProfile {
  id: string;
  usertag: string;
  name: string;
  email: string;
  phone: string | null;
  profileImage: string | null;
  bio: string | null;
  createdAt: string;
}

export async function getOwnProfile(db: Db | Trx, userId: string): Promise<OwnProfile | null> {
  const u = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!u) return null;
  return {
    id: u.id,
    usertag: u.usertag,
    name: u.name,
    email: u.email,
    phone: u.phone,
    profileImage: u.profile_image,
    bio: u.bio,
    createdAt: u.created_at,
  };
}

export async function updateOwnProfile(
  trx: Trx,
  userId: string,
  change: { name?: string; bio?: string | null; profileImage?: string | null },
): Promise<OwnProfile | null> {
  const set = {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.bio !== undefined ? { bio: change.bio } : {}),
    ...(change.profileImage !== undefined ? { profile_image: change.profileImage } : {}),
  };
  if (Object.keys(set).length > 0) await trx.updateTable('users').set(set).where('id', '=', userId).execute();
  return getOwnProfile(trx, userId);
}

/**
 * How to reach a signed-in buyer or donor: their account's address (lower case) and name, which
 * a purchase or donation they make as themselves uses. Null when the account is gone.
 */
export async function accountContact(db: Db | Trx, userId: string): Promise<{ email: string; name: string } | null> {
  const u = await db.selectFrom('users').select(['email', 'name']).where('id', '=', userId).executeTakeFirst();
  return u ? { email: u.email.toLowerCase(), name: u.name } : null;
}

/** What anyone but the user may see: never e-mail, phone or other private fields. */
export interface PublicProfile {
  id: string;
  usertag: string;
  name: string;
  profileImage: string | null;
}

/** The only columns public profiles are built from, so a private field cannot slip in. */
const PUBLIC_COLUMNS = ['id', 'usertag', 'name', 'profile_image'] as const;

function toPublicProfile(u: {
  id: string;
  usertag: string;
  name: string;
  profile_image: string | null;
}): PublicProfile {
  return { id: u.id, usertag: u.usertag, name: u.name, profileImage: u.profile_image };
}

export async function findPublicProfileByUsertag(db: Db | Trx, usertag: string): Promise<PublicProfile | null> {
  const u = await db.selectFrom('users').select(PUBLIC_COLUMNS).where('usertag', '=', usertag).executeTakeFirst();
  return u ? toPublicProfile(u) : null;
}

/** Public profiles of many users in one query, by id; ids of users that are gone are absent. */
export async function publicProfiles(db: Db | Trx, ids: Iterable<string>): Promise<Map<string, PublicProfile>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, PublicProfile>();
  if (unique.length === 0) return out;
  const rows = await db.selectFrom('users').select(PUBLIC_COLUMNS).where('id', 'in', unique).execute();
  for (const u of rows) out.set(u.id, toPublicProfile(u));
  return out;
}

/** Public profiles by usertag in one query; usertags without a user are absent. */
export async function publicProfilesByUsertag(
  db: Db | Trx,
  usertags: Iterable<string>,
): Promise<Map<string, PublicProfile>> {
  const unique = [...new Set(usertags)];
  const out = new Map<string, PublicProfile>();
  if (unique.length === 0) return out;
  const rows = await db.selectFrom('users').select(PUBLIC_COLUMNS).where('usertag', 'in', unique).execute();
  for (const u of rows) out.set(u.usertag, toPublicProfile(u));
  return out;
}
