// The Kysely instance for either dialect, migrations, and the transaction helper.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type LogEvent,
  type Migration,
  type SchemaMetadata,
  type TableMetadata,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { ensurePrivateFile } from '../data-dir.ts';
import { withStatementCache } from './sqlite-statements.ts';
import { withNamedStatements } from './pg-statements.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

export type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string };

export interface OpenOptions {
  /** Called with the SQL (and its parameters) of every query run (tests count and explain queries with it). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
}

/** How long a SQLite connection waits for another connection's lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export function openDatabase(target: DatabaseTarget, opts: OpenOptions = {}): DatabaseHandle {
  const log = opts.onQuery ? (e: LogEvent) => opts.onQuery!(e.query.sql, e.query.parameters) : undefined;
  if (target.kind === 'sqlite') {
    // Made 0600 before SQLite opens it, so its -wal and -shm files are 0600 too (server/data-dir.ts).
    if (target.file !== ':memory:') ensurePrivateFile(target.file);
    const conn = new SQLite(target.file);
    conn.pragma('journal_mode = WAL');
    conn.pragma('foreign_keys = ON');
    conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    conn.pragma('synchronous = NORMAL');
    // Statements kept and rows read raw: server/db/sqlite-statements.ts.
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(conn) }), log });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: 10,
    // Tests isolate themselves in a schema of their own on the shared database.
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  // Each SQL text a named prepared statement: server/db/pg-statements.ts.
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool: withNamedStatements(pool) }), log });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/**
 * Kysely's PostgreSQL introspector lists the tables of every schema (with
 * pg_get_serial_sequence on each), and the Migrator asks it whether its bookkeeping tables
 * exist: on a database that holds other schemas, one dropped at that moment fails our migration.
 * Ours looks at the connection's own schema only, which is all the Migrator needs.
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; type: string }>`
      select table_name as name, table_schema as schema, table_type as type
      from information_schema.tables where table_schema = current_schema()`.execute(this.db);
    return rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.type === 'VIEW', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}

/** A migration file's name: four digits, then what it does (`0012_tickets.ts`). */
export const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.ts$/;
const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');

/** The migration files in run order. Kysely runs them by name, so the number is the order. */
export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
}

// Discovered on disk, so adding a migration is adding a file; the server runs from source
// (tsx), so there is no bundle that could leave a file behind.
async function loadMigrations(): Promise<Record<string, Migration>> {
  const entries = await Promise.all(
    migrationFiles().map(async (file) => {
      const migration = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
      return [file.replace(/\.ts$/, ''), migration] as const;
    }),
  );
  return Object.fromEntries(entries);
}

export async function migrate(db: Db): Promise<void> {
  // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one;
  // pin it to the connection's own schema so databases that hold several schemas (tests, or a
  // shared server) each migrate on their own.
  const migrationTableSchema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s
      : undefined;
  const migrator = new Migrator({ db, provider: { getMigrations: loadMigrations }, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

const afterCommitHooks = new WeakMap<Trx, Array<() => void>>();

/**
 * Runs fn once trx has committed (never if it rolls back), e.g. to wake a worker for the rows the
 * transaction wrote. Only transactions opened with `transaction()` run these; elsewhere they are
 * dropped, so a hook may only speed things up, never be needed for correctness.
 */
export function afterCommit(trx: Trx, fn: () => void): void {
  const hooks = afterCommitHooks.get(trx);
  if (hooks) hooks.push(fn);
}

/** Runs fn in one transaction: every write inside commits together or not at all. */
export async function transaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const hooks: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => {
    afterCommitHooks.set(trx, hooks);
    return fn(trx);
  });
  // The transaction has committed: a failing hook must not make the caller think it did not.
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      /* hooks only speed things up */
    }
  }
  return result;
}

/** True when err is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
