// Who may run an event's door, who is coming, and the door check-in itself (the hosted site's
// `/events/<slug>/manage`, docs/hosted-site.md). A ticket is checked in once: the conditional
// UPDATE (`... WHERE checked_in_at IS NULL`) is the only thing that decides, never a read before
// it, so any number of scanners racing on one code admit exactly one person.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/ids.ts';
import type { TicketCodes } from './ticket-codes.ts';

/** A community's leaders: an ACCEPTED membership in the founder or admin role. */
export async function isCommunityLeader(db: Db, communityId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .where('status', '=', 'ACCEPTED')
    .where('role', 'in', ['founder', 'admin'])
    .executeTakeFirst();
  return row !== undefined;
}

export interface ManagedEvent {
  id: string;
  slug: string;
  name: string;
  startDate: string;
}

/** The event as its leaders manage it: whatever its visibility (the page is for leaders only). */
export async function managedEvent(db: Db, communityId: string, slug: string): Promise<ManagedEvent | null> {
  const row = await db
    .selectFrom('events')
    .select(['id', 'slug', 'name', 'start_date'])
    .where('community_id', '=', communityId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row ? { id: row.id, slug: row.slug, name: row.name, startDate: row.start_date } : null;
}

export interface Attendee {
  ticketId: string;
  name: string;
  email: string;
  tierName: string;
  kind: 'RSVP' | 'PAID';
  issuedAt: string;
  refundedAt: string | null;
  checkedInAt: string | null;
}

/** Where a page of attendees ends: the last ticket's issue time and id (the list's order). */
export interface AttendeeCursor {
  issuedAt: string;
  ticketId: string;
}

/**
 * One page of the event's tickets in the order they were issued, after `after`: a keyset on the
 * (event_id, created_at, id) index, so a page costs the same at the millionth ticket as at the first.
 * Without `limit`, all of them (the CSV export).
 */
export async function eventAttendeesPage(
  db: Db,
  eventId: string,
  page: { limit?: number; after?: AttendeeCursor },
): Promise<{ items: Attendee[]; next: AttendeeCursor | null }> {
  const after = page.after;
  const rows = await db
    .selectFrom('tickets')
    .innerJoin('tiers', 'tiers.id', 'tickets.tier_id')
    .select([
      'tickets.id',
      'tickets.name',
      'tickets.email',
      'tickets.kind',
      'tickets.created_at',
      'tickets.refunded_at',
      'tickets.checked_in_at',
      'tiers.name as tier_name',
    ])
    .where('tickets.event_id', '=', eventId)
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('tickets.created_at', '>', after!.issuedAt),
          eb.and([eb('tickets.created_at', '=', after!.issuedAt), eb('tickets.id', '>', after!.ticketId)]),
        ]),
      ),
    )
    .orderBy('tickets.created_at')
    .orderBy('tickets.id')
    .$if(page.limit !== undefined, (q) => q.limit(page.limit! + 1))
    .execute();
  // Without a limit, every ticket: one page that ends the list.
  const limit = page.limit ?? rows.length;
  const items = rows.slice(0, limit).map(toAttendee);
  const last = items.at(-1);
  return {
    items,
    next: rows.length > limit && last ? { issuedAt: last.issuedAt, ticketId: last.ticketId } : null,
  };
}

/** How many of the event's tickets are valid (not refunded), and how many of those are checked in. */
export async function attendanceCounts(db: Db, eventId: string): Promise<{ valid: number; checkedIn: number }> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('valid'),
      eb.fn.count<number | string>('tickets.checked_in_at').as('checked_in'),
    ])
    .where('event_id', '=', eventId)
    .where('refunded_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { valid: Number(row.valid), checkedIn: Number(row.checked_in) };
}

function toAttendee(r: {
  id: string;
  name: string;
  email: string;
  kind: 'RSVP' | 'PAID';
  created_at: string;
  refunded_at: string | null;
  checked_in_at: string | null;
  tier_name: string;
}): Attendee {
  return {
    ticketId: r.id,
    name: r.name,
    email: r.email,
    tierName: r.tier_name,
    kind: r.kind,
    issuedAt: r.created_at,
    refundedAt: r.refunded_at,
    checkedInAt: r.checked_in_at,
  };
}

/** Every ticket of the event, refunded ones included (marked), in the order they were issued: the CSV. */
export async function eventAttendees(db: Db, eventId: string): Promise<Attendee[]> {
  return (await eventAttendeesPage(db, eventId, {})).items;
}

export type CheckInResult =
  | { outcome: 'checked-in'; attendee: { name: string; tierName: string }; at: string }
  | { outcome: 'already-checked-in'; attendee: { name: string; tierName: string }; at: string }
  | { outcome: 'refunded'; attendee: { name: string; tierName: string } }
  /** Not a genuine code, or a ticket of another event or community: the door learns nothing more. */
  | { outcome: 'invalid' };

/** Consumes a scanned ticket code for `eventId`, once. */
export async function checkInTicket(db: Db, codes: TicketCodes, eventId: string, code: string): Promise<CheckInResult> {
  const ticketId = codes.ticketIdOf(code);
  if (!ticketId) return { outcome: 'invalid' };
  const at = nowIso();
  const updated = await db
    .updateTable('tickets')
    .set({ checked_in_at: at })
    .where('id', '=', ticketId)
    .where('event_id', '=', eventId)
    .where('refunded_at', 'is', null)
    .where('checked_in_at', 'is', null)
    .executeTakeFirst();
  // Read after the write, for the answer only: the UPDATE above already decided.
  const row = await db
    .selectFrom('tickets')
    .innerJoin('tiers', 'tiers.id', 'tickets.tier_id')
    .select(['tickets.name', 'tickets.refunded_at', 'tickets.checked_in_at', 'tiers.name as tier_name'])
    .where('tickets.id', '=', ticketId)
    .where('tickets.event_id', '=', eventId)
    .executeTakeFirst();
  if (!row) return { outcome: 'invalid' };
  const attendee = { name: row.name, tierName: row.tier_name };
  if (Number(updated.numUpdatedRows) === 1) return { outcome: 'checked-in', attendee, at };
  if (row.checked_in_at !== null) return { outcome: 'already-checked-in', attendee, at: row.checked_in_at };
  return { outcome: 'refunded', attendee };
}
