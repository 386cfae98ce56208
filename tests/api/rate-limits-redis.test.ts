// Rate limits shared through Redis, and what happens when Redis is down.
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, createRateLimits, type RateLimits } from '../../server/http/rate-limit.ts';
import { ApiError } from '../../server/http/api-error.ts';

const limits = { publishablePerSec: 3, secretPerSec: 3, anonymousPerSec: 3, authFailuresPerMin: 3 };
const opened: RateLimits[] = [];
const open = (url: string, prefix: string) => {
  const redis = connectRedis(url);
  redis.on('error', () => {
    /* expected for the unreachable server */
  });
  const rl = createRateLimits(limits, redis, prefix);
  opened.push(rl);
  return rl;
};
afterAll(async () => {
  await Promise.all(opened.map((rl) => rl.close()));
});

async function spend(rl: RateLimits, key: string, n: number) {
  const outcomes: string[] = [];
  for (let i = 0; i < n; i++) {
    try {
      await rl.consume('secret', key);
      outcomes.push('ok');
    } catch (err) {
      outcomes.push(err instanceof ApiError ? err.code : 'other');
    }
  }
  return outcomes;
}

describe('rate limits: resilience', () => {
  it('falls back to in-memory limits when Redis is unreachable, still refusing over budget', async () => {
    const rl = open('redis://127.0.0.1:1', `svc:test:down:${Date.now()}`);
    expect(await spend(rl, 'key-a', 5)).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it.runIf(Boolean(process.env.REDIS_URL))('shares one budget between two instances through Redis', async () => {
    const prefix = `svc:test:shared:${Date.now()}`;
    const a = open(process.env.REDIS_URL!, prefix);
    const b = open(process.env.REDIS_URL!, prefix);
    await new Promise((r) => setTimeout(r, 200)); // let both connect
    const first = await spend(a, 'key-s', 2);
    const second = await spend(b, 'key-s', 2);
    expect([...first, ...second]).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
  });
});
