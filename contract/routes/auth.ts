// {site_base}/api/auth: how a visitor gets (and gives up) the sign-in token. Every method ends in
// the same token, set as the `svc_auth_<tag>` cookie (`svc_auth` off a hosted domain). E-mail +
// password and phone + SMS code are built; Google / Slack / Discord are later work (see docs/sign-in.md).
import { z } from 'zod';
import { Email } from '../common.ts';
import { Usertag } from '../fixture.ts';
import { route, type RouteDef } from '../route.ts';
import { Me } from './visitor.ts';

/** Long enough to matter, short enough that hashing it is cheap (scrypt reads every byte). */
export const Password = z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters');

/** Compared case-insensitively and stored lowercased. */
const AccountEmail = Email.overwrite((e) => e.toLowerCase());

export const SignUp = z
  .object({
    email: AccountEmail,
    password: Password,
    name: z.string().trim().min(1).max(100),
    usertag: z.string().trim().toLowerCase().pipe(Usertag).optional()
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
    everywhere: z.boolean().optional().describe('also sign out every other session of this user (other browsers and devices)'),
  })
  .strict()
  .meta({ id: 'SignOut' });

export const SessionRefreshed = z
  .object({ expiresAt: z.string().describe('when the new token expires (ISO 8601 UTC)') })
  .meta({ id: 'SessionRefreshed' });

export const PasswordResetRequest = z.object({ email: AccountEmail }).strict().meta({ id: 'PasswordResetRequest' });

export const PasswordResetAccepted = z
  .object({ status: z.literal('accepted') })
  .meta({ id: 'PasswordResetAccepted' });

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
export const Phone = z.string().max(40, 'must be at most 40 characters')
  .overwrite((p) => p.trim().replace(/[\s-]/g, ''))
  .regex(PHONE_E164, 'must be an international number: + and 8 to 15 digits (E.164), e.g. +14155550123')
  .describe('E.164, e.g. `+14155550123`; spaces and dashes are ignored');

export const SmsSignInStart = z.object({ phone: Phone }).strict().meta({ id: 'SmsSignInStart' });

export const SmsSignInAccepted = z
  .object({ status: z.literal('accepted') })
  .meta({ id: 'SmsSignInAccepted' });

export const SmsSignInVerify = z
  .object({
    phone: Phone,
    code: z.string().trim().regex(/^\d{6}$/, 'must be the 6 digits of the code').describe('the 6-digit code from the SMS'),
  })
  .strict()
  .meta({ id: 'SmsSignInVerify' });

export const OAUTH_PROVIDERS = ['google', 'slack', 'discord'] as const;

export const AuthProviders = z
  .object({
    password: z.boolean().describe('e-mail + password'),
    sms: z.boolean().describe('phone + 6-digit SMS code'),
    oauth: z.array(z.object({ id: z.enum(OAUTH_PROVIDERS), name: z.string() })).describe('linked accounts that can sign in; disabled providers are not listed'),
  })
  .meta({ id: 'AuthProviders' });

const COOKIE_NOTE = 'Sets the sign-in cookie: `svc_auth_<tag>` on a community\'s hosted domain, else `svc_auth`; HttpOnly, SameSite=Lax, host-only, Secure on https. ' +
  'Only from the site\'s own pages (same Origin, JSON).';

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
  description: 'Expires every sign-in cookie name of this site and revokes the token presented; `everywhere: true` revokes every token of the user.',
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
  description: 'A fresh token (30 days) in the sign-in cookie. Signed-in requests also renew a cookie older than a day by themselves.',
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
  description: 'Always 202, whether or not the address has an account. If it has, a single-use link valid for one hour is e-mailed to it.',
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
  description: 'Always 202, whether or not an account has the phone. If one has, a 6-digit code valid for 10 minutes is sent to it by SMS, ' +
    'replacing any code sent before. Limited per phone and per IP (429). Only from the site\'s own pages (same Origin, JSON).',
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

/** Every sign-in route, in the order the OpenAPI document lists them. */
export const AUTH_ROUTES: RouteDef[] = [
  listAuthProviders, signUp, signIn, signOut, refreshSession, requestPasswordReset, confirmPasswordReset,
  startSmsSignIn, verifySmsSignIn,
] as RouteDef[];
