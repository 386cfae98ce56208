// The PostgreSQL pool as Kysely's driver sees it, with each SQL text a named prepared statement on
// every connection that runs it. Kysely sends every query unnamed, so the server parses and plans
// it again each time; on the list request's small indexed queries that was a large share of the
// database's CPU, which shares the machine with the app (issue 21). Named, a statement is parsed
// once per connection and then only bound and run.
//
// A named statement lives on its connection (in pg's client and on the server) until the
// connection closes, and its result type is fixed when it is prepared. So not every text is named:
// - SQL with `*` takes its columns from the schema. Named, it fails with "cached plan must not
//   change result type" (0A000) on every connection once a migration adds a column, which is what
//   old processes see during a rolling deploy (docs/deploy.md). It goes unnamed.
// - An `in (...)` list of parameters has one text per length: named, each length would add one
//   statement per connection for the connection's life. It goes unnamed.
// - Past NAMED_PER_CONNECTION names on a connection, further texts go unnamed: the app's distinct
//   queries are far fewer, so this only bounds what a connection holds.
// And a named text that fails with 0A000 anyway (a migration changed a column's type under an
// explicit list) goes unnamed on that connection from then on: the error is seen once, not on
// every run until the process restarts.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Longer SQL is a one-off (a bulk insert of many rows): a named statement would only hold memory on the server. */
const NAMED_SQL_MAX_LENGTH = 10_000;
/** The most statements one connection names; far more than the distinct queries the app runs. */
export const NAMED_PER_CONNECTION = 500;

/** The statement's name: the same text is the same statement, on every connection. */
const nameOf = (text: string) => `svc_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 24)}`;

/** `*` whose columns the schema decides (`count(*)` always returns one bigint). */
const schemaColumns = (text: string) => text.replace(/count\(\*\)/gi, '').includes('*');
/** An `in` list of two or more parameters, whose text changes with its length. */
const VARIABLE_IN_LIST = /\bin \(\$\d+, \$\d+/i;

/** Whether a text may be named at all (per connection, see `Named`). */
function nameable(text: string): boolean {
  return text.length <= NAMED_SQL_MAX_LENGTH && !schemaColumns(text) && !VARIABLE_IN_LIST.test(text);
}

/** What one connection has named, and what it no longer names. */
interface Named {
  names: Set<string>;
  refused: Set<string>;
}

export function withNamedStatements(pool: pg.Pool): PostgresPool {
  // One wrapper per connection: Kysely keeps its own state per client object.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const names = new Map<string, string | null>();
  /** The text's name, or null where it goes unnamed everywhere. */
  const named = (text: string) => {
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= 10_000) names.clear();
      names.set(text, (name = nameable(text) ? nameOf(text) : null));
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let kysely = wrapped.get(client);
      if (!kysely) {
        const own: Named = { names: new Set(), refused: new Set() };
        const run = async (text: string, values: unknown[]) => {
          const name = named(text);
          if (!name || own.refused.has(name) || (!own.names.has(name) && own.names.size >= NAMED_PER_CONNECTION)) {
            return client.query(text, values);
          }
          own.names.add(name);
          try {
            return await client.query({ name, text, values });
          } catch (err) {
            if ((err as { code?: string }).code === '0A000') own.refused.add(name);
            throw err;
          }
        };
        kysely = {
          query: ((text: unknown, values?: readonly unknown[]) =>
            // Without parameters pg uses the simple protocol, which allows several statements in one
            // text (migrations); a named statement cannot hold them, so those go as they are.
            typeof text === 'string' && values && values.length > 0
              ? run(text, values as unknown[])
              : // A cursor (a streamed read) also goes as Kysely sent it.
                client.query(text as string, values as unknown[])) as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        wrapped.set(client, kysely);
      }
      return kysely;
    },
    end: () => pool.end(),
  };
}
