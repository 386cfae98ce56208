import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest } from './support/raw-http.ts';

let s: TestServer;
let pk: string;
let sk: string;
let otherPk: string;

beforeAll(async () => {
  s = await startTestServer({
    rateLimits: { publishablePerSec: 4, secretPerSec: 2, anonymousPerSec: 3, authFailuresPerMin: 5 },
  });
  const c = await makeCommunity(s.database.db, 'acme');
  pk = c.pk;
  sk = await makeKey(s.database.db, c.id, ['ADMIN']);
  otherPk = (await makeCommunity(s.database.db, 'globex')).pk;
});
afterAll(async () => {
  await s.close();
});

async function burst(n: number, path: string, key?: string) {
  return Promise.all(Array.from({ length: n }, () => s.request(path, key ? { key } : {})));
}

describe('rate limits: happy path', () => {
  it('reports the remaining budget on allowed requests', async () => {
    const r = await s.request('/v1/communities/globex/events', { key: otherPk });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('4');
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(4);
  });
});

describe('rate limits: errors', () => {
  it('answers the request over a publishable key budget with 429 RATE_LIMITED and its headers', async () => {
    const results = await burst(7, '/v1/communities/acme/events', pk);
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(limited).toHaveLength(3);
    const r = limited[0];
    expect(r.body).toMatchObject({ code: 'RATE_LIMITED', extras: { retryAfter: 1 } });
    expect(r.headers.get('retry-after')).toBe('1');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 2);
  });

  it('gives a secret key its own, smaller budget', async () => {
    const results = await burst(4, '/v1/communities/acme/events', sk);
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 429)).toHaveLength(2);
  });

  it('limits keyless routes per client IP', async () => {
    const results = await burst(5, '/v1/communities/acme/publishable-key');
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(2);
  });

  it('lets the key through again once the window has passed', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    expect((await s.request('/v1/communities/acme/events', { key: pk })).status).toBe(200);
  });
});

describe('rate limits: security', () => {
  it('does not charge one key for another key of the same community', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    await burst(6, '/v1/communities/acme/events', pk);
    expect((await s.request('/v1/communities/acme/events', { key: sk })).status).toBe(200);
  });

  it('checks the key before spending its budget: invalid keys are 401s and cost the key nothing', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const results = await burst(3, '/v1/communities/acme/events', 'pk_live_invalid');
    expect(results.every((r) => r.status === 401)).toBe(true);
    expect((await s.request('/v1/communities/acme/events', { key: pk })).status).toBe(200);
  });

  it('answers a client that keeps presenting bad keys with 429 once its failure budget is spent', async () => {
    const results = await burst(8, '/v1/communities/acme/events', 'sk_live_guessing');
    expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThan(1);
  });

  it('never refuses a valid key for the failures of others on the same IP', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    expect((await s.request('/v1/communities/acme/events', { key: 'sk_live_guessing' })).status).toBe(429);
    // A key this server has never seen, so it needs a lookup from this "guessing" IP.
    const community = await s.database.db
      .selectFrom('communities')
      .select('id')
      .where('tag', '=', 'acme')
      .executeTakeFirstOrThrow();
    const fresh = await makeKey(s.database.db, community.id, ['READ_PUBLIC']);
    expect((await s.request('/v1/communities/acme/events', { key: fresh })).status).toBe(200);
  });
});

describe('rate limits: security behind proxies (SVC_TRUST_PROXY)', () => {
  // A per-IP limit of 3 an hour (reset requests), so only the client address decides, not timing.
  // The test client connects from 127.0.0.1 and plays the proxy: what it puts last in
  // X-Forwarded-For is what a real proxy appends, anything before that is what its client sent.
  const PER_IP = 3;
  let servers: TestServer[] = [];
  const behind = async (trust: string) => {
    const server = await startTestServer({
      env: { SVC_TRUST_PROXY: trust },
      rateLimits: { signIn: { accountWritesPerIp: PER_IP } },
    });
    servers.push(server);
    const port = new URL(server.url).port;
    const host = `127.0.0.1:${port}`;
    return (forwardedFor: string) =>
      rawRequest(
        port,
        'POST',
        '/api/auth/password-reset',
        {
          Host: host,
          Origin: `http://${host}`,
          'Content-Type': 'application/json',
          'X-Forwarded-For': forwardedFor,
        },
        JSON.stringify({ email: 'nobody@example.com' }),
      ).then((r) => r.status);
  };
  afterAll(async () => {
    await Promise.all(servers.map((x) => x.close()));
    servers = [];
  });

  it('with a hop count of 1, counts only the address the proxy appended: a spoofed chain does not escape the limit', async () => {
    const reset = await behind('1');
    const statuses: number[] = [];
    for (let i = 1; i <= PER_IP + 3; i++) statuses.push(await reset(`10.9.${i}.1, 192.0.2.${i}, 198.51.100.7`));
    expect(statuses).toEqual([202, 202, 202, 429, 429, 429]);
    // Another client behind the same proxy has its own budget.
    expect(await reset('10.9.9.9, 198.51.100.8')).toBe(202);
  });

  it('with proxy addresses (CIDR), honours X-Forwarded-For from a listed proxy, walking back no further than its client', async () => {
    const reset = await behind('10.0.0.0/8, 127.0.0.1/32');
    const statuses: number[] = [];
    for (let i = 1; i <= PER_IP + 2; i++)
      statuses.push(await reset(i % 2 ? '198.51.100.7' : `192.0.2.${i}, 198.51.100.7`));
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
    expect(await reset('198.51.100.8')).toBe(202);
  });

  it('with proxy addresses, ignores the X-Forwarded-For of a request that does not come from a listed proxy', async () => {
    const reset = await behind('10.0.0.0/8');
    const statuses: number[] = [];
    // 127.0.0.1 is not a listed proxy: it is the client, whatever it claims to forward.
    for (let i = 1; i <= PER_IP + 2; i++) statuses.push(await reset(`198.51.100.${i}`));
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
  });
});
