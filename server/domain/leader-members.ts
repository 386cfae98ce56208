// The leader console's members (docs/leader-console.md, "Members and the review queue"): the
// directory with private fields and its CSV export, the review queue, and moderation by a leader.
// Approve, reject, kick and ban are server/domain/applications.ts's, with the leader as the
// decider; what is added here is who may act on whom, and the audit-log entry each change writes
// in its transaction (none for a repeat that changes nothing).
import { sql, type Expression, type SqlBool } from 'kysely';
import type { FormField } from '../../contract/resources.ts';
import { MEMBER_CSV_HEADER, type LeaderMember, type LeaderReviewRequest } from '../../contract/routes/admin-members.ts';
import type { Db, Trx } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import { csvCell } from '../shared/csv.ts';
import * as applications from './applications.ts';
import { recordAudit } from './audit-log.ts';
import { Refusal } from './refusal.ts';

/** The leader acting (server/http/leader.ts's Leader, as far as these rules need it). */
export interface Actor {
  userId: string;
  communityId: string;
  role: 'founder' | 'admin';
}

type MemberStatus = LeaderMember['status'];

export interface DirectoryFilter {
  q?: string;
  status?: MemberStatus;
}

/** `text` as a LIKE pattern matching itself anywhere: `\`, `%` and `_` escaped (with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const likeAnywhere = (column: string, pattern: string) =>
  sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;

/**
 * The community's memberships with their users and segments, filtered. Every read starts from the
 * community's memberships (indexed by community first), so a search scans one community's members,
 * never the platform's users; the pattern is a bound parameter.
 */
function directory(db: Db | Trx, communityId: string, filter: DirectoryFilter) {
  let q = db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .leftJoin('segments as s', 's.id', 'm.segment_id')
    .where('m.community_id', '=', communityId);
  if (filter.status) q = q.where('m.status', '=', filter.status);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    q = q.where(({ or }) =>
      or([
        likeAnywhere('u.name', pattern),
        likeAnywhere('u.usertag', pattern),
        likeAnywhere('u.email', pattern),
      ] as Expression<SqlBool>[]),
    );
  }
  return q;
}

const COLUMNS = [
  'm.id as membershipId',
  'm.user_id as userId',
  'u.name',
  'u.usertag',
  'u.email',
  'u.phone',
  'm.role',
  'm.status',
  's.id as segmentId',
  's.name as segmentName',
  'm.created_at',
  'm.accepted_at',
  'm.kicked_at',
  'm.banned_at',
] as const;

type Row = {
  membershipId: string;
  userId: string;
  name: string;
  usertag: string;
  email: string;
  phone: string | null;
  role: LeaderMember['role'];
  status: MemberStatus;
  segmentId: string | null;
  segmentName: string | null;
  created_at: string;
  accepted_at: string | null;
  kicked_at: string | null;
  banned_at: string | null;
};

const toLeaderMember = (r: Row): LeaderMember => ({
  userId: r.userId,
  membershipId: r.membershipId,
  name: r.name,
  usertag: r.usertag,
  email: r.email,
  phone: r.phone,
  role: r.role,
  status: r.status,
  segment: r.segmentId && r.segmentName !== null ? { id: r.segmentId, name: r.segmentName } : null,
  requestedAt: r.created_at,
  // A membership accepted before accepted_at was recorded joined when it was created.
  joinedAt: r.accepted_at ?? (r.status === 'ACCEPTED' ? r.created_at : null),
  kickedAt: r.status === 'REJECTED' ? r.kicked_at : null,
  bannedAt: r.banned_at,
});

/**
 * A page of the directory in membership-id order: ids are time-ordered (UUIDv7) and never change,
 * so paging neither skips nor repeats anyone while people apply again (which moves created_at).
 */
export async function listLeaderMembers(
  db: Db,
  communityId: string,
  q: DirectoryFilter & { limit: number; offset: number },
): Promise<{ items: LeaderMember[]; total: number }> {
  const base = directory(db, communityId, q);
  const [rows, total] = await Promise.all([
    base.select(COLUMNS).orderBy('m.id').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toLeaderMember), total: Number(total.n) };
}

export const EXPORT_BATCH = 500;

/**
 * The directory as CSV lines, read in batches of EXPORT_BATCH by membership id (keyset, not
 * offset: each batch is an index seek), so memory holds one batch whatever the community's size.
 * Not a snapshot: a change made during a long download shows in the batches read after it.
 */
export async function* exportLeaderMembers(
  db: Db,
  communityId: string,
  filter: DirectoryFilter,
): AsyncGenerator<string> {
  yield `${MEMBER_CSV_HEADER.join(',')}\r\n`;
  let after: string | null = null;
  for (;;) {
    let q = directory(db, communityId, filter);
    if (after !== null) q = q.where('m.id', '>', after);
    const rows = await q.select(COLUMNS).orderBy('m.id').limit(EXPORT_BATCH).execute();
    if (rows.length === 0) return;
    yield rows
      .map(toLeaderMember)
      .map(
        (m) =>
          [
            m.userId,
            m.name,
            m.usertag,
            m.email,
            m.phone,
            m.role,
            m.status,
            m.segment?.name,
            m.requestedAt,
            m.joinedAt,
            m.kickedAt,
            m.bannedAt,
          ]
            .map(csvCell)
            .join(',') + '\r\n',
      )
      .join('');
    if (rows.length < EXPORT_BATCH) return;
    after = rows[rows.length - 1].membershipId;
  }
}

/** A page of the PENDING requests, oldest first, with their answers labelled by the segment's form. */
export async function listReviewQueue(
  db: Db,
  communityId: string,
  q: { limit: number; offset: number },
): Promise<{ items: LeaderReviewRequest[]; total: number }> {
  const base = db
    .selectFrom('membership_requests as r')
    .where('r.community_id', '=', communityId)
    .where('r.status', '=', 'PENDING');
  const [rows, total] = await Promise.all([
    base
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .innerJoin('segments as s', 's.id', 'r.segment_id')
      .leftJoin('segment_forms as f', 'f.segment_id', 'r.segment_id')
      .select([
        'r.id',
        'r.user_id',
        'u.name',
        'u.usertag',
        'r.email',
        's.id as segmentId',
        's.name as segmentName',
        'f.schema',
        'r.answers',
        'r.source',
        'r.created_at',
      ])
      .orderBy('r.created_at')
      .orderBy('r.id')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map((r) => ({
      requestId: r.id,
      userId: r.user_id,
      name: r.name,
      usertag: r.usertag,
      email: r.email,
      segment: { id: r.segmentId, name: r.segmentName },
      answers: labelledAnswers(
        applications.applicationForm(parseJson<FormField[]>(r.schema, [])).fields,
        parseJson<Record<string, unknown>>(r.answers, {}),
      ),
      source: r.source,
      requestedAt: r.created_at,
    })),
    total: Number(total.n),
  };
}

/** The answers in the form's order with its labels, then any whose field the form no longer has. */
function labelledAnswers(fields: FormField[], answers: Record<string, unknown>): LeaderReviewRequest['answers'] {
  const known = fields
    .filter((f) => f.id in answers)
    .map((f) => ({ fieldId: f.id, label: f.label, answer: answers[f.id] }));
  const ids = new Set(fields.map((f) => f.id));
  const orphans = Object.keys(answers)
    .filter((id) => !ids.has(id))
    .map((id) => ({ fieldId: id, label: id, answer: answers[id] }));
  return [...known, ...orphans];
}

// ---------------------------------------------------------------------------------------------
// Changes, each with its audit entry in the same transaction

/** What the audit log records of a membership, before and after a change. */
async function membershipState(trx: Trx, communityId: string, userId: string) {
  return trx
    .selectFrom('memberships')
    .select(['id', 'status', 'role', 'kicked_at as kickedAt', 'banned_at as bannedAt'])
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

const decider = (actor: Actor): applications.Decider => ({ kind: 'leader', userId: actor.userId, role: actor.role });

async function requestState(trx: Trx, communityId: string, requestId: string) {
  return trx
    .selectFrom('membership_requests')
    .select(['status', 'user_id as userId'])
    .where('community_id', '=', communityId)
    .where('id', '=', requestId)
    .executeTakeFirst();
}

export async function approveRequest(trx: Trx, actor: Actor, requestId: string) {
  const before = await requestState(trx, actor.communityId, requestId);
  const r = await applications.approveApplication(trx, actor.communityId, requestId, decider(actor));
  if (r.changed)
    await recordAudit(trx, actor, {
      action: 'member.approve',
      targetType: 'request',
      targetId: requestId,
      before: { status: before?.status ?? null, userId: r.userId },
      after: { status: 'APPROVED', userId: r.userId, membershipId: r.membershipId },
    });
  return r;
}

export async function rejectRequest(trx: Trx, actor: Actor, requestId: string, reason: string | null) {
  const before = await requestState(trx, actor.communityId, requestId);
  const r = await applications.rejectApplication(trx, actor.communityId, requestId, decider(actor), reason);
  if (r.changed)
    await recordAudit(trx, actor, {
      action: 'member.reject',
      targetType: 'request',
      targetId: requestId,
      before: { status: before?.status ?? null, userId: before?.userId ?? null },
      after: { status: 'REJECTED', userId: before?.userId ?? null, reason },
    });
  return r;
}

/**
 * An admin kicks and bans members and applicants; another admin only the founder does (admins are
 * peers), and the founder nobody: the domain's conditional UPDATE holds both rules (Decider).
 */
export async function kick(trx: Trx, actor: Actor, userId: string, reason: string | null) {
  const before = await membershipState(trx, actor.communityId, userId);
  const r = await applications.kickMember(trx, actor.communityId, userId, decider(actor), reason);
  if (r.changed)
    await recordAudit(trx, actor, {
      action: 'member.kick',
      targetType: 'member',
      targetId: userId,
      before: before ?? null,
      after: { ...(await membershipState(trx, actor.communityId, userId)), reason },
    });
  return r;
}

export async function ban(trx: Trx, actor: Actor, userId: string, reason: string | null) {
  const before = await membershipState(trx, actor.communityId, userId);
  const r = await applications.banMember(trx, actor.communityId, userId, decider(actor), reason);
  if (r.changed)
    await recordAudit(trx, actor, {
      action: 'member.ban',
      targetType: 'member',
      targetId: userId,
      before: before ?? null,
      after: { ...(await membershipState(trx, actor.communityId, userId)), reason },
    });
  return r;
}

/**
 * Promotes an ACCEPTED member to admin or demotes an admin to member: the founder only. The
 * UPDATE is conditional on the state read, so a concurrent kick or role change makes it a no-op
 * refusal rather than an admin who is no longer ACCEPTED.
 */
export async function setRole(trx: Trx, actor: Actor, userId: string, role: 'admin' | 'member') {
  if (actor.role !== 'founder') throw new Refusal('founder_only_roles');
  const before = await membershipState(trx, actor.communityId, userId);
  if (!before) throw new Refusal('member_not_found');
  if (before.role === 'founder') throw new Refusal('founder_role_fixed');
  if (before.status !== 'ACCEPTED') throw new Refusal('role_not_accepted');
  if (before.role === role) return { userId, role };
  const updated = await trx
    .updateTable('memberships')
    .set({ role })
    .where('id', '=', before.id)
    .where('status', '=', 'ACCEPTED')
    .where('role', '=', before.role)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) throw new Refusal('role_not_accepted');
  await recordAudit(trx, actor, {
    action: 'member.role',
    targetType: 'member',
    targetId: userId,
    before: { role: before.role },
    after: { role },
  });
  return { userId, role };
}
