// On PostgreSQL, migrating one schema while other schemas on the same database come and go (test
// runs, other tenants): Kysely lists every schema's tables while it looks for its own, and a
// schema dropped at that moment must not fail our migration.
import crypto from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/index.ts';
import { onPostgres } from './support/harness.ts';

describe.skipIf(!onPostgres)('migrations on a shared PostgreSQL database', () => {
  it('succeed while other schemas with serial columns are created and dropped alongside', async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const other = `churn_${crypto.randomBytes(4).toString('hex')}`;
        await admin.query(`create schema "${other}"; create table "${other}".t (id serial primary key)`);
        await admin.query(`drop schema "${other}" cascade`);
      }
    })();
    const schemas: string[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        const schema = `mig_${crypto.randomBytes(4).toString('hex')}`;
        schemas.push(schema);
        await admin.query(`create schema "${schema}"`);
        const handle = openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL as string, schema });
        try {
          await migrate(handle.db);
        } finally {
          await handle.close();
        }
      }
    } finally {
      churning = false;
      await churn;
      for (const s of schemas) await admin.query(`drop schema if exists "${s}" cascade`);
      await admin.end();
    }
    expect(schemas).toHaveLength(8);
  }, 120_000);
});
