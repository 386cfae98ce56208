// {site_base}/api/auth: e-mail + password sign-up and sign-in, phone + SMS code sign-in, sign-out,
// refresh and password reset. Sign-up, sign-in, SMS and reset are `sameOrigin` routes (the site's
// own pages only, JSON); sign-out and refresh need the visitor signed in. What the visitor is told
// never depends on whether an e-mail or phone has an account, except at sign-up, where it cannot
// help it (docs/sign-in.md). Google / Slack / Discord sign-in is in ./oauth.ts, mounted here.
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import * as routes from '../../contract/routes/auth.ts';
import type { AuthProviders } from '../../contract/routes/auth.ts';
import type { z } from 'zod';
import type { RouteDef } from '../../contract/route.ts';
import {
  confirmPasswordReset as confirmReset,
  createAccount,
  createPasswordReset,
  issueSession,
  normalizeEmail,
  PASSWORD_RESET_TTL_MS,
  revokeAllSessions,
  revokeSession,
  verifyCredentials,
} from '../domain/accounts.ts';
import { findCommunityByDomain } from '../domain/communities.ts';
import { hashPassword } from '../domain/passwords.ts';
import { isRefusal } from '../domain/refusal.ts';
import { createSmsCode, verifySmsCode } from '../domain/sms-sign-in.ts';
import { getOwnProfile, type OwnProfile } from '../domain/users.ts';
import { ApiError } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import {
  clearSessionCookies,
  requestSiteTag,
  cookieNameFor,
  presentedToken,
  setSessionCookie,
} from '../http/session.ts';
import { OutboxMailer, type MailMessage, type Mailer } from '../mail/mailer.ts';
import { passwordResetMail, signUpAttemptMail } from '../mail/templates.ts';
import { OutboxSmsSender, type SmsSender } from '../sms/sender.ts';
import { providerLinks } from '../oauth/links.ts';
import type { OAuthRouteDeps, OAuthRoutes } from './oauth.ts';

const PRIVATE = { 'Cache-Control': 'private, no-store' };

/** Rate-limit key of an account: a hash, so e-mail addresses never sit in Redis. */
const accountKey = (email: string) => crypto.createHash('sha256').update(normalizeEmail(email)).digest('base64url');
/** Rate-limit key of a phone (E.164): hashed too. */
const phoneKey = (phone: string) => crypto.createHash('sha256').update(`phone:${phone}`).digest('base64url');
const ipOf = (req: Request) => req.ip ?? 'unknown';

/** What is offered: the OAuth providers with credentials, besides password and SMS. */
const providersOn = (deps: OAuthRouteDeps): z.output<typeof AuthProviders> => ({
  password: true,
  sms: true,
  oauth: providerLinks(deps.oauth),
});

export interface Site {
  /** Where links in e-mails point: never taken from the request unless its host is a community's. */
  origin: string;
  name: string;
}

/**
 * The site a request is on, for links in e-mails. The Host header is only trusted when it names a
 * community's hosted domain (its registered domain, or `<tag>.localhost`); the scheme and port are
 * the platform's. Anything else gets the platform's public URL, so a forged Host can never make
 * us e-mail a reset link that points at someone else's server.
 */
export async function siteOf(deps: Pick<RouteDeps, 'db' | 'publicUrl'>, _req: Request): Promise<Site> {
  // Always the platform: accounts are platform-wide, so a link on a community's domain would hand
  // that community's operator (who controls its DNS) the reset token of any user who clicks it.
  return { origin: deps.publicUrl, name: 'svc' };
}

/** OAuthRouteDeps plus the senders and keys of the sign-in routes, built once per app. */
export interface AuthDeps extends OAuthRouteDeps {
  mailer: Mailer;
  smsSender: SmsSender;
  /** Keys the hashes of SMS codes (server/domain/sms-sign-in.ts); never stored in the database. */
  smsCodeKey: Buffer;
  providers: z.output<typeof AuthProviders>;
}

export function authDeps(deps: OAuthRouteDeps): AuthDeps {
  return {
    ...deps,
    // Reset links are sign-in secrets: the outbox keeps them sealed (server/outbox-seal.ts).
    mailer: deps.mailer ?? new OutboxMailer(deps.db, deps.outboxSeal),
    smsSender: deps.smsSender ?? new OutboxSmsSender(deps.db, deps.outboxSeal),
    smsCodeKey: deps.sessions.deriveKey('sms codes v1'),
    providers: providersOn(deps),
  };
}

type Ctx<D extends RouteDef> = HandlerContext<D>;

/** Sets the sign-in cookie of this request's site for the user. */
async function signInAs(deps: AuthDeps, req: Request, res: Response, userId: string): Promise<void> {
  const tag = await requestSiteTag();
  const { token, expiresAt } = await issueSession(deps.db, deps.sessions, userId);
  setSessionCookie(req, res, cookieNameFor(tag), token, expiresAt);
}

async function me(deps: AuthDeps, userId: string): Promise<OwnProfile> {
  const profile = await getOwnProfile(deps.db, userId);
  // Created or verified a moment ago; gone now means deleted in between.
  if (!profile) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
  return profile;
}

/**
 * Sends an account e-mail unless the address has had its hourly share: a spent budget sends
 * nothing and says nothing, so nobody can flood an inbox or learn from the answer.
 */
async function sendAccountMail(deps: AuthDeps, email: string, build: () => Promise<MailMessage | null>): Promise<void> {
  try {
    await deps.rateLimits.consume('account-emails', accountKey(email));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'RATE_LIMITED') return;
    throw err;
  }
  const message = await build();
  if (message) await deps.mailer.send(message);
}

/**
 * The name an SMS code is sent under: the community's on its hosted domain, else svc. Only a
 * name (the text carries no link), so the Host header cannot send the code anywhere.
 */
async function siteNameOf(deps: AuthDeps, req: Request): Promise<string> {
  const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
  const community = host ? await findCommunityByDomain(deps.db, host) : undefined;
  return community ? community.name.replace(/\s+/g, ' ').trim() : 'svc';
}

async function signUp({ body, req, res }: Ctx<typeof routes.signUp>, deps: AuthDeps) {
  await deps.rateLimits.consume('account-writes-ip', ipOf(req));
  // Hashed before anything is looked up: a taken e-mail answers no faster than a new one.
  const passwordHash = await hashPassword(body.password);
  const created = await createAccount(deps.db, {
    email: body.email,
    passwordHash,
    name: body.name,
    usertag: body.usertag,
  }).catch(async (err: unknown) => {
    if (isRefusal(err, 'email_in_use')) {
      // The owner hears of it; the caller only learns what sign-up cannot hide.
      await sendAccountMail(deps, body.email, async () => {
        const site = await siteOf(deps, req);
        return signUpAttemptMail({
          to: normalizeEmail(body.email),
          siteName: site.name,
          signInLink: `${site.origin}/sign-in`,
          resetLink: `${site.origin}/reset-password`,
        });
      });
    }
    throw err;
  });
  await signInAs(deps, req, res, created.userId);
  return { status: 201, body: await me(deps, created.userId), headers: PRIVATE };
}

async function signIn({ body, req, res }: Ctx<typeof routes.signIn>, deps: AuthDeps) {
  // A point is taken before the password is checked and given back on success: the budgets
  // count failures, and once one is spent even the right password waits (429).
  const ip = ipOf(req);
  const account = accountKey(body.email);
  await deps.rateLimits.consume('sign-in-ip', ip);
  await deps.rateLimits.consume('sign-in-account', account);
  const userId = await verifyCredentials(deps.db, body.email, body.password);
  // One answer for an unknown e-mail and a wrong password, after the same scrypt work.
  if (!userId) throw new ApiError('INVALID_CREDENTIALS', messages.invalidCredentials);
  await Promise.all([deps.rateLimits.reward('sign-in-ip', ip), deps.rateLimits.reward('sign-in-account', account)]);
  await signInAs(deps, req, res, userId);
  return { body: await me(deps, userId), headers: PRIVATE };
}

async function signOut({ body, visitor, req, res, transaction }: Ctx<typeof routes.signOut>, deps: AuthDeps) {
  const token = presentedToken(req, visitor.communityTag);
  const claims = token ? await deps.sessions.verify(token) : null;
  const result = await transaction(async (trx) => {
    if (claims) await revokeSession(trx, claims);
    if (body.everywhere) await revokeAllSessions(trx, visitor.userId);
    return { status: 204, body: undefined, headers: PRIVATE };
  });
  clearSessionCookies(req, res, visitor.communityTag);
  return result;
}

async function refreshSession({ visitor, req, res }: Ctx<typeof routes.refreshSession>, deps: AuthDeps) {
  // The same session, renewed: signing it out later voids this copy too.
  const { token, expiresAt } = await deps.sessions.issue(visitor.userId, Date.now(), visitor.session);
  setSessionCookie(req, res, cookieNameFor(visitor.communityTag), token, expiresAt);
  return { body: { expiresAt: expiresAt.toISOString() }, headers: PRIVATE };
}

async function requestPasswordReset({ body, req }: Ctx<typeof routes.requestPasswordReset>, deps: AuthDeps) {
  await deps.rateLimits.consume('account-writes-ip', ipOf(req));
  // The same 202 whether or not the address has an account (and whether or not it was mailed).
  await sendAccountMail(deps, body.email, async () => {
    const reset = await createPasswordReset(deps.db, body.email);
    if (!reset) return null;
    const site = await siteOf(deps, req);
    return passwordResetMail({
      to: reset.email,
      siteName: site.name,
      expiresInMinutes: PASSWORD_RESET_TTL_MS / 60_000,
      link: `${site.origin}/reset-password?token=${encodeURIComponent(reset.token)}`,
    });
  });
  return { status: 202, body: { status: 'accepted' as const }, headers: PRIVATE };
}

async function startSmsSignIn({ body, req }: Ctx<typeof routes.startSmsSignIn>, deps: AuthDeps) {
  // Both budgets answer 429 for any phone, so a refusal says nothing about an account.
  await deps.rateLimits.consume('sms-start-ip', ipOf(req));
  await deps.rateLimits.consume('sms-start-phone', phoneKey(body.phone));
  // The same 202 whether or not the phone has an account; a code is made and sent only if it has.
  const created = await createSmsCode(deps.db, deps.smsCodeKey, body.phone);
  if (created) await deps.smsSender.send(body.phone, `Your ${await siteNameOf(deps, req)} code is ${created.code}`);
  return { status: 202, body: { status: 'accepted' as const }, headers: PRIVATE };
}

async function verifySmsSignIn({ body, req, res }: Ctx<typeof routes.verifySmsSignIn>, deps: AuthDeps) {
  // Like a password: a point from the IP's failure budget first, given back on success.
  const ip = ipOf(req);
  await deps.rateLimits.consume('sign-in-ip', ip);
  const userId = await verifySmsCode(deps.db, deps.smsCodeKey, body.phone, body.code);
  // One answer for a wrong, expired, used or replaced code and for a phone without an account.
  if (!userId) throw new ApiError('INVALID_CREDENTIALS', messages.invalidSmsCode);
  await deps.rateLimits.reward('sign-in-ip', ip);
  await signInAs(deps, req, res, userId);
  return { body: await me(deps, userId), headers: PRIVATE };
}

async function confirmPasswordReset({ body, req, res }: Ctx<typeof routes.confirmPasswordReset>, deps: AuthDeps) {
  const ip = ipOf(req);
  await deps.rateLimits.consume('sign-in-ip', ip);
  const passwordHash = await hashPassword(body.password);
  const userId = await confirmReset(deps.db, body.token, passwordHash);
  if (!userId) throw new ApiError('RESET_TOKEN_INVALID', messages.resetTokenInvalid, { field: 'token' });
  await deps.rateLimits.reward('sign-in-ip', ip);
  await signInAs(deps, req, res, userId);
  return { body: await me(deps, userId), headers: PRIVATE };
}

/** Sign-in and account routes; Google / Slack / Discord sign-in and linking are ./oauth.ts's. */
type AccountRoutes = Exclude<RoutesOf<typeof routes>, OAuthRoutes>;

export const authHandlers = {
  listAuthProviders: async (_ctx, deps) => ({
    body: deps.providers,
    headers: { 'Cache-Control': 'public, max-age=300' },
  }),
  signUp,
  signIn,
  signOut,
  refreshSession,
  requestPasswordReset,
  startSmsSignIn,
  verifySmsSignIn,
  confirmPasswordReset,
} satisfies Handlers<AccountRoutes, AuthDeps>;
