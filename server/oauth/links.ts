// What pages and the providers list need to know about the flow without loading it: the paths,
// the enabled providers' buttons, and the sentence for a failed flow's `?error=` code.
import type { OAuthErrorCode } from '../../contract/routes/auth.ts';
import { messages } from '../shared/messages.ts';
import { OAUTH_PROVIDER_IDS, type OAuthConfig, type OAuthProviderId } from './config.ts';

export const OAUTH_BASE = '/api/auth/oauth';
export const startPath = (provider: OAuthProviderId): string => `${OAUTH_BASE}/${provider}/start`;
/** The redirect URI registered at the provider is this path on the platform's public URL. */
export const callbackPath = (provider: OAuthProviderId): string => `${OAUTH_BASE}/${provider}/callback`;

export const PROVIDER_NAMES: Record<OAuthProviderId, string> = { google: 'Google', slack: 'Slack', discord: 'Discord' };

export interface ProviderLink {
  id: OAuthProviderId;
  name: string;
  startUrl: string;
}

/** The enabled providers, in display order, as GET /api/auth/providers lists them. */
export function providerLinks(oauth: OAuthConfig | undefined): ProviderLink[] {
  return OAUTH_PROVIDER_IDS.filter((id) => oauth?.providers[id] !== undefined).map((id) => ({
    id,
    name: PROVIDER_NAMES[id],
    startUrl: startPath(id),
  }));
}

// Typed by the contract's list: a new code cannot ship without its sentence.
const ERROR_SENTENCES: Record<OAuthErrorCode, string> = messages.oauthErrors;

/** The sentence for `?error=`, or null for anything that is not a flow's code. */
export function oauthErrorMessage(code: unknown): string | null {
  return typeof code === 'string' && Object.hasOwn(ERROR_SENTENCES, code)
    ? ERROR_SENTENCES[code as OAuthErrorCode]
    : null;
}
