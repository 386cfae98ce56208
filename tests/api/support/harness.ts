// The real app on a real database for API tests: SQLite in memory by default; PostgreSQL (one
// fresh schema per test file) when DATABASE_URL is set; Redis-backed rate limits when REDIS_URL
// is set. Requests go over real HTTP to an ephemeral port.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { chromeProxyFor, createApp } from '../../../server/app.ts';
import type { ChromeProxy } from '../../../server/site/proxy/proxy.ts';
import { setUpPayments, type Payments, type PaymentsOverrides } from '../../../server/payments/index.ts';
import { loadConfig, type Config } from '../../../server/config.ts';
import { migrate, openDatabase, type DatabaseHandle, type DatabaseTarget } from '../../../server/db/index.ts';
import { createHttpServer } from '../../../server/http/http-server.ts';
import { createLogger } from '../../../server/http/logger.ts';
import { ReadCache } from '../../../server/http/read-cache.ts';
import { connectRedis, createRateLimits } from '../../../server/http/rate-limit.ts';
import { CommunityChanges } from '../../../server/http/community-changes.ts';
import { SessionTokens } from '../../../server/domain/sessions.ts';
import { loadOutboxSeal, type OutboxSeal } from '../../../server/outbox-seal.ts';

export interface TestServer {
  url: string;
  /** The test database's unique name (the PostgreSQL schema); a prefix for what the test shares. */
  schema: string;
  /** The app's read cache, for tests that change data behind the API's back. */
  readCache: ReadCache;
  /** The chrome proxy (externalPages), for tests that look into its upstream cache. */
  chromeProxy: ChromeProxy;
  database: DatabaseHandle;
  /** Where the database is, for tests that open a second connection to it (another "process"). */
  databaseTarget: DatabaseTarget;
  config: Config;
  /** Issues the visitor tokens this server accepts (sign a user in without the sign-in flow). */
  sessions: SessionTokens;
  /** The server's payments (open, fulfil, release checkouts as its routes do). */
  payments: Payments;
  /** Opens what the server sealed in its outboxes (reset links, SMS codes), as its mail worker and CLI do. */
  outboxSeal: OutboxSeal;
  close(): Promise<void>;
  /** fetch against the server with JSON helpers. */
  request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<TestResponse>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface StartOptions {
  rateLimits?: Partial<Config['rateLimits']>;
  env?: Record<string, string>;
  logger?: import('pino').Logger;
  /** A SQLite file instead of :memory:, when the test needs a second connection to the same data. */
  sqliteFile?: string;
  /** Sees the SQL of every query the app runs. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** A Stripe client pointed at a test server, or fulfilment handlers of the test's own. */
  payments?: PaymentsOverrides;
  /**
   * SVC_PUBLIC_URL as a deployment would set it (`https://svc.example`), instead of the address the
   * test server listens on; requests still go to that plain-http listener, as from a TLS proxy.
   */
  publicUrl?: string;
  /** The chrome proxy, made from the server's config and logger (default: as the app makes it). */
  chromeProxy?: (config: Config, logger: import('pino').Logger) => ChromeProxy;
  /** The dist/ directory with the widget build (default: the repository's). */
  distDir?: string;
  /**
   * Another test server's database: this server opens its own connection to it (a second
   * "process" on the same data, with caches of its own) and leaves it to that server to drop.
   * With REDIS_URL the two share the settings-change channel, as instances of one deployment do.
   */
  sharedWith?: TestServer;
  /**
   * Another PostgreSQL database than DATABASE_URL's (the test made it, e.g. with another collation),
   * to hold this server's fresh schema. Only with DATABASE_URL set.
   */
  postgresUrl?: string;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

export async function adminQuery(text: string, url = process.env.DATABASE_URL): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

export interface TestDatabase {
  database: DatabaseHandle;
  target: DatabaseTarget;
  /** Unique per test database; also a safe prefix for anything else the test shares (Redis keys). */
  schema: string;
  /** Closes the connection and drops the PostgreSQL schema. */
  close(): Promise<void>;
}

/** A migrated database of its own: SQLite (`:memory:` or a file), or a fresh schema on DATABASE_URL. */
export async function openTestDatabase(
  opts: {
    sqliteFile?: string;
    postgresUrl?: string;
    onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  } = {},
): Promise<TestDatabase> {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const url = opts.postgresUrl ?? process.env.DATABASE_URL;
  let target: DatabaseTarget;
  if (process.env.DATABASE_URL && url) {
    await adminQuery(`create schema "${schema}"`, url);
    target = { kind: 'postgres', url, schema };
  } else {
    target = { kind: 'sqlite', file: opts.sqliteFile ?? ':memory:' };
  }
  const database = openDatabase(target, { onQuery: opts.onQuery });
  await migrate(database.db);
  return {
    database,
    target,
    schema,
    async close() {
      await database.close();
      if (process.env.DATABASE_URL) await adminQuery(`drop schema "${schema}" cascade`, url);
    },
  };
}

/** A second connection to another test server's database; closing it leaves the data to that server. */
function joinTestDatabase(
  other: TestServer,
  onQuery?: (sql: string, parameters: readonly unknown[]) => void,
): TestDatabase {
  if (other.databaseTarget.kind === 'sqlite' && other.databaseTarget.file === ':memory:')
    throw new Error('sharedWith needs a database two connections can open: PostgreSQL, or a SQLite file');
  const database = openDatabase(other.databaseTarget, { onQuery });
  return { database, target: other.databaseTarget, schema: other.schema, close: () => database.close() };
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const testDb = opts.sharedWith
    ? joinTestDatabase(opts.sharedWith, opts.onQuery)
    : await openTestDatabase({ sqliteFile: opts.sqliteFile, postgresUrl: opts.postgresUrl, onQuery: opts.onQuery });
  const { database, target: databaseTarget, schema } = testDb;

  const base = loadConfig({ PORT: '0', SVC_SEED_DEMO: 'false', LOG_LEVEL: 'silent', ...opts.env });
  const config: Config = {
    ...base,
    rateLimits: {
      publishablePerSec: 10_000,
      secretPerSec: 10_000,
      anonymousPerSec: 10_000,
      authFailuresPerMin: 10_000,
      ...opts.rateLimits,
    },
  };
  const redis = process.env.REDIS_URL ? connectRedis(process.env.REDIS_URL) : null;
  // Until the connection is ready, limits count in the in-memory insurance limiter; a test that
  // starts counting then would see its budget split between the two.
  if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  // A prefix per server keeps parallel test files from sharing a budget on one Redis.
  const rateLimits = createRateLimits(config.rateLimits, redis, `svc:test:${schema}`);
  const logger = opts.logger ?? createLogger('silent');
  // Listen first so the app is built knowing its real public URL (Link headers use it). The
  // server main.ts runs: its timeouts and its envelope for requests Node refuses itself.
  const server: Server = createHttpServer(config, logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.publicUrl = opts.publicUrl ?? url;
  const readCache = new ReadCache(config.readCacheMs);
  const sessions = new SessionTokens(crypto.randomBytes(32));
  const payments = setUpPayments(config, database.db, logger, opts.payments);
  const chromeProxy = (opts.chromeProxy ?? chromeProxyFor)(config, logger);
  // One channel per test database, so parallel test files on one Redis do not hear each other.
  const communityChanges = new CommunityChanges(redis, { channel: `svc:test:${schema}:settings`, logger });
  await communityChanges.start();
  server.on(
    'request',
    createApp({
      config,
      database,
      logger,
      rateLimits,
      readCache,
      sessions,
      payments,
      validateResponses: true,
      distDir: opts.distDir,
      chromeProxy,
      communityChanges,
    }),
  );

  return {
    url,
    schema,
    readCache,
    chromeProxy,
    database,
    databaseTarget,
    config,
    sessions,
    payments: payments.payments,
    outboxSeal: loadOutboxSeal(config),
    async close() {
      chromeProxy.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await communityChanges.close();
      await rateLimits.close();
      await testDb.close();
    },
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key !== undefined) headers.set('X-API-Key', init.key);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(init.json);
      }
      const res = await fetch(url + path, { ...init, headers, body });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
}
