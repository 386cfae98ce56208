// The public member directory. Rows are built from an explicit column list and copied field by
// field into the response, so a column added to users or memberships later (payment ids,
// verification flags) cannot reach the directory by accident.
import type { Member } from '../../contract/resources.ts';
import type { Db } from '../db/index.ts';
import { listCount } from './list-counts.ts';

export interface MemberPage {
  items: Member[];
  total: number;
  hasMore: boolean;
}

/** The ACCEPTED memberships of a community with their users: the only rows either read starts from. */
const acceptedOf = (db: Db, communityId: string) =>
  db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .where('memberships.community_id', '=', communityId)
    .where('memberships.status', '=', 'ACCEPTED');

/** The directory's columns, and nothing else. */
const PUBLIC_COLUMNS = [
  'users.id as userId',
  'users.name',
  'users.usertag',
  'users.profile_image',
  'users.bio',
] as const;

type PublicRow = {
  userId: string;
  name: string;
  usertag: string;
  profile_image: string | null;
  bio: string | null;
  joinedAt: string;
};

const toMember = (r: PublicRow): Member => ({
  userId: r.userId,
  name: r.name,
  usertag: r.usertag,
  profileImage: r.profile_image,
  bio: r.bio,
  joinedAt: r.joinedAt,
});

export async function listAccepted(
  db: Db,
  communityId: string,
  q: { limit: number; offset: number },
): Promise<MemberPage> {
  // The total is the trigger-kept count of ACCEPTED memberships (list-counts.ts); the page reads
  // memberships_joined in its order, one user row per member shown.
  const total = await listCount(db, communityId, 'members');
  const rows = await acceptedOf(db, communityId)
    .select(PUBLIC_COLUMNS)
    // A membership accepted before accepted_at was recorded joined when it was created.
    .select((eb) => eb.fn.coalesce('memberships.accepted_at', 'memberships.created_at').as('joinedAt'))
    .orderBy('joinedAt')
    .orderBy('memberships.id')
    .limit(q.limit + 1)
    .offset(q.offset)
    .execute();
  return {
    items: rows.slice(0, q.limit).map(toMember),
    total,
    hasMore: rows.length > q.limit,
  };
}

/** One ACCEPTED member's public profile (the directory's fields), or null for anyone else. */
export async function getAcceptedMember(db: Db, communityId: string, usertag: string): Promise<Member | null> {
  const row = await acceptedOf(db, communityId)
    .where('users.usertag', '=', usertag)
    .select(PUBLIC_COLUMNS)
    .select((eb) => eb.fn.coalesce('memberships.accepted_at', 'memberships.created_at').as('joinedAt'))
    .executeTakeFirst();
  return row ? toMember(row) : null;
}
