// The provider side of the flow, on openid-client: discovery (cached), the authorization URL
// with state, nonce and PKCE S256, and the callback's code exchange with every check the library
// makes (state, `iss`, ID-token signature, issuer, audience, expiry, nonce; UserInfo `sub`).
// What comes out is a ProviderProfile: the provider's stable user id and what it says about the
// e-mail. Nothing here knows about accounts or cookies.
import * as client from 'openid-client';
import { z } from 'zod';
import { OAUTH_PROVIDER_IDS, type OAuthConfig, type OAuthProviderId, type ProviderConfig } from './config.ts';

/** What each provider is asked for: who the user is and their e-mail, nothing more. */
const SCOPES: Record<OAuthProviderId, string> = {
  google: 'openid email profile',
  slack: 'openid email profile',
  discord: 'identify email',
};

/** Seconds any one request to a provider may take. */
const PROVIDER_TIMEOUT_S = 10;

export interface ProviderProfile {
  /** The provider's stable user id (`sub`; Discord's `id`). */
  subject: string;
  email: string | null;
  /** True only when the provider says it verified the address (`email_verified`; Discord's `verified`). */
  emailVerified: boolean;
  name: string | null;
}

/** Why a callback failed, as the stable code the sign-in page is sent (contract OAUTH_ERROR_CODES). */
export type ProviderFailure = 'oauth_exchange_failed' | 'oauth_id_token_invalid' | 'oauth_provider_unavailable';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderFailure,
    cause?: unknown,
  ) {
    super(code, { cause });
  }
}

/** Discord's `/users/@me`, the fields used. */
const DiscordUser = z.object({
  id: z.string().min(1).max(64),
  username: z.string().max(100).optional(),
  global_name: z.string().max(100).nullable().optional(),
  email: z.string().max(320).nullable().optional(),
  verified: z.boolean().optional(),
});

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
/** Some providers send `"true"`; anything else is not a verification. */
const verified = (v: unknown): boolean => v === true || v === 'true';

/**
 * Token-endpoint errors, network failures and odd responses are a failed exchange; a response
 * that arrived but whose ID token (or UserInfo subject) does not check out is an invalid ID token.
 */
function classify(err: unknown): ProviderFailure {
  if (err instanceof ProviderError) return err.code;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && /^OAUTH_(JWT_|KEY_SELECTION|INVALID_RESPONSE|JSON_ATTRIBUTE_COMPARISON)/.test(code)) {
    return 'oauth_id_token_invalid';
  }
  return 'oauth_exchange_failed';
}

export class OAuthProviders {
  readonly #settings: OAuthConfig['providers'];
  readonly #configurations = new Map<OAuthProviderId, Promise<client.Configuration>>();

  constructor(settings: OAuthConfig['providers']) {
    this.#settings = settings;
  }

  /** The providers with credentials, in display order. */
  enabled(): OAuthProviderId[] {
    return OAUTH_PROVIDER_IDS.filter((id) => this.#settings[id] !== undefined);
  }

  /** The id if it names an enabled provider, else null. */
  find(id: string): OAuthProviderId | null {
    return (OAUTH_PROVIDER_IDS as readonly string[]).includes(id) && this.#settings[id as OAuthProviderId]
      ? (id as OAuthProviderId)
      : null;
  }

  isOidc(id: OAuthProviderId): boolean {
    return this.#settings[id]?.kind === 'oidc';
  }

  async authorizationUrl(
    id: OAuthProviderId,
    p: { redirectUri: string; state: string; nonce: string | null; codeVerifier: string },
  ): Promise<URL> {
    let config: client.Configuration;
    try {
      config = await this.#configuration(id);
    } catch (err) {
      throw new ProviderError('oauth_provider_unavailable', err);
    }
    const params: Record<string, string> = {
      redirect_uri: p.redirectUri,
      scope: SCOPES[id],
      response_type: 'code',
      state: p.state,
      code_challenge: await client.calculatePKCECodeChallenge(p.codeVerifier),
      code_challenge_method: 'S256',
    };
    if (p.nonce) params.nonce = p.nonce;
    return client.buildAuthorizationUrl(config, params);
  }

  /**
   * Exchanges the callback's code (PKCE verifier, expected state and nonce) and reads who the
   * user is. `callbackUrl` is the registered redirect URI with the query the provider sent.
   * Throws ProviderError with the code to show.
   */
  async finish(
    id: OAuthProviderId,
    p: { callbackUrl: URL; state: string; nonce: string | null; codeVerifier: string },
  ): Promise<ProviderProfile> {
    const settings = this.#settings[id]!;
    let config: client.Configuration;
    try {
      config = await this.#configuration(id);
    } catch (err) {
      throw new ProviderError('oauth_provider_unavailable', err);
    }
    try {
      if (settings.kind === 'oidc') {
        const tokens = await client.authorizationCodeGrant(config, p.callbackUrl, {
          pkceCodeVerifier: p.codeVerifier,
          expectedState: p.state,
          expectedNonce: p.nonce ?? undefined,
          idTokenExpected: true,
        });
        const claims = tokens.claims()!;
        // The UserInfo answer must be about the ID token's subject (checked by fetchUserInfo).
        const info = config.serverMetadata().userinfo_endpoint
          ? { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)) }
          : claims;
        return {
          subject: claims.sub,
          email: text(info.email),
          emailVerified: verified(info.email_verified),
          name: text(info.name),
        };
      }
      const tokens = await client.authorizationCodeGrant(config, p.callbackUrl, {
        pkceCodeVerifier: p.codeVerifier,
        expectedState: p.state,
      });
      const res = await client.fetchProtectedResource(config, tokens.access_token, new URL(settings.userUrl), 'GET');
      if (!res.ok) throw new ProviderError('oauth_exchange_failed');
      const user = DiscordUser.safeParse(await res.json());
      if (!user.success) throw new ProviderError('oauth_exchange_failed');
      return {
        subject: user.data.id,
        email: text(user.data.email),
        emailVerified: verified(user.data.verified),
        name: text(user.data.global_name) ?? text(user.data.username),
      };
    } catch (err) {
      throw new ProviderError(classify(err), err);
    }
  }

  /** Discovered once per process; a failed discovery is retried on the next flow. */
  #configuration(id: OAuthProviderId): Promise<client.Configuration> {
    let pending = this.#configurations.get(id);
    if (!pending) {
      pending = configure(this.#settings[id]!);
      this.#configurations.set(id, pending);
      pending.catch(() => this.#configurations.delete(id));
    }
    return pending;
  }
}

async function configure(settings: ProviderConfig): Promise<client.Configuration> {
  // config.ts only lets http:// through for loopback hosts (a provider on this machine: tests).
  const insecure = (url: string) => new URL(url).protocol === 'http:';
  let config: client.Configuration;
  if (settings.kind === 'oidc') {
    config = await client.discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, {
      timeout: PROVIDER_TIMEOUT_S,
      ...(insecure(settings.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } else {
    // No discovery for plain OAuth 2.0. The issuer is the authorization endpoint's origin: what
    // an `iss` callback parameter, if the server sends one, is checked against.
    config = new client.Configuration(
      {
        issuer: new URL(settings.authorizeUrl).origin,
        authorization_endpoint: settings.authorizeUrl,
        token_endpoint: settings.tokenUrl,
      },
      settings.clientId,
      settings.clientSecret,
    );
    config.timeout = PROVIDER_TIMEOUT_S;
    if ([settings.authorizeUrl, settings.tokenUrl, settings.userUrl].some(insecure))
      client.allowInsecureRequests(config);
  }
  return config;
}
