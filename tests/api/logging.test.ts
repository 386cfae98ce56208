import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/http/logger.ts';
import { makeCommunity, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

const lines: string[] = [];
let s: TestServer;
let pk: string;
let sk: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  s = await startTestServer({ logger: createLogger('info', sink) });
  const c = await makeCommunity(s.database.db, 'acme');
  pk = c.pk;
  sk = await makeKey(s.database.db, c.id, ['ADMIN']);
});
afterAll(async () => {
  await s.close();
});

describe('request logs: security', () => {
  it('log one structured line per request without keys, cookies, bearer tokens or query strings', async () => {
    await s.request('/v1/communities/acme/events?limit=5&email=someone@example.com', {
      key: sk,
      headers: {
        Cookie: 'svc_auth_acme=eyJhbGciOi.secret-cookie',
        Authorization: 'Bearer token-xyz',
        'X-Svc-Auth-Token': 'member-tok',
      },
    });
    await s.request('/v1/communities/acme/events', { key: pk });
    await s.request('/v1/communities/acme/events', { key: 'sk_live_guess-guess' });
    const all = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const entry = JSON.parse(lines[0]);
    expect(entry.req).toMatchObject({ method: 'GET', path: '/v1/communities/acme/events' });
    expect(entry.res.statusCode).toBe(400); // the unknown query parameter is refused, and still logged without its value
    expect(entry.req.id).toMatch(/^req_/);
    for (const secret of [sk, pk, 'secret-cookie', 'token-xyz', 'member-tok', 'someone@example.com', 'sk_live_guess']) {
      expect(all).not.toContain(secret);
    }
  });

  it("keep no invite link's code: the path of /join/<code> is logged with the code redacted", async () => {
    const code = 'Zq3vK9xLmN2pR7sT1uW4yA6bC8dE0fG5hJ-_kMnOpQr';
    await s.request(`/join/${code}`);
    await s.request(`/join/${code}`, { method: 'POST' });
    const all = lines.join('');
    expect(all).not.toContain(code);
    expect(all).not.toContain(code.slice(0, 12));
    expect(all).toContain('"path":"/join/[redacted]"');
  });
});
