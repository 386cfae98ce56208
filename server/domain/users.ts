// Users: the owner's own view (with private fields) and, later, public profiles without them.
import type { Db, Trx } from '../db/index.ts';

export interface OwnProfile {
  id: string; usertag: string; name: string; email: string; phone: string | null;
  profileImage: string | null; bio: string | null; createdAt: string;
}

export async function getOwnProfile(db: Db | Trx, userId: string): Promise<OwnProfile | null> {
  const u = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!u) return null;
  return {
    id: u.id, usertag: u.usertag, name: u.name, email: u.email, phone: u.phone,
    profileImage: u.profile_image, bio: u.bio, createdAt: u.created_at,
  };
}

export async function updateOwnProfile(
  trx: Trx, userId: string, change: { name?: string; bio?: string | null; profileImage?: string | null },
): Promise<OwnProfile | null> {
  const set = {
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.bio !== undefined ? { bio: change.bio } : {}),
    ...(change.profileImage !== undefined ? { profile_image: change.profileImage } : {}),
  };
  if (Object.keys(set).length > 0) await trx.updateTable('users').set(set).where('id', '=', userId).execute();
  return getOwnProfile(trx, userId);
}
