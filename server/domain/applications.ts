// Membership requests: submitting an application to a segment, reviewing it, and removing
// members (kick, ban). Each change, its webhook event, its e-mail and its notification commit in
// the caller's transaction. State changes are conditional UPDATEs, so two reviewers (or two
// retries) racing make one change and one event. Decisions: docs/api.md, "Membership requests".
import { sql } from 'kysely';
import type { z } from 'zod';
import type { BillingCycle as BillingCycleSchema } from '../../contract/enums.ts';
import type { FormField } from '../../contract/resources.ts';
import type { Db, Trx } from '../db/index.ts';
import { newId, nowIso, parseJson } from '../db/ids.ts';
import type { MembershipRequestStatus } from '../db/schema-applications.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { membershipEmail, type MembershipEmailKind } from '../mail/membership-email.ts';
import { emit } from '../webhooks/emit.ts';
import { isReservedUsertag, normalizeEmail, usertagFromName } from './accounts.ts';
import { checkFormAnswers, type FormAnswers } from './forms.ts';
import { notify } from './notifications.ts';
import { Refusal } from './refusal.ts';

export type BillingCycle = z.infer<typeof BillingCycleSchema>;

interface CommunityContext {
  id: string;
  tag: string;
  name: string;
  accessibility: 'OPEN' | 'APPLICATION' | 'INVITE_ONLY';
  live: boolean;
}

async function communityOf(trx: Trx, communityId: string): Promise<CommunityContext> {
  const c = await trx
    .selectFrom('communities')
    .select(['id', 'tag', 'name', 'accessibility', 'founder_user_id'])
    .where('id', '=', communityId)
    .executeTakeFirstOrThrow();
  // "Live": someone owns the community. Auto-approval admits people nobody looks at, so a
  // community without a founder (never set up, or being dismantled) reviews every application.
  return { id: c.id, tag: c.tag, name: c.name, accessibility: c.accessibility, live: c.founder_user_id !== null };
}

// ---------------------------------------------------------------------------------------------
// The form and the billing cycle

export interface ApplicationForm {
  fields: FormField[];
  /** The field whose answer is the applicant's e-mail address. */
  emailId: string;
  /** The field whose answer is the applicant's name. */
  nameId: string;
}

function freeId(fields: FormField[], wanted: string): string {
  const taken = new Set(fields.map((f) => f.id));
  let id = wanted;
  for (let n = 2; taken.has(id); n += 1) id = `${wanted}_${n}`;
  return id;
}

/**
 * The segment's form as an application reads it: its first e-mail field and its first short-text
 * field labelled with "name" are required whatever the form says, and a form without one (or a
 * segment without a form) gets it added, as `email` and `name`, so every applicant has both.
 */
export function applicationForm(schema: readonly FormField[]): ApplicationForm {
  const fields = schema.map((f) => ({ ...f }));
  const added: FormField[] = [];
  let email = fields.find((f) => f.type === 'email');
  if (!email) {
    email = { id: freeId(fields, 'email'), type: 'email', label: 'E-mail', required: true };
    added.push(email);
  }
  let name = fields.find((f) => f.type === 'short_text' && /name/i.test(f.label));
  if (!name) {
    name = {
      id: freeId([...fields, ...added], 'name'),
      type: 'short_text',
      label: 'Name',
      required: true,
      maxLength: 200,
    };
    added.push(name);
  }
  email.required = true;
  name.required = true;
  return { fields: [...added, ...fields], emailId: email.id, nameId: name.id };
}

interface PriceColumns {
  price_monthly: number | null;
  price_quarterly: number | null;
  price_yearly: number | null;
  price_one_time: number | null;
  installment_total_price: number | null;
}

/** The cycles a segment offers: each price that is set, and the installment plan when it has one. None = free. */
export function offeredCycles(s: PriceColumns): BillingCycle[] {
  const offers: [BillingCycle, number | null][] = [
    ['MONTHLY', s.price_monthly],
    ['QUARTERLY', s.price_quarterly],
    ['YEARLY', s.price_yearly],
    ['ONE_TIME', s.price_one_time],
    ['INSTALLMENT_PLAN', s.installment_total_price],
  ];
  return offers.filter(([, price]) => price !== null).map(([cycle]) => cycle);
}

/** The cycle the request is for: the one asked, or the only one offered; null for a free segment. */
export function chooseCycle(offered: BillingCycle[], asked: BillingCycle | undefined): BillingCycle | null {
  if (asked !== undefined) {
    if (!offered.includes(asked)) throw new Refusal('billing_cycle_not_offered', { offered });
    return asked;
  }
  if (offered.length > 1) throw new Refusal('billing_cycle_required', { offered });
  return offered[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// The applicant's account

const LOWER_EMAIL = sql<string>`lower(email)`;

async function userByEmail(trx: Trx, email: string): Promise<{ id: string; name: string } | undefined> {
  return trx.selectFrom('users').select(['id', 'name']).where(LOWER_EMAIL, '=', email).executeTakeFirst();
}

/**
 * The account of this address, made (without a password: a reset sets one) when there is none.
 * ON CONFLICT DO NOTHING rather than catching the violation: on PostgreSQL a failed statement
 * would abort the whole transaction. A concurrent twin's account is found on the second look.
 */
async function accountFor(trx: Trx, email: string, name: string): Promise<{ id: string; name: string }> {
  const found = await userByEmail(trx, email);
  if (found) return found;
  const base = usertagFromName(name);
  for (let round = 0; round < 4; round += 1) {
    const suffix = String(Math.floor(Math.random() * 10 ** (4 + round))).padStart(4 + round, '0');
    const usertag = round === 0 && !isReservedUsertag(base) ? base : `${base}-${suffix}`;
    const id = newId();
    const inserted = await trx
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
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { id, name };
    const raced = await userByEmail(trx, email);
    if (raced) return raced;
  }
  throw new Error('could not find a free usertag');
}

// ---------------------------------------------------------------------------------------------
// Submit

export interface SubmitInput {
  segmentId: string;
  answers: Record<string, unknown>;
  source?: string;
  billingCycle?: BillingCycle;
}

export interface SubmitResult {
  requestId: string;
  status: 'APPROVED' | 'PENDING' | 'PAYMENT_PENDING';
  segmentId: string;
  segmentName: string;
  userId: string;
}

function checkedAnswers(form: ApplicationForm, answers: unknown): FormAnswers {
  const check = checkFormAnswers(form.fields, answers);
  if (check.ok) return check.answers;
  if (check.kind === 'missing') throw new Refusal('answers_missing', { fieldIds: check.fieldIds });
  throw new Refusal('answer_invalid', { fieldId: check.fieldId, why: check.reason });
}

function refusalFor(status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED' | undefined): Refusal | null {
  if (status === 'ACCEPTED') return new Refusal('already_member');
  if (status === 'BANNED') return new Refusal('banned');
  if (status === 'PENDING') return new Refusal('application_pending');
  return null;
}

async function sendMail(
  trx: Trx,
  kind: MembershipEmailKind,
  community: { name: string },
  to: string,
  name: string,
  segmentName: string,
) {
  await new OutboxMailer(trx).send(membershipEmail(kind, { community, to, name, segmentName }));
}

/**
 * Records an application. Free and auto-approved: ACCEPTED now. Free otherwise: PENDING review.
 * Paid: PAYMENT_PENDING, and the membership waits for the payment. A person's unpaid request is
 * replaced by a newer submit, so an abandoned checkout never locks them out.
 */
export async function submitApplication(trx: Trx, communityId: string, input: SubmitInput): Promise<SubmitResult> {
  const community = await communityOf(trx, communityId);
  if (community.accessibility === 'INVITE_ONLY') throw new Refusal('invite_only');
  const segment = await trx
    .selectFrom('segments')
    .leftJoin('segment_forms', 'segment_forms.segment_id', 'segments.id')
    .select([
      'segments.id',
      'segments.name',
      'segments.is_active',
      'segments.auto_approve',
      'segments.price_monthly',
      'segments.price_quarterly',
      'segments.price_yearly',
      'segments.price_one_time',
      'segments.installment_total_price',
      'segment_forms.schema',
    ])
    .where('segments.community_id', '=', communityId)
    .where('segments.id', '=', input.segmentId)
    .executeTakeFirst();
  if (!segment) throw new Refusal('segment_not_found');
  // Segments have no member capacity in v1 (only a founding-price cap, which is not "sold out"):
  // closing a segment is how a community stops taking members into it.
  if (Number(segment.is_active) !== 1) throw new Refusal('segment_closed');
  const form = applicationForm(parseJson<FormField[]>(segment.schema, []));
  const answers = checkedAnswers(form, input.answers);
  const cycle = chooseCycle(offeredCycles(segment), input.billingCycle);

  const email = normalizeEmail(answers[form.emailId] as string);
  const user = await accountFor(trx, email, answers[form.nameId] as string);
  const current = await trx
    .selectFrom('memberships')
    .select('status')
    .where('community_id', '=', communityId)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  const refusal = refusalFor(current?.status);
  if (refusal) throw refusal;

  const now = nowIso();
  await trx
    .updateTable('membership_requests')
    .set({ status: 'CANCELLED', decided_at: now })
    .where('community_id', '=', communityId)
    .where('user_id', '=', user.id)
    .where('status', '=', 'PAYMENT_PENDING')
    .execute();
  const autoApprove =
    cycle === null && community.accessibility === 'OPEN' && community.live && Number(segment.auto_approve) === 1;
  const status = cycle !== null ? 'PAYMENT_PENDING' : autoApprove ? 'APPROVED' : 'PENDING';
  const requestId = newId();
  const source = input.source?.trim() || null;
  // The partial unique index holds one open request per person: a concurrent twin inserts nothing.
  const inserted = await trx
    .insertInto('membership_requests')
    .values({
      id: requestId,
      community_id: communityId,
      segment_id: segment.id,
      user_id: user.id,
      email,
      answers: JSON.stringify(answers),
      source,
      billing_cycle: cycle,
      status,
      reason: null,
      created_at: now,
      decided_at: autoApprove ? now : null,
      decided_by: null,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) throw new Refusal('application_pending');

  const result: SubmitResult = { requestId, status, segmentId: segment.id, segmentName: segment.name, userId: user.id };
  if (status === 'PAYMENT_PENDING') return result;

  // Applying again after a rejection or a kick reuses the membership row: it starts over from now.
  const membership = await trx
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: user.id,
      status: autoApprove ? 'ACCEPTED' : 'PENDING',
      role: 'member',
      segment_id: segment.id,
      created_at: now,
      accepted_at: autoApprove ? now : null,
      kicked_at: null,
      banned_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['community_id', 'user_id'])
        .doUpdateSet({
          status: autoApprove ? 'ACCEPTED' : 'PENDING',
          segment_id: segment.id,
          created_at: now,
          accepted_at: autoApprove ? now : null,
          kicked_at: null,
        })
        .where('memberships.status', '=', 'REJECTED'),
    )
    .returning('id')
    .executeTakeFirst();
  if (!membership) {
    // Another request changed the membership after it was read above.
    const raced = await trx
      .selectFrom('memberships')
      .select('status')
      .where('community_id', '=', communityId)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    throw refusalFor(raced?.status) ?? new Refusal('application_pending');
  }

  if (autoApprove) {
    await emit(trx, community, 'member.approved', {
      memberId: membership.id,
      userId: user.id,
      approvedAt: now,
      approvedBy: null,
    });
    await notify(trx, {
      userId: user.id,
      communityId,
      kind: 'membership.approved',
      data: { communityName: community.name, segmentName: segment.name },
    });
    await sendMail(trx, 'approved', community, email, user.name, segment.name);
  } else {
    await emit(trx, community, 'member.requested', {
      requestId,
      membershipId: membership.id,
      userId: user.id,
      segmentId: segment.id,
      source,
      requestedAt: now,
    });
    await sendMail(trx, 'received', community, email, user.name, segment.name);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Review

interface RequestRow {
  id: string;
  user_id: string;
  segment_id: string;
  email: string;
  status: MembershipRequestStatus;
  created_at: string;
}

async function requestOf(trx: Trx, communityId: string, requestId: string): Promise<RequestRow | undefined> {
  return trx
    .selectFrom('membership_requests')
    .select(['id', 'user_id', 'segment_id', 'email', 'status', 'created_at'])
    .where('community_id', '=', communityId)
    .where('id', '=', requestId)
    .executeTakeFirst();
}

async function membershipIdOf(trx: Trx, communityId: string, userId: string): Promise<string> {
  const m = await trx
    .selectFrom('memberships')
    .select('id')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return m.id;
}

async function mailContext(trx: Trx, r: RequestRow): Promise<{ name: string; segmentName: string }> {
  const user = await trx.selectFrom('users').select('name').where('id', '=', r.user_id).executeTakeFirstOrThrow();
  const segment = await trx
    .selectFrom('segments')
    .select('name')
    .where('id', '=', r.segment_id)
    .executeTakeFirstOrThrow();
  return { name: user.name, segmentName: segment.name };
}

export interface ApproveResult {
  membershipId: string;
  userId: string;
  /** False when the request was already APPROVED: nothing was written or emitted. */
  changed: boolean;
}

/**
 * Who decides a request or removes a member: a server through /v1 (its API key) or a leader in
 * the console (their user id). Either id is what `decided_by` and the events' `approvedBy`,
 * `rejectedBy`, `kickedBy` and `bannedBy` carry (both are UUIDs of different tables, so they never
 * collide); `member_audit.actor_key_id` keeps only a key, the console's own audit_log names the
 * leader. docs/leader-console.md, "Members and the review queue".
 */
export type Decider = { kind: 'key'; keyId: string } | { kind: 'leader'; userId: string; role: 'founder' | 'admin' };

const deciderId = (d: Decider) => (d.kind === 'key' ? d.keyId : d.userId);

/**
 * The roles `decider` can never kick or ban: the founder, for anyone; other admins too, for an
 * admin (admins are peers). In the UPDATE's condition, so a promotion landing meanwhile is seen.
 */
const untouchableFor = (d: Decider): ('founder' | 'admin')[] =>
  d.kind === 'leader' && d.role === 'admin' ? ['founder', 'admin'] : ['founder'];

function untouchable(d: Decider, role: string): Refusal | null {
  if (role === 'founder') return new Refusal('founder');
  if (role === 'admin' && untouchableFor(d).includes('admin')) return new Refusal('founder_only_remove_admin');
  return null;
}

function undecidable(status: MembershipRequestStatus, action: 'approve' | 'reject'): Refusal {
  switch (status) {
    case 'REJECTED':
      return new Refusal('request_rejected');
    case 'CANCELLED':
      return new Refusal('request_cancelled');
    case 'PAYMENT_PENDING':
      return new Refusal('request_awaiting_payment');
    case 'APPROVED':
      return new Refusal('request_approved');
    case 'PENDING':
      throw new Error(`a PENDING request can always ${action}`);
  }
}

/**
 * PENDING -> APPROVED, membership ACCEPTED, `member.approved`. An APPROVED request answers the
 * same ids again and emits nothing (a retry, or the loser of two concurrent approvals).
 */
export async function approveApplication(
  trx: Trx,
  communityId: string,
  requestId: string,
  decider: Decider,
): Promise<ApproveResult> {
  const by = deciderId(decider);
  const request = await requestOf(trx, communityId, requestId);
  if (!request) throw new Refusal('request_not_found');
  const now = nowIso();
  const won = await trx
    .updateTable('membership_requests')
    .set({ status: 'APPROVED', decided_at: now, decided_by: by })
    .where('id', '=', requestId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  if (Number(won.numUpdatedRows) === 0) {
    const settled = (await requestOf(trx, communityId, requestId))!;
    if (settled.status === 'APPROVED')
      return {
        membershipId: await membershipIdOf(trx, communityId, settled.user_id),
        userId: settled.user_id,
        changed: false,
      };
    throw undecidable(settled.status, 'approve');
  }

  const membership = await trx
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: request.user_id,
      status: 'ACCEPTED',
      role: 'member',
      segment_id: request.segment_id,
      created_at: request.created_at,
      accepted_at: now,
      kicked_at: null,
      banned_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['community_id', 'user_id'])
        // A REJECTED row may still say admin (kicked before kicks reset the role): approval makes a member.
        .doUpdateSet({
          status: 'ACCEPTED',
          role: 'member',
          segment_id: request.segment_id,
          accepted_at: now,
          kicked_at: null,
        })
        .where('memberships.status', 'in', ['PENDING', 'REJECTED']),
    )
    .returning('id')
    .executeTakeFirst();
  // Not updated: already ACCEPTED (imported, say) or BANNED, which a ban would have cancelled first.
  const membershipId = membership?.id ?? (await membershipIdOf(trx, communityId, request.user_id));

  const community = await communityOf(trx, communityId);
  await emit(trx, community, 'member.approved', {
    memberId: membershipId,
    userId: request.user_id,
    approvedAt: now,
    approvedBy: by,
  });
  const { name, segmentName } = await mailContext(trx, request);
  await notify(trx, {
    userId: request.user_id,
    communityId,
    kind: 'membership.approved',
    data: { communityName: community.name, segmentName },
  });
  await sendMail(trx, 'approved', community, request.email, name, segmentName);
  return { membershipId, userId: request.user_id, changed: true };
}

/**
 * PENDING (or unpaid) -> REJECTED, with the membership; `member.rejected`; the applicant is told
 * without the reason, which stays on the request. Rejecting a REJECTED request changes nothing.
 */
export async function rejectApplication(
  trx: Trx,
  communityId: string,
  requestId: string,
  decider: Decider,
  reason: string | null,
): Promise<{ changed: boolean }> {
  const by = deciderId(decider);
  const request = await requestOf(trx, communityId, requestId);
  if (!request) throw new Refusal('request_not_found');
  const now = nowIso();
  const won = await trx
    .updateTable('membership_requests')
    .set({ status: 'REJECTED', reason, decided_at: now, decided_by: by })
    .where('id', '=', requestId)
    .where('status', 'in', ['PENDING', 'PAYMENT_PENDING'])
    .executeTakeFirst();
  if (Number(won.numUpdatedRows) === 0) {
    const settled = (await requestOf(trx, communityId, requestId))!;
    if (settled.status === 'REJECTED') return { changed: false };
    throw undecidable(settled.status, 'reject');
  }

  // An unpaid request has no membership yet; it gets a REJECTED one, so the person sees the answer.
  const membership = await trx
    .insertInto('memberships')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: request.user_id,
      status: 'REJECTED',
      role: 'member',
      segment_id: request.segment_id,
      created_at: request.created_at,
      accepted_at: null,
      kicked_at: null,
      banned_at: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['community_id', 'user_id'])
        .doUpdateSet({ status: 'REJECTED' })
        .where('memberships.status', '=', 'PENDING'),
    )
    .returning('id')
    .executeTakeFirst();
  const membershipId = membership?.id ?? (await membershipIdOf(trx, communityId, request.user_id));

  const community = await communityOf(trx, communityId);
  await emit(trx, community, 'member.rejected', {
    requestId,
    membershipId,
    userId: request.user_id,
    rejectedAt: now,
    rejectedBy: by,
  });
  const { name, segmentName } = await mailContext(trx, request);
  await sendMail(trx, 'rejected', community, request.email, name, segmentName);
  return { changed: true };
}

// ---------------------------------------------------------------------------------------------
// Kick and ban

async function audit(
  trx: Trx,
  communityId: string,
  userId: string,
  membershipId: string,
  action: 'KICK' | 'BAN',
  reason: string | null,
  decider: Decider,
  at: string,
) {
  await trx
    .insertInto('member_audit')
    .values({
      id: newId(),
      community_id: communityId,
      user_id: userId,
      membership_id: membershipId,
      action,
      reason,
      actor_key_id: decider.kind === 'key' ? decider.keyId : null,
      created_at: at,
    })
    .execute();
}

async function membershipRow(trx: Trx, communityId: string, userId: string) {
  return trx
    .selectFrom('memberships')
    .select(['id', 'status', 'role', 'kicked_at', 'banned_at'])
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * ACCEPTED -> REJECTED with kicked_at (they may apply again); `member.kicked`; the reason on the
 * audit trail. Kicking again answers the first time and records nothing.
 */
export async function kickMember(
  trx: Trx,
  communityId: string,
  userId: string,
  decider: Decider,
  reason: string | null,
): Promise<{ kickedAt: string; changed: boolean }> {
  const now = nowIso();
  const kicked = await trx
    .updateTable('memberships')
    // The role goes with the membership: a kicked admin who applies again comes back a member.
    .set({ status: 'REJECTED', kicked_at: now, role: 'member' })
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('status', '=', 'ACCEPTED')
    .where('role', 'not in', untouchableFor(decider))
    .returning('id')
    .executeTakeFirst();
  if (!kicked) {
    const m = await membershipRow(trx, communityId, userId);
    if (!m) throw new Refusal('member_not_found');
    const refusal = untouchable(decider, m.role);
    if (refusal) throw refusal;
    if (m.status === 'REJECTED' && m.kicked_at) return { kickedAt: m.kicked_at, changed: false };
    throw new Refusal('not_accepted');
  }
  await audit(trx, communityId, userId, kicked.id, 'KICK', reason, decider, now);
  await emit(trx, await communityOf(trx, communityId), 'member.kicked', {
    memberId: kicked.id,
    userId,
    kickedAt: now,
    kickedBy: deciderId(decider),
  });
  return { kickedAt: now, changed: true };
}

/**
 * Any membership (or a person with only an unpaid application) -> BANNED for good; open
 * applications are closed; `member.banned`; the reason on the audit trail. Banning again answers
 * the first time and records nothing.
 */
export async function banMember(
  trx: Trx,
  communityId: string,
  userId: string,
  decider: Decider,
  reason: string | null,
): Promise<{ bannedAt: string; changed: boolean }> {
  const by = deciderId(decider);
  const now = nowIso();
  let banned = await trx
    .updateTable('memberships')
    .set({ status: 'BANNED', banned_at: now, role: 'member' })
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('status', '!=', 'BANNED')
    .where('role', 'not in', untouchableFor(decider))
    .returning('id')
    .executeTakeFirst();
  if (!banned) {
    const m = await membershipRow(trx, communityId, userId);
    const refusal = m ? untouchable(decider, m.role) : null;
    if (refusal) throw refusal;
    if (m?.status === 'BANNED') return { bannedAt: m.banned_at ?? now, changed: false };
    const applied = await trx
      .selectFrom('membership_requests')
      .select('created_at')
      .where('community_id', '=', communityId)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .executeTakeFirst();
    if (!applied) throw new Refusal('member_not_found');
    banned = await trx
      .insertInto('memberships')
      .values({
        id: newId(),
        community_id: communityId,
        user_id: userId,
        status: 'BANNED',
        role: 'member',
        segment_id: null,
        created_at: applied.created_at,
        accepted_at: null,
        kicked_at: null,
        banned_at: now,
      })
      .onConflict((oc) => oc.columns(['community_id', 'user_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!banned) {
      // A concurrent ban made the row first.
      const raced = await membershipRow(trx, communityId, userId);
      return { bannedAt: raced?.banned_at ?? now, changed: false };
    }
  }
  await trx
    .updateTable('membership_requests')
    .set({ status: 'CANCELLED', decided_at: now, decided_by: by })
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('status', 'in', ['PENDING', 'PAYMENT_PENDING'])
    .execute();
  await audit(trx, communityId, userId, banned.id, 'BAN', reason, decider, now);
  await emit(trx, await communityOf(trx, communityId), 'member.banned', {
    memberId: banned.id,
    userId,
    bannedAt: now,
    bannedBy: by,
  });
  return { bannedAt: now, changed: true };
}

// ---------------------------------------------------------------------------------------------
// The visitor's own memberships

export interface OwnMembership {
  communityTag: string;
  status: 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED';
  platforms: { svc: { status: string } };
  createdAt: string;
}

/**
 * The user's memberships (any status), newest first, optionally in one community. `createdAt` is
 * when they last applied. `platforms.svc.status` repeats `status`, except for a member who was
 * kicked: REJECTED there, KICKED here (the spec's status enum has no value for it).
 */
export async function listOwnMemberships(
  db: Db | Trx,
  userId: string,
  communityTag?: string,
): Promise<OwnMembership[]> {
  let q = db
    .selectFrom('memberships')
    .innerJoin('communities', 'communities.id', 'memberships.community_id')
    .select(['communities.tag', 'memberships.status', 'memberships.kicked_at', 'memberships.created_at'])
    .where('memberships.user_id', '=', userId);
  if (communityTag !== undefined) q = q.where('communities.tag', '=', communityTag);
  const rows = await q.orderBy('memberships.created_at', 'desc').orderBy('memberships.id', 'desc').execute();
  return rows.map((r) => ({
    communityTag: r.tag,
    status: r.status,
    platforms: { svc: { status: r.status === 'REJECTED' && r.kicked_at ? 'KICKED' : r.status } },
    createdAt: r.created_at,
  }));
}
