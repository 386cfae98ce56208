// Invite links (docs/leader-console.md, "Invite links"): an INVITE_ONLY community's way in. A
// leader makes a link; `/join/<code>` on the community's site makes a signed-in visitor an ACCEPTED
// member. The code is 256 random bits and only its SHA-256 is stored (hashKey, as API keys:
// docs/decisions/0003), so neither the database nor the audit log ever yields a working link.
//
// A join takes one use with a conditional UPDATE (not revoked, not expired, under the limit) in the
// transaction that makes the membership, so N concurrent joins of a link with N uses left all
// succeed and the (N+1)th is told it is used up; a join that fails after taking its use rolls the
// use back with everything else.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { CreateInviteLink, InviteLink } from '../../contract/routes/admin-invites.ts';
import { INVITE_LIMITS } from '../../contract/routes/admin-invites.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { InviteLinksTable } from '../db/schema-invites.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { membershipEmail } from '../mail/membership-email.ts';
import { emit } from '../webhooks/emit.ts';
import { hashKey } from './api-keys.ts';
import { offeredCycles } from './applications.ts';
import { Refusal } from './refusal.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Characters of the code the console shows after creation (36 of its 256 bits). */
const PREFIX_LENGTH = 6;

/** A code as `/join/<code>` carries it: 43 base64url characters. Anything else is no code of ours. */
export const INVITE_CODE = /^[A-Za-z0-9_-]{43}$/;

export const joinPath = (code: string): string => `/join/${code}`;

type Row = InviteLinksTable & { creator_name: string | null };

export function inviteStatus(
  row: Pick<InviteLinksTable, 'revoked_at' | 'expires_at' | 'max_uses' | 'uses'>,
  now = Date.now(),
) {
  if (row.revoked_at !== null) return 'REVOKED' as const;
  if (Date.parse(row.expires_at) <= now) return 'EXPIRED' as const;
  if (row.max_uses !== null && Number(row.uses) >= Number(row.max_uses)) return 'USED_UP' as const;
  return 'ACTIVE' as const;
}

function toInvite(row: Row, now = Date.now()): InviteLink {
  return {
    id: row.id,
    prefix: row.code_prefix,
    status: inviteStatus(row, now),
    segmentId: row.segment_id,
    note: row.note,
    expiresAt: row.expires_at,
    maxUses: row.max_uses === null ? null : Number(row.max_uses),
    uses: Number(row.uses),
    createdBy: { userId: row.created_by, name: row.creator_name },
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

const selectInvites = (db: Db | Trx) =>
  db
    .selectFrom('invite_links as i')
    .leftJoin('users as u', 'u.id', 'i.created_by')
    .selectAll('i')
    .select('u.name as creator_name');

/** What the audit log keeps of a link: never its code or hash. */
export const auditedInvite = (i: InviteLink) => ({
  prefix: i.prefix,
  segmentId: i.segmentId,
  note: i.note,
  expiresAt: i.expiresAt,
  maxUses: i.maxUses,
  uses: i.uses,
  revokedAt: i.revokedAt,
});

async function accessibilityOf(db: Db | Trx, communityId: string) {
  const c = await db
    .selectFrom('communities')
    .select(['id', 'tag', 'name', 'accessibility'])
    .where('id', '=', communityId)
    .executeTakeFirst();
  if (!c) throw new Refusal('community_not_found');
  return c;
}

/** A new link and its code (returned this once). Refused unless the community is INVITE_ONLY. */
export async function createInvite(
  trx: Trx,
  actor: { userId: string; communityId: string },
  input: CreateInviteLink,
  now = Date.now(),
): Promise<{ invite: InviteLink; code: string }> {
  const community = await accessibilityOf(trx, actor.communityId);
  if (community.accessibility !== 'INVITE_ONLY')
    throw new Refusal('invites_need_invite_only', { accessibility: community.accessibility });
  if (input.segmentId !== undefined) {
    const segment = await trx
      .selectFrom('segments')
      .selectAll()
      .where('community_id', '=', actor.communityId)
      .where('id', '=', input.segmentId)
      .executeTakeFirst();
    if (!segment) throw new Refusal('invite_segment_unknown');
    // Joining by a link pays nothing, so a link into a paid segment would give the membership away.
    if (offeredCycles(segment).length > 0) throw new Refusal('invite_segment_paid');
  }
  const code = crypto.randomBytes(32).toString('base64url');
  const id = newId();
  await trx
    .insertInto('invite_links')
    .values({
      id,
      community_id: actor.communityId,
      code_hash: hashKey(code),
      code_prefix: code.slice(0, PREFIX_LENGTH),
      segment_id: input.segmentId ?? null,
      note: input.note || null,
      expires_at: input.expiresAt
        ? new Date(input.expiresAt).toISOString()
        : new Date(now + INVITE_LIMITS.defaultDays * DAY_MS).toISOString(),
      max_uses: input.maxUses ?? null,
      uses: 0,
      created_by: actor.userId,
      created_at: new Date(now).toISOString(),
      revoked_at: null,
      revoked_by: null,
    })
    .execute();
  const row = await selectInvites(trx).where('i.id', '=', id).executeTakeFirstOrThrow();
  return { invite: toInvite(row, now), code };
}

/** A page of the community's links, newest first (ties by id). */
export async function listInvites(
  db: Db,
  communityId: string,
  opts: { limit: number; offset: number },
): Promise<{ items: InviteLink[]; total: number }> {
  const [rows, total] = await Promise.all([
    selectInvites(db)
      .where('i.community_id', '=', communityId)
      .orderBy('i.created_at', 'desc')
      .orderBy('i.id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
    db
      .selectFrom('invite_links')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('community_id', '=', communityId)
      .executeTakeFirstOrThrow(),
  ]);
  const now = Date.now();
  return { items: rows.map((r) => toInvite(r, now)), total: Number(total.n) };
}

/** Revokes a link; `before` is null when it was revoked already (nothing changed). */
export async function revokeInvite(
  trx: Trx,
  communityId: string,
  inviteId: string,
  userId: string,
): Promise<{ before: InviteLink | null; after: InviteLink }> {
  const current = await selectInvites(trx)
    .where('i.community_id', '=', communityId)
    .where('i.id', '=', inviteId)
    .executeTakeFirst();
  if (!current) throw new Refusal('invite_not_found');
  const changed = await trx
    .updateTable('invite_links')
    .set({ revoked_at: nowIso(), revoked_by: userId })
    .where('id', '=', inviteId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  const after = await selectInvites(trx).where('i.id', '=', inviteId).executeTakeFirstOrThrow();
  return { before: Number(changed.numUpdatedRows) === 1 ? toInvite(current) : null, after: toInvite(after) };
}

export type InviteState = 'ACTIVE' | 'EXPIRED' | 'REVOKED' | 'USED_UP';

/** The link a code opens in this community, or null (no such code here: another community's is none). */
export async function inviteByCode(db: Db | Trx, communityId: string, code: string) {
  if (!INVITE_CODE.test(code)) return null;
  const row = await db
    .selectFrom('invite_links')
    .selectAll()
    .where('code_hash', '=', hashKey(code))
    .where('community_id', '=', communityId)
    .executeTakeFirst();
  return row ? { row, state: inviteStatus(row) as InviteState } : null;
}

export type JoinOutcome =
  | { kind: 'joined'; membershipId: string }
  | { kind: 'unknown' }
  | { kind: 'closed'; state: Exclude<InviteState, 'ACTIVE'> }
  | { kind: 'not-invite-only' }
  | { kind: 'already-member' }
  | { kind: 'banned' };

type MemberStatus = 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED';

const refusedFor = (status: MemberStatus | undefined): JoinOutcome | null =>
  status === 'ACCEPTED' ? { kind: 'already-member' } : status === 'BANNED' ? { kind: 'banned' } : null;

/** Thrown inside the join's transaction to roll back the use it took (a membership changed meanwhile). */
class JoinRaced extends Error {
  constructor(readonly outcome: JoinOutcome) {
    super('join raced');
  }
}

/**
 * Makes `userId` an ACCEPTED member by the link `code`: one use taken, the membership made (or a
 * PENDING or REJECTED one accepted), their open requests closed, `member.approved` emitted with
 * `approvedBy: null` (no leader decided this join; the link did) and the welcome e-mail queued,
 * all in `run`'s one transaction. An existing member, a banned user, and a link that is unknown
 * here, expired, revoked or used up change nothing.
 */
export async function joinByInvite(
  run: <R>(fn: (trx: Trx) => Promise<R>) => Promise<R>,
  communityId: string,
  userId: string,
  code: string,
): Promise<JoinOutcome> {
  try {
    return await run((trx) => joinIn(trx, communityId, userId, code));
  } catch (err) {
    if (err instanceof JoinRaced) return err.outcome;
    throw err;
  }
}

async function joinIn(trx: Trx, communityId: string, userId: string, code: string): Promise<JoinOutcome> {
  const found = await inviteByCode(trx, communityId, code);
  if (!found) return { kind: 'unknown' };
  const community = await accessibilityOf(trx, communityId);
  if (community.accessibility !== 'INVITE_ONLY') return { kind: 'not-invite-only' };
  const current = await trx
    .selectFrom('memberships')
    .select('status')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const refused = refusedFor(current?.status);
  if (refused) return refused;

  const now = nowIso();
  const taken = await trx
    .updateTable('invite_links')
    .set({ uses: sql`uses + 1` })
    .where('id', '=', found.row.id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) {
    const settled = await trx
      .selectFrom('invite_links')
      .selectAll()
      .where('id', '=', found.row.id)
      .executeTakeFirstOrThrow();
    const state = inviteStatus(settled);
    // ACTIVE here only when the expiry passed between the two reads: it is expired by now.
    return { kind: 'closed', state: state === 'ACTIVE' ? 'EXPIRED' : state };
  }

  const membership = await trx
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: userId,
      status: 'ACCEPTED',
      role: 'member',
      segment_id: found.row.segment_id,
      created_at: now,
      accepted_at: now,
      kicked_at: null,
      banned_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['community_id', 'user_id'])
        // A REJECTED row may still say admin (kicked before kicks reset the role): a join makes a member.
        .doUpdateSet({
          status: 'ACCEPTED',
          role: 'member',
          segment_id: found.row.segment_id,
          accepted_at: now,
          kicked_at: null,
        })
        .where('memberships.status', 'in', ['PENDING', 'REJECTED']),
    )
    .returning('id')
    .executeTakeFirst();
  if (!membership) {
    // A concurrent join (or a ban) changed the membership after it was read: undo the use.
    const raced = await trx
      .selectFrom('memberships')
      .select('status')
      .where('community_id', '=', communityId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    throw new JoinRaced(refusedFor(raced?.status) ?? { kind: 'already-member' });
  }
  // The link admitted them: an open application has nothing left to decide.
  await trx
    .updateTable('membership_requests')
    .set({ status: 'CANCELLED', decided_at: now })
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('status', 'in', ['PENDING', 'PAYMENT_PENDING'])
    .execute();
  await emit(trx, community, 'member.approved', {
    memberId: membership.id,
    userId,
    approvedAt: now,
    approvedBy: null,
  });
  const user = await trx
    .selectFrom('users')
    .select(['email', 'name'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const segment = found.row.segment_id
    ? await trx.selectFrom('segments').select('name').where('id', '=', found.row.segment_id).executeTakeFirst()
    : undefined;
  await new OutboxMailer(trx).send(
    membershipEmail('joined', { community, to: user.email, name: user.name, segmentName: segment?.name ?? '' }),
  );
  return { kind: 'joined', membershipId: membership.id };
}
