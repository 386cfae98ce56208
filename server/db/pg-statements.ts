// The PostgreSQL pool as Kysely's driver sees it, with each SQL text a named prepared statement on
// every connection that runs it. Kysely sends every query unnamed, so the server parses and plans
// it again each time; on the list request's small indexed queries that was a large share of the
// database's CPU, which shares the machine with the app (issue 21). Named, a statement is parsed
// once per connection and then only bound and run.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Longer SQL is a one-off (a bulk insert of many rows): a named statement would only hold memory on the server. */
const NAMED_SQL_MAX_LENGTH = 10_000;

/** The statement's name: the same text is the same statement, on every connection. */
const nameOf = (text: string) => `svc_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 24)}`;

export function withNamedStatements(pool: pg.Pool): PostgresPool {
  // One wrapper per connection: Kysely keeps its own state per client object.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const names = new Map<string, string>();
  const named = (text: string) => {
    let name = names.get(text);
    if (!name) {
      if (names.size >= 10_000) names.clear();
      names.set(text, (name = nameOf(text)));
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let kysely = wrapped.get(client);
      if (!kysely) {
        kysely = {
          query: ((text: unknown, values?: readonly unknown[]) =>
            // Without parameters pg uses the simple protocol, which allows several statements in one
            // text (migrations); a named statement cannot hold them, so those go as they are.
            typeof text === 'string' && values && values.length > 0 && text.length <= NAMED_SQL_MAX_LENGTH
              ? client.query({ name: named(text), text, values: values as unknown[] })
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
