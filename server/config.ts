// Environment -> typed config. Every default lives here; a bad value stops the process at start
// with a message that names the variable.
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { parsePaymentsConfig, type PaymentsConfig } from './payments/config.ts';
import { parseOAuthConfig, type OAuthConfig } from './oauth/config.ts';
import { parseMailConfig, type MailConfig } from './mail/config.ts';
import { parsePurgeConfig, type PurgeConfig } from './maintenance/config.ts';
import { parseDuration } from './shared/duration.ts';

const Port = z.coerce.number().int().min(0).max(65535);

/** The spec's schedule: retries 1 m, 5 m, 30 m, 2 h and 24 h after the previous attempt (6 attempts, ~27 h). */
export const DEFAULT_WEBHOOK_RETRY_DELAYS = '1m,5m,30m,2h,24h';

const DurationList = z.string().transform((value, ctx) => {
  const parts = value.split(',').map((p) => p.trim());
  const ms = parts.map(parseDuration);
  if (parts.length > 20 || ms.some((d) => d === null)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be 1 to 20 comma-separated durations like 1m,5m,30m,2h,24h (units ms, s, m, h, d)',
    });
    return z.NEVER;
  }
  return ms as number[];
});
const PositiveInt = z.coerce.number().int().min(1);

/** An http(s) tile template whose host is a name (a leading `{s}.` label allowed) and whose path has {z}, {x} and {y}. */
function isTileTemplate(t: string): boolean {
  if (!['{z}', '{x}', '{y}'].every((p) => t.includes(p))) return false;
  try {
    const url = new URL(t.replace(/^(https?:\/\/)\{s\}\./, '$1s.'));
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.hostname.includes('{') && !url.username;
  } catch {
    return false;
  }
}

/** The img-src source that admits a tile template's images: its origin, `{s}.` as a wildcard label. */
export function tilesImgSrc(template: string): string {
  const sub = /^(https?:\/\/)\{s\}\./.test(template);
  const url = new URL(template.replace(/^(https?:\/\/)\{s\}\./, '$1s.'));
  return sub ? `${url.protocol}//*.${url.host.slice(2)}` : url.origin;
}

export interface MapTiles {
  /** The URL template Leaflet reads. */
  url: string;
  /** What the atlas page's CSP adds to img-src. */
  imgSrc: string;
  attribution: string;
}

const Env = z.object({
  PORT: Port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  SVC_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  SVC_DATA_DIR: z.string().min(1).default('./data'),
  /** `<tag>.<SVC_SITE_DOMAIN>` is community `<tag>`'s hosted site (docs/hosted-site.md). */
  SVC_SITE_DOMAIN: z
    .string()
    .regex(
      /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
      'must be a domain name like sites.example.com',
    )
    .transform((d) => d.toLowerCase())
    .default('localhost'),
  /**
   * The atlas map's tile URL template (`https://tile.example/{z}/{x}/{y}.png`, `{s}` as a leading
   * subdomain label allowed). Unset: the atlas is its list only, with no map and no script.
   */
  SVC_MAP_TILES_URL: z
    .string()
    .refine(
      isTileTemplate,
      'must be an http(s) URL template with {z}, {x} and {y}, like https://tile.example/{z}/{x}/{y}.png',
    )
    .optional(),
  /** What the map credits for its tiles (plain text), e.g. "© OpenStreetMap contributors". */
  SVC_MAP_TILES_ATTRIBUTION: z.string().max(300).default(''),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql):\/\//, 'must be a postgres:// URL (leave it unset for the embedded SQLite database)')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per second per key; the spec's values are the defaults. */
  RATE_LIMIT_PUBLISHABLE_PER_SEC: PositiveInt.default(100),
  RATE_LIMIT_SECRET_PER_SEC: PositiveInt.default(50),
  /** Requests per second per IP on routes that take no key. */
  RATE_LIMIT_ANONYMOUS_PER_SEC: PositiveInt.default(100),
  /** Requests with a missing or invalid key per minute per IP before that IP gets 429s. */
  RATE_LIMIT_AUTH_FAILURES_PER_MIN: PositiveInt.default(60),
  /** Widget actions (`/api/actions/...`) per minute per client IP and community; default WIDGET_ACTIONS_PER_MIN_DEFAULT. */
  RATE_LIMIT_WIDGET_ACTIONS_PER_MIN: PositiveInt.optional(),
  /** Friend request attempts per hour per sender; default FRIEND_REQUESTS_PER_HOUR (server/domain/friends.ts). */
  RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR: PositiveInt.optional(),
  RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR: PositiveInt.optional(),
  /** Sign-in and account budgets; defaults in SIGN_IN_LIMIT_DEFAULTS. */
  RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT: PositiveInt.optional(),
  RATE_LIMIT_SIGN_IN_FAILURES_PER_IP: PositiveInt.optional(),
  RATE_LIMIT_ACCOUNT_WRITES_PER_IP: PositiveInt.optional(),
  RATE_LIMIT_ACCOUNT_EMAILS_PER_ADDRESS: PositiveInt.optional(),
  RATE_LIMIT_SMS_STARTS_PER_PHONE: PositiveInt.optional(),
  RATE_LIMIT_SMS_STARTS_PER_IP: PositiveInt.optional(),
  /** Largest accepted JSON body. */
  SVC_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'must look like 100kb or 1mb')
    .default('1mb'),
  /**
   * Longest time a client may take to send a whole request (headers and body), and its headers
   * alone. Node's own 300 s would let a client that stalls its body hold a connection for five
   * minutes; a 1 MB JSON body needs far less than 30 s.
   */
  SVC_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  SVC_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** How long a looked-up API key is trusted before it is read again (revocations elsewhere show within this). */
  SVC_KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** How long public read responses are cached in process (0 = off); writes here invalidate at once. */
  SVC_READ_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /** Which proxies' X-Forwarded-* headers count: a hop count or their addresses (parseTrustProxy); never every client's. */
  SVC_TRUST_PROXY: z
    .string()
    .transform((value, ctx) => {
      const parsed = parseTrustProxy(value);
      if ('error' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }
      return parsed.trust;
    })
    .prefault('false'),
  /** Seed the demo community on the first start of an empty database (default: only on embedded SQLite). */
  SVC_SEED_DEMO: z.enum(['true', 'false']).optional(),
  /** `production` turns off development conveniences (private webhook receivers). */
  NODE_ENV: z.string().default('development'),
  /** Allow http:// and private/loopback webhook receivers (default: only outside production). */
  SVC_ALLOW_PRIVATE_WEBHOOKS: z.enum(['true', 'false']).optional(),
  /**
   * Let the chrome proxy fetch customer pages from loopback and private addresses (default: only
   * outside production), for development and tests; production refuses them (docs/chrome-proxy.md).
   */
  SVC_ALLOW_PRIVATE_UPSTREAMS: z.enum(['true', 'false']).optional(),
  /** Memory the chrome proxy's upstream cache may hold, in MB (0 = no cache). */
  SVC_PROXY_CACHE_MB: z.coerce.number().min(0).max(4096).default(64),
  /** Delays between webhook attempts; one more attempt than delays. */
  SVC_WEBHOOK_RETRY_DELAYS: DurationList.prefault(DEFAULT_WEBHOOK_RETRY_DELAYS),
  /** A receiver must answer 2xx within this (the spec's 10 s). */
  SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Deliveries in flight at once per process. */
  SVC_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  /** How often an idle worker looks for due deliveries (new events in this process wake it at once). */
  SVC_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** Run the delivery worker in this process. */
  SVC_WEBHOOK_WORKER: z.enum(['true', 'false']).default('true'),
  /** The master key: 32 bytes (base64 or hex) from which per-purpose keys are derived; default: a key file in SVC_DATA_DIR. */
  SVC_ENCRYPTION_KEY: z
    .string()
    .refine(
      (v) => decodeKey(v) !== null,
      'must be 32 bytes as base64 (44 chars) or hex (64 chars); make one with `openssl rand -base64 32`',
    )
    .optional(),
  /** 32 bytes (base64 or hex) that sign visitor session tokens; default: derived from the master key. */
  SVC_SESSION_SECRET: z
    .string()
    .refine(
      (v) => decodeKey(v) !== null,
      'must be 32 bytes as base64 (44 chars) or hex (64 chars); make one with `openssl rand -base64 32`',
    )
    .optional(),
});

/**
 * Express `trust proxy` as svc allows it: `false` (no proxy: the socket's address is the client),
 * a hop count (the client is that many addresses back from the socket, i.e. the address the outermost
 * of our proxies appended to X-Forwarded-For), or the proxies themselves (addresses, CIDR ranges, or
 * Express's names `loopback`, `linklocal`, `uniquelocal`): X-Forwarded-For is walked back only
 * through those. Never `true`, which believes whatever the client put in X-Forwarded-For.
 */
export type TrustProxy = false | number | string[];

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address as proxy-addr reads it: dotted-quad IPv4 or IPv6, with an optional prefix length. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (rest.length > 0 || !(v4 || ipaddr.IPv6.isValid(address))) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

const TRUST_PROXY_HELP =
  'set the number of proxies in front of svc (e.g. 1 for one load balancer) or their addresses ' +
  '(comma-separated IPs or CIDR ranges, e.g. 10.0.0.0/8,192.0.2.10)';

export function parseTrustProxy(text: string): { trust: TrustProxy } | { error: string } {
  const value = text.trim().toLowerCase();
  if (value === 'false' || value === '0') return { trust: false };
  if (value === 'true') {
    return {
      error: `true would believe the X-Forwarded-For of every client, who could then pick their IP and escape every per-IP limit; ${TRUST_PROXY_HELP}`,
    };
  }
  if (/^\d{1,3}$/.test(value)) return { trust: Number(value) };
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isProxyAddress(e));
  if (bad.length > 0)
    return { error: `${bad.map((b) => `"${b}"`).join(', ')} is not a proxy address; ${TRUST_PROXY_HELP}` };
  return { trust: entries };
}

/** A 32-byte key from base64 or hex, or null. */
export function decodeKey(text: string): Buffer | null {
  const buf = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return buf.length === 32 ? buf : null;
}

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | null;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  rateLimits: {
    publishablePerSec: number;
    secretPerSec: number;
    anonymousPerSec: number;
    authFailuresPerMin: number;
    signIn?: SignInLimits;
    /** Widget actions per minute per client IP and community; unset = WIDGET_ACTIONS_PER_MIN_DEFAULT. */
    widgetActionsPerMin?: number;
    /** Friend request attempts per hour per sender; unset = FRIEND_REQUESTS_PER_HOUR. */
    friendRequestsPerHour?: number;
    /** Standalone donations per client IP per hour; unset = DONATIONS_PER_IP_PER_HOUR (the spec's 30). */
    donationsPerIpPerHour?: number;
  };
  bodyLimit: string;
  /** SVC_BODY_LIMIT in bytes. */
  bodyLimitBytes: number;
  /** The chrome proxy (docs/chrome-proxy.md). */
  chromeProxy: { allowPrivate: boolean; cacheBytes: number };
  /** The domain under which `<tag>.<siteDomain>` is a community's hosted site. */
  siteDomain: string;
  /** The atlas map's tiles (SVC_MAP_TILES_URL); null: the atlas page is its list only. */
  mapTiles: MapTiles | null;
  /** Node HTTP server timeouts (server/http/http-server.ts). */
  http: { requestTimeoutMs: number; headersTimeoutMs: number };
  seedDemo: boolean;
  /** Express `trust proxy` (see TrustProxy); never `true`. */
  trustProxy: TrustProxy;
  keyCacheMs: number;
  readCacheMs: number;
  webhooks: WebhookConfig;
  /** The webhook-secret key from SVC_ENCRYPTION_KEY, or null to use the key file in dataDir. */
  encryptionKey: Buffer | null;
  /** The session-token key from SVC_SESSION_SECRET, or null to derive it from the master key. */
  sessionSecret: Buffer | null;
  /** Payment gateway and checkout settings (server/payments/config.ts). */
  payments: PaymentsConfig;
  /** Google / Slack / Discord sign-in (server/oauth/config.ts): the enabled providers. */
  oauth: OAuthConfig;
  /** Delivery of the mail outbox (server/mail/config.ts); smtp null = `.eml` files under dataDir/mail. */
  mail: MailConfig;
  /** Retention and the scheduled purge (server/maintenance/config.ts, docs/maintenance.md). */
  purge: PurgeConfig;
}

/** Sign-in and account budgets (server/http/rate-limit.ts); a field left out takes its default. */
export interface SignInLimits {
  /** Failed sign-ins per e-mail address per 15 minutes (RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT). */
  failuresPerAccount?: number;
  /** Failed sign-ins per client IP per 15 minutes (RATE_LIMIT_SIGN_IN_FAILURES_PER_IP). */
  failuresPerIp?: number;
  /** Sign-ups and password reset requests per client IP per hour (RATE_LIMIT_ACCOUNT_WRITES_PER_IP). */
  accountWritesPerIp?: number;
  /** Account e-mails (reset links, sign-up notices) per address per hour; more are not sent (RATE_LIMIT_ACCOUNT_EMAILS_PER_ADDRESS). */
  emailsPerAddress?: number;
  /** SMS code requests per phone number per hour (RATE_LIMIT_SMS_STARTS_PER_PHONE). */
  smsStartsPerPhone?: number;
  /** SMS code requests per client IP per hour (RATE_LIMIT_SMS_STARTS_PER_IP). */
  smsStartsPerIp?: number;
}

export const SIGN_IN_LIMIT_DEFAULTS: Required<SignInLimits> = {
  failuresPerAccount: 10,
  failuresPerIp: 50,
  accountWritesPerIp: 20,
  emailsPerAddress: 5,
  smsStartsPerPhone: 5,
  smsStartsPerIp: 20,
};

/** RATE_LIMIT_WIDGET_ACTIONS_PER_MIN's default: a visitor RSVPs, donates or applies a few times a minute, not 60. */
export const WIDGET_ACTIONS_PER_MIN_DEFAULT = 60;

export interface WebhookConfig {
  allowPrivate: boolean;
  /** Milliseconds to wait after attempt n (index n-1) before the next; attempts = length + 1. */
  retryDelaysMs: number[];
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
  worker: boolean;
}

export class ConfigError extends Error {}

/** `100kb`, `1mb`, `512b` (SVC_BODY_LIMIT's form, as Express reads it: 1 kb = 1024 bytes) in bytes. */
export function byteSize(text: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(text.trim());
  if (!match) throw new ConfigError(`Invalid size: ${text}`);
  const unit = match[2].toLowerCase();
  return Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

/** The object without its undefined fields, or undefined when none is left. */
function definedOnly<T extends object>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are treated as unset, as a shell `FOO= npm start` means.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = Env.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.SVC_HEADERS_TIMEOUT_MS > e.SVC_REQUEST_TIMEOUT_MS) {
    // Node refuses it too: the headers are part of the request.
    throw new ConfigError(
      'Invalid configuration:\n  SVC_HEADERS_TIMEOUT_MS: must not be longer than SVC_REQUEST_TIMEOUT_MS',
    );
  }
  const payments = parsePaymentsConfig(cleaned);
  if (Array.isArray(payments)) throw new ConfigError(`Invalid configuration:\n${payments.join('\n')}`);
  const oauth = parseOAuthConfig(cleaned);
  if (Array.isArray(oauth)) throw new ConfigError(`Invalid configuration:\n${oauth.join('\n')}`);
  const mail = parseMailConfig(cleaned);
  if (Array.isArray(mail)) throw new ConfigError(`Invalid configuration:\n${mail.join('\n')}`);
  const purge = parsePurgeConfig(cleaned, e.SVC_WEBHOOK_WORKER === 'true' || mail.worker);
  if (Array.isArray(purge)) throw new ConfigError(`Invalid configuration:\n${purge.join('\n')}`);
  const dataDir = path.resolve(e.SVC_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.SVC_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    dataDir,
    siteDomain: e.SVC_SITE_DOMAIN,
    mapTiles: e.SVC_MAP_TILES_URL
      ? { url: e.SVC_MAP_TILES_URL, imgSrc: tilesImgSrc(e.SVC_MAP_TILES_URL), attribution: e.SVC_MAP_TILES_ATTRIBUTION }
      : null,
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
      ...(e.RATE_LIMIT_WIDGET_ACTIONS_PER_MIN ? { widgetActionsPerMin: e.RATE_LIMIT_WIDGET_ACTIONS_PER_MIN } : {}),
      ...(e.RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR
        ? { friendRequestsPerHour: e.RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR }
        : {}),
      ...(e.RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR
        ? { donationsPerIpPerHour: e.RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR }
        : {}),
      // Only what is set: the rest take SIGN_IN_LIMIT_DEFAULTS where the buckets are made.
      signIn: definedOnly({
        failuresPerAccount: e.RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT,
        failuresPerIp: e.RATE_LIMIT_SIGN_IN_FAILURES_PER_IP,
        accountWritesPerIp: e.RATE_LIMIT_ACCOUNT_WRITES_PER_IP,
        emailsPerAddress: e.RATE_LIMIT_ACCOUNT_EMAILS_PER_ADDRESS,
        smsStartsPerPhone: e.RATE_LIMIT_SMS_STARTS_PER_PHONE,
        smsStartsPerIp: e.RATE_LIMIT_SMS_STARTS_PER_IP,
      }),
    },
    bodyLimit: e.SVC_BODY_LIMIT,
    bodyLimitBytes: byteSize(e.SVC_BODY_LIMIT),
    chromeProxy: {
      allowPrivate:
        e.SVC_ALLOW_PRIVATE_UPSTREAMS === undefined
          ? e.NODE_ENV !== 'production'
          : e.SVC_ALLOW_PRIVATE_UPSTREAMS === 'true',
      cacheBytes: Math.round(e.SVC_PROXY_CACHE_MB * 1024 * 1024),
    },
    http: { requestTimeoutMs: e.SVC_REQUEST_TIMEOUT_MS, headersTimeoutMs: e.SVC_HEADERS_TIMEOUT_MS },
    // The demo has known sample data; never put it in a production database unasked.
    seedDemo: e.SVC_SEED_DEMO === undefined ? !e.DATABASE_URL : e.SVC_SEED_DEMO === 'true',
    keyCacheMs: e.SVC_KEY_CACHE_MS,
    readCacheMs: e.SVC_READ_CACHE_MS,
    trustProxy: e.SVC_TRUST_PROXY,
    webhooks: {
      allowPrivate:
        e.SVC_ALLOW_PRIVATE_WEBHOOKS === undefined
          ? e.NODE_ENV !== 'production'
          : e.SVC_ALLOW_PRIVATE_WEBHOOKS === 'true',
      retryDelaysMs: e.SVC_WEBHOOK_RETRY_DELAYS,
      timeoutMs: e.SVC_WEBHOOK_TIMEOUT_MS,
      concurrency: e.SVC_WEBHOOK_CONCURRENCY,
      pollMs: e.SVC_WEBHOOK_POLL_MS,
      worker: e.SVC_WEBHOOK_WORKER === 'true',
    },
    encryptionKey: e.SVC_ENCRYPTION_KEY ? decodeKey(e.SVC_ENCRYPTION_KEY) : null,
    sessionSecret: e.SVC_SESSION_SECRET ? decodeKey(e.SVC_SESSION_SECRET) : null,
    payments,
    oauth,
    mail,
    purge,
  };
}
