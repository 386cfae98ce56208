// Rate limits on rate-limiter-flexible: in memory by default, in Redis when REDIS_URL is set so
// every instance behind a load balancer shares one budget. Named buckets keep each limit's
// numbers in one place; later features add their own (donations per IP, broadcasts per day).
import type { Response } from 'express';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { SIGN_IN_LIMIT_DEFAULTS, WIDGET_ACTIONS_PER_MIN_DEFAULT, type SignInLimits } from '../config.ts';
import { ApiError } from './api-error.ts';
import { messages } from '../shared/messages.ts';

export interface BucketSpec {
  points: number;
  durationSec: number;
}

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly specs = new Map<string, BucketSpec>();

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix = 'svc:rl',
  ) {}

  define(bucket: string, spec: BucketSpec): void {
    const opts = { keyPrefix: `${this.prefix}:${bucket}`, points: spec.points, duration: spec.durationSec };
    const memory = new RateLimiterMemory(opts);
    // With Redis, an outage degrades to per-instance memory limits instead of failing requests.
    const limiter = this.redis
      ? new RateLimiterRedis({
          ...opts,
          storeClient: this.redis,
          insuranceLimiter: memory,
          rejectIfRedisNotReady: true,
        })
      : memory;
    this.limiters.set(bucket, limiter);
    this.specs.set(bucket, spec);
  }

  /** Takes one point from `key` in `bucket`; throws a 429 ApiError when the budget is spent. */
  async consume(bucket: string, key: string, res?: Response): Promise<void> {
    const limiter = this.limiters.get(bucket);
    const spec = this.specs.get(bucket);
    if (!limiter || !spec) throw new Error(`unknown rate-limit bucket ${bucket}`);
    try {
      const r = await limiter.consume(key);
      res?.setHeader('X-RateLimit-Limit', String(spec.points));
      res?.setHeader('X-RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
      res?.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError(
        'RATE_LIMITED',
        messages.rateLimited,
        { retryAfter },
        {
          'Retry-After': String(retryAfter),
          'X-RateLimit-Limit': String(spec.points),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(Math.ceil((Date.now() + rejection.msBeforeNext) / 1000)),
        },
      );
    }
  }

  /**
   * Gives back points taken from `key` in `bucket` (e.g. a sign-in attempt that succeeded, so only
   * failures count). Never throws: a budget that cannot be refunded stays spent.
   */
  async reward(bucket: string, key: string, points = 1): Promise<void> {
    const limiter = this.limiters.get(bucket);
    if (!limiter) throw new Error(`unknown rate-limit bucket ${bucket}`);
    try {
      await limiter.reward(key, points);
    } catch {
      // Redis unreachable: the point stays spent until the window ends.
    }
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}

/** Test sends of broadcasts per community per hour, in this bucket (server/v1/broadcasts.ts). */
export const BROADCAST_TESTS_PER_HOUR = 20;
export const BROADCAST_TESTS_BUCKET = 'broadcast-tests';

export function connectRedis(url: string): Redis {
  return new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
}

/** The buckets every instance has; the numbers come from config (the spec's values by default). */
export function createRateLimits(
  limits: {
    publishablePerSec: number;
    secretPerSec: number;
    anonymousPerSec: number;
    authFailuresPerMin: number;
    signIn?: SignInLimits;
    widgetActionsPerMin?: number;
  },
  redis: Redis | null,
  prefix?: string,
): RateLimits {
  const rl = new RateLimits(redis, prefix);
  rl.define('publishable', { points: limits.publishablePerSec, durationSec: 1 });
  rl.define('secret', { points: limits.secretPerSec, durationSec: 1 });
  rl.define('anonymous', { points: limits.anonymousPerSec, durationSec: 1 });
  rl.define('auth-failures', { points: limits.authFailuresPerMin, durationSec: 60 });
  // Writes widgets make (server/http/widget-actions.ts), keyed `<community tag>:<client IP>`: the
  // publishable key is public, so the client, not the key, is what this budget holds to.
  rl.define('widget-actions', {
    points: limits.widgetActionsPerMin ?? WIDGET_ACTIONS_PER_MIN_DEFAULT,
    durationSec: 60,
  });
  // Sign-in (server/site/auth.ts): an attempt takes a point before the password is checked and a
  // success gives it back, so these count failures and a spent budget refuses even the right password.
  const signIn = { ...SIGN_IN_LIMIT_DEFAULTS, ...limits.signIn };
  rl.define('sign-in-account', { points: signIn.failuresPerAccount, durationSec: 15 * 60 });
  rl.define('sign-in-ip', { points: signIn.failuresPerIp, durationSec: 15 * 60 });
  // Sign-ups and password reset requests per client IP; account e-mails per recipient address.
  rl.define('account-writes-ip', { points: signIn.accountWritesPerIp, durationSec: 60 * 60 });
  rl.define('account-emails', { points: signIn.emailsPerAddress, durationSec: 60 * 60 });
  // SMS code requests per phone (hashed) and per client IP; both answer 429 whether or not an
  // account has the phone. Wrong codes count in sign-in-ip like wrong passwords.
  rl.define('sms-start-phone', { points: signIn.smsStartsPerPhone, durationSec: 60 * 60 });
  rl.define('sms-start-ip', { points: signIn.smsStartsPerIp, durationSec: 60 * 60 });
  // Broadcast test sends (testTo) per community: they never count toward the 5-per-24h limit,
  // so this is what keeps testTo from mailing an address over and over.
  rl.define(BROADCAST_TESTS_BUCKET, { points: BROADCAST_TESTS_PER_HOUR, durationSec: 60 * 60 });
  return rl;
}
