// The console's integrations pages (docs/leader-console.md, "Pages", "Integrations"): keys and
// webhook receivers made by plain form posts through the API's own operations, their secrets
// shown once on a page nobody keeps, receivers changed, rotated and deleted, deliveries replayed
// and resent to a real receiver on 127.0.0.1 by the real delivery worker; and who may do it.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfKey, csrfTokenFor } from '../../server/site/pages/forms.ts';
import { loadSecretBox } from '../../server/webhooks/secret-box.ts';
import type { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { csrfFor, formOnSite, leaderFixture, onSite, type LeaderFixture, type Person } from './support/leaders.ts';
import { approved, emitOne, startReceiver, startWorker, waitFor, type Receiver } from './support/webhooks.ts';

let server: TestServer;
let club: LeaderFixture;
let other: LeaderFixture;
let worker: DeliveryWorker;
const receivers: Receiver[] = [];
const stripe = new Stripe('sk_test_not_used_for_network');
const PAGE = '/admin/integrations';

beforeAll(async () => {
  server = await startTestServer();
  club = await leaderFixture(server, 'cint');
  other = await leaderFixture(server, 'coth');
  worker = startWorker(server.database, loadSecretBox(server.config));
});
afterAll(async () => {
  await worker?.stop();
  for (const r of receivers) await r.close();
  await server?.close();
});

const page = (path: string, who: Person | null = 'founder', f: LeaderFixture = club) =>
  onSite(server, f.tag, 'GET', path, { cookie: who ? f.cookies[who] : undefined });

/** A form post as the founder's or an admin's browser sends it: their cookie and their `_csrf`. */
async function post(
  path: string,
  fields: Record<string, string | string[]>,
  who: Person = 'founder',
  f: LeaderFixture = club,
) {
  const cookie = f.cookies[who];
  return formOnSite(server, f.tag, path, { _csrf: await csrfFor(server, f.tag, cookie, PAGE), ...fields }, { cookie });
}

/** The `_csrf` of a session whose pages show it no form (a person the console refuses). */
function csrfOfCookie(cookie: string): string {
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const sid = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
  return csrfTokenFor(csrfKey(server.sessions), sid);
}

const api = (f: LeaderFixture, method: string, path: string, json?: unknown) =>
  onSite(server, f.tag, method, `/api/admin/${f.tag}${path}`, {
    cookie: f.cookies.founder,
    json: json ?? (method === 'GET' ? undefined : {}),
  });

const auditOf = (f: LeaderFixture) =>
  server.database.db.selectFrom('audit_log').selectAll().where('community_id', '=', f.id).execute();

const shownSecret = (html: string, prefix: 'sk_live_' | 'whsec_'): string => {
  const m = new RegExp(`<output id="new-secret"[^>]*>(${prefix}[^<]+)</output>`).exec(html);
  if (!m) throw new Error(`no ${prefix} secret on the page`);
  return m[1];
};

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const v1Events = (f: LeaderFixture, key: string) => server.request(`/v1/communities/${f.tag}/events`, { key });

/** A receiver made through the page; its id and secret. */
async function makeReceiver(f: LeaderFixture, url: string, events: string[] = ['*']) {
  const res = await post(`${PAGE}/webhooks`, { url, events, description: '' }, 'founder', f);
  expect(res.status, res.text).toBe(200);
  const id = /href="\/admin\/integrations\/webhooks\/([0-9a-f-]{36})"/.exec(res.text)![1];
  return { id, secret: shownSecret(res.text, 'whsec_'), page: res };
}

describe('happy', () => {
  it('shows keys and receivers to the founder and an admin, private; the founder-only scopes disabled for an admin', async () => {
    for (const who of ['founder', 'admin'] as const) {
      const res = await page(PAGE, who);
      expect(res.status, who).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).toContain('<h1>Integrations</h1>');
      expect(res.text).toMatch(/<a href="\/admin\/integrations" aria-current="page">Integrations<\/a>/);
      expect(res.text).toContain('name="_csrf"');
      for (const scope of ['WRITE_MEMBERS', 'ADMIN']) {
        const box = new RegExp(`<input type="checkbox" id="field-scopes-${scope}"[^>]*>`).exec(res.text)![0];
        expect(box.includes(' disabled'), `${who} ${scope}`).toBe(who === 'admin');
      }
      expect(/<input type="checkbox" id="field-scopes-READ_PUBLIC"[^>]*>/.exec(res.text)![0]).not.toContain('disabled');
    }
    expect((await page(PAGE, 'admin')).text).toContain('Only the founder can give this scope');
  });

  it('creates a key and shows its secret once, on the answer itself; it works on /v1 and is never shown again', async () => {
    const res = await post(`${PAGE}/keys`, { name: 'Shop <sync>', scopes: ['READ_PUBLIC', 'WRITE_SALES'] }, 'admin');
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toContain('This is the only time it is shown: copy it now.');
    expect(res.text).toContain('X-API-Key: $SVC_SECRET_KEY');
    expect(res.text).toContain('Shop &lt;sync&gt;');
    const secret = shownSecret(res.text, 'sk_live_');
    // Shown once on the page: not also in the example.
    expect(res.text.split(secret)).toHaveLength(2);
    expect((await v1Events(club, secret)).status).toBe(200);

    const [key] = (await api(club, 'GET', '/keys')).body.filter((k: { name: string }) => k.name === 'Shop <sync>');
    expect(key.scopes).toEqual(['READ_PUBLIC', 'WRITE_SALES']);
    const list = await page(PAGE);
    expect(list.text).toContain(`<code>${key.prefix}…</code>`);
    for (const path of [PAGE, '/admin/audit-log', '/admin/audit-log?action=key.create']) {
      expect((await page(path)).text, path).not.toContain(secret);
    }
    const audit = (await auditOf(club)).filter((e) => e.target_id === key.id);
    expect(audit.map((e) => e.action)).toEqual(['key.create']);
    expect(audit[0].actor_user_id).toBe(club.users.admin.id);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('revokes a key only once confirmed (the no-JavaScript page asks first), then at once', async () => {
    const made = await post(`${PAGE}/keys`, { name: 'Temp', scopes: ['READ_PUBLIC'] });
    const secret = shownSecret(made.text, 'sk_live_');
    const key = (await api(club, 'GET', '/keys')).body.find((k: { name: string }) => k.name === 'Temp');
    const list = await page(PAGE);
    expect(list.text).toContain(`action="/admin/integrations/keys/${key.id}/revoke" class="inline-form" data-confirm=`);

    const asked = await post(`${PAGE}/keys/${key.id}/revoke`, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<h1>Are you sure?</h1>');
    expect(asked.text).toContain('name="confirmed" value="yes"');
    expect((await v1Events(club, secret)).status).toBe(200);

    const done = await post(`${PAGE}/keys/${key.id}/revoke`, { confirmed: 'yes' });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${PAGE}?done=key-revoked`);
    expect((await v1Events(club, secret)).status).toBe(401);
    const after = await page(done.headers.location!);
    expect(after.text).toContain('role="status">The key was revoked');
    expect(after.text).toMatch(/Revoked <time/);
  });

  it('registers a receiver with its secret shown once, shows its deliveries and attempts, and replays one', async () => {
    const f = await leaderFixture(server, 'crp');
    const hook = await receiver();
    const made = await makeReceiver(f, hook.url, ['member.approved']);
    expect(made.page.headers['cache-control']).toBe('private, no-store');
    expect(made.page.text).toContain('This is the only time it is shown: copy it now.');
    expect(made.page.text).toContain('Svc-Signature');

    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    await waitFor(() => hook.requests.length === 1, 'the first delivery');
    const receiverPage = await waitFor(async () => {
      const res = await page(`${PAGE}/webhooks/${made.id}`, 'admin', f);
      return res.text.includes('Delivered') ? res : null;
    }, 'the delivery to show as delivered');
    expect(receiverPage.text).toContain(`<code>${hook.url}</code>`);
    expect(receiverPage.text).toContain('<code>member.approved</code>');
    const deliveryId = /href="\/admin\/integrations\/webhooks\/[^/]+\/deliveries\/(del_[0-9a-f]{32})"/.exec(
      receiverPage.text,
    )![1];
    expect((await page(PAGE, 'founder', f)).text).toMatch(/Delivered <span class="meta">member\.approved/);

    hook.handle((_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('seen <it>'));
    const replay = await post(`${PAGE}/webhooks/${made.id}/deliveries/${deliveryId}/replay`, {}, 'admin', f);
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe(`${PAGE}/webhooks/${made.id}/deliveries/${deliveryId}?done=replayed`);
    await waitFor(() => hook.requests.length === 2, 'the replay');
    const [first, again] = hook.requests;
    expect(again.headers['svc-delivery-id']).toBe(first.headers['svc-delivery-id']);
    const event = stripe.webhooks.constructEvent(again.body, again.headers['svc-signature'] as string, made.secret);
    expect((event as unknown as { deliveryId: string }).deliveryId).toBe(deliveryId);

    const detail = await waitFor(async () => {
      const res = await page(replay.headers.location!, 'founder', f);
      return res.text.includes('seen &lt;it&gt;') ? res : null;
    }, 'the second attempt on the page');
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('role="status">The delivery was queued again');
    expect(detail.text).toContain('2 in 2 rounds');
    expect(detail.text).toContain('<code>204</code>');
    expect(detail.text).toContain('<code>200</code>');
    expect(detail.text).toMatch(/<td>\d+ ms<\/td>/);

    for (const path of [PAGE, `${PAGE}/webhooks/${made.id}`, replay.headers.location!, '/admin/audit-log']) {
      expect((await page(path, 'founder', f)).text, path).not.toContain(made.secret);
    }
    const audit = await auditOf(f);
    expect(audit.map((e) => e.action).sort()).toEqual(['webhook.create', 'webhook.replay']);
    expect(JSON.stringify(audit)).not.toContain(made.secret);
  });

  it('edits, disables (confirmed), enables, rotates with an overlap and deletes a receiver, each with its notice', async () => {
    const f = await leaderFixture(server, 'cch');
    const [a, b] = [await receiver(), await receiver()];
    const made = await makeReceiver(f, a.url);
    const here = `${PAGE}/webhooks/${made.id}`;

    const edited = await post(
      here,
      { url: b.url, events: ['article.published', 'donation.received'], description: 'CRM' },
      'admin',
      f,
    );
    expect(edited.status).toBe(303);
    expect(edited.headers.location).toBe(`${here}?done=updated`);
    const shown = await page(edited.headers.location!, 'founder', f);
    expect(shown.text).toContain('role="status">The receiver was saved.');
    expect(shown.text).toContain(`<code>${b.url}</code>`);
    expect(shown.text).toMatch(/id="field-events-article-published" name="events" value="article.published" checked/);
    expect(shown.text).not.toMatch(/id="field-events--" name="events" value="\*" checked/);

    expect((await post(`${here}/disable`, {}, 'founder', f)).text).toContain('<h1>Are you sure?</h1>');
    expect((await api(f, 'GET', `/webhooks/${made.id}`)).body.status).toBe('ENABLED');
    const disabled = await post(`${here}/disable`, { confirmed: 'yes' }, 'founder', f);
    expect(disabled.headers.location).toBe(`${here}?done=disabled`);
    expect((await api(f, 'GET', `/webhooks/${made.id}`)).body.status).toBe('DISABLED');
    const enabled = await post(`${here}/enable`, {}, 'admin', f);
    expect(enabled.headers.location).toBe(`${here}?done=enabled`);
    expect((await api(f, 'GET', `/webhooks/${made.id}`)).body.status).toBe('ENABLED');

    const asked = await post(`${here}/rotate-secret`, { overlapSeconds: '3600' }, 'founder', f);
    expect(asked.text).toContain('<h1>Are you sure?</h1>');
    expect(asked.text).toContain('name="overlapSeconds" value="3600"');
    const rotated = await post(`${here}/rotate-secret`, { overlapSeconds: '3600', confirmed: 'yes' }, 'founder', f);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('private, no-store');
    const secret = shownSecret(rotated.text, 'whsec_');
    expect(secret).not.toBe(made.secret);
    expect(rotated.text).toContain('the previous secret signs them too');
    const until = (await api(f, 'GET', `/webhooks/${made.id}`)).body.previousSecretExpiresAt;
    expect(Date.parse(until)).toBeGreaterThan(Date.now() + 3500_000);
    expect((await page(here, 'founder', f)).text).toContain('The previous secret signs too until');

    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'article.published', {
      articleId: crypto.randomUUID(),
      slug: 'news',
      title: 'News',
      publishedAt: new Date().toISOString(),
    });
    await waitFor(() => b.requests.length === 1, 'a delivery to the new URL');
    const header = b.requests[0].headers['svc-signature'] as string;
    for (const s of [made.secret, secret])
      expect(() => stripe.webhooks.constructEvent(b.requests[0].body, header, s)).not.toThrow();

    const deleted = await post(`${here}/delete`, { confirmed: 'yes' }, 'founder', f);
    expect(deleted.headers.location).toBe(`${PAGE}?done=receiver-deleted`);
    const after = await page(deleted.headers.location!, 'founder', f);
    expect(after.text).toContain('role="status">The receiver was deleted');
    expect(after.text).toContain('No webhook receiver yet.');
    const gone = await page(here, 'founder', f);
    expect(gone.text).toContain('This receiver was deleted');
    expect(gone.text).not.toContain(`action="${here}/enable"`);

    expect((await auditOf(f)).map((e) => e.action).sort()).toEqual(
      [
        'webhook.create',
        'webhook.update',
        'webhook.disable',
        'webhook.enable',
        'webhook.rotate_secret',
        'webhook.delete',
      ].sort(),
    );
    for (const path of [PAGE, here, '/admin/audit-log']) {
      const text = (await page(path, 'founder', f)).text;
      expect(text).not.toContain(secret);
      expect(text).not.toContain(made.secret);
    }
  });

  it('resends the deliveries that failed for good once the receiver answers again, and pages deliveries', async () => {
    const f = await leaderFixture(server, 'crs');
    const hook = await receiver();
    hook.handle((_q, res) => res.writeHead(500).end('down'));
    const made = await makeReceiver(f, hook.url);
    const here = `${PAGE}/webhooks/${made.id}`;
    for (let i = 0; i < 21; i++)
      await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    await waitFor(async () => {
      const res = await api(f, 'GET', `/webhooks/${made.id}/deliveries?status=PERMANENTLY_FAILED`);
      return res.headers['x-total-count'] === '21';
    }, 'every delivery to fail for good');

    const first = await page(here, 'founder', f);
    expect(first.text).toContain('1–20 of 21');
    expect(first.text).toContain('Failed for good');
    expect(first.text).toContain('<code>500</code>');
    expect(first.text).toContain(`href="${here}?offset=20" rel="next"`);
    const second = await page(`${here}?offset=20`, 'founder', f);
    expect(second.text).toContain('21–21 of 21');
    const filtered = await page(`${here}?status=SUCCEEDED`, 'founder', f);
    expect(filtered.text).toContain('No delivery in this state.');

    // A time after them all requeues nothing.
    const later = new Date(Date.now() + 60_000).toISOString().slice(0, 16);
    const none = await post(`${here}/resend`, { since: later }, 'admin', f);
    expect(none.headers.location).toBe(`${here}?done=resent-none`);

    hook.handle((_q, res) => res.writeHead(204).end());
    const since = /id="field-since" name="since" required[^>]* type="datetime-local" value="([^"]+)"/.exec(
      first.text,
    )![1];
    const resent = await post(`${here}/resend`, { since }, 'admin', f);
    expect(resent.status).toBe(303);
    expect(resent.headers.location).toBe(`${here}?done=resent`);
    await waitFor(async () => {
      const res = await api(f, 'GET', `/webhooks/${made.id}/deliveries?status=SUCCEEDED`);
      return res.headers['x-total-count'] === '21';
    }, 'the resent deliveries to succeed');
    expect((await auditOf(f)).map((e) => e.action).sort()).toEqual(['webhook.create', 'webhook.resend']);
  });
});

describe('error', () => {
  it('refuses a key without scopes or with an unknown one, the error next to the scopes and the name kept', async () => {
    const keysBefore = (await api(club, 'GET', '/keys')).body.length;
    for (const scopes of [[], ['EVERYTHING']]) {
      const res = await post(`${PAGE}/keys`, { name: 'Kept name', scopes });
      expect(res.status, JSON.stringify(scopes)).toBe(400);
      expect(res.text).toMatch(/<fieldset aria-describedby="field-scopes-hint error-scopes">/);
      expect(res.text).toMatch(/<p class="field-error" id="error-scopes">/);
      expect(res.text).toContain('value="Kept name"');
    }
    expect((await api(club, 'GET', '/keys')).body).toHaveLength(keysBefore);
  });

  it("answers a receiver page whose deliveries filter the API refuses with that refusal's status, the message shown", async () => {
    const { id } = await makeReceiver(club, 'https://93.184.215.14/filtered');
    for (const query of ['status=DELIVERED', 'offset=-1', 'offset=abc']) {
      const res = await page(`${PAGE}/webhooks/${id}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.text, query).toMatch(/<p class="notice error" role="alert">(status|offset): /);
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
    expect((await page(`${PAGE}/webhooks/${id}?status=SUCCEEDED`)).status).toBe(200);
  });

  it('refuses a malformed receiver URL and no events next to their fields, keeping what was typed', async () => {
    const res = await post(`${PAGE}/webhooks`, { url: 'not a url', events: ['member.approved'], description: 'x' });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(
      /<input id="field-url" name="url" required aria-invalid="true" aria-describedby="field-url-hint error-url"/,
    );
    expect(res.text).toContain('value="not a url"');
    expect(res.text).toMatch(/value="member.approved" checked/);
    const none = await post(`${PAGE}/webhooks`, { url: 'https://93.184.215.14/h' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('id="error-events"');
    expect(none.text).toContain('must list at least one event');
  });

  it('shows the SSRF guard refusing a private address next to the URL field', async () => {
    const strict = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'false' } });
    try {
      const f = await leaderFixture(strict, 'cssrf');
      const cookie = f.cookies.founder;
      const csrf = await csrfFor(strict, f.tag, cookie, PAGE);
      for (const url of ['http://127.0.0.1:9/hooks', 'https://169.254.169.254/latest/meta-data']) {
        const res = await formOnSite(
          strict,
          f.tag,
          `${PAGE}/webhooks`,
          { _csrf: csrf, url, events: ['*'] },
          { cookie },
        );
        expect(res.status, url).toBe(400);
        expect(res.text).toMatch(/<input id="field-url" name="url" required aria-invalid="true"/);
        expect(res.text).toMatch(/<p class="field-error" id="error-url">[^<]+<\/p>/);
      }
      expect(await strict.database.db.selectFrom('audit_log').selectAll().execute()).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('refuses a forced rotation overlap, a malformed resend time and a replay to a disabled receiver, with their status', async () => {
    const f = await leaderFixture(server, 'cer');
    const hook = await receiver();
    const made = await makeReceiver(f, hook.url);
    const here = `${PAGE}/webhooks/${made.id}`;
    const rotate = await post(`${here}/rotate-secret`, { overlapSeconds: '99999999', confirmed: 'yes' }, 'founder', f);
    expect(rotate.status).toBe(400);
    expect(rotate.text).toMatch(/<select id="field-overlapSeconds" name="overlapSeconds" aria-invalid="true"/);
    expect(rotate.text).not.toContain('whsec_');
    const resend = await post(`${here}/resend`, { since: 'yesterday' }, 'founder', f);
    expect(resend.status).toBe(400);
    expect(resend.text).toContain('id="error-since"');
    expect(resend.text).toContain('value="yesterday"');

    await emitOne(server.database.db, { id: f.id, tag: f.tag }, 'member.approved', approved());
    const [delivery] = await waitFor(async () => {
      const res = await api(f, 'GET', `/webhooks/${made.id}/deliveries`);
      return res.body[0]?.status === 'SUCCEEDED' ? res.body : null;
    }, 'a delivery');
    await post(`${here}/disable`, { confirmed: 'yes' }, 'founder', f);
    const replay = await post(`${here}/deliveries/${delivery.id}/replay`, {}, 'founder', f);
    expect(replay.status).toBe(409);
    expect(replay.text).toContain('role="alert"');
    expect(replay.text).toContain('The receiver is not enabled');
    expect((await auditOf(f)).map((e) => e.action).sort()).toEqual(['webhook.create', 'webhook.disable']);
  });

  it('answers an unknown or malformed receiver or delivery with the page and the status', async () => {
    const missing = '0197a8c0-e2b3-7c5d-9f21-a0b4c6d8e0f1';
    const notFound = await page(`${PAGE}/webhooks/${missing}`);
    expect(notFound.status).toBe(404);
    expect(notFound.text).toContain('<h1>Receiver not found</h1>');
    expect((await page(`${PAGE}/webhooks/nope`)).status).toBe(400);
    expect((await page(`${PAGE}/webhooks/${missing}/deliveries/del_${'0'.repeat(32)}`)).status).toBe(404);
    const revoke = await post(`${PAGE}/keys/${missing}/revoke`, { confirmed: 'yes' });
    expect(revoke.status).toBe(404);
    expect(revoke.text).toContain('<h1>Integrations</h1>');
    expect(revoke.text).toContain('role="alert"');
  });
});

describe('security', () => {
  it('an admin forcing a founder-only scope is refused next to the scopes, 403, with no key made', async () => {
    const f = await leaderFixture(server, 'cfo');
    for (const scopes of [['WRITE_MEMBERS'], ['READ_PUBLIC', 'ADMIN']]) {
      const res = await post(`${PAGE}/keys`, { name: 'Forced', scopes }, 'admin', f);
      expect(res.status).toBe(403);
      expect(res.text).toMatch(/<p class="field-error" id="error-scopes">[^<]*founder[^<]*<\/p>/i);
      expect(res.text).not.toContain('sk_live_');
    }
    expect((await api(f, 'GET', '/keys')).body).toEqual([]);
    expect(await auditOf(f)).toEqual([]);
    const founder = await post(`${PAGE}/keys`, { scopes: ['WRITE_MEMBERS'] }, 'founder', f);
    expect(shownSecret(founder.text, 'sk_live_')).toMatch(/^sk_live_/);
  });

  it('shows nothing to anyone but the founder and admins, and lets none of them write', async () => {
    const hook = await receiver();
    const made = await makeReceiver(club, hook.url);
    const before = (await auditOf(club)).length;
    for (const who of ['member', 'pending', 'bannedAdmin', 'stranger'] as Person[]) {
      for (const path of [PAGE, `${PAGE}/webhooks/${made.id}`]) {
        const res = await page(path, who);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).toContain('This page is for the leaders of');
        expect(res.text).not.toContain(hook.url);
      }
      const cookie = club.cookies[who];
      for (const [path, fields] of [
        [`${PAGE}/keys`, { scopes: ['READ_PUBLIC'] }],
        [`${PAGE}/webhooks`, { url: hook.url, events: ['*'] }],
        [`${PAGE}/webhooks/${made.id}/delete`, { confirmed: 'yes' }],
        [`${PAGE}/webhooks/${made.id}/rotate-secret`, { confirmed: 'yes' }],
      ] as Array<[string, Record<string, string | string[]>]>) {
        const res = await formOnSite(server, club.tag, path, { _csrf: csrfOfCookie(cookie), ...fields }, { cookie });
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.text).not.toMatch(/sk_live_|whsec_/);
      }
    }
    // No cookie: the sign-in gate, and a post refused before anything is read.
    const anonymous = await page(PAGE, null);
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).toContain('/sign-in?next=%2Fadmin%2Fintegrations');
    const noCookie = await formOnSite(server, club.tag, `${PAGE}/keys`, { scopes: ['ADMIN'] });
    expect(noCookie.status).toBe(403);
    expect((await auditOf(club)).length).toBe(before);
    expect((await api(club, 'GET', `/webhooks/${made.id}`)).body.status).toBe('ENABLED');
  });

  it("refuses another community's founder, and never reaches another community's key, receiver or delivery by id", async () => {
    const onOurs = await page(PAGE, 'founder', {
      ...club,
      cookies: { ...club.cookies, founder: other.cookies.founder },
    });
    expect(onOurs.status).toBe(403);
    expect(onOurs.text).not.toContain('class="console"');

    const theirKeyPage = await post(`${PAGE}/keys`, { name: 'Theirs', scopes: ['READ_PUBLIC'] }, 'founder', other);
    const theirSecret = shownSecret(theirKeyPage.text, 'sk_live_');
    const theirKey = (await api(other, 'GET', '/keys')).body.find((k: { name: string }) => k.name === 'Theirs');
    const hook = await receiver();
    const theirs = await makeReceiver(other, hook.url);
    await emitOne(server.database.db, { id: other.id, tag: other.tag }, 'member.approved', approved());
    const [delivery] = await waitFor(async () => {
      const res = await api(other, 'GET', `/webhooks/${theirs.id}/deliveries`);
      return res.body[0]?.status === 'SUCCEEDED' ? res.body : null;
    }, "the other community's delivery");

    const before = (await auditOf(club)).length;
    const theirPath = `${PAGE}/webhooks/${theirs.id}`;
    for (const path of [theirPath, `${theirPath}/deliveries/${delivery.id}`]) {
      const res = await page(path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain(hook.url);
    }
    for (const [path, fields] of [
      [`${PAGE}/keys/${theirKey.id}/revoke`, { confirmed: 'yes' }],
      [theirPath, { url: 'https://93.184.215.14/stolen', events: ['*'] }],
      [`${theirPath}/disable`, { confirmed: 'yes' }],
      [`${theirPath}/enable`, {}],
      [`${theirPath}/rotate-secret`, { confirmed: 'yes' }],
      [`${theirPath}/delete`, { confirmed: 'yes' }],
      [`${theirPath}/deliveries/${delivery.id}/replay`, {}],
      [`${theirPath}/resend`, { since: '2020-01-01T00:00' }],
    ] as Array<[string, Record<string, string | string[]>]>) {
      const res = await post(path, fields);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('whsec_');
    }
    expect((await auditOf(club)).length).toBe(before);
    expect((await v1Events(other, theirSecret)).status).toBe(200);
    expect((await api(other, 'GET', `/webhooks/${theirs.id}`)).body).toMatchObject({
      url: hook.url,
      status: 'ENABLED',
      previousSecretExpiresAt: null,
    });
    expect(hook.requests).toHaveLength(1);
  });

  it('refuses a post without `_csrf`, with a forged one or from another site, changing nothing', async () => {
    const cookie = club.cookies.founder;
    const csrf = await csrfFor(server, club.tag, cookie, PAGE);
    const keysBefore = (await api(club, 'GET', '/keys')).body.length;
    const attempts = [
      formOnSite(server, club.tag, `${PAGE}/keys`, { scopes: ['ADMIN'] }, { cookie }),
      formOnSite(server, club.tag, `${PAGE}/keys`, { _csrf: 'forged', scopes: ['ADMIN'] }, { cookie }),
      formOnSite(
        server,
        club.tag,
        `${PAGE}/keys`,
        { _csrf: csrfOfCookie(club.cookies.admin), scopes: ['ADMIN'] },
        { cookie },
      ),
      formOnSite(
        server,
        club.tag,
        `${PAGE}/keys`,
        { _csrf: csrf, scopes: ['ADMIN'] },
        { cookie, origin: 'https://evil.example' },
      ),
      formOnSite(server, club.tag, `${PAGE}/keys`, { _csrf: csrf, scopes: ['ADMIN'] }, { cookie, origin: null }),
      formOnSite(
        server,
        club.tag,
        `${PAGE}/keys`,
        { _csrf: csrf, scopes: ['ADMIN'] },
        { cookie, headers: { 'Sec-Fetch-Site': 'cross-site' } },
      ),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('sk_live_');
    }
    expect((await api(club, 'GET', '/keys')).body).toHaveLength(keysBefore);
  });

  it('ignores fields the forms do not have (mass assignment): no other community, kind, status or secret', async () => {
    const res = await post(`${PAGE}/keys`, {
      name: 'Mass',
      scopes: ['READ_PUBLIC'],
      communityId: other.id,
      communityTag: other.tag,
      kind: 'publishable',
      revokedAt: '2020-01-01T00:00:00Z',
    });
    expect(res.status).toBe(200);
    const secret = shownSecret(res.text, 'sk_live_');
    expect((await v1Events(club, secret)).status).toBe(200);
    expect((await v1Events(other, secret)).status).toBe(403);
    const key = (await api(club, 'GET', '/keys')).body.find((k: { name: string }) => k.name === 'Mass');
    expect(key).toMatchObject({ scopes: ['READ_PUBLIC'], revokedAt: null });
    expect((await api(other, 'GET', '/keys')).body.some((k: { name: string }) => k.name === 'Mass')).toBe(false);

    const hook = await receiver();
    const made = await post(`${PAGE}/webhooks`, {
      url: hook.url,
      events: ['*'],
      status: 'DISABLED',
      secret: 'whsec_mine',
      communityId: other.id,
    });
    const id = /href="\/admin\/integrations\/webhooks\/([0-9a-f-]{36})"/.exec(made.text)![1];
    expect(shownSecret(made.text, 'whsec_')).not.toBe('whsec_mine');
    expect((await api(club, 'GET', `/webhooks/${id}`)).body.status).toBe('ENABLED');
    expect((await api(other, 'GET', `/webhooks/${id}`)).status).toBe(404);
    const rotated = await post(`${PAGE}/webhooks/${id}/rotate-secret`, {
      confirmed: 'yes',
      overlapSeconds: '0',
      secret: 'whsec_mine',
    });
    expect(shownSecret(rotated.text, 'whsec_')).not.toBe('whsec_mine');
    expect(rotated.text).toContain('The previous secret no longer signs anything');
  });
});
