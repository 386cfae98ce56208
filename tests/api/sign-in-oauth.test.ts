// Google / Slack / Discord sign-in against a real OpenID provider started in this process
// (support/oidc-provider.ts): google and slack point at it by issuer, discord by endpoint
// overrides plus a /users/@me stand-in that validates the access token by introspection. A test
// browser follows every redirect by hand, keeping cookies per host, so each test sees exactly what
// a browser would: the platform (127.0.0.1) and a community's domain (club.localhost).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { FlowTokens } from '../../server/oauth/flow-tokens.ts';
import { sha256 } from '../../server/oauth/handoffs.ts';
import { makeCommunity, makeUser } from './support/factory.ts';
import { databaseText } from './support/db-text.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  authorizeAtProvider,
  listenOidcProvider,
  TestBrowser,
  type Step,
  type TestOidcProvider,
} from './support/oidc-provider.ts';
import { rawRequest } from './support/raw-http.ts';

let op: TestOidcProvider;
let s: TestServer;
let port: string;
let platform: string;
let club: string;
let other: string;
const PLATFORM_HOST = '127.0.0.1';
const CLUB_HOST = 'club.localhost';

beforeAll(async () => {
  op = await listenOidcProvider();
  s = await startTestServer({
    env: { ...op.env(), RATE_LIMIT_OAUTH_PER_IP: '10000' },
    rateLimits: { signIn: { accountWritesPerIp: 10_000 } },
  });
  await op.configure(s.url);
  port = new URL(s.url).port;
  platform = s.url;
  club = `http://${CLUB_HOST}:${port}`;
  other = `http://other.localhost:${port}`;
  await makeCommunity(s.database.db, 'club', { name: 'The Club' });
  await makeCommunity(s.database.db, 'other');
});
afterAll(async () => {
  await s?.close();
  await op?.close();
});

let seq = 0;
/** A new account at the provider; its login is also its subject. */
function account(opts: { email?: string | null; verified?: boolean; name?: string } = {}): string {
  const id = `acct${++seq}-${Date.now().toString(36)}`;
  op.accounts.set(id, {
    id,
    email: opts.email === undefined ? `${id}@example.com` : opts.email,
    emailVerified: opts.verified ?? true,
    name: opts.name ?? `Person ${seq}`,
  });
  return id;
}

const isOAuthPath = (url: URL) => url.pathname.startsWith('/api/auth/oauth/');

/** From a start URL to where the flow leaves the oauth routes (returnTo, or /sign-in?error=). */
async function signIn(browser: TestBrowser, start: string, login: string): Promise<{ landed: URL; steps: Step[] }> {
  const callback = await authorizeAtProvider(browser, start, login);
  return finishFrom(browser, callback);
}

async function finishFrom(browser: TestBrowser, url: URL | string): Promise<{ landed: URL; steps: Step[] }> {
  const { steps, next } = await browser.navigate(url, (u) => !isOAuthPath(u));
  if (!next) throw new Error(`the flow stopped at ${steps.at(-1)?.url.href} with ${steps.at(-1)?.res.status}`);
  return { landed: next, steps };
}

const errorOf = (landed: URL) => (landed.pathname === '/sign-in' ? landed.searchParams.get('error') : null);
const setCookies = (steps: Step[]) => steps.flatMap((st) => st.res.headers['set-cookie'] ?? []);
const sessionCookiesSet = (steps: Step[]) =>
  setCookies(steps).filter((c) => /^svc_auth(_\w+)?=[^;]+/.test(c) && !/Max-Age=0/.test(c));

async function me(host: string, cookie: string) {
  return rawRequest(port, 'GET', '/api/users/me', { Host: `${host}:${port}`, Cookie: cookie });
}

async function identityRows(provider: string, subject: string) {
  return s.database.db
    .selectFrom('oauth_identities')
    .select(['user_id', 'email'])
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .execute();
}

async function userCount(): Promise<number> {
  const row = await s.database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A browser that has just signed up with e-mail and password on `host` (the platform, or a community's domain). */
async function signedInBrowser(host = PLATFORM_HOST, email = `signed-in-${++seq}@example.com`) {
  const res = await rawRequest(
    port,
    'POST',
    '/api/auth/sign-up',
    {
      Host: `${host}:${port}`,
      Origin: `http://${host}:${port}`,
      'Content-Type': 'application/json',
    },
    JSON.stringify({ email, password: 'correct horse', name: 'Signed In' }),
  );
  expect(res.status).toBe(201);
  const browser = new TestBrowser();
  for (const line of res.headers['set-cookie'] ?? []) {
    const [pair] = line.split(';');
    browser.setCookie(host, pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  }
  return { browser, user: { id: res.body.id as string, email } };
}

const linkUrl = (provider: string) => `${platform}/api/auth/oauth/${provider}/link`;

/** What the platform's page does to link: POST .../link, then follow `redirectUrl` through the provider and back. */
async function linkWith(browser: TestBrowser, provider: string, login: string, returnTo = '/settings') {
  const start = await browser.requestJson('POST', linkUrl(provider), { returnTo });
  expect(start.res.status).toBe(200);
  expect(start.res.body.redirectUrl).toMatch(new RegExp(`^${op.issuer}/`));
  return signIn(browser, start.res.body.redirectUrl, login);
}

/** A platform session whose sign-in (`auth_time`) was `ageSeconds` ago, as a refreshed cookie would carry it. */
async function browserSignedInAgo(userId: string, ageSeconds: number): Promise<TestBrowser> {
  const authTime = Math.floor(Date.now() / 1000) - ageSeconds;
  const { token } = await s.sessions.issue(userId, Date.now(), { sid: crypto.randomUUID(), authTime }, null);
  const browser = new TestBrowser();
  browser.setCookie(PLATFORM_HOST, 'svc_auth', token);
  return browser;
}

async function mailTo(email: string) {
  return s.database.db
    .selectFrom('mail_outbox')
    .select(['subject', 'text_body'])
    .where('to_address', '=', email)
    .execute();
}

async function passwordSignIn(email: string, password: string) {
  return rawRequest(
    port,
    'POST',
    '/api/auth/sign-in',
    {
      Host: `${PLATFORM_HOST}:${port}`,
      Origin: platform,
      'Content-Type': 'application/json',
    },
    JSON.stringify({ email, password }),
  );
}

describe('happy', () => {
  it('creates an account on a first Google sign-in, sets svc_auth and returns to returnTo', async () => {
    const login = account({ name: 'Ada Lovelace' });
    const browser = new TestBrowser();
    const { landed, steps } = await signIn(
      browser,
      `${platform}/api/auth/oauth/google/start?returnTo=/events?past=true`,
      login,
    );
    expect(landed.href).toBe(`${platform}/events?past=true`);
    const [cookie] = sessionCookiesSet(steps);
    expect(cookie).toMatch(/^svc_auth=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const res = await me(PLATFORM_HOST, `svc_auth=${browser.cookie(PLATFORM_HOST, 'svc_auth')}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: `${login}@example.com`, name: 'Ada Lovelace', usertag: 'ada-lovelace' });
    expect(await identityRows('google', login)).toEqual([{ user_id: res.body.id, email: `${login}@example.com` }]);
  });

  it('signs the same account in on a second sign-in, even once the e-mail at the provider changed', async () => {
    const login = account();
    const first = new TestBrowser();
    await signIn(first, `${platform}/api/auth/oauth/google/start`, login);
    const firstUser = (await me(PLATFORM_HOST, `svc_auth=${first.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id;
    const users = await userCount();
    op.accounts.get(login)!.email = `renamed-${login}@example.com`;
    const second = new TestBrowser();
    const { landed } = await signIn(second, `${platform}/api/auth/oauth/google/start`, login);
    expect(landed.pathname).toBe('/');
    expect((await me(PLATFORM_HOST, `svc_auth=${second.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(firstUser);
    expect(await userCount()).toBe(users);
  });

  it('signs in with Slack (OpenID Connect) and with Discord (OAuth 2.0 and its /users/@me)', async () => {
    for (const provider of ['slack', 'discord']) {
      const login = account({ name: `${provider} Person` });
      const browser = new TestBrowser();
      const { landed } = await signIn(browser, `${platform}/api/auth/oauth/${provider}/start?returnTo=/members`, login);
      expect(landed.pathname).toBe('/members');
      const res = await me(PLATFORM_HOST, `svc_auth=${browser.cookie(PLATFORM_HOST, 'svc_auth')}`);
      expect(res.body).toMatchObject({ email: `${login}@example.com`, name: `${provider} Person` });
      expect(await identityRows(provider, login)).toEqual([{ user_id: res.body.id, email: `${login}@example.com` }]);
    }
  });

  it('finishes a flow started on a community domain there: its svc_auth_club cookie works for GET /api/users/me', async () => {
    const login = account();
    const browser = new TestBrowser();
    const { landed, steps } = await signIn(browser, `${club}/api/auth/oauth/slack/start?returnTo=/events`, login);
    expect(landed.href).toBe(`${club}/events`);
    // club start -> platform start (ticket) -> provider ... -> platform callback -> club complete.
    const hops = steps.map((st) => `${st.url.host}${st.url.pathname}`);
    expect(hops.at(-2)).toBe(`127.0.0.1:${port}/api/auth/oauth/slack/callback`);
    expect(hops.at(-1)).toBe(`${CLUB_HOST}:${port}/api/auth/oauth/complete`);
    const [cookie] = sessionCookiesSet(steps);
    expect(cookie).toMatch(/^svc_auth_club=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Domain=/i);
    // Set by the community domain's own response, never by the platform's.
    expect(steps.at(-1)!.res.headers['set-cookie']!.some((c) => c.startsWith('svc_auth_club='))).toBe(true);
    expect(browser.cookie(PLATFORM_HOST, 'svc_auth')).toBeUndefined();
    expect(browser.cookie(CLUB_HOST, 'svc_oauth_bind')).toBeUndefined();
    const res = await me(CLUB_HOST, `svc_auth_club=${browser.cookie(CLUB_HOST, 'svc_auth_club')}`);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(`${login}@example.com`);
  });

  it('links a provider account to a freshly signed-in platform session (POST .../link), which it keeps, and e-mails the owner', async () => {
    // Linking while signed in does not need the provider to vouch for an e-mail.
    const login = account({ email: null, verified: false });
    const { browser, user } = await signedInBrowser();
    const before = browser.cookie(PLATFORM_HOST, 'svc_auth');
    const start = await browser.requestJson('POST', linkUrl('discord'), { returnTo: '/settings' });
    expect(start.res.status).toBe(200);
    expect(start.res.headers['cache-control']).toBe('private, no-store');
    expect(start.res.headers['set-cookie']!.some((c) => c.startsWith('svc_oauth_discord='))).toBe(true);
    const { landed, steps } = await signIn(browser, start.res.body.redirectUrl, login);
    expect(landed.href).toBe(`${platform}/settings`);
    expect(sessionCookiesSet(steps)).toEqual([]);
    expect(browser.cookie(PLATFORM_HOST, 'svc_auth')).toBe(before);
    expect(await identityRows('discord', login)).toEqual([{ user_id: user.id, email: null }]);
    const [mail] = await mailTo(user.email);
    expect(mail.subject).toBe('Discord was linked to your svc account');
    expect(mail.text_body).toContain(`on svc and on every community site`);
    expect(mail.text_body).toContain(`DELETE ${platform}/api/auth/oauth/discord/link`);
    expect(mail.text_body).toContain(`${platform}/reset-password`);
    // From now on that Discord account signs in to this user, on the platform and on a community.
    const fresh = new TestBrowser();
    await signIn(fresh, `${platform}/api/auth/oauth/discord/start`, login);
    expect((await me(PLATFORM_HOST, `svc_auth=${fresh.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(user.id);
    await signIn(fresh, `${club}/api/auth/oauth/discord/start`, login);
    expect((await me(CLUB_HOST, `svc_auth_club=${fresh.cookie(CLUB_HOST, 'svc_auth_club')}`)).body.id).toBe(user.id);
  });

  it("signs a signed-in visitor in as the provider account's own user on GET /start: a start never links", async () => {
    const { browser, user } = await signedInBrowser();
    const login = account();
    const { landed, steps } = await signIn(
      browser,
      `${platform}/api/auth/oauth/google/start?returnTo=/settings`,
      login,
    );
    expect(landed.href).toBe(`${platform}/settings`);
    expect(sessionCookiesSet(steps)).toHaveLength(1);
    const now = await me(PLATFORM_HOST, `svc_auth=${browser.cookie(PLATFORM_HOST, 'svc_auth')}`);
    expect(now.body.id).not.toBe(user.id);
    expect(now.body.email).toBe(`${login}@example.com`);
    expect(await identityRows('google', login)).toEqual([{ user_id: now.body.id, email: `${login}@example.com` }]);
    expect(
      await s.database.db.selectFrom('oauth_identities').select('id').where('user_id', '=', user.id).execute(),
    ).toEqual([]);
    expect(await mailTo(user.email)).toEqual([]);
  });

  it('removes a linked provider (DELETE .../link): it no longer signs in to the account', async () => {
    const { browser, user } = await signedInBrowser();
    const login = account({ email: null, verified: false });
    await linkWith(browser, 'slack', login);
    expect(await identityRows('slack', login)).toHaveLength(1);
    const res = await browser.requestJson('DELETE', linkUrl('slack'));
    expect(res.res.status).toBe(204);
    expect(await identityRows('slack', login)).toEqual([]);
    // Without a verified e-mail it is now a stranger: refused, not signed in to the account.
    const { landed } = await signIn(new TestBrowser(), `${platform}/api/auth/oauth/slack/start`, login);
    expect(errorOf(landed)).toBe('oauth_email_unverified');
    expect((await me(PLATFORM_HOST, `svc_auth=${browser.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(user.id);
  });

  it('links a provider-verified e-mail to the existing account with that address', async () => {
    const user = await makeUser(s.database.db);
    const login = account({ email: `${user.usertag.toUpperCase()}@Example.com`, verified: true });
    const users = await userCount();
    const browser = new TestBrowser();
    await signIn(browser, `${platform}/api/auth/oauth/google/start`, login);
    expect((await me(PLATFORM_HOST, `svc_auth=${browser.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(user.id);
    expect(await userCount()).toBe(users);
    expect((await identityRows('google', login))[0].user_id).toBe(user.id);
    const [mail] = await mailTo(`${user.usertag}@example.com`);
    expect(mail.subject).toBe('Google was linked to your svc account');
  });

  it('keeps the other providers of an account without a password when one more signs in by the same verified e-mail', async () => {
    const email = `multi-${++seq}@example.com`;
    const google = account({ email });
    const slack = account({ email });
    const first = new TestBrowser();
    await signIn(first, `${platform}/api/auth/oauth/google/start`, google);
    const owner = (await identityRows('google', google))[0].user_id;
    await signIn(new TestBrowser(), `${platform}/api/auth/oauth/slack/start`, slack);
    expect((await identityRows('slack', slack))[0].user_id).toBe(owner);
    expect(await identityRows('google', google)).toEqual([{ user_id: owner, email }]);
  });

  it('lists the enabled providers with their start URLs, and the sign-in page offers a button for each', async () => {
    const providers = await rawRequest(port, 'GET', '/api/auth/providers', { Host: `${CLUB_HOST}:${port}` });
    expect(providers.body).toEqual({
      password: true,
      sms: true,
      oauth: [
        { id: 'google', name: 'Google', startUrl: '/api/auth/oauth/google/start' },
        { id: 'slack', name: 'Slack', startUrl: '/api/auth/oauth/slack/start' },
        { id: 'discord', name: 'Discord', startUrl: '/api/auth/oauth/discord/start' },
      ],
    });
    const page = await rawRequest(port, 'GET', '/sign-in?next=%2Fevents', { Host: `${CLUB_HOST}:${port}` });
    for (const [id, name] of [
      ['google', 'Google'],
      ['slack', 'Slack'],
      ['discord', 'Discord'],
    ]) {
      expect(page.text).toContain(
        `<a class="provider" href="/api/auth/oauth/${id}/start?returnTo=%2Fevents">Continue with ${name}</a>`,
      );
    }
  });

  it('declares the routes in the OpenAPI document', async () => {
    const doc = (await rawRequest(port, 'GET', '/openapi.json', { Host: `127.0.0.1:${port}` })).body;
    expect(doc.paths['/api/auth/oauth/{provider}/start'].get.operationId).toBe('startOAuthSignIn');
    expect(doc.paths['/api/auth/oauth/{provider}/callback'].get.operationId).toBe('oauthCallback');
    expect(doc.paths['/api/auth/oauth/complete'].get.operationId).toBe('completeOAuthSignIn');
    expect(doc.paths['/api/auth/oauth/{provider}/link'].post.operationId).toBe('linkOAuthProvider');
    expect(doc.paths['/api/auth/oauth/{provider}/link'].delete.operationId).toBe('unlinkOAuthProvider');
  });
});

describe('errors', () => {
  it('never links an unverified e-mail to the account that has it, and signs nobody in', async () => {
    const user = await makeUser(s.database.db);
    const login = account({ email: `${user.usertag}@example.com`, verified: false });
    const browser = new TestBrowser();
    const { landed, steps } = await signIn(browser, `${platform}/api/auth/oauth/google/start?returnTo=/events`, login);
    expect(errorOf(landed)).toBe('oauth_email_unverified');
    expect(landed.searchParams.get('next')).toBe('/events');
    expect(sessionCookiesSet(steps)).toEqual([]);
    expect(await identityRows('google', login)).toEqual([]);
  });

  it('makes no account for an unverified e-mail or none at all', async () => {
    for (const login of [account({ verified: false }), account({ email: null, verified: false })]) {
      const users = await userCount();
      const { landed, steps } = await signIn(new TestBrowser(), `${platform}/api/auth/oauth/discord/start`, login);
      expect(errorOf(landed)).toBe('oauth_email_unverified');
      expect(sessionCookiesSet(steps)).toEqual([]);
      expect(await userCount()).toBe(users);
    }
  });

  it('sends a visitor who declines at the provider (access_denied) back to /sign-in?error=oauth_denied', async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/google/start`, account(), {
      decline: true,
    });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const { landed, steps } = await finishFrom(browser, callback);
    expect(landed.href).toBe(`${platform}/sign-in?error=oauth_denied`);
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it("sends a declined flow from a community domain back to that domain's sign-in page", async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(
      browser,
      `${club}/api/auth/oauth/slack/start?returnTo=/events`,
      account(),
      { decline: true },
    );
    const { landed } = await finishFrom(browser, callback);
    expect(landed.href).toBe(`${club}/sign-in?error=oauth_denied&next=%2Fevents`);
  });

  it('refuses a callback without the flow cookie (another browser, or cookies cleared)', async () => {
    const callback = await authorizeAtProvider(new TestBrowser(), `${platform}/api/auth/oauth/google/start`, account());
    const { landed, steps } = await finishFrom(new TestBrowser(), callback);
    expect(errorOf(landed)).toBe('oauth_flow_expired');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it('refuses a flow cookie past its 10 minutes', async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/google/start`, account());
    const tokens = new FlowTokens((purpose) => s.sessions.deriveKey(purpose));
    const flow = (await tokens.openFlow(browser.cookie(PLATFORM_HOST, 'svc_oauth_google')!))!;
    browser.setCookie(
      PLATFORM_HOST,
      'svc_oauth_google',
      await tokens.sealFlow(flow, Date.now() - 11 * 60_000),
      '/api/auth/oauth/',
    );
    const { landed, steps } = await finishFrom(browser, callback);
    expect(errorOf(landed)).toBe('oauth_flow_expired');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it('refuses a code the provider does not accept (oauth_exchange_failed)', async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/google/start`, account());
    callback.searchParams.set('code', 'not-the-code');
    const { landed, steps } = await finishFrom(browser, callback);
    expect(errorOf(landed)).toBe('oauth_exchange_failed');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it("refuses an ID token that fails validation: its nonce is not the flow's", async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/slack/start`, account());
    const tokens = new FlowTokens((purpose) => s.sessions.deriveKey(purpose));
    const flow = (await tokens.openFlow(browser.cookie(PLATFORM_HOST, 'svc_oauth_slack')!))!;
    browser.setCookie(
      PLATFORM_HOST,
      'svc_oauth_slack',
      await tokens.sealFlow({ ...flow, nonce: 'a-different-nonce' }),
      '/api/auth/oauth/',
    );
    const { landed, steps } = await finishFrom(browser, callback);
    expect(errorOf(landed)).toBe('oauth_id_token_invalid');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it("refuses to link a provider account that is already another user's", async () => {
    const login = account();
    await signIn(new TestBrowser(), `${platform}/api/auth/oauth/google/start`, login);
    const owner = (await identityRows('google', login))[0].user_id;
    const { browser, user } = await signedInBrowser();
    const { landed } = await linkWith(browser, 'google', login);
    expect(errorOf(landed)).toBe('oauth_identity_in_use');
    expect(await identityRows('google', login)).toEqual([{ user_id: owner, email: `${login}@example.com` }]);
    expect(await mailTo(user.email)).toEqual([]);
  });

  it('does not link when the session that asked signed out, or another session took its place, before the callback', async () => {
    const { browser, user } = await signedInBrowser();
    for (const change of ['signed out', 'signed in again'] as const) {
      const login = account();
      const start = await browser.requestJson('POST', linkUrl('google'), {});
      const callback = await authorizeAtProvider(browser, start.res.body.redirectUrl, login);
      const session = browser.cookie(PLATFORM_HOST, 'svc_auth')!;
      browser.cookies = browser.cookies.filter((c) => c.name !== 'svc_auth');
      if (change === 'signed in again') {
        const again = await passwordSignIn(user.email, 'correct horse');
        expect(again.status).toBe(200);
        browser.setCookie(PLATFORM_HOST, 'svc_auth', /^svc_auth=([^;]+)/.exec(again.headers['set-cookie']![0])![1]);
      }
      const { landed, steps } = await finishFrom(browser, callback);
      expect(errorOf(landed)).toBe('oauth_link_session_changed');
      expect(sessionCookiesSet(steps)).toEqual([]);
      expect(await identityRows('google', login)).toEqual([]);
      browser.setCookie(PLATFORM_HOST, 'svc_auth', session);
    }
  });

  it("answers a link start from a session signed in over 10 minutes ago with the platform's sign-in page, asking to sign in again", async () => {
    const { user } = await signedInBrowser();
    const stale = await browserSignedInAgo(user.id, 11 * 60);
    const res = await stale.requestJson('POST', linkUrl('google'), { returnTo: '/settings' });
    expect(res.res.status).toBe(200);
    expect(res.res.body).toEqual({ redirectUrl: `${platform}/sign-in?error=oauth_reauth_required&next=%2Fsettings` });
    expect(res.res.headers['set-cookie'] ?? []).toEqual([]);
    const page = await rawRequest(port, 'GET', '/sign-in?error=oauth_reauth_required', {
      Host: `${PLATFORM_HOST}:${port}`,
    });
    expect(page.text).toContain('sign in again first');
    // Just inside the window it starts.
    const recent = await browserSignedInAgo(user.id, 9 * 60);
    const ok = await recent.requestJson('POST', linkUrl('google'), {});
    expect(ok.res.body.redirectUrl).toMatch(new RegExp(`^${op.issuer}/`));
  });

  it('refuses to remove the only way into an account (no password, no other provider), and a provider that is not linked', async () => {
    const login = account();
    const browser = new TestBrowser();
    await signIn(browser, `${platform}/api/auth/oauth/discord/start`, login);
    const userId = (await identityRows('discord', login))[0].user_id;
    const last = await browser.requestJson('DELETE', linkUrl('discord'));
    expect(last.res.status).toBe(409);
    expect(last.res.body.code).toBe('LAST_SIGN_IN_METHOD');
    expect(await identityRows('discord', login)).toHaveLength(1);
    const none = await browser.requestJson('DELETE', linkUrl('google'));
    expect(none.res.status).toBe(404);
    expect(none.res.body.code).toBe('NOT_FOUND');
    const unknown = await browser.requestJson('DELETE', linkUrl('myspace'));
    expect(unknown.res.status).toBe(404);
    // With a second provider linked, either one can go.
    const fresh = await browserSignedInAgo(userId, 0);
    await linkWith(fresh, 'google', account({ email: null, verified: false }));
    expect((await fresh.requestJson('DELETE', linkUrl('discord'))).res.status).toBe(204);
    expect(await identityRows('discord', login)).toEqual([]);
  });

  it('answers 401 to link and unlink without a platform session', async () => {
    for (const method of ['POST', 'DELETE']) {
      const res = await new TestBrowser().requestJson(method, linkUrl('google'), method === 'POST' ? {} : undefined);
      expect(res.res.status).toBe(401);
      expect(res.res.body.code).toBe('SIGN_IN_REQUIRED');
    }
  });

  it("shows a failed flow's code on the sign-in page as a sentence, and ignores unknown codes", async () => {
    const page = await rawRequest(port, 'GET', '/sign-in?error=oauth_denied', { Host: `${CLUB_HOST}:${port}` });
    expect(page.text).toContain(
      '<p class="alert" role="alert">Sign-in was cancelled at the provider. Nothing was changed.</p>',
    );
    const unknown = await rawRequest(port, 'GET', '/sign-in?error=%3Cscript%3E', { Host: `${CLUB_HOST}:${port}` });
    expect(unknown.text).not.toContain('class="alert"');
    expect(unknown.text).not.toContain('<script>');
  });

  it('refuses a start ticket that is not one the server made, is past its 2 minutes, or is for another provider', async () => {
    const tokens = new FlowTokens((purpose) => s.sessions.deriveKey(purpose));
    const ticket = { provider: 'google' as const, returnTo: '/', handoff: { origin: club, bindHash: sha256('bind') } };
    const stale = await tokens.sealTicket(ticket, Date.now() - 3 * 60_000);
    const fresh = await tokens.sealTicket(ticket);
    for (const url of [
      `${platform}/api/auth/oauth/google/start?ticket=forged`,
      `${platform}/api/auth/oauth/google/start?ticket=${encodeURIComponent(stale)}`,
      `${platform}/api/auth/oauth/slack/start?ticket=${encodeURIComponent(fresh)}`,
    ]) {
      const { landed, steps } = await finishFrom(new TestBrowser(), url);
      expect(errorOf(landed)).toBe('oauth_flow_expired');
      expect(setCookies(steps)).toEqual([]);
    }
  });

  it("moves a start on another name of the platform to the platform's public URL, where the callback reads the flow cookie", async () => {
    const res = await rawRequest(port, 'GET', '/api/auth/oauth/google/start?returnTo=%2Fevents', {
      Host: `localhost:${port}`,
    });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${platform}/api/auth/oauth/google/start?returnTo=%2Fevents`);
    expect(res.headers['set-cookie'] ?? []).toEqual([]);
  });

  describe('a server with only Google on, at an unreachable issuer, and a small per-IP budget', () => {
    let lone: TestServer;
    beforeAll(async () => {
      // A port nothing listens on: the issuer's discovery fails.
      const closed = await startTestServer();
      const deadIssuer = closed.url;
      await closed.close();
      lone = await startTestServer({
        env: {
          SVC_OAUTH_GOOGLE_CLIENT_ID: 'id',
          SVC_OAUTH_GOOGLE_CLIENT_SECRET: 'secret',
          SVC_OAUTH_GOOGLE_ISSUER: deadIssuer,
          RATE_LIMIT_OAUTH_PER_IP: '3',
          SVC_TRUST_PROXY: '1',
        },
      });
    });
    afterAll(async () => {
      await lone?.close();
    });
    const get = (path: string, ip = '198.51.100.1') =>
      rawRequest(new URL(lone.url).port, 'GET', path, { Host: new URL(lone.url).host, 'X-Forwarded-For': ip });

    it('hides disabled providers from /api/auth/providers and the sign-in page, and answers their routes 404', async () => {
      expect((await get('/api/auth/providers')).body.oauth).toEqual([
        { id: 'google', name: 'Google', startUrl: '/api/auth/oauth/google/start' },
      ]);
      const page = (await get('/sign-in')).text;
      expect(page).toContain('Continue with Google');
      expect(page).not.toMatch(/Continue with (Slack|Discord)/);
      for (const path of [
        '/api/auth/oauth/slack/start',
        '/api/auth/oauth/discord/callback?code=x&state=y',
        '/api/auth/oauth/nope/start',
      ]) {
        const res = await get(path, '198.51.100.2');
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });

    it('sends the visitor back with oauth_provider_unavailable when the provider cannot be reached', async () => {
      const res = await get('/api/auth/oauth/google/start?returnTo=/events', '198.51.100.3');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?error=oauth_provider_unavailable&next=%2Fevents');
      expect(res.headers['set-cookie'] ?? []).toEqual([]);
    });

    it('limits starts and callbacks per client IP (429 past the budget)', async () => {
      for (let i = 0; i < 3; i += 1)
        expect((await get('/api/auth/oauth/google/callback', '198.51.100.4')).status).toBe(302);
      const refused = await get('/api/auth/oauth/google/start', '198.51.100.4');
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get('/api/auth/oauth/google/start', '198.51.100.5')).status).toBe(302);
    });
  });

  it('stops at start when a provider is half-configured or its URL is plain http off this machine', () => {
    expect(() => loadConfig({ SVC_OAUTH_SLACK_CLIENT_ID: 'id' })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_OAUTH_SLACK_CLIENT_ID: 'id' })).toThrow(/SVC_OAUTH_SLACK_CLIENT_SECRET/);
    expect(() => loadConfig({ SVC_OAUTH_GOOGLE_ISSUER: 'http://idp.example' })).toThrow(/SVC_OAUTH_GOOGLE_ISSUER/);
    expect(loadConfig({}).oauth.providers).toEqual({});
  });
});

describe('security', () => {
  it('sends PKCE S256, a state and (OpenID Connect) a nonce, and keeps them in an encrypted HttpOnly cookie', async () => {
    const browser = new TestBrowser();
    const start = await browser.request('GET', `${platform}/api/auth/oauth/google/start`);
    expect(start.res.status).toBe(302);
    const to = new URL(start.res.headers.location!);
    expect(to.origin).toBe(op.issuer);
    expect(to.searchParams.get('redirect_uri')).toBe(`${platform}/api/auth/oauth/google/callback`);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const state = to.searchParams.get('state')!;
    expect(state).toMatch(/^[\w-]{43}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[\w-]{43}$/);
    const [cookie] = start.res.headers['set-cookie']!;
    expect(cookie).toMatch(
      /^svc_oauth_google=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; Path=\/api\/auth\/oauth\/; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
    expect(cookie).not.toContain(state);
    // Discord is not OpenID Connect: no nonce, the rest the same.
    const discord = new URL(
      (await browser.request('GET', `${platform}/api/auth/oauth/discord/start`)).res.headers.location!,
    );
    expect(discord.searchParams.get('nonce')).toBeNull();
    expect(discord.searchParams.get('code_challenge_method')).toBe('S256');
    expect(discord.searchParams.get('scope')).toBe('identify email');
  });

  it('refuses a callback whose state was tampered with', async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/google/start`, account());
    callback.searchParams.set('state', 'attacker-state');
    const { landed, steps } = await finishFrom(browser, callback);
    expect(errorOf(landed)).toBe('oauth_state_mismatch');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it('gives no second session for a replayed callback, even with the captured flow cookie', async () => {
    const browser = new TestBrowser();
    const callback = await authorizeAtProvider(browser, `${platform}/api/auth/oauth/google/start`, account());
    const flowCookie = browser.cookie(PLATFORM_HOST, 'svc_oauth_google')!;
    const first = await finishFrom(browser, callback);
    expect(first.landed.pathname).toBe('/');
    expect(sessionCookiesSet(first.steps)).toHaveLength(1);
    const attacker = new TestBrowser();
    attacker.setCookie(PLATFORM_HOST, 'svc_oauth_google', flowCookie, '/api/auth/oauth/');
    const replay = await finishFrom(attacker, callback);
    expect(errorOf(replay.landed)).toBe('oauth_exchange_failed');
    expect(sessionCookiesSet(replay.steps)).toEqual([]);
  });

  it("gives a community's operator holding a member's svc_auth_<tag> token no way to link their own provider account to that member", async () => {
    const { browser: member, user: victim } = await signedInBrowser(CLUB_HOST);
    const stolen = member.cookie(CLUB_HOST, 'svc_auth_club')!;
    const operatorLogin = account();
    const operator = new TestBrowser();
    operator.setCookie(CLUB_HOST, 'svc_auth_club', stolen);
    // Linking on the community's domain is refused outright, with the member's own cookie.
    for (const method of ['POST', 'DELETE']) {
      const onClub = await operator.requestJson(
        method,
        `${club}/api/auth/oauth/google/link`,
        method === 'POST' ? {} : undefined,
      );
      expect(onClub.res.status).toBe(403);
      expect(onClub.res.body.code).toBe('PLATFORM_ONLY');
      expect(onClub.res.headers['set-cookie'] ?? []).toEqual([]);
    }
    // The token is no platform session, by Bearer or by cookie.
    const bearer = await new TestBrowser().requestJson(
      'POST',
      linkUrl('google'),
      {},
      { Authorization: `Bearer ${stolen}` },
    );
    expect(bearer.res.status).toBe(401);
    const cookie = new TestBrowser();
    cookie.setCookie(PLATFORM_HOST, 'svc_auth', stolen);
    expect((await cookie.requestJson('POST', linkUrl('google'), {})).res.status).toBe(401);
    // A provider flow started on the domain with the member's session signs the operator in as
    // the provider account's own (new) user, replacing the member's session: never a link.
    const { landed, steps } = await signIn(
      operator,
      `${club}/api/auth/oauth/google/start?returnTo=/events`,
      operatorLogin,
    );
    expect(landed.href).toBe(`${club}/events`);
    expect(sessionCookiesSet(steps)).toHaveLength(1);
    const [{ user_id: owner }] = await identityRows('google', operatorLogin);
    expect(owner).not.toBe(victim.id);
    expect((await me(CLUB_HOST, `svc_auth_club=${operator.cookie(CLUB_HOST, 'svc_auth_club')}`)).body.id).toBe(owner);
    expect(
      await s.database.db.selectFrom('oauth_identities').select('id').where('user_id', '=', victim.id).execute(),
    ).toEqual([]);
    // So that provider login signs in as the operator's account on the platform and on other communities, never as the member.
    const elsewhere = new TestBrowser();
    await signIn(elsewhere, `${platform}/api/auth/oauth/google/start`, operatorLogin);
    expect((await me(PLATFORM_HOST, `svc_auth=${elsewhere.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(owner);
    await signIn(elsewhere, `${other}/api/auth/oauth/google/start`, operatorLogin);
    expect(
      (await me('other.localhost', `svc_auth_other=${elsewhere.cookie('other.localhost', 'svc_auth_other')}`)).body.id,
    ).toBe(owner);
    expect(await mailTo(victim.email)).toEqual([]);
  });

  it('refuses a link or unlink from another site: a foreign Origin, cross-site Fetch Metadata, a form post', async () => {
    const { browser, user } = await signedInBrowser();
    await linkWith(browser, 'slack', account());
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ Origin: 'https://evil.example' }, 403, 'CROSS_SITE_REQUEST'],
      [{ Origin: 'null' }, 403, 'CROSS_SITE_REQUEST'],
      [{ 'Sec-Fetch-Site': 'cross-site' }, 403, 'CROSS_SITE_REQUEST'],
      [{ 'Content-Type': 'application/x-www-form-urlencoded' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [headers, status, code] of cases) {
      const link = await browser.requestJson('POST', linkUrl('google'), {}, headers);
      expect([link.res.status, link.res.body.code]).toEqual([status, code]);
      expect(link.res.headers['set-cookie'] ?? []).toEqual([]);
      const unlink = await browser.requestJson('DELETE', linkUrl('slack'), undefined, headers);
      expect([unlink.res.status, unlink.res.body.code]).toEqual([status, code]);
    }
    expect(
      await s.database.db.selectFrom('oauth_identities').select('provider').where('user_id', '=', user.id).execute(),
    ).toEqual([{ provider: 'slack' }]);
    // A top-level GET (what SameSite=Lax lets another site trigger) is not a link start at all.
    const get = await browser.request('GET', linkUrl('google'));
    expect(get.res.status).toBe(405);
  });

  it('takes the password, phone, other providers and sessions of an account that a verified e-mail links to, then signs its owner in', async () => {
    // Someone registers the owner's address first, with a password, a phone and their own Discord.
    const email = `pre-created-${++seq}@example.com`;
    const { browser: squatter, user } = await signedInBrowser(PLATFORM_HOST, email);
    const squatterDiscord = account();
    await linkWith(squatter, 'discord', squatterDiscord);
    const phone = `+1415555${String(1000 + seq).slice(-4)}`;
    await s.database.db.updateTable('users').set({ phone }).where('id', '=', user.id).execute();
    const oldToken = squatter.cookie(PLATFORM_HOST, 'svc_auth')!;
    expect((await me(PLATFORM_HOST, `svc_auth=${oldToken}`)).status).toBe(200);
    expect((await passwordSignIn(email, 'correct horse')).status).toBe(200);

    // The mailbox's owner signs in with Google, which verified the address.
    const ownerLogin = account({ email });
    const owner = new TestBrowser();
    const { landed } = await signIn(owner, `${platform}/api/auth/oauth/google/start`, ownerLogin);
    expect(landed.href).toBe(`${platform}/`);
    expect((await me(PLATFORM_HOST, `svc_auth=${owner.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).toBe(user.id);

    expect((await me(PLATFORM_HOST, `svc_auth=${oldToken}`)).status).toBe(401);
    const oldPassword = await passwordSignIn(email, 'correct horse');
    expect([oldPassword.status, oldPassword.body.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    const row = await s.database.db
      .selectFrom('users')
      .select(['password_hash', 'phone'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ password_hash: null, phone: null });
    expect(
      await s.database.db.selectFrom('oauth_identities').select('provider').where('user_id', '=', user.id).execute(),
    ).toEqual([{ provider: 'google' }]);
    // The squatter's Discord is a stranger to the account now: it gets an account of its own.
    const again = new TestBrowser();
    await signIn(again, `${platform}/api/auth/oauth/discord/start`, squatterDiscord);
    expect((await me(PLATFORM_HOST, `svc_auth=${again.cookie(PLATFORM_HOST, 'svc_auth')}`)).body.id).not.toBe(user.id);
    // The mailbox heard of both links, and of what the second one removed.
    const mails = await mailTo(email);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      'Discord was linked to your svc account',
      'Google was linked to your svc account',
    ]);
    expect(mails.find((m) => m.subject.startsWith('Google'))!.text_body).toContain(
      'removed: the password, the phone number and any other linked sign-in. Every session was signed out.',
    );
  });

  /** Runs a community-domain flow up to the handoff redirect, not following it. */
  async function handoffFor(browser: TestBrowser, login: string): Promise<URL> {
    const callback = await authorizeAtProvider(browser, `${club}/api/auth/oauth/google/start?returnTo=/events`, login);
    const { next } = await browser.navigate(callback, (u) => u.pathname === '/api/auth/oauth/complete');
    expect(next!.origin).toBe(club);
    expect(next!.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    return next!;
  }

  it('gives no second session for a replayed handoff code', async () => {
    const browser = new TestBrowser();
    const complete = await handoffFor(browser, account());
    const bind = browser.cookie(CLUB_HOST, 'svc_oauth_bind')!;
    const first = await finishFrom(browser, complete);
    expect(first.landed.href).toBe(`${club}/events`);
    browser.setCookie(CLUB_HOST, 'svc_oauth_bind', bind, '/api/auth/oauth/');
    const replay = await finishFrom(browser, complete);
    expect(errorOf(replay.landed)).toBe('oauth_handoff_invalid');
    expect(sessionCookiesSet(replay.steps)).toEqual([]);
  });

  it('refuses a handoff code past its 60 seconds, and stores only its hash', async () => {
    const browser = new TestBrowser();
    const complete = await handoffFor(browser, account());
    const code = complete.searchParams.get('code')!;
    // Neither the code nor the binding cookie that must come with it is anywhere in the database.
    const everything = await databaseText(s.database);
    expect(everything).toContain(sha256(code));
    expect(everything).not.toContain(code);
    expect(everything).not.toContain(browser.cookie(CLUB_HOST, 'svc_oauth_bind')!);
    await s.database.db
      .updateTable('oauth_handoffs')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('code_hash', '=', sha256(code))
      .execute();
    const { landed, steps } = await finishFrom(browser, complete);
    expect(errorOf(landed)).toBe('oauth_handoff_invalid');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it('refuses a handoff code expired but not yet purged, and leaves it to the purge', async () => {
    const browser = new TestBrowser();
    const complete = await handoffFor(browser, account());
    const code = complete.searchParams.get('code')!;
    const row = () =>
      s.database.db.selectFrom('oauth_handoffs').select('code_hash').where('code_hash', '=', sha256(code)).execute();
    await s.database.db
      .updateTable('oauth_handoffs')
      .set({ expires_at: new Date(Date.now() - 2 * 24 * 3600_000).toISOString() })
      .where('code_hash', '=', sha256(code))
      .execute();
    // A handoff made since deletes nothing of it (requests no longer clean up; the purge does).
    await handoffFor(new TestBrowser(), account());
    expect(await row()).toHaveLength(1);
    const { landed, steps } = await finishFrom(browser, complete);
    expect(errorOf(landed)).toBe('oauth_handoff_invalid');
    expect(sessionCookiesSet(steps)).toEqual([]);
    // Refused without being claimed: the row is the purge's to delete.
    expect(await row()).toHaveLength(1);
  });

  it("refuses a handoff code on another community's domain, where it is not spent", async () => {
    const browser = new TestBrowser();
    const complete = await handoffFor(browser, account());
    browser.setCookie(
      'other.localhost',
      'svc_oauth_bind',
      browser.cookie(CLUB_HOST, 'svc_oauth_bind')!,
      '/api/auth/oauth/',
    );
    const elsewhere = await finishFrom(browser, `${other}${complete.pathname}${complete.search}`);
    expect(errorOf(elsewhere.landed)).toBe('oauth_handoff_invalid');
    expect(sessionCookiesSet(elsewhere.steps)).toEqual([]);
    const onPlatform = await finishFrom(browser, `${platform}${complete.pathname}${complete.search}`);
    expect(errorOf(onPlatform.landed)).toBe('oauth_handoff_invalid');
    expect((await finishFrom(browser, complete)).landed.href).toBe(`${club}/events`);
  });

  it("refuses a handoff code in a browser without the binding cookie (no signing a victim in to the attacker's account)", async () => {
    const complete = await handoffFor(new TestBrowser(), account());
    const victim = new TestBrowser();
    const { landed, steps } = await finishFrom(victim, complete);
    expect(errorOf(landed)).toBe('oauth_handoff_invalid');
    expect(sessionCookiesSet(steps)).toEqual([]);
  });

  it('never redirects off the site: returnTo //evil.com, https://evil.com and /\\evil.com end on /', async () => {
    const login = account();
    for (const returnTo of ['//evil.com', 'https://evil.com', '/\\evil.com', '/\t/evil.com']) {
      const onPlatform = await signIn(
        new TestBrowser(),
        `${platform}/api/auth/oauth/google/start?returnTo=${encodeURIComponent(returnTo)}`,
        login,
      );
      expect(onPlatform.landed.href).toBe(`${platform}/`);
      const onClub = await signIn(
        new TestBrowser(),
        `${club}/api/auth/oauth/google/start?returnTo=${encodeURIComponent(returnTo)}`,
        login,
      );
      expect(onClub.landed.href).toBe(`${club}/`);
    }
  });

  it('resolves returnTo as the browser will: dot segments and encoded dots that make //host end on Location: /', async () => {
    const login = account();
    for (const returnTo of [
      '/.//evil.example/phish',
      '/..//evil.example',
      '/%2e//evil.example',
      '/%2E%2E/./\\evil.example',
    ]) {
      for (const site of [platform, club]) {
        const { landed, steps } = await signIn(
          new TestBrowser(),
          `${site}/api/auth/oauth/google/start?returnTo=${encodeURIComponent(returnTo)}`,
          login,
        );
        expect(steps.at(-1)!.res.headers.location, `${site} ${returnTo}`).toBe('/');
        expect(landed.href).toBe(`${site}/`);
      }
    }
    // A path here is handed on normalised, not as it was written.
    const { steps } = await signIn(
      new TestBrowser(),
      `${club}/api/auth/oauth/google/start?returnTo=${encodeURIComponent('/a/./b/../events?x=1')}`,
      login,
    );
    expect(steps.at(-1)!.res.headers.location).toBe('/a/events?x=1');
  });

  it('links from the sign-in page carry a returnTo that cannot leave the site', async () => {
    const page = await rawRequest(port, 'GET', `/sign-in?next=${encodeURIComponent('/.//evil.example/phish')}`, {
      Host: `${CLUB_HOST}:${port}`,
    });
    expect(page.text).toContain('<a class="provider" href="/api/auth/oauth/google/start?returnTo=%2F">');
    expect(page.text).not.toContain('evil.example');
  });

  it('keeps the handoff code and other secrets out of Referer and caches', async () => {
    const browser = new TestBrowser();
    const complete = await handoffFor(browser, account());
    const step = await browser.request('GET', complete);
    expect(step.res.status).toBe(302);
    expect(step.res.headers['referrer-policy']).toBe('no-referrer');
    expect(step.res.headers['cache-control']).toBe('no-store');
    expect(step.res.text).toBe('');
  });
});
