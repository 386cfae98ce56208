// The admin CLI as an operator runs it: `node bin/svc.js` in a child process, and the database
// the test shares with it (a SQLite file in the CLI's SVC_DATA_DIR, or a schema of its own on
// DATABASE_URL, named in the URL the CLI gets).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle } from '../../../server/db/index.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const onPostgres = Boolean(process.env.DATABASE_URL);

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSvc(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.SVC_DEBUG;
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/svc.js'), ...args], { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** DATABASE_URL pointing the CLI at `schema` (PostgreSQL only). */
export function schemaUrl(schema: string): string {
  const url = new URL(process.env.DATABASE_URL as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Opens (and migrates) the database the CLI will use: the schema on PostgreSQL, else `dataDir/svc.db`. */
export async function openSharedDatabase(schema: string, dataDir: string): Promise<DatabaseHandle> {
  if (onPostgres) {
    const admin = openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL as string });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
  }
  const database = onPostgres
    ? openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL as string, schema })
    : openDatabase({ kind: 'sqlite', file: path.join(dataDir, 'svc.db') });
  await migrate(database.db);
  return database;
}

export async function closeSharedDatabase(database: DatabaseHandle | undefined, schema: string): Promise<void> {
  await database?.close();
  if (onPostgres) {
    const admin = openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL as string });
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    await admin.close();
  }
}
