// The console's overview (`GET /api/admin/{tag}/overview`, the page `/admin`): how many members and
// pending requests the community has, its next events, and its donations and RSVPs of the last 30
// days by day. Every count is a range of an index led by the community (migrations 0001, 0022 and
// 0027_console_overview), so the answer costs what it counts, whatever else the platform holds.
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

/** Days the charts cover, today (UTC) included. */
export const OVERVIEW_DAYS = 30;
/** Upcoming events listed by name (all of them are counted). */
export const OVERVIEW_NEXT_EVENTS = 5;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CurrencyAmount {
  currency: string;
  /** In the currency's minor unit (cents), as every amount of the API. */
  amount: number;
}

export interface LeaderOverview {
  members: { accepted: number };
  requests: { pending: number };
  events: { upcoming: number; next: { id: string; slug: string; name: string; startDate: string }[] };
  /** The first day of the charts (UTC, `YYYY-MM-DD`); the last is today. */
  since: string;
  donations: {
    days: { date: string; count: number; amounts: CurrencyAmount[] }[];
    totals: (CurrencyAmount & { count: number })[];
  };
  rsvps: { days: { date: string; count: number }[]; total: number };
}

/** The UTC days from `since` to `now`'s, each `YYYY-MM-DD`. */
function daysFrom(since: number, now: number): string[] {
  const out: string[] = [];
  for (let t = since; t <= now; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

// Timestamps are stored as ISO 8601 UTC text on both databases, so a row's UTC day is its first ten characters.
const dayOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

export async function leaderOverview(db: Db, communityId: string, now = Date.now()): Promise<LeaderOverview> {
  const nowIso = new Date(now).toISOString();
  const sinceMs = Date.parse(
    `${new Date(now - (OVERVIEW_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)}T00:00:00.000Z`,
  );
  const sinceIso = new Date(sinceMs).toISOString();
  const [accepted, pending, upcoming, next, donationRows, rsvpRows] = await Promise.all([
    db
      .selectFrom('memberships')
      .where('community_id', '=', communityId)
      .where('status', '=', 'ACCEPTED')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('membership_requests')
      .where('community_id', '=', communityId)
      .where('status', '=', 'PENDING')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .where('community_id', '=', communityId)
      .where('start_date', '>=', nowIso)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .where('community_id', '=', communityId)
      .where('start_date', '>=', nowIso)
      .orderBy('start_date')
      .orderBy('id')
      .limit(OVERVIEW_NEXT_EVENTS)
      .select(['id', 'slug', 'name', 'start_date'])
      .execute(),
    db
      .selectFrom('donations')
      .where('community_id', '=', communityId)
      .where('received_at', '>=', sinceIso)
      .where('refunded_at', 'is', null)
      .select([dayOf('received_at').as('day'), 'currency'])
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<string | number>('amount').as('amount')])
      .groupBy([dayOf('received_at'), 'currency'])
      .execute(),
    db
      .selectFrom('tickets')
      .where('community_id', '=', communityId)
      .where('kind', '=', 'RSVP')
      .where('created_at', '>=', sinceIso)
      .where('refunded_at', 'is', null)
      .select([dayOf('created_at').as('day')])
      .select((eb) => eb.fn.countAll().as('n'))
      .groupBy(dayOf('created_at'))
      .execute(),
  ]);

  const days = daysFrom(sinceMs, now);
  const donationDays = new Map(days.map((d) => [d, { date: d, count: 0, amounts: [] as CurrencyAmount[] }]));
  const totals = new Map<string, CurrencyAmount & { count: number }>();
  for (const row of donationRows) {
    const day = donationDays.get(row.day);
    // A row dated after now (a clock ahead) has no day on the chart.
    if (!day) continue;
    const count = Number(row.n);
    const amount = Number(row.amount);
    day.count += count;
    day.amounts.push({ currency: row.currency, amount });
    const total = totals.get(row.currency) ?? { currency: row.currency, amount: 0, count: 0 };
    total.amount += amount;
    total.count += count;
    totals.set(row.currency, total);
  }
  for (const day of donationDays.values()) day.amounts.sort((a, b) => a.currency.localeCompare(b.currency));
  const rsvpByDay = new Map(rsvpRows.map((r) => [r.day, Number(r.n)]));
  const rsvpDays = days.map((date) => ({ date, count: rsvpByDay.get(date) ?? 0 }));

  return {
    members: { accepted: Number(accepted.n) },
    requests: { pending: Number(pending.n) },
    events: {
      upcoming: Number(upcoming.n),
      next: next.map((e) => ({ id: e.id, slug: e.slug, name: e.name, startDate: e.start_date })),
    },
    since: days[0],
    donations: {
      days: [...donationDays.values()],
      totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    },
    rsvps: { days: rsvpDays, total: rsvpDays.reduce((n, d) => n + d.count, 0) },
  };
}
