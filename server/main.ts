// Process entry: config -> database -> migrations -> seed -> app -> listen, and a graceful stop.
import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { describeTightened, tightenDataDir } from './data-dir.ts';
import { migrate, openDatabase } from './db/index.ts';
import { seedDemoIfEmpty } from './domain/seed.ts';
import { createHttpServer } from './http/http-server.ts';
import { createLogger } from './http/logger.ts';
import { connectRedis, createRateLimits } from './http/rate-limit.ts';
import { CommunityChanges } from './http/community-changes.ts';
import { secretsReadable } from './webhooks/endpoints.ts';
import { loadSecretBox } from './webhooks/secret-box.ts';
import { DeliveryWorker } from './webhooks/worker.ts';
import { chooseMailTransport } from './mail/choose-transport.ts';
import { MailDeliveryWorker } from './mail/worker.ts';
import { BroadcastDispatcher } from './broadcasts/dispatcher.ts';
import { UnsubscribeTokens } from './broadcasts/unsubscribe-token.ts';
import { loadMasterKey } from './secrets.ts';
import { loadOutboxSeal } from './outbox-seal.ts';
import { setUpPayments } from './payments/index.ts';
import { checkoutsExpireWorker } from './payments/payments.ts';
import { lapseExpired } from './domain/membership-payments.ts';
import { PurgeScheduler } from './maintenance/scheduler.ts';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  // Before anything opens it: the database, the key file and the mail are for svc's user alone.
  const tightened = tightenDataDir(config.dataDir);
  if (tightened.length > 0) {
    logger.warn(
      { dataDir: config.dataDir, changed: tightened.map(describeTightened) },
      'data directory was readable by other users; made it private (directories 0700, files 0600)',
    );
  }
  const database = openDatabase(config.database);
  await migrate(database.db);
  if (config.seedDemo) {
    const seeded = await seedDemoIfEmpty(database.db, { baseUrl: config.publicUrl });
    if (seeded) logger.info('seeded the demo community');
  }
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis error; rate limits fall back to memory'));
  const rateLimits = createRateLimits(config.rateLimits, redis);
  const payments = setUpPayments(config, database.db, logger);
  // A leader's settings change reaches every instance at once through Redis; without it, within the cache TTLs.
  const communityChanges = new CommunityChanges(redis, { logger });
  // Not awaited: a Redis that is down must not stop the start; until it subscribes, the TTLs apply.
  communityChanges
    .start()
    .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'settings-change subscription failed'));
  const app = createApp({ config, database, logger, rateLimits, payments, communityChanges });

  // Timeouts and the envelope for requests Node refuses itself (server/http/http-server.ts).
  const server: Server = createHttpServer(config, logger, app);
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Expired idempotency keys, finished deliveries, old mail and codes, in small batches (docs/maintenance.md).
  const purge = config.purge.worker
    ? new PurgeScheduler({ db: database.db, dialect: database.dialect, config: config.purge, logger })
    : null;
  purge?.start();
  // Releases seats and other holds of checkouts nobody paid (docs/payments.md).
  const checkoutExpiry = checkoutsExpireWorker(payments.payments, 30_000, logger);
  // Memberships whose paid access is over end on their own (each once, whichever process sees it).
  const lapse = setInterval(
    () => {
      lapseExpired(database.db).catch((err: unknown) => logger.error({ err }, 'ending lapsed memberships failed'));
    },
    10 * 60 * 1000,
  );
  lapse.unref();
  const secrets = loadSecretBox(config);
  if (!(await secretsReadable(database.db, secrets))) {
    // Not fatal (the API works without it), but every delivery would fail until the key is fixed.
    logger.error(
      'webhook signing secrets do not decrypt with this key: set SVC_ENCRYPTION_KEY (or SVC_DATA_DIR) to the one they were stored with',
    );
  }
  const worker = config.webhooks.worker
    ? new DeliveryWorker({ db: database.db, dialect: database.dialect, config: config.webhooks, secrets, logger })
    : null;
  worker?.start();
  // Over SMTP with SMTP_URL, else into .eml files under SVC_DATA_DIR/mail; off with SVC_MAIL_WORKER=false.
  const mailWorker = config.mail.worker
    ? new MailDeliveryWorker({
        db: database.db,
        dialect: database.dialect,
        config: config.mail,
        transport: chooseMailTransport(config.mail, config.dataDir),
        logger,
        seal: loadOutboxSeal(config),
      })
    : null;
  mailWorker?.start();
  // Broadcasts expand into the outbox where the mail worker runs: off with SVC_MAIL_WORKER=false too.
  const broadcastDispatcher = config.mail.worker
    ? new BroadcastDispatcher({
        db: database.db,
        dialect: database.dialect,
        logger,
        tokens: new UnsubscribeTokens(loadMasterKey(config)),
        publicUrl: config.publicUrl,
        siteDomain: config.siteDomain,
        pollMs: config.mail.pollMs,
      })
    : null;
  broadcastDispatcher?.start();

  const base = config.publicUrl;
  const port = config.port;
  logger.info({ url: base, database: database.dialect }, 'svc is listening');
  process.stdout.write(
    `\nsvc is running on ${base} (${database.dialect === 'sqlite' ? `SQLite at ${config.database.kind === 'sqlite' ? config.database.file : ''}` : 'PostgreSQL'})\n` +
      // <tag>.localhost is always the community's site (docs/hosted-site.md, Hosts), whatever SVC_SITE_DOMAIN says.
      `  Demo community's hosted site:          http://demo.localhost:${port}/\n` +
      `  Demo customer site (another origin):   http://127.0.0.1:${port}/demo/\n` +
      `  Community object:                      ${base}/api/communities/demo\n` +
      `  Events API:                            ${base}/v1/communities/demo/events  (X-API-Key from ${base}/v1/communities/demo/publishable-key)\n` +
      `  API reference:                         ${base}/docs\n\n`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // A purge batch in flight commits; the rest waits for the next run.
    const purgeStopped = purge?.stop();
    checkoutExpiry.stop();
    clearInterval(lapse);
    // Stop claiming now; attempts in flight finish and are recorded, the rest stay due for the next start.
    const workerStopped = worker?.stop();
    // Sends in flight finish (bounded by the SMTP timeouts; a file write is quick) and are recorded; the rest stay queued.
    const mailWorkerStopped = mailWorker?.stop();
    // A batch in flight commits or rolls back; the broadcast resumes from its cursor on the next start.
    const dispatcherStopped = broadcastDispatcher?.stop();
    // In-flight requests finish; keep-alive sockets are closed once idle.
    server.close(async () => {
      let code = 0;
      try {
        await workerStopped;
        await mailWorkerStopped;
        await dispatcherStopped;
        await purgeStopped;
        await communityChanges.close();
        await rateLimits.close();
        await database.close();
      } catch (err) {
        logger.error({ err }, 'error while shutting down');
        code = 1;
      }
      logger.flush(() => process.exit(code));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000 + config.webhooks.timeoutMs).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`svc failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
