// Every row of every table of a database as one string, to show that a secret is nowhere in it:
// what someone with a copy of the database (a dump, a backup, read access through SQL) would have.
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { DatabaseHandle } from '../../../server/db/index.ts';

async function tableNames(database: DatabaseHandle): Promise<string[]> {
  const query =
    database.dialect === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table'`
      : sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`;
  return (await query.execute(database.db)).rows.map((r) => r.name);
}

export async function databaseText(database: DatabaseHandle): Promise<string> {
  const tables = await tableNames(database);
  expect(tables).toContain('mail_outbox');
  const dumps = await Promise.all(
    tables.map(async (name) => {
      const { rows } = await sql`select * from ${sql.table(name)}`.execute(database.db);
      return `${name}: ${JSON.stringify(rows)}`;
    }),
  );
  return dumps.join('\n');
}
