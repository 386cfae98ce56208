// Google / Slack / Discord sign-in settings, read from the environment once at start (see
// docs/sign-in.md, "Google, Slack and Discord"). A provider is on when both its client id and
// secret are set; the URL overrides exist so tests and self-hosters can point a provider at
// another server (a local OpenID provider, a proxy).
import { z } from 'zod';
import { OAUTH_PROVIDERS } from '../../contract/routes/auth.ts';

export const OAUTH_PROVIDER_IDS = OAUTH_PROVIDERS;
export type OAuthProviderId = (typeof OAUTH_PROVIDER_IDS)[number];

/** OpenID Connect providers: everything else comes from the issuer's discovery document. */
export interface OidcProviderConfig {
  kind: 'oidc';
  clientId: string;
  clientSecret: string;
  issuer: string;
}

/** Plain OAuth 2.0 (Discord): no discovery and no ID token, so the endpoints are configured. */
export interface OAuth2ProviderConfig {
  kind: 'oauth2';
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Answers `{id, username, global_name, email, verified}` for the access token (Discord's `/users/@me`). */
  userUrl: string;
}

export type ProviderConfig = OidcProviderConfig | OAuth2ProviderConfig;

export interface OAuthConfig {
  /** Enabled providers only; a provider without credentials is absent. */
  providers: Partial<Record<OAuthProviderId, ProviderConfig>>;
  /** Requests to the flow's routes (start, callback, complete) per client IP per 15 minutes. */
  requestsPerIp: number;
}

export const OAUTH_DEFAULTS = {
  googleIssuer: 'https://accounts.google.com',
  slackIssuer: 'https://slack.com',
  discordAuthorizeUrl: 'https://discord.com/oauth2/authorize',
  discordTokenUrl: 'https://discord.com/api/oauth2/token',
  discordUserUrl: 'https://discord.com/api/users/@me',
  requestsPerIp: 60,
} as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * https, or http on a loopback address only: a provider's endpoints carry client secrets and
 * authorization codes, and plain http is only acceptable to a server on this machine (tests).
 */
const ProviderUrl = z.url({ protocol: /^https?$/ }).refine((value) => {
  const url = new URL(value);
  return url.protocol === 'https:' || LOOPBACK.has(url.hostname);
}, 'must be an https:// URL (http:// only on localhost / 127.0.0.1)');

const Secret = z.string().trim().min(1).max(500);

const OAuthEnv = z.object({
  SVC_OAUTH_GOOGLE_CLIENT_ID: Secret.optional(),
  SVC_OAUTH_GOOGLE_CLIENT_SECRET: Secret.optional(),
  SVC_OAUTH_GOOGLE_ISSUER: ProviderUrl.default(OAUTH_DEFAULTS.googleIssuer),
  SVC_OAUTH_SLACK_CLIENT_ID: Secret.optional(),
  SVC_OAUTH_SLACK_CLIENT_SECRET: Secret.optional(),
  SVC_OAUTH_SLACK_ISSUER: ProviderUrl.default(OAUTH_DEFAULTS.slackIssuer),
  SVC_OAUTH_DISCORD_CLIENT_ID: Secret.optional(),
  SVC_OAUTH_DISCORD_CLIENT_SECRET: Secret.optional(),
  SVC_OAUTH_DISCORD_AUTHORIZE_URL: ProviderUrl.default(OAUTH_DEFAULTS.discordAuthorizeUrl),
  SVC_OAUTH_DISCORD_TOKEN_URL: ProviderUrl.default(OAUTH_DEFAULTS.discordTokenUrl),
  SVC_OAUTH_DISCORD_USER_URL: ProviderUrl.default(OAUTH_DEFAULTS.discordUserUrl),
  RATE_LIMIT_OAUTH_PER_IP: z.coerce.number().int().min(1).default(OAUTH_DEFAULTS.requestsPerIp),
});

/** Returns the settings, or the list of problems as lines for ConfigError. */
export function parseOAuthConfig(env: Record<string, string | undefined>): OAuthConfig | string[] {
  const parsed = OAuthEnv.safeParse(env);
  if (!parsed.success) return parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const e = parsed.data;
  const problems: string[] = [];
  /** Both or neither: half a pair is a typo that would otherwise silently hide the button. */
  const credentials = (name: string, id: string | undefined, secret: string | undefined) => {
    if (id && secret) return { clientId: id, clientSecret: secret };
    if (id || secret)
      problems.push(`  SVC_OAUTH_${name}_${id ? 'CLIENT_SECRET' : 'CLIENT_ID'}: must be set too (both or neither)`);
    return null;
  };
  const providers: OAuthConfig['providers'] = {};
  const google = credentials('GOOGLE', e.SVC_OAUTH_GOOGLE_CLIENT_ID, e.SVC_OAUTH_GOOGLE_CLIENT_SECRET);
  if (google) providers.google = { kind: 'oidc', ...google, issuer: e.SVC_OAUTH_GOOGLE_ISSUER.replace(/\/$/, '') };
  const slack = credentials('SLACK', e.SVC_OAUTH_SLACK_CLIENT_ID, e.SVC_OAUTH_SLACK_CLIENT_SECRET);
  if (slack) providers.slack = { kind: 'oidc', ...slack, issuer: e.SVC_OAUTH_SLACK_ISSUER.replace(/\/$/, '') };
  const discord = credentials('DISCORD', e.SVC_OAUTH_DISCORD_CLIENT_ID, e.SVC_OAUTH_DISCORD_CLIENT_SECRET);
  if (discord) {
    providers.discord = {
      kind: 'oauth2',
      ...discord,
      authorizeUrl: e.SVC_OAUTH_DISCORD_AUTHORIZE_URL,
      tokenUrl: e.SVC_OAUTH_DISCORD_TOKEN_URL,
      userUrl: e.SVC_OAUTH_DISCORD_USER_URL,
    };
  }
  if (problems.length > 0) return problems;
  return { providers, requestsPerIp: e.RATE_LIMIT_OAUTH_PER_IP };
}
