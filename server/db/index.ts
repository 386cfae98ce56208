// The Kysely instance for either dialect, migrations, and the transaction helper.
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql, type LogEvent, type Migration, type Transaction } from 'kysely';
import pg from 'pg';
import { ensurePrivateFile } from '../data-dir.ts';
import type { Database } from './schema.ts';
import * as m0001 from './migrations/0001_foundation.ts';
import * as m0002 from './migrations/0002_webhooks.ts';
import * as m0003 from './migrations/0003_accounts.ts';
import * as m0004 from './migrations/0004_social.ts';
import * as m0005 from './migrations/0005_sms.ts';
import * as m0006 from './migrations/0006_oauth_identities.ts';
import * as m0007 from './migrations/0007_mail_delivery.ts';
import * as m0011 from './migrations/0011_friend_request_cooldowns.ts';
import * as m0009 from './migrations/0009_rules.ts';
import * as m0010 from './migrations/0010_payments.ts';
import * as m0012 from './migrations/0012_tickets.ts';
import * as m0015 from './migrations/0015_donations.ts';
import * as m0013 from './migrations/0013_mail_files.ts';
import * as m0014 from './migrations/0014_sms_purpose.ts';
import * as m0016 from './migrations/0016_applications.ts';
import * as m0017 from './migrations/0017_membership_billing.ts';

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
  /** Called with the SQL of every query run (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

export function openDatabase(target: DatabaseTarget, opts: OpenOptions = {}): DatabaseHandle {
  const log = opts.onQuery ? (e: LogEvent) => opts.onQuery!(e.query.sql) : undefined;
  if (target.kind === 'sqlite') {
    // Made 0600 before SQLite opens it, so its -wal and -shm files are 0600 too (server/data-dir.ts).
    if (target.file !== ':memory:') ensurePrivateFile(target.file);
    const conn = new SQLite(target.file);
    conn.pragma('journal_mode = WAL');
    conn.pragma('foreign_keys = ON');
    conn.pragma('busy_timeout = 5000');
    conn.pragma('synchronous = NORMAL');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: conn }), log });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: 10,
    // Tests isolate themselves in a schema of their own on the shared database.
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** Migrations are listed here, not discovered on disk, so they run the same under tsx and bundlers. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_webhooks': m0002,
  '0003_accounts': m0003,
  '0004_social': m0004,
  '0005_sms': m0005,
  '0006_oauth_identities': m0006,
  '0007_mail_delivery': m0007,
  '0011_friend_request_cooldowns': m0011,
  '0009_rules': m0009,
  '0010_payments': m0010,
  '0012_tickets': m0012,
  '0015_donations': m0015,
  '0013_mail_files': m0013,
  '0014_sms_purpose': m0014,
  '0016_applications': m0016,
  '0017_membership_billing': m0017,
};

export async function migrate(db: Db): Promise<void> {
  // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one;
  // pin it to the connection's own schema so databases that hold several schemas (tests, or a
  // shared server) each migrate on their own.
  const migrationTableSchema = db.getExecutor().adapter instanceof PostgresAdapter
    ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s
    : undefined;
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableSchema });
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
    try { hook(); } catch { /* hooks only speed things up */ }
  }
  return result;
}

/** True when err is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
