// Table types of migration 0029_list_counts: running counts kept by database triggers in the same
// transaction as every write to the counted tables (docs/list-counts.md). Nothing in the
// application writes these rows except the recount (server/domain/list-counts.ts).

/** The visibility an event row has, NULL (inherits the EVENTS page / community) spelled out. */
export type EventVisibilityClass = 'PUBLIC' | 'MEMBERS_ONLY' | 'INHERITED';

export interface EventCountsTable {
  community_id: string;
  visibility: EventVisibilityClass;
  /**
   * The start-date bucket, by the start_date text's prefix: `Y2026` (a year), `M2026-03` (a
   * month), `D2026-03-15` (a day), `H2026-03-15T09` (an hour). Every event is counted once in
   * each grain, so "before/after now" is summed from at most 23 hour rows, 30 day rows, 11 month
   * rows and the year rows, plus the events of the current hour, whatever the row count.
   */
  bucket: string;
  n: number;
}

/**
 * One count per (community, list, key): `members` (ACCEPTED memberships), `articles`
 * (PUBLISHED), `products` (active), `hotspots` (all), each with key ''; `hotspots_by_category`
 * with key = the category id.
 */
export interface ListCountsTable {
  community_id: string;
  list: 'members' | 'articles' | 'products' | 'hotspots' | 'hotspots_by_category';
  key: string;
  n: number;
}

/** The donation summary's running totals: donations not refunded, per target. */
export interface DonationTotalsTable {
  community_id: string;
  target_type: 'PRODUCT' | 'EVENT';
  target_id: string;
  /** Minor units; bigint on PostgreSQL (read through Number()). */
  total: number | string;
  count: number;
}

export interface CountTables {
  event_counts: EventCountsTable;
  list_counts: ListCountsTable;
  donation_totals: DonationTotalsTable;
}
