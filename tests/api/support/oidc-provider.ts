// A real OpenID provider in the test process (the `oidc-provider` package, the certified server
// implementation), and a browser that walks through it. svc talks to it exactly as it talks to
// Google or Slack (discovery, PKCE, ID tokens signed with the provider's own RS256 key, UserInfo)
// and, through endpoint overrides, as it talks to Discord.
//
// Discord is plain OAuth 2.0 with a JSON user endpoint of its own (`/users/@me`: {id, username,
// global_name, email, verified}). The provider's authorization and token endpoints stand in for
// Discord's; `/discord/users/@me`, served next to the provider, stands in for the user endpoint: it
// asks the provider's introspection endpoint whether the bearer token is active and whose it is,
// and answers that account in Discord's shape. An unknown, expired or foreign token gets a 401,
// as Discord would: nothing is answered that the provider did not vouch for.
//
// Two phases, because each side must know the other's URL: listen first (the issuer is known),
// start svc with `env()`, then `configure()` registers svc's redirect URIs.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { rawRequest, type RawResponse } from './raw-http.ts';

export interface TestAccount {
  /** The login typed at the provider, and the `sub` (Discord `id`) svc sees. */
  id: string;
  email: string | null;
  emailVerified: boolean;
  name: string;
}

export type ProviderId = 'google' | 'slack' | 'discord';
const PROVIDERS: ProviderId[] = ['google', 'slack', 'discord'];

const clientId = (p: ProviderId) => `${p}-test-client`;

/** The slice of oidc-provider this module uses (the package ships no types). */
interface OidcProviderInstance {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
}
type OidcProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProviderInstance;

export interface TestOidcProvider {
  issuer: string;
  /** Accounts the provider knows, by login; tests add their own. */
  accounts: Map<string, TestAccount>;
  /** svc's environment for these providers (all three enabled unless `only` says otherwise). */
  env(only?: ProviderId[]): Record<string, string>;
  /** Registers svc's callback URLs as the clients' redirect URIs; call once svc listens. */
  configure(svcUrl: string): Promise<void>;
  close(): Promise<void>;
}

export async function listenOidcProvider(): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestAccount>();
  const secrets = Object.fromEntries(PROVIDERS.map((p) => [p, crypto.randomBytes(24).toString('base64url')])) as Record<
    ProviderId,
    string
  >;
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer((req, res) => {
    if (req.url === '/discord/users/@me') {
      discordMe(req, res).catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    if (!handler) {
      res.statusCode = 503;
      res.end('not configured');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Discord's `/users/@me`, answered only for a token the provider's introspection says is active. */
  async function discordMe(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const introspection = bearer
      ? await fetch(`${issuer}/token/introspection`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: bearer, client_id: clientId('discord'), client_secret: secrets.discord }),
        }).then((r) => r.json() as Promise<{ active?: boolean; sub?: string; client_id?: string }>)
      : null;
    const account =
      introspection?.active && introspection.client_id === clientId('discord') && introspection.sub
        ? accounts.get(introspection.sub)
        : undefined;
    res.setHeader('Content-Type', 'application/json');
    if (!account) {
      res.statusCode = 401;
      res.end(JSON.stringify({ message: '401: Unauthorized', code: 0 }));
      return;
    }
    res.end(
      JSON.stringify({
        id: account.id,
        username: account.id,
        global_name: account.name,
        email: account.email,
        verified: account.emailVerified,
      }),
    );
  }

  return {
    issuer,
    accounts,
    env(only = PROVIDERS) {
      const env: Record<string, string> = {};
      for (const p of only) {
        env[`SVC_OAUTH_${p.toUpperCase()}_CLIENT_ID`] = clientId(p);
        env[`SVC_OAUTH_${p.toUpperCase()}_CLIENT_SECRET`] = secrets[p];
      }
      if (only.includes('google')) env.SVC_OAUTH_GOOGLE_ISSUER = issuer;
      if (only.includes('slack')) env.SVC_OAUTH_SLACK_ISSUER = issuer;
      if (only.includes('discord')) {
        env.SVC_OAUTH_DISCORD_AUTHORIZE_URL = `${issuer}/auth`;
        env.SVC_OAUTH_DISCORD_TOKEN_URL = `${issuer}/token`;
        env.SVC_OAUTH_DISCORD_USER_URL = `${issuer}/discord/users/@me`;
      }
      return env;
    },
    async configure(svcUrl) {
      const { default: Provider } = (await import('oidc-provider' as string)) as { default: OidcProviderClass };
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
      const provider = new Provider(issuer, {
        clients: PROVIDERS.map((p) => ({
          client_id: clientId(p),
          client_secret: secrets[p],
          redirect_uris: [`${svcUrl}/api/auth/oauth/${p}/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        })),
        async findAccount(_ctx: unknown, id: string) {
          const account = accounts.get(id);
          if (!account) return undefined;
          return {
            accountId: id,
            async claims() {
              return {
                sub: id,
                email: account.email ?? undefined,
                email_verified: account.emailVerified,
                name: account.name,
              };
            },
          };
        },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        scopes: ['openid', 'offline_access', 'identify'],
        // svc must send PKCE S256: without it every flow here fails.
        pkce: { required: () => true },
        features: {
          devInteractions: { enabled: true },
          // Only the client a token was issued to may ask about it.
          introspection: {
            enabled: true,
            allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) =>
              token.clientId === client.clientId,
          },
        },
        jwks: { keys: [signingKey] },
        ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
        cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
      });
      handler = provider.callback();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A browser: cookies per host name (ports share them, as in a browser), Path and Max-Age honoured,
// redirects followed by hand. Every request goes to 127.0.0.1 with the URL's host in `Host`, so
// `club.localhost:<port>` reaches the test server as a community's domain.

interface StoredCookie {
  host: string;
  name: string;
  value: string;
  path: string;
}

export interface Step {
  url: URL;
  res: RawResponse;
}

export class TestBrowser {
  cookies: StoredCookie[] = [];

  cookie(host: string, name: string): string | undefined {
    return this.cookies.find((c) => c.host === host && c.name === name)?.value;
  }

  setCookie(host: string, name: string, value: string, path = '/'): void {
    this.cookies = this.cookies.filter((c) => !(c.host === host && c.name === name && c.path === path));
    this.cookies.push({ host, name, value, path });
  }

  /** The Cookie header a browser would send to `url`. */
  cookieHeader(url: URL): string {
    return this.cookies
      .filter(
        (c) =>
          c.host === url.hostname &&
          (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  async request(method: string, target: string | URL, body?: Record<string, string>): Promise<Step> {
    const url = new URL(target);
    const headers: Record<string, string> = { Host: url.host };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.Cookie = cookie;
    let payload: string | undefined;
    if (body) {
      payload = new URLSearchParams(body).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const res = await rawRequest(url.port, method, `${url.pathname}${url.search}`, headers, payload);
    for (const line of res.headers['set-cookie'] ?? []) this.#store(url, line);
    return { url, res };
  }

  /**
   * A `fetch` from one of the site's own pages: JSON, `Origin` of the URL, this browser's cookies
   * (`headers` may override or add, e.g. a foreign `Origin`). No redirects followed.
   */
  async requestJson(
    method: string,
    target: string | URL,
    json?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Step> {
    const url = new URL(target);
    const all: Record<string, string> = {
      Host: url.host,
      Origin: url.origin,
      'Content-Type': 'application/json',
      ...headers,
    };
    const cookie = this.cookieHeader(url);
    if (cookie) all.Cookie = cookie;
    const res = await rawRequest(
      url.port,
      method,
      `${url.pathname}${url.search}`,
      all,
      json === undefined ? undefined : JSON.stringify(json),
    );
    for (const line of res.headers['set-cookie'] ?? []) this.#store(url, line);
    return { url, res };
  }

  /**
   * GETs `target` and follows redirects until a response that is not one, or until `stopBefore`
   * says the next URL is where the test wants to take over (that URL is returned, not requested).
   */
  async navigate(
    target: string | URL,
    stopBefore: (url: URL) => boolean = () => false,
  ): Promise<{ steps: Step[]; next: URL | null }> {
    const steps: Step[] = [];
    let url = new URL(target);
    for (let hop = 0; hop < 20; hop += 1) {
      if (stopBefore(url)) return { steps, next: url };
      const step = await this.request('GET', url);
      steps.push(step);
      const location = step.res.headers.location;
      if (step.res.status < 300 || step.res.status >= 400 || !location) return { steps, next: null };
      url = new URL(location, url);
    }
    throw new Error('too many redirects');
  }

  #store(url: URL, line: string): void {
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    let path = url.pathname.replace(/\/[^/]*$/, '') || '/';
    let expired = value === '';
    for (const attribute of attributes) {
      const [key, v = ''] = attribute.split('=');
      if (key.toLowerCase() === 'path') path = v || '/';
      if (key.toLowerCase() === 'max-age' && Number(v) <= 0) expired = true;
      if (key.toLowerCase() === 'expires' && Date.parse(v) <= Date.now()) expired = true;
    }
    this.cookies = this.cookies.filter((c) => !(c.host === url.hostname && c.name === name && c.path === path));
    if (!expired) this.cookies.push({ host: url.hostname, name, value, path });
  }
}

const isCallback = (url: URL) => /^\/api\/auth\/oauth\/[a-z]+\/callback$/.test(url.pathname);

/**
 * Goes from svc's start URL through the provider's login and consent pages as account `login`
 * (or declines at the first page with `decline`), and returns the callback URL the provider sent
 * the browser to, not yet requested.
 */
export async function authorizeAtProvider(
  browser: TestBrowser,
  startUrl: string,
  login: string,
  opts: { decline?: boolean } = {},
): Promise<URL> {
  let { steps, next } = await browser.navigate(startUrl, isCallback);
  for (let round = 0; round < 4 && !next; round += 1) {
    const page = steps[steps.length - 1];
    const interaction = /^\/interaction\/([\w-]+)$/.exec(page.url.pathname);
    if (!interaction || page.res.status !== 200) {
      throw new Error(
        `expected the provider's interaction page, got ${page.res.status} at ${page.url.href}: ${page.res.text.slice(0, 300)}`,
      );
    }
    if (opts.decline) {
      ({ steps, next } = await browser.navigate(new URL(`/interaction/${interaction[1]}/abort`, page.url), isCallback));
      continue;
    }
    const prompt = /name="prompt" value="(\w+)"/.exec(page.res.text)?.[1];
    const submitted = await browser.request(
      'POST',
      page.url,
      prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' },
    );
    const location = submitted.res.headers.location;
    if (!location)
      throw new Error(
        `the provider did not accept the ${prompt} step: ${submitted.res.status} ${submitted.res.text.slice(0, 300)}`,
      );
    ({ steps, next } = await browser.navigate(new URL(location, page.url), isCallback));
  }
  if (!next) throw new Error('the provider never redirected back to svc');
  return next;
}
