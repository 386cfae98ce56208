// Broadcasts as the API sees them: create (the audience count, the 24 h limit), list, get, cancel.
// Delivery is server/broadcasts (the dispatcher claims the rows written here).
//
// The limit: every row that is not a test and not CANCELLED counts at its send_at, and a new send
// at time c fits when, with it added, no rolling 24 h window (t - 24h, t] holds more than
// BROADCASTS_PER_DAY. The rows are read and the new one inserted in one transaction holding a lock
// on the community row (PostgreSQL: SELECT ... FOR NO KEY UPDATE, which also serializes other processes;
// SQLite: one connection, so transactions of a process never interleave), so concurrent sends
// cannot both see the last free place.
import { PostgresAdapter, type Selectable } from 'kysely';
import { BROADCASTS_PER_DAY } from '../../contract/routes/broadcasts.ts';
import type { Broadcast } from '../../contract/resources.ts';
import { afterCommit, type Db, type Trx } from '../db/index.ts';
import { newId, parseJson } from '../db/ids.ts';
import type { BroadcastsTable, BroadcastStatus } from '../db/schema-broadcasts.ts';
import { countAudience } from '../broadcasts/audience.ts';
import { prepareBroadcastContent } from '../broadcasts/content.ts';
import { wakeBroadcastDispatchers } from '../broadcasts/wake.ts';
import { renderBroadcastMail, renderSubject } from '../mail/broadcast-render.ts';
import { DEFAULT_MAIL_FROM } from '../mail/config.ts';
import { envelopeAddress } from '../mail/transport.ts';
import { sanitizeArticleHtml } from './article-html.ts';
import { hasFeature } from './communities.ts';
import { Refusal } from './refusal.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface NewBroadcast {
  subject: string;
  html?: string;
  text?: string;
  audience?: { segmentIds: string[] };
  /** ISO date-time; absent = now. */
  sendAt?: string;
  testTo?: string;
}

export interface QueuedBroadcast {
  id: string;
  status: 'QUEUED' | 'SCHEDULED';
  recipients: number;
  sendAt: string;
  /** The limit after this send (absent for a test send, which does not count). */
  limit?: { limit: number; remaining: number; resetAt: number };
}

/** Refuses a community without the broadcasts feature (or no community at all). */
export async function assertBroadcastsEnabled(db: Db | Trx, communityId: string): Promise<void> {
  const community = await db
    .selectFrom('communities')
    .select('features')
    .where('id', '=', communityId)
    .executeTakeFirst();
  if (!community) throw new Refusal('community_not_found');
  if (!hasFeature(community, 'broadcasts')) throw new Refusal('broadcasts_not_enabled');
}

/** The most sends any window (t - 24h, t] containing `at` holds, counting one more at `at`. */
export function busiestWindow(counted: readonly number[], at: number): number {
  // Only windows ending at `at` or at a counted send within 24 h after it can change: a window's
  // count only rises where a send is.
  let most = 0;
  for (const end of [at, ...counted.filter((t) => t >= at && t < at + DAY_MS)]) {
    const inWindow = counted.filter((t) => t > end - DAY_MS && t <= end).length + 1;
    most = Math.max(most, inWindow);
  }
  return most;
}

/**
 * The earliest time >= `at` a send fits, given the counted sends' times (ms). A send's weight
 * leaves a window when the window's start passes it, so the candidates are `at` and each counted
 * send + 24 h; the first that fits is the answer.
 */
export function earliestFit(counted: readonly number[], at: number, limit = BROADCASTS_PER_DAY): number {
  const candidates = [at, ...counted.map((t) => t + DAY_MS).filter((t) => t > at)].sort((a, b) => a - b);
  for (const c of candidates) if (busiestWindow(counted, c) <= limit) return c;
  // Unreachable: at the last send + 24 h no counted send is in any window at or after it.
  return candidates[candidates.length - 1];
}

/**
 * PostgreSQL: FOR NO KEY UPDATE conflicts with itself, so sends of one community queue here, but
 * not with the KEY SHARE lock a foreign-key check takes, so inserts that reference the community
 * elsewhere (memberships, orders) never wait for a send. SQLite: nothing to take (see the header).
 */
async function lockCommunity(trx: Trx, communityId: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    await trx.selectFrom('communities').select('id').where('id', '=', communityId).forNoKeyUpdate().execute();
  }
}

/**
 * The counted sends from 24 h before `at` (ms since the epoch) on, with no upper bound: judging `at`
 * needs those within 24 h after it, but the earliest later time a refused send fits (Retry-After)
 * can be pushed out by any send scheduled after that. Bounded all the same: at most
 * BROADCASTS_PER_DAY in any 24 h, and none more than 30 days ahead.
 */
async function countedFrom(db: Db | Trx, communityId: string, at: number): Promise<number[]> {
  const rows = await db
    .selectFrom('broadcasts')
    .select('send_at')
    .where('community_id', '=', communityId)
    .where('test_to', 'is', null)
    .where('status', '<>', 'CANCELLED')
    .where('send_at', '>', new Date(at - DAY_MS).toISOString())
    .execute();
  return rows.map((r) => Date.parse(r.send_at));
}

/** A segment a broadcast may go to: any of the community's, closed ones too (their members stay). */
export interface AudienceSegment {
  id: string;
  name: string;
  active: boolean;
}

/** The community's segments, as the compose form offers them, in the site's order. */
export async function listAudienceSegments(db: Db, communityId: string): Promise<AudienceSegment[]> {
  const rows = await db
    .selectFrom('segments')
    .select(['id', 'name', 'is_active'])
    .where('community_id', '=', communityId)
    .orderBy('sort_order')
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, active: Boolean(r.is_active) }));
}

/** Every segment id is one of this community's, or the first that is not is refused. */
async function assertSegmentsOfCommunity(db: Db | Trx, communityId: string, segmentIds: readonly string[]) {
  const found = await db
    .selectFrom('segments')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', 'in', [...segmentIds])
    .execute();
  const known = new Set(found.map((r) => r.id));
  const unknown = segmentIds.find((id) => !known.has(id));
  if (unknown !== undefined) throw new Refusal('broadcast_segment_unknown', { segmentId: unknown });
}

/**
 * Queues (or schedules) a broadcast: one row, in the caller's transaction, and the dispatchers
 * woken once it commits. Refusals leave nothing behind: the transaction rolls back.
 */
export async function createBroadcast(
  trx: Trx,
  communityId: string,
  input: NewBroadcast,
  now = Date.now(),
): Promise<QueuedBroadcast> {
  // An input check, so before the feature (as the contract's own checks are).
  const content = prepareBroadcastContent({ html: input.html, text: input.text }, sanitizeArticleHtml);
  if ((content.html === null || content.html.trim() === '') && content.text.trim() === '')
    throw new Refusal('broadcast_content_empty', { field: input.html !== undefined ? 'html' : 'text' });
  await assertBroadcastsEnabled(trx, communityId);
  const segmentIds = input.audience ? [...new Set(input.audience.segmentIds)] : null;
  if (segmentIds) await assertSegmentsOfCommunity(trx, communityId, segmentIds);
  const test = input.testTo !== undefined;
  const sendAt = input.sendAt !== undefined ? Date.parse(input.sendAt) : now;

  let limit: QueuedBroadcast['limit'];
  if (!test) {
    // Taken before the window is read, so the next send in waits for this one's row.
    await lockCommunity(trx, communityId);
    const counted = await countedFrom(trx, communityId, sendAt);
    const busiest = busiestWindow(counted, sendAt);
    if (busiest > BROADCASTS_PER_DAY) {
      const fits = earliestFit(counted, sendAt);
      const retryAfter = Math.max(1, Math.ceil((fits - now) / 1000));
      throw new Refusal('broadcast_limit', {
        limit: BROADCASTS_PER_DAY,
        retryAfter,
        resetAt: Math.ceil(fits / 1000),
      });
    }
    // When the window this send is in has room again: its oldest send turns 24 h old.
    const inWindow = [...counted.filter((t) => t > sendAt - DAY_MS && t <= sendAt), sendAt];
    limit = {
      limit: BROADCASTS_PER_DAY,
      remaining: BROADCASTS_PER_DAY - busiest,
      resetAt: Math.ceil((Math.min(...inWindow) + DAY_MS) / 1000),
    };
  }

  const recipients = test ? 1 : await countAudience(trx, { communityId, segmentIds });
  if (recipients === 0) throw new Refusal('broadcast_audience_empty');

  const id = newId();
  const status = input.sendAt !== undefined ? 'SCHEDULED' : 'QUEUED';
  const sendAtIso = new Date(sendAt).toISOString();
  await trx
    .insertInto('broadcasts')
    .values({
      id,
      community_id: communityId,
      subject: input.subject,
      html: content.html,
      text: content.text,
      audience_segment_ids: segmentIds ? JSON.stringify(segmentIds) : null,
      test_to: input.testTo ?? null,
      status,
      send_at: sendAtIso,
      recipients,
      created_at: new Date(now).toISOString(),
    })
    .execute();
  afterCommit(trx, wakeBroadcastDispatchers);
  return { id, status, recipients, sendAt: sendAtIso, ...(limit ? { limit } : {}) };
}

type Row = Pick<
  Selectable<BroadcastsTable>,
  | 'id'
  | 'subject'
  | 'status'
  | 'test_to'
  | 'audience_segment_ids'
  | 'send_at'
  | 'created_at'
  | 'started_at'
  | 'completed_at'
  | 'cancelled_at'
  | 'recipients'
  | 'sent_count'
  | 'failed_count'
  | 'unsubscribed_count'
>;

const COLUMNS = [
  'id',
  'subject',
  'status',
  'test_to',
  'audience_segment_ids',
  'send_at',
  'created_at',
  'started_at',
  'completed_at',
  'cancelled_at',
  'recipients',
  'sent_count',
  'failed_count',
  'unsubscribed_count',
] as const;

function toBroadcast(row: Row): Broadcast {
  const segmentIds = parseJson<string[] | null>(row.audience_segment_ids, null);
  return {
    id: row.id,
    subject: row.subject,
    status: row.status,
    test: row.test_to !== null,
    testTo: row.test_to,
    audience: segmentIds ? { segmentIds } : null,
    sendAt: row.send_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at,
    counts: {
      recipients: Number(row.recipients),
      sent: Number(row.sent_count),
      failed: Number(row.failed_count),
      unsubscribed: Number(row.unsubscribed_count),
    },
  };
}

/** A page of the community's broadcasts, newest first (ties by id, so pages neither skip nor repeat). */
export async function listBroadcasts(
  db: Db,
  communityId: string,
  opts: { limit: number; offset: number; status?: BroadcastStatus },
): Promise<{ items: Broadcast[]; total: number }> {
  let base = db.selectFrom('broadcasts').where('community_id', '=', communityId);
  if (opts.status) base = base.where('status', '=', opts.status);
  const [rows, total] = await Promise.all([
    base
      .select(COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toBroadcast), total: Number(total.n) };
}

export async function getBroadcast(db: Db | Trx, communityId: string, id: string): Promise<Broadcast> {
  const row = await db
    .selectFrom('broadcasts')
    .select(COLUMNS)
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new Refusal('broadcast_not_found');
  return toBroadcast(row);
}

/**
 * SCHEDULED -> CANCELLED, by one conditional update, so a dispatcher claiming the row at the same
 * moment and this cancel cannot both win. CANCELLED again is answered unchanged; anything else
 * has started (or is about to) and is refused.
 */
export async function cancelBroadcast(trx: Trx, communityId: string, id: string, now = Date.now()) {
  return (await cancelBroadcastChange(trx, communityId, id, now)).broadcast;
}

/** cancelBroadcast, saying whether this call made the change (the console audits only a change). */
export async function cancelBroadcastChange(
  trx: Trx,
  communityId: string,
  id: string,
  now = Date.now(),
): Promise<{ broadcast: Broadcast; changed: boolean }> {
  await assertBroadcastsEnabled(trx, communityId);
  const changed = await trx
    .updateTable('broadcasts')
    .set({ status: 'CANCELLED', cancelled_at: new Date(now).toISOString() })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('status', '=', 'SCHEDULED')
    .executeTakeFirst();
  const current = await getBroadcast(trx, communityId, id);
  const won = Number(changed.numUpdatedRows) === 1;
  if (!won && current.status !== 'CANCELLED')
    throw new Refusal('broadcast_not_cancellable', { status: current.status });
  return { broadcast: current, changed: won };
}

export interface BroadcastAllowance {
  limit: number;
  /** The counted sends (not tests, not cancelled) in the busiest 24 h window a send now would join. */
  used: number;
  /** Sends that fit now. */
  remaining: number;
  /** The earliest time a send fits: now when `remaining` > 0. */
  nextSendAt: string;
}

/**
 * What is left of the limit for a send now: the same windows createBroadcast judges, so a send is
 * accepted exactly when `remaining` > 0 (scheduled sends ahead count in the windows they share).
 */
export async function broadcastAllowance(db: Db, communityId: string, now = Date.now()): Promise<BroadcastAllowance> {
  await assertBroadcastsEnabled(db, communityId);
  const counted = await countedFrom(db, communityId, now);
  const used = busiestWindow(counted, now) - 1;
  const remaining = Math.max(0, BROADCASTS_PER_DAY - used);
  const next = remaining > 0 ? now : earliestFit(counted, now);
  return { limit: BROADCASTS_PER_DAY, used, remaining, nextSendAt: new Date(next).toISOString() };
}

export interface BroadcastPreview {
  subject: string;
  html: string | null;
  text: string;
  /** Who the send would reach now (1 for a test send); nothing is refused for an empty audience here. */
  recipients: number;
}

/**
 * One recipient's copy of a broadcast not yet sent, rendered as the mail worker renders it (the
 * html sanitized as on write, `{{name}}` merged, the footer added), for the console's live preview.
 * `unsubscribeUrl` is the caller's: a preview's link must not unsubscribe anyone.
 */
export async function previewBroadcast(
  db: Db,
  communityId: string,
  input: NewBroadcast,
  sample: { name: string; unsubscribeUrl: string },
): Promise<BroadcastPreview> {
  await assertBroadcastsEnabled(db, communityId);
  const segmentIds = input.audience ? [...new Set(input.audience.segmentIds)] : null;
  if (segmentIds) await assertSegmentsOfCommunity(db, communityId, segmentIds);
  const test = input.testTo !== undefined;
  const recipients = test ? 1 : await countAudience(db, { communityId, segmentIds });
  const content = prepareBroadcastContent({ html: input.html, text: input.text }, sanitizeArticleHtml);
  const community = await db
    .selectFrom('communities')
    .select('name')
    .where('id', '=', communityId)
    .executeTakeFirstOrThrow();
  const mail = renderBroadcastMail(
    { subject: input.subject, html: content.html, text: content.text, communityName: community.name, test },
    { name: sample.name, unsubscribeUrl: sample.unsubscribeUrl },
    // Only the List-Unsubscribe headers use the sender, and a preview has no headers.
    envelopeAddress(DEFAULT_MAIL_FROM),
  );
  return { subject: renderSubject(input.subject, sample.name, test), html: mail.html, text: mail.text, recipients };
}
