// The SQLite connection as Kysely's driver sees it, made cheaper on the two costs issue 21's profile
// of a list request found around SQLite itself (README, "Benchmark"):
// - Kysely's driver prepares every query it runs, and preparing (parsing and planning the SQL) cost
//   more than running the small indexed queries of a request. Queries built by Kysely repeat their
//   text with only the parameters changing, so each text is prepared once and kept.
// - better-sqlite3 builds each row object from C++, one property at a time, which took longer than
//   reading the rows. Reads run in raw mode (arrays) instead, and each statement's rows become
//   objects through a function made once for its columns: the same objects (same keys, same
//   values, last duplicate name wins), with one shape the engine optimises.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** How many prepared statements one connection keeps: far more than the distinct queries the app runs. */
export const STATEMENT_CACHE_SIZE = 1000;
/** Longer SQL is a one-off (a bulk insert of many rows) and is not kept: it would only hold memory. */
const CACHED_SQL_MAX_LENGTH = 10_000;

type Row = Record<string, unknown>;
type RowMaker = (values: unknown[]) => Row;

interface Kept {
  statement: SQLite.Statement;
  /** Makes a raw row an object; null where the statement returns no rows, or its own objects. */
  row: RowMaker | null;
  /**
   * For SQL whose columns come from the schema (`*`): the schema version `row` was made for. A
   * migration, here or in another process, may add or reorder columns under the same SQL text.
   * An explicit column list cannot change: null.
   */
  schema: number | null;
}

/** A function that turns one raw row of `names` into the object better-sqlite3 would have built. */
function rowMaker(names: string[]): RowMaker | null {
  // `{"__proto__": v}` in a literal sets the prototype instead of a property: leave such a query to the driver.
  if (names.includes('__proto__')) return null;
  // The names are JSON string literals, so whatever a column is called, it is only ever a key.
  const body = `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`;
  return new Function('v', body) as RowMaker;
}

/**
 * Where a statement already in raw mode gets a column `rowMaker` refuses (`__proto__`): each value
 * assigned in turn, as better-sqlite3 does.
 */
function plainRow(statement: SQLite.Statement): RowMaker {
  const names = statement.columns().map((c) => c.name);
  return (values) => {
    const row: Row = {};
    names.forEach((name, i) => (row[name] = values[i]));
    return row;
  };
}

/**
 * `conn` with its statements kept by SQL text (the least recently prepared goes past `size`). A
 * statement still iterating (a streamed read) is never handed out twice: that query gets a fresh
 * statement of its own.
 */
export function withStatementCache(conn: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const kept = new Map<string, Kept>();
  const schemaVersion = conn.prepare('pragma schema_version').pluck();
  // Reading the schema table makes the connection load a schema another connection changed; until
  // a statement runs, a new one is prepared (and describes its columns) against the old one.
  const loadSchema = conn.prepare('select 1 from sqlite_master limit 1').pluck();
  const version = () => schemaVersion.get() as number;

  function make(sqlText: string): Kept {
    const dependent = sqlText.includes('*');
    // The version first: a change landing after it is seen by the check after the read.
    const schema = dependent ? version() : null;
    if (dependent) loadSchema.get();
    const statement = conn.prepare(sqlText);
    const row = statement.reader ? rowMaker(statement.columns().map((c) => c.name)) : null;
    if (row) statement.raw(true);
    return { statement, row, schema };
  }

  /** The kept statement of `sqlText`, made (and kept) when there is none or it is out of date. */
  function current(sqlText: string, stale?: Kept): Kept {
    const hit = kept.get(sqlText);
    if (hit && hit !== stale) {
      // Being iterated: this query gets a statement of its own.
      return hit.statement.busy ? make(sqlText) : hit;
    }
    const fresh = make(sqlText);
    if (sqlText.length > CACHED_SQL_MAX_LENGTH) return fresh;
    kept.delete(sqlText);
    // Maps keep insertion order: past the size, the statement prepared longest ago goes.
    if (kept.size >= size) kept.delete(kept.keys().next().value!);
    kept.set(sqlText, fresh);
    return fresh;
  }

  function all(sqlText: string, parameters: readonly unknown[]): unknown[] {
    const entry = current(sqlText);
    const rows = entry.statement.all(parameters) as unknown[];
    if (!entry.row) return rows;
    // Changed since `row` was made: SQLite prepared the statement again for the new schema before
    // running it, so the rows read have the columns the statement now describes. The statement is
    // never run again: it may be a write (`delete ... returning *`).
    // The rows are mapped by the columns it ran with; the next run gets a statement made afresh
    // (version first, as `make` does), since the schema may have changed again since this run.
    if (entry.schema !== null && version() !== entry.schema) {
      const asRun = rowMaker(entry.statement.columns().map((c) => c.name)) ?? plainRow(entry.statement);
      current(sqlText, entry);
      return (rows as unknown[][]).map(asRun);
    }
    return (rows as unknown[][]).map(entry.row);
  }

  function* iterate(sqlText: string, parameters: readonly unknown[]): IterableIterator<unknown> {
    const entry = current(sqlText);
    // A stream's rows cannot be read again if the schema changed meanwhile: where the columns come
    // from the schema, the driver's own objects (named as the rows are read).
    if (entry.schema !== null) return yield* conn.prepare(sqlText).iterate(parameters);
    const rows = entry.statement.iterate(parameters) as IterableIterator<unknown[]>;
    if (!entry.row) return yield* rows;
    for (const values of rows) yield entry.row(values);
  }

  return {
    close: () => conn.close(),
    prepare(sqlText: string): SqliteStatement {
      const { statement } = current(sqlText);
      return {
        reader: statement.reader,
        all: (parameters) => all(sqlText, parameters),
        run: (parameters) => current(sqlText).statement.run(parameters),
        iterate: (parameters) => iterate(sqlText, parameters),
      };
    },
  };
}
