// Environment -> typed config. Every default lives here; a bad value stops the process at start
// with a message that names the variable.
import path from 'node:path';
import { z } from 'zod';

const Port = z.coerce.number().int().min(0).max(65535);
const PositiveInt = z.coerce.number().int().min(1);

const Env = z.object({
  PORT: Port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  SVC_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  SVC_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql):\/\//, 'must be a postgres:// URL (leave it unset for the embedded SQLite database)')
    .optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per second per key; the spec's values are the defaults. */
  RATE_LIMIT_PUBLISHABLE_PER_SEC: PositiveInt.default(100),
  RATE_LIMIT_SECRET_PER_SEC: PositiveInt.default(50),
  /** Requests per second per IP on routes that take no key. */
  RATE_LIMIT_ANONYMOUS_PER_SEC: PositiveInt.default(100),
  /** Requests with a missing or invalid key per minute per IP before that IP gets 429s. */
  RATE_LIMIT_AUTH_FAILURES_PER_MIN: PositiveInt.default(60),
  /** Largest accepted JSON body. */
  SVC_BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 100kb or 1mb').default('1mb'),
  /** How long a looked-up API key is trusted before it is read again (revocations elsewhere show within this). */
  SVC_KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** How long public read responses are cached in process (0 = off); writes here invalidate at once. */
  SVC_READ_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /** Express `trust proxy`: set it to the number of proxies in front (or `true`) so per-IP limits see clients. */
  SVC_TRUST_PROXY: z.string().regex(/^(true|false|\d+)$/, 'must be true, false or a hop count').default('false'),
  /** Seed the demo community on the first start of an empty database (default: only on embedded SQLite). */
  SVC_SEED_DEMO: z.enum(['true', 'false']).optional(),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | null;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  rateLimits: { publishablePerSec: number; secretPerSec: number; anonymousPerSec: number; authFailuresPerMin: number };
  bodyLimit: string;
  seedDemo: boolean;
  trustProxy: boolean | number;
  keyCacheMs: number;
  readCacheMs: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are treated as unset, as a shell `FOO= npm start` means.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = Env.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.SVC_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.SVC_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    dataDir,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'sqlite', file: path.join(dataDir, 'svc.db') },
    redisUrl: e.REDIS_URL ?? null,
    logLevel: e.LOG_LEVEL,
    rateLimits: {
      publishablePerSec: e.RATE_LIMIT_PUBLISHABLE_PER_SEC,
      secretPerSec: e.RATE_LIMIT_SECRET_PER_SEC,
      anonymousPerSec: e.RATE_LIMIT_ANONYMOUS_PER_SEC,
      authFailuresPerMin: e.RATE_LIMIT_AUTH_FAILURES_PER_MIN,
    },
    bodyLimit: e.SVC_BODY_LIMIT,
    // The demo has known sample data; never put it in a production database unasked.
    seedDemo: e.SVC_SEED_DEMO === undefined ? !e.DATABASE_URL : e.SVC_SEED_DEMO === 'true',
    keyCacheMs: e.SVC_KEY_CACHE_MS,
    readCacheMs: e.SVC_READ_CACHE_MS,
    trustProxy: e.SVC_TRUST_PROXY === 'true' ? true : e.SVC_TRUST_PROXY === 'false' ? false : Number(e.SVC_TRUST_PROXY),
  };
}
