// Exact list counts and donation totals that cost the same at a million rows as at ten
// (docs/list-counts.md). Database triggers keep them, in the same transaction as the write, so
// every writer stays exact without knowing about them: the API, the console, imports, seeds and
// bulk loaders with raw INSERTs. SQLite gets row triggers; PostgreSQL gets statement triggers
// over transition tables, so one bulk INSERT of a million rows costs one grouped upsert per
// counter row it touches, not a million.
//
// The counted rows and their counters (what the triggers add and take away):
// - events -> event_counts: per visibility class (NULL = INHERITED) and start-date bucket, in
//   four grains (Y2026, M2026-03, D2026-03-15, H2026-03-15T09), so a date range sums a bounded
//   number of rows.
// - memberships ACCEPTED -> list_counts('members'); articles PUBLISHED -> ('articles'); products
//   active -> ('products'); atlas hotspots -> ('hotspots') and ('hotspots_by_category', category).
// - donations not refunded -> donation_totals (sum of amounts and count, per target).
//
// This file is frozen with its migration: the recount (server/domain/list-counts.ts) recomputes
// the same counts independently, which is what its test compares against.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** One counter row a source row contributes to: the counter's key columns and added values. */
interface Contribution {
  keys: string[];
  values: string[];
}

interface CounterSpec {
  /** Trigger (and PostgreSQL function) name stem. */
  name: string;
  source: string;
  target: string;
  keyColumns: string[];
  valueColumns: string[];
  /** Whether row r (`new` or `old`) is counted at all. */
  counted(r: string): string;
  /** The counter rows r adds to; `sign` is '' or '-'. */
  contributions(r: string, sign: '' | '-'): Contribution[];
  /** Columns whose change can move a row between counters (SQLite's UPDATE OF list). */
  watched: string[];
}

const one = (sign: '' | '-') => `${sign}1`;

const SPECS: CounterSpec[] = [
  {
    name: 'event_counts',
    source: 'events',
    target: 'event_counts',
    keyColumns: ['community_id', 'visibility', 'bucket'],
    valueColumns: ['n'],
    counted: () => '1 = 1',
    contributions: (r, sign) =>
      [
        [`'Y'`, 4],
        [`'M'`, 7],
        [`'D'`, 10],
        [`'H'`, 13],
      ].map(([grain, len]) => ({
        keys: [
          `${r}.community_id`,
          `coalesce(${r}.visibility, 'INHERITED')`,
          `${grain} || substr(${r}.start_date, 1, ${len})`,
        ],
        values: [one(sign)],
      })),
    watched: ['community_id', 'visibility', 'start_date'],
  },
  ...(
    [
      ['members', 'memberships', (r: string) => `${r}.status = 'ACCEPTED'`, ['community_id', 'status']],
      ['articles', 'articles', (r: string) => `${r}.status = 'PUBLISHED'`, ['community_id', 'status']],
      ['products', 'products', (r: string) => `${r}.is_active = 1`, ['community_id', 'is_active']],
    ] as const
  ).map(([list, source, counted, watched]): CounterSpec => ({
    name: `${list}_count`,
    source,
    target: 'list_counts',
    keyColumns: ['community_id', 'list', 'key'],
    valueColumns: ['n'],
    counted,
    contributions: (r, sign) => [{ keys: [`${r}.community_id`, `'${list}'`, `''`], values: [one(sign)] }],
    watched: [...watched],
  })),
  {
    name: 'hotspots_count',
    source: 'atlas_hotspots',
    target: 'list_counts',
    keyColumns: ['community_id', 'list', 'key'],
    valueColumns: ['n'],
    counted: () => '1 = 1',
    contributions: (r, sign) => [
      { keys: [`${r}.community_id`, `'hotspots'`, `''`], values: [one(sign)] },
      { keys: [`${r}.community_id`, `'hotspots_by_category'`, `${r}.category_id`], values: [one(sign)] },
    ],
    watched: ['community_id', 'category_id'],
  },
  {
    name: 'donation_totals',
    source: 'donations',
    target: 'donation_totals',
    keyColumns: ['community_id', 'target_type', 'target_id'],
    valueColumns: ['total', 'count'],
    counted: (r) => `${r}.refunded_at is null`,
    contributions: (r, sign) => [
      {
        keys: [`${r}.community_id`, `${r}.target_type`, `${r}.target_id`],
        values: [`${sign}${r}.amount`, one(sign)],
      },
    ],
    watched: ['community_id', 'target_type', 'target_id', 'amount', 'refunded_at'],
  },
];

function upsertSqlite(spec: CounterSpec, c: Contribution): string {
  const cols = [...spec.keyColumns, ...spec.valueColumns].join(', ');
  const set = spec.valueColumns.map((v) => `${v} = ${v} + excluded.${v}`).join(', ');
  return (
    `insert into ${spec.target} (${cols}) values (${[...c.keys, ...c.values].join(', ')}) ` +
    `on conflict (${spec.keyColumns.join(', ')}) do update set ${set};`
  );
}

function sqliteTriggers(spec: CounterSpec): string[] {
  const body = (r: string, sign: '' | '-') =>
    spec
      .contributions(r, sign)
      .map((c) => upsertSqlite(spec, c))
      .join('\n  ');
  const changed = spec.watched.map((c) => `old.${c} is not new.${c}`).join(' or ');
  const on = `on ${spec.source} for each row`;
  const of = `of ${spec.watched.join(', ')}`;
  return [
    `create trigger ${spec.name}_insert after insert ${on} when ${spec.counted('new')} begin\n  ${body('new', '')}\nend`,
    `create trigger ${spec.name}_delete after delete ${on} when ${spec.counted('old')} begin\n  ${body('old', '-')}\nend`,
    `create trigger ${spec.name}_update_old after update ${of} ${on} when ${spec.counted('old')} and (${changed}) ` +
      `begin\n  ${body('old', '-')}\nend`,
    `create trigger ${spec.name}_update_new after update ${of} ${on} when ${spec.counted('new')} and (${changed}) ` +
      `begin\n  ${body('new', '')}\nend`,
  ];
}

/** The grouped upsert of a statement's net change, from the transition tables it may read. */
function postgresDelta(spec: CounterSpec, tables: Array<['new_rows' | 'old_rows', '' | '-']>): string {
  const r = (t: string) => (t === 'new_rows' ? 'n' : 'o');
  const arms = tables.flatMap(([table, sign]) =>
    spec
      .contributions(r(table), sign)
      .map(
        (c) =>
          `select ${[...c.keys.map((k, i) => `${k} as k${i}`), ...c.values.map((v, i) => `${v} as v${i}`)].join(', ')} ` +
          `from ${table} ${r(table)} where ${spec.counted(r(table))}`,
      ),
  );
  const keys = spec.keyColumns.map((_, i) => `k${i}`);
  const sums = spec.valueColumns.map((_, i) => `sum(v${i})`);
  const set = spec.valueColumns.map((v) => `${v} = ${spec.target}.${v} + excluded.${v}`).join(', ');
  return (
    `insert into ${spec.target} (${[...spec.keyColumns, ...spec.valueColumns].join(', ')}) ` +
    `select ${[...keys, ...sums].join(', ')} from (${arms.join(' union all ')}) d ` +
    `group by ${keys.join(', ')} having ${sums.map((s) => `${s} <> 0`).join(' or ')} ` +
    // Sorted so concurrent statements take the counter rows' locks in one order (no deadlock).
    `order by ${keys.join(', ')} ` +
    `on conflict (${spec.keyColumns.join(', ')}) do update set ${set}`
  );
}

function postgresTriggers(spec: CounterSpec): string[] {
  const fn = `${spec.name}_apply`;
  const transition = (op: string) =>
    op === 'insert'
      ? 'referencing new table as new_rows'
      : op === 'delete'
        ? 'referencing old table as old_rows'
        : 'referencing old table as old_rows new table as new_rows';
  return [
    // The body's table names resolve in the migration's schema, not the writing session's.
    `create or replace function ${fn}() returns trigger language plpgsql set search_path from current as $$
begin
  if tg_op = 'INSERT' then
    ${postgresDelta(spec, [['new_rows', '']])};
  elsif tg_op = 'DELETE' then
    ${postgresDelta(spec, [['old_rows', '-']])};
  else
    ${postgresDelta(spec, [
      ['old_rows', '-'],
      ['new_rows', ''],
    ])};
  end if;
  return null;
end $$`,
    // One trigger per event: PostgreSQL allows transition tables only on single-event triggers.
    ...['insert', 'update', 'delete'].map(
      (op) =>
        `create trigger ${spec.name}_${op} after ${op} on ${spec.source} ${transition(op)} ` +
        `for each statement execute function ${fn}()`,
    ),
  ];
}

/** The counts of the rows already there, from the same contributions the triggers add. */
function backfill(spec: CounterSpec): string {
  const arms = spec
    .contributions('r', '')
    .map(
      (c) =>
        `select ${[...c.keys.map((k, i) => `${k} as k${i}`), ...c.values.map((v, i) => `${v} as v${i}`)].join(', ')} ` +
        `from ${spec.source} r where ${spec.counted('r')}`,
    );
  const keys = spec.keyColumns.map((_, i) => `k${i}`);
  const sums = spec.valueColumns.map((_, i) => `sum(v${i})`);
  return (
    `insert into ${spec.target} (${[...spec.keyColumns, ...spec.valueColumns].join(', ')}) ` +
    `select ${[...keys, ...sums].join(', ')} from (${arms.join(' union all ')}) d group by ${keys.join(', ')}`
  );
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const bigint = postgres ? 'bigint' : 'integer';
  await db.schema
    .createTable('event_counts')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    // Readers sum a range of buckets ending in `~` (countEvents): that needs byte order, where `~`
    // sorts after every digit, `-` and `T`. A linguistic collation (en_US, ICU) ignores or moves
    // punctuation, and the ranges would miss rows, so PostgreSQL compares this column in "C"
    // whatever the database's collation. SQLite's default (BINARY) is byte order already.
    .addColumn('bucket', postgres ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_counts_pk', ['community_id', 'visibility', 'bucket'])
    .execute();
  await db.schema
    .createTable('list_counts')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_counts_pk', ['community_id', 'list', 'key'])
    .execute();
  await db.schema
    .createTable('donation_totals')
    .addColumn('community_id', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('total', bigint, (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('donation_totals_pk', ['community_id', 'target_type', 'target_id'])
    .execute();
  // No foreign key to communities: a community's delete cascades to its events, whose triggers
  // would then write counter rows for a community already gone. Counter rows of a deleted
  // community are inert (ids are never reused) and the recount drops them.

  for (const spec of SPECS) {
    // Old processes keep writing during the migration: a row committed between the fill and the
    // trigger's creation would be counted by neither. SHARE ROW EXCLUSIVE (held to the migration's
    // commit) waits for the writes in flight and keeps new ones out, while readers go on. (Kysely
    // runs SQLite migrations outside a transaction; there `svc maintenance recount --repair`
    // mends a write that slipped in.)
    if (postgres) await sql.raw(`lock table ${spec.source} in share row exclusive mode`).execute(db);
    await sql.raw(backfill(spec)).execute(db);
    for (const ddl of postgres ? postgresTriggers(spec) : sqliteTriggers(spec)) await sql.raw(ddl).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const spec of SPECS) {
    const triggers = postgres ? ['insert', 'update', 'delete'] : ['insert', 'delete', 'update_old', 'update_new'];
    for (const t of triggers) {
      await sql.raw(`drop trigger if exists ${spec.name}_${t}${postgres ? ` on ${spec.source}` : ''}`).execute(db);
    }
    if (postgres) await sql.raw(`drop function if exists ${spec.name}_apply()`).execute(db);
  }
  for (const table of ['donation_totals', 'list_counts', 'event_counts']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
