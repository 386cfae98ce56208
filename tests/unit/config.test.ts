import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { checkoutOrigins } from '../../server/payments/index.ts';

describe('config', () => {
  it('defaults to port 3000 on 127.0.0.1, SQLite under ./data and memory rate limits', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.database).toMatchObject({ kind: 'sqlite' });
    expect(c.database.kind === 'sqlite' && c.database.file.endsWith('/data/svc.db')).toBe(true);
    expect(c.redisUrl).toBeNull();
    expect(c.rateLimits).toEqual({
      publishablePerSec: 100,
      secretPerSec: 50,
      anonymousPerSec: 100,
      authFailuresPerMin: 60,
    });
    expect(c.keyCacheMs).toBe(5000);
    expect(c.readCacheMs).toBe(1000);
  });

  it('derives the public URL from PORT and strips a trailing slash from SVC_PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
    expect(loadConfig({ SVC_PUBLIC_URL: 'https://svc.example/' }).publicUrl).toBe('https://svc.example');
  });

  it('reads SVC_SITE_DOMAIN (default localhost) in lower case, and refuses what is not a domain name', () => {
    expect(loadConfig({}).siteDomain).toBe('localhost');
    expect(loadConfig({ SVC_SITE_DOMAIN: 'Sites.Example.com' }).siteDomain).toBe('sites.example.com');
    for (const bad of ['https://sites.example', 'sites.example/', '.example', 'a..b', 'sites.example:3000'])
      expect(() => loadConfig({ SVC_SITE_DOMAIN: bad })).toThrow(ConfigError);
  });

  it('reads SVC_MAP_TILES_URL (unset: no map) with the img-src its tiles need, and refuses what is not a tile template', () => {
    expect(loadConfig({}).mapTiles).toBeNull();
    expect(loadConfig({ SVC_MAP_TILES_URL: 'https://tiles.example:8443/t/{z}/{x}/{y}.png' }).mapTiles).toEqual({
      url: 'https://tiles.example:8443/t/{z}/{x}/{y}.png',
      imgSrc: 'https://tiles.example:8443',
      attribution: '',
    });
    expect(
      loadConfig({ SVC_MAP_TILES_URL: 'https://{s}.tile.example/{z}/{x}/{y}.png', SVC_MAP_TILES_ATTRIBUTION: '© OSM' })
        .mapTiles,
    ).toMatchObject({ imgSrc: 'https://*.tile.example', attribution: '© OSM' });
    for (const bad of [
      'https://tiles.example/{z}/{x}.png',
      'ftp://tiles.example/{z}/{x}/{y}.png',
      'https://tiles{s}.example/{z}/{x}/{y}.png',
      'tiles.example/{z}/{x}/{y}',
    ])
      expect(() => loadConfig({ SVC_MAP_TILES_URL: bad }), bad).toThrow(ConfigError);
  });

  it("names the configured gateway's checkout origin (the hosted product page's form-action)", () => {
    expect(checkoutOrigins(loadConfig({ SVC_PAYMENTS: 'local', SVC_PUBLIC_URL: 'https://svc.example/' }))).toEqual([
      'https://svc.example',
    ]);
    expect(
      checkoutOrigins(
        loadConfig({ SVC_PAYMENTS: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }),
      ),
    ).toEqual(['https://checkout.stripe.com']);
    expect(checkoutOrigins(loadConfig({ SVC_PAYMENTS: 'off' }))).toEqual([]);
  });

  it('selects PostgreSQL from DATABASE_URL and Redis from REDIS_URL', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h/db', REDIS_URL: 'redis://h:6379' });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(c.redisUrl).toBe('redis://h:6379');
  });

  it('seeds the demo by default only on the embedded database', () => {
    expect(loadConfig({}).seedDemo).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).seedDemo).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', SVC_SEED_DEMO: 'true' }).seedDemo).toBe(true);
    expect(loadConfig({ SVC_SEED_DEMO: 'false' }).seedDemo).toBe(false);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).database.kind).toBe('sqlite');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['SVC_PUBLIC_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_SECRET_PER_SEC', '0'],
    ['SVC_BODY_LIMIT', 'huge'],
  ])('fails at start naming %s when it is %s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });
});

describe('config: HTTP timeouts', () => {
  it('gives a whole request 30 s and its headers 10 s unless told otherwise', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
    expect(loadConfig({ SVC_REQUEST_TIMEOUT_MS: '60000', SVC_HEADERS_TIMEOUT_MS: '60000' }).http).toEqual({
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 60_000,
    });
  });

  it('refuses headers allowed longer than the whole request, and values out of range, naming the variable', () => {
    expect(() => loadConfig({ SVC_REQUEST_TIMEOUT_MS: '5000', SVC_HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      /SVC_HEADERS_TIMEOUT_MS: must not be longer than SVC_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ SVC_REQUEST_TIMEOUT_MS: '0' })).toThrow(/SVC_REQUEST_TIMEOUT_MS:/);
    expect(() => loadConfig({ SVC_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(/SVC_HEADERS_TIMEOUT_MS:/);
  });
});

describe('config: SVC_TRUST_PROXY', () => {
  it('defaults to no proxy: the socket address is the client', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: '0' }).trustProxy).toBe(false);
  });

  it('takes a hop count', () => {
    expect(loadConfig({ SVC_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ SVC_TRUST_PROXY: ' 2 ' }).trustProxy).toBe(2);
  });

  it("takes a comma-separated list of proxy addresses, CIDR ranges (IPv4 and IPv6) and Express's range names", () => {
    expect(
      loadConfig({ SVC_TRUST_PROXY: '10.0.0.0/8, 192.0.2.10,2001:db8::/32 ,::1,loopback,uniquelocal' }).trustProxy,
    ).toEqual(['10.0.0.0/8', '192.0.2.10', '2001:db8::/32', '::1', 'loopback', 'uniquelocal']);
  });

  it('refuses true, saying why and what to set instead', () => {
    for (const value of ['true', 'TRUE', ' true ']) {
      expect(() => loadConfig({ SVC_TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ SVC_TRUST_PROXY: value })).toThrow(
        /SVC_TRUST_PROXY: true would believe the X-Forwarded-For of every client.*set the number of proxies in front of svc \(e\.g\. 1.*or their addresses/,
      );
    }
  });

  it.each([
    ['yes'],
    ['10.0.0.0/33'],
    ['10.0.0.0/8/8'],
    ['2001:db8::/129'],
    ['10.0.0.0/255.0.0.0'],
    ['127.1'],
    ['0x7f.0.0.1'],
    ['10.0.0.1,'],
    ['proxy.example'],
    ['-1'],
    ['1000'],
  ])('refuses %s, naming the variable and what it takes', (value) => {
    expect(() => loadConfig({ SVC_TRUST_PROXY: value })).toThrow(
      /SVC_TRUST_PROXY: .*set the number of proxies in front of svc/,
    );
  });
});

describe('config: webhooks', () => {
  it('defaults to the spec schedule (six attempts), a 10 s timeout and the worker on', () => {
    const { webhooks, encryptionKey } = loadConfig({});
    expect(webhooks).toEqual({
      allowPrivate: true,
      retryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000, 86_400_000],
      timeoutMs: 10_000,
      concurrency: 64,
      pollMs: 1000,
      worker: true,
    });
    expect(encryptionKey).toBeNull();
  });

  it('refuses private receivers by default in production, unless told otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).webhooks.allowPrivate).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' }).webhooks.allowPrivate).toBe(true);
    expect(loadConfig({ SVC_ALLOW_PRIVATE_WEBHOOKS: 'false' }).webhooks.allowPrivate).toBe(false);
  });

  it('reads a compressed retry schedule in any unit, and names the variable when it is malformed', () => {
    expect(loadConfig({ SVC_WEBHOOK_RETRY_DELAYS: '250ms, 1s,2m,1h,1d' }).webhooks.retryDelaysMs).toEqual([
      250, 1000, 120_000, 3_600_000, 86_400_000,
    ]);
    expect(() => loadConfig({ SVC_WEBHOOK_RETRY_DELAYS: '1m,soon' })).toThrow(/SVC_WEBHOOK_RETRY_DELAYS: must be/);
  });

  it('takes a 32-byte encryption key as base64 or hex and refuses any other length', () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ SVC_ENCRYPTION_KEY: key.toString('base64') }).encryptionKey).toEqual(key);
    expect(loadConfig({ SVC_ENCRYPTION_KEY: key.toString('hex') }).encryptionKey).toEqual(key);
    expect(() => loadConfig({ SVC_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') })).toThrow(
      /SVC_ENCRYPTION_KEY: must be 32 bytes/,
    );
  });
});

describe('config: the purge (docs/maintenance.md)', () => {
  const DAY = 24 * 60 * 60 * 1000;

  it('defaults: hourly, 200 rows a batch, keys 24 h, deliveries and mail 30 d, SMS 7 d, codes 1 d past expiry', () => {
    expect(loadConfig({}).purge).toEqual({
      worker: true,
      intervalMs: 60 * 60 * 1000,
      batchSize: 200,
      retention: {
        idempotencyKeysMs: DAY,
        webhookDeliveriesMs: 30 * DAY,
        mailMs: 30 * DAY,
        smsMs: 7 * DAY,
        signInCodesMs: DAY,
      },
    });
  });

  it('runs where a worker runs unless SVC_PURGE_WORKER says otherwise', () => {
    expect(loadConfig({ SVC_WEBHOOK_WORKER: 'false' }).purge.worker).toBe(true);
    expect(loadConfig({ SVC_MAIL_WORKER: 'false' }).purge.worker).toBe(true);
    expect(loadConfig({ SVC_WEBHOOK_WORKER: 'false', SVC_MAIL_WORKER: 'false' }).purge.worker).toBe(false);
    expect(
      loadConfig({ SVC_WEBHOOK_WORKER: 'false', SVC_MAIL_WORKER: 'false', SVC_PURGE_WORKER: 'true' }).purge.worker,
    ).toBe(true);
    expect(loadConfig({ SVC_PURGE_WORKER: 'false' }).purge.worker).toBe(false);
  });

  it('reads the retentions as durations, and refuses a bad one naming the variable', () => {
    const c = loadConfig({
      SVC_RETAIN_IDEMPOTENCY_KEYS: '2d',
      SVC_RETAIN_WEBHOOK_DELIVERIES: '90d',
      SVC_RETAIN_MAIL: '12h',
      SVC_RETAIN_SMS: '1h',
      SVC_RETAIN_SIGN_IN_CODES: '0s',
      SVC_PURGE_INTERVAL: '10m',
      SVC_PURGE_BATCH_SIZE: '50',
    }).purge;
    expect(c).toMatchObject({ intervalMs: 10 * 60 * 1000, batchSize: 50 });
    expect(c.retention).toEqual({
      idempotencyKeysMs: 2 * DAY,
      webhookDeliveriesMs: 90 * DAY,
      mailMs: DAY / 2,
      smsMs: DAY / 24,
      signInCodesMs: 0,
    });
    // Shorter than the spec's 24 h window would break replays the spec promises.
    expect(() => loadConfig({ SVC_RETAIN_IDEMPOTENCY_KEYS: '23h' })).toThrow(/SVC_RETAIN_IDEMPOTENCY_KEYS/);
    expect(() => loadConfig({ SVC_RETAIN_MAIL: 'a month' })).toThrow(/SVC_RETAIN_MAIL/);
    expect(() => loadConfig({ SVC_RETAIN_WEBHOOK_DELIVERIES: '30m' })).toThrow(/SVC_RETAIN_WEBHOOK_DELIVERIES/);
    expect(() => loadConfig({ SVC_PURGE_BATCH_SIZE: '0' })).toThrow(/SVC_PURGE_BATCH_SIZE/);
    expect(() => loadConfig({ SVC_PURGE_INTERVAL: '10ms' })).toThrow(/SVC_PURGE_INTERVAL/);
  });
});
