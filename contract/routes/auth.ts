// {site_base}/api/auth: how a visitor gets (and gives up) the sign-in token. Every method ends in
// the same token, set as the `svc_auth_<tag>` cookie (`svc_auth` off a hosted domain). E-mail +
// password, phone + SMS code, and Google / Slack / Discord (OAuth 2.0 / OpenID Connect; see docs/sign-in.md).
import { z } from 'zod';
import { Email, Line } from '../common.ts';
import { coded } from '../errors.ts';
import { Me } from '../resources.ts';
import { Usertag } from '../fixture.ts';
import { route, type RouteDef } from '../route.ts';

/** Long enough to matter, short enough that hashing it is cheap (scrypt reads every byte). */
export const Password = z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters');

/** Compared case-insensitively and stored lowercased. */
const AccountEmail = Email.overwrite((e) => e.toLowerCase());

export const SignUp = z
  .object({
    email: AccountEmail,
    password: Password,
    name: Line(100).min(1),
    usertag: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(Usertag)
      .optional()
      .describe('2-32 lowercase letters, digits, `_` or `-`; made from the name when left out'),
  })
  .strict()
  .meta({ id: 'SignUp' });

export const SignIn = z
  .object({
    email: AccountEmail,
    password: z.string().min(1, 'is required').max(200, 'must be at most 200 characters'),
  })
  .strict()
  .meta({ id: 'SignIn' });

export const SignOut = z
  .object({
    everywhere: z
      .boolean()
      .optional()
      .describe('also sign out every other session of this user (other browsers and devices)'),
  })
  .strict()
  .meta({ id: 'SignOut' });

export const SessionRefreshed = z
  .object({ expiresAt: z.string().describe('when the new token expires (ISO 8601 UTC)') })
  .meta({ id: 'SessionRefreshed' });

export const PasswordResetRequest = z.object({ email: AccountEmail }).strict().meta({ id: 'PasswordResetRequest' });

export const PasswordResetAccepted = z.object({ status: z.literal('accepted') }).meta({ id: 'PasswordResetAccepted' });

export const PasswordResetConfirm = z
  .object({
    token: z.string().min(1).max(256).describe('from the link in the reset e-mail'),
    password: Password,
  })
  .strict()
  .meta({ id: 'PasswordResetConfirm' });

/** E.164: `+`, then 8 to 15 digits, the first not 0. */
export const PHONE_E164 = /^\+[1-9]\d{7,14}$/;

/** `+1 415-555-0123` -> `+14155550123`: spaces and dashes dropped; null unless the rest is E.164. */
export function normalizePhone(input: string): string | null {
  const compact = input.trim().replace(/[\s-]/g, '');
  return PHONE_E164.test(compact) ? compact : null;
}

/** A phone number in international form; spaces and dashes are ignored, the stored form is E.164. */
export const Phone = z
  .string()
  .max(40, 'must be at most 40 characters')
  .overwrite((p) => p.trim().replace(/[\s-]/g, ''))
  .regex(PHONE_E164, 'must be an international number: + and 8 to 15 digits (E.164), e.g. +14155550123')
  .describe('E.164, e.g. `+14155550123`; spaces and dashes are ignored');

export const SmsSignInStart = z.object({ phone: Phone }).strict().meta({ id: 'SmsSignInStart' });

export const SmsSignInAccepted = z.object({ status: z.literal('accepted') }).meta({ id: 'SmsSignInAccepted' });

export const SmsSignInVerify = z
  .object({
    phone: Phone,
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'must be the 6 digits of the code')
      .describe('the 6-digit code from the SMS'),
  })
  .strict()
  .meta({ id: 'SmsSignInVerify' });

export const OAUTH_PROVIDERS = ['google', 'slack', 'discord'] as const;

export const AuthProviders = z
  .object({
    password: z.boolean().describe('e-mail + password'),
    sms: z.boolean().describe('phone + 6-digit SMS code'),
    oauth: z
      .array(
        z.object({
          id: z.enum(OAUTH_PROVIDERS),
          name: z.string(),
          startUrl: z
            .string()
            .describe('where a "Continue with ..." link goes, relative to this site; add `?returnTo=/path`'),
        }),
      )
      .describe('linked accounts that can sign in; disabled providers are not listed'),
  })
  .meta({ id: 'AuthProviders' });

const COOKIE_NOTE =
  "Sets the sign-in cookie: `svc_auth_<tag>` on a community's hosted domain, else `svc_auth`; HttpOnly, SameSite=Lax, host-only, Secure on https. " +
  "Only from the site's own pages (same Origin, JSON).";

export const signUp = route({
  operationId: 'signUp',
  method: 'post',
  path: '/api/auth/sign-up',
  tag: 'Community site',
  summary: 'Create an account with e-mail and password, and sign in',
  description: `${COOKIE_NOTE} An e-mail that already has an account is a 409 \`EMAIL_IN_USE\` (and its owner is told by e-mail); a usertag taken or reserved is a 409 \`USERTAG_TAKEN\`.`,
  auth: { kind: 'sameOrigin' },
  body: SignUp,
  response: { status: 201, schema: Me, description: 'The new user, signed in' },
  errors: [409, 429],
});

export const signIn = route({
  operationId: 'signIn',
  method: 'post',
  path: '/api/auth/sign-in',
  tag: 'Community site',
  summary: 'Sign in with e-mail and password',
  description: `${COOKIE_NOTE} An unknown e-mail and a wrong password are the same 401 \`INVALID_CREDENTIALS\`. Failures are limited per account and per IP (429).`,
  auth: { kind: 'sameOrigin' },
  body: SignIn,
  response: { status: 200, schema: Me, description: 'The signed-in user' },
  errors: [401, 429],
});

export const signOut = route({
  operationId: 'signOut',
  method: 'post',
  path: '/api/auth/sign-out',
  tag: 'Community site',
  summary: 'Sign out',
  description:
    'Expires every sign-in cookie name of this site and revokes the token presented; `everywhere: true` revokes every token of the user.',
  auth: { kind: 'session' },
  body: SignOut,
  // No body; an idempotent replay stores it as null.
  response: { status: 204, schema: z.null().optional(), description: 'Signed out' },
  errors: [401, 429],
});

export const refreshSession = route({
  operationId: 'refreshSession',
  method: 'post',
  path: '/api/auth/refresh',
  tag: 'Community site',
  summary: 'Renew the sign-in token',
  description:
    'A fresh token (30 days) in the sign-in cookie. Signed-in requests also renew a cookie older than a day by themselves.',
  auth: { kind: 'session' },
  response: { status: 200, schema: SessionRefreshed, description: 'The cookie was renewed' },
  errors: [401, 429],
});

export const requestPasswordReset = route({
  operationId: 'requestPasswordReset',
  method: 'post',
  path: '/api/auth/password-reset',
  tag: 'Community site',
  summary: 'E-mail a password reset link',
  description:
    'Always 202, whether or not the address has an account. If it has, a single-use link valid for one hour is e-mailed to it.',
  auth: { kind: 'sameOrigin' },
  body: PasswordResetRequest,
  response: { status: 202, schema: PasswordResetAccepted, description: 'Accepted (says nothing about the address)' },
  errors: [429],
});

export const confirmPasswordReset = route({
  operationId: 'confirmPasswordReset',
  method: 'post',
  path: '/api/auth/password-reset/confirm',
  tag: 'Community site',
  summary: 'Set a new password with a reset token, and sign in',
  description: `${COOKIE_NOTE} The token works once; an unknown, used or expired one is a 400 \`RESET_TOKEN_INVALID\`. Every other session of the user is signed out.`,
  auth: { kind: 'sameOrigin' },
  body: PasswordResetConfirm,
  response: { status: 200, schema: Me, description: 'The user, signed in with the new password' },
  errors: [429],
});

export const startSmsSignIn = route({
  operationId: 'startSmsSignIn',
  method: 'post',
  path: '/api/auth/sms/start',
  tag: 'Community site',
  summary: 'Text a 6-digit sign-in code to a phone',
  description:
    'Always 202, whether or not an account has the phone. If one has, a 6-digit code valid for 10 minutes is sent to it by SMS, ' +
    "replacing any code sent before. Limited per phone and per IP (429). Only from the site's own pages (same Origin, JSON).",
  auth: { kind: 'sameOrigin' },
  body: SmsSignInStart,
  response: { status: 202, schema: SmsSignInAccepted, description: 'Accepted (says nothing about the phone)' },
  errors: [429],
});

export const verifySmsSignIn = route({
  operationId: 'verifySmsSignIn',
  method: 'post',
  path: '/api/auth/sms/verify',
  tag: 'Community site',
  summary: 'Sign in with a phone and the code texted to it',
  description: `${COOKIE_NOTE} A code works once, within 10 minutes, and allows 5 guesses. A wrong, expired, used or replaced code and a phone without an account are the same 401 \`INVALID_CREDENTIALS\`.`,
  auth: { kind: 'sameOrigin' },
  body: SmsSignInVerify,
  response: { status: 200, schema: Me, description: 'The signed-in user' },
  errors: [401, 429],
});

export const listAuthProviders = route({
  operationId: 'listAuthProviders',
  method: 'get',
  path: '/api/auth/providers',
  tag: 'Community site',
  summary: 'The sign-in methods this platform offers',
  auth: { kind: 'none' },
  response: { status: 200, schema: AuthProviders, description: 'Enabled sign-in methods' },
  errors: [429],
});

// ---------------------------------------------------------------------------------------------
// Google / Slack / Discord: browser navigations that end in a redirect, never in JSON (except a
// 404 for a disabled provider and a 429). Failures go back to the site's /sign-in page with
// `?error=<code>`.

/** What a failed flow puts in `/sign-in?error=`; the page shows a sentence for each. */
export const OAUTH_ERROR_CODES = [
  'oauth_denied',
  'oauth_failed',
  'oauth_state_mismatch',
  'oauth_flow_expired',
  'oauth_exchange_failed',
  'oauth_id_token_invalid',
  'oauth_provider_unavailable',
  'oauth_email_unverified',
  'oauth_identity_in_use',
  'oauth_link_session_changed',
  'oauth_handoff_invalid',
  'oauth_reauth_required',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

const OAuthProviderParams = z.object({
  provider: z.enum(OAUTH_PROVIDERS).describe('an enabled provider; others are a 404'),
});

const Redirect = z.null().optional().describe('No body: `Location` says where the browser goes next');

const OAUTH_ERRORS_NOTE = `On failure: a redirect to the site's \`/sign-in?error=<code>\` (codes: ${OAUTH_ERROR_CODES.map((c) => `\`${c}\``).join(', ')}), never a session.`;

export const startOAuthSignIn = route({
  operationId: 'startOAuthSignIn',
  method: 'get',
  path: '/api/auth/oauth/{provider}/start',
  tag: 'Community site',
  summary: 'Sign in with Google, Slack or Discord: go to the provider',
  description:
    'A link the sign-in page offers. Redirects to the provider with `state`, a `nonce` (OpenID Connect) and PKCE S256; the ' +
    "secrets ride in an encrypted, HttpOnly cookie for 10 minutes. On a community's domain it first redirects to this route on the platform " +
    '(whose callback URL is the one registered at the provider), carrying an encrypted `ticket`, and sets a binding cookie that the ' +
    'finishing step checks. It only ever signs in, on any site: a signed-in visitor is signed in as whoever the provider account ' +
    'belongs to, and their session replaced; linking is `POST /api/auth/oauth/{provider}/link` on the platform. ' +
    `${OAUTH_ERRORS_NOTE}`,
  auth: { kind: 'none' },
  params: OAuthProviderParams,
  query: z.object({
    returnTo: z
      .string()
      .max(2000)
      .optional()
      .describe(
        'a path on this site to end on (`/events`); anything else (`//host`, `https://...`, `/\\host`) becomes `/`',
      ),
    ticket: z
      .string()
      .max(8000)
      .optional()
      .describe("set by the server when the flow started on a community's domain; not for callers"),
  }),
  response: {
    status: 302,
    schema: Redirect,
    description: "To the provider (or, on a community's domain, to this route on the platform)",
  },
  errors: [404, 429],
});

export const oauthCallback = route({
  operationId: 'oauthCallback',
  method: 'get',
  path: '/api/auth/oauth/{provider}/callback',
  tag: 'Community site',
  summary: 'Where the provider sends the visitor back (the registered redirect URI)',
  description:
    'On the platform only: `<SVC_PUBLIC_URL>/api/auth/oauth/{provider}/callback` is the redirect URI to register at the provider. ' +
    'Checks the flow cookie and `state`, exchanges the code (PKCE) and validates the ID token (signature, issuer, audience, expiry, nonce). ' +
    'A flow started on the platform ends here with the `svc_auth` cookie and a redirect to `returnTo` (a linking flow links instead, ' +
    "setting no cookie); one started on a community's " +
    'domain is handed back to that domain with a single-use 60-second code (`/api/auth/oauth/complete?code=`). ' +
    `${OAUTH_ERRORS_NOTE}`,
  auth: { kind: 'none' },
  params: OAuthProviderParams,
  query: z.object({
    code: z.string().optional(),
    state: z.string().optional(),
    error: z.string().optional().describe('`access_denied` when the visitor declined'),
    iss: z.string().optional(),
  }),
  response: {
    status: 302,
    schema: Redirect,
    description: "To `returnTo` signed in, to the community domain's completion step, or to `/sign-in?error=`",
  },
  errors: [404, 429],
});

export const completeOAuthSignIn = route({
  operationId: 'completeOAuthSignIn',
  method: 'get',
  path: '/api/auth/oauth/complete',
  tag: 'Community site',
  summary: "Finish a Google, Slack or Discord sign-in on a community's domain",
  description:
    "Redeems the handoff code from the platform's callback: once, within 60 seconds, only on the domain the flow started on and " +
    "only in the browser holding that domain's binding cookie. Sets `svc_auth_<tag>` and redirects to `returnTo`; never links. " +
    `${OAUTH_ERRORS_NOTE}`,
  auth: { kind: 'none' },
  query: z.object({ code: z.string().max(100).optional().describe('the single-use handoff code') }),
  response: { status: 302, schema: Redirect, description: 'To `returnTo` signed in, or to `/sign-in?error=`' },
  errors: [429],
});

/** A linking flow must start within this long after the platform session's sign-in. */
export const LINK_REAUTH_SECONDS = 10 * 60;

export const OAuthLinkStart = z
  .object({
    returnTo: z.string().max(2000).optional().describe('a path on the platform to end on; anything else becomes `/`'),
  })
  .strict()
  .meta({ id: 'OAuthLinkStart' });

export const OAuthLinkRedirect = z
  .object({
    redirectUrl: z
      .string()
      .describe(
        "where the page sends the browser next: the provider, or the platform's `/sign-in?error=oauth_reauth_required`",
      ),
  })
  .meta({ id: 'OAuthLinkRedirect' });

/** Any provider svc knows, configured or not (an identity of one turned off can still be removed); another name is a 404. */
const LinkProviderParams = z.object({
  provider: z
    .enum(OAUTH_PROVIDERS, { error: coded('NOT_FOUND', 'is not a sign-in provider') })
    .describe('`google`, `slack` or `discord`; linking needs it configured (else 404)'),
});

const PLATFORM_ONLY_NOTE =
  "On the platform host only (`SVC_PUBLIC_URL`): on a community's domain, whose operator can read the tokens sent there, " +
  'it is a `403 PLATFORM_ONLY`. Cookie callers pass the same-origin checks (JSON, own `Origin`; else 415 / `403 CROSS_SITE_REQUEST`).';

export const linkOAuthProvider = route({
  operationId: 'linkOAuthProvider',
  method: 'post',
  path: '/api/auth/oauth/{provider}/link',
  tag: 'Community site',
  summary: 'Start linking a Google, Slack or Discord account to the signed-in account',
  description:
    `${PLATFORM_ONLY_NOTE} The session must have signed in within the last ${LINK_REAUTH_SECONDS / 60} minutes (\`auth_time\`; a refresh ` +
    "does not renew it): otherwise `redirectUrl` is the platform's `/sign-in?error=oauth_reauth_required&next=<returnTo>`, and nothing is started. " +
    "Else sets the flow cookie and answers the provider's URL; the callback links the provider account to this account if the same session " +
    "is still signed in (`oauth_link_session_changed`) and it is nobody else's (`oauth_identity_in_use`), e-mails the account's owner, and " +
    'redirects to `returnTo`. The provider need not vouch for an e-mail.',
  auth: { kind: 'session' },
  params: LinkProviderParams,
  body: OAuthLinkStart,
  response: { status: 200, schema: OAuthLinkRedirect, description: 'Where to send the browser' },
  errors: [401, 403, 404, 415, 429, 503],
});

export const unlinkOAuthProvider = route({
  operationId: 'unlinkOAuthProvider',
  method: 'delete',
  path: '/api/auth/oauth/{provider}/link',
  tag: 'Community site',
  summary: "Remove the signed-in account's Google, Slack or Discord sign-in",
  description:
    `${PLATFORM_ONLY_NOTE} Removes every identity of that provider linked to the account (also of a provider no longer ` +
    'configured). `404 NOT_FOUND` when there is none; `409 LAST_SIGN_IN_METHOD` when the account has no password and no identity of ' +
    'another provider (set a password with a reset first).',
  auth: { kind: 'session' },
  params: LinkProviderParams,
  response: { status: 204, schema: z.null().optional(), description: 'Removed' },
  errors: [401, 403, 404, 409, 415, 429],
});

/** Every sign-in route, in the order the OpenAPI document lists them. */
export const AUTH_ROUTES: RouteDef[] = [
  listAuthProviders,
  signUp,
  signIn,
  signOut,
  refreshSession,
  requestPasswordReset,
  confirmPasswordReset,
  startSmsSignIn,
  verifySmsSignIn,
  startOAuthSignIn,
  oauthCallback,
  completeOAuthSignIn,
  linkOAuthProvider,
  unlinkOAuthProvider,
] as RouteDef[];
