// {site_base}/api/auth: e-mail + password sign-up and sign-in, sign-out, refresh and password
// reset. Sign-up, sign-in and reset are `sameOrigin` routes (the site's own pages only, JSON);
// sign-out and refresh need the visitor signed in. What the visitor is told never depends on
// whether an e-mail has an account, except at sign-up, where it cannot help it (docs/sign-in.md).
import crypto from 'node:crypto';
import type { Request, Response, Router } from 'express';
import {
  confirmPasswordReset, listAuthProviders, refreshSession, requestPasswordReset, signIn, signOut, signUp,
} from '../../contract/routes/auth.ts';
import type { AuthProviders } from '../../contract/routes/auth.ts';
import type { z } from 'zod';
import {
  confirmPasswordReset as confirmReset, createAccount, createPasswordReset, issueSession, normalizeEmail,
  PASSWORD_RESET_TTL_MS, revokeAllSessions, revokeToken, verifyCredentials,
} from '../domain/accounts.ts';
import { findCommunityByDomain } from '../domain/communities.ts';
import { hashPassword } from '../domain/passwords.ts';
import { getOwnProfile, type OwnProfile } from '../domain/users.ts';
import { ApiError } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import {
  clearSessionCookies, communityTagForHost, cookieNameFor, presentedToken, setSessionCookie,
} from '../http/session.ts';
import { OutboxMailer, type MailMessage } from '../mail/mailer.ts';
import { passwordResetMail, signUpAttemptMail } from '../mail/templates.ts';

const PRIVATE = { 'Cache-Control': 'private, no-store' };

/** Rate-limit key of an account: a hash, so e-mail addresses never sit in Redis. */
const accountKey = (email: string) => crypto.createHash('sha256').update(normalizeEmail(email)).digest('base64url');
const ipOf = (req: Request) => req.ip ?? 'unknown';

/** What is offered today; SMS codes and OAuth providers are later work. */
const PROVIDERS: z.output<typeof AuthProviders> = { password: true, sms: false, oauth: [] };

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
export async function siteOf(deps: Pick<RouteDeps, 'db' | 'publicUrl'>, req: Request): Promise<Site> {
  const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
  const community = host ? await findCommunityByDomain(deps.db, host) : undefined;
  if (!community) return { origin: deps.publicUrl, name: 'svc' };
  const platform = new URL(deps.publicUrl);
  return { origin: `${platform.protocol}//${host}${platform.port ? `:${platform.port}` : ''}`, name: community.name };
}

export function mountAuth(router: Router, deps: RouteDeps): void {
  const mailer = deps.mailer ?? new OutboxMailer(deps.db);

  /** Sets the sign-in cookie of this request's site for the user. */
  async function signInAs(req: Request, res: Response, userId: string): Promise<void> {
    const tag = await communityTagForHost(deps.db, req.hostname);
    const { token, expiresAt } = await issueSession(deps.db, deps.sessions, userId);
    setSessionCookie(req, res, cookieNameFor(tag), token, expiresAt);
  }

  async function me(userId: string): Promise<OwnProfile> {
    const profile = await getOwnProfile(deps.db, userId);
    // Created or verified a moment ago; gone now means deleted in between.
    if (!profile) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return profile;
  }

  /**
   * Sends an account e-mail unless the address has had its hourly share: a spent budget sends
   * nothing and says nothing, so nobody can flood an inbox or learn from the answer.
   */
  async function sendAccountMail(email: string, build: () => Promise<MailMessage | null>): Promise<void> {
    try {
      await deps.rateLimits.consume('account-emails', accountKey(email));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') return;
      throw err;
    }
    const message = await build();
    if (message) await mailer.send(message);
  }

  mountRoute(router, listAuthProviders, async () => ({ body: PROVIDERS, headers: { 'Cache-Control': 'public, max-age=300' } }), deps);

  mountRoute(router, signUp, async ({ body, req, res }) => {
    await deps.rateLimits.consume('account-writes-ip', ipOf(req));
    // Hashed before anything is looked up: a taken e-mail answers no faster than a new one.
    const passwordHash = await hashPassword(body.password);
    const created = await createAccount(deps.db, { email: body.email, passwordHash, name: body.name, usertag: body.usertag });
    if (!created.ok) {
      if (created.reason === 'usertag_taken') throw new ApiError('USERTAG_TAKEN', messages.usertagTaken, { field: 'usertag' });
      // The owner hears of it; the caller only learns what sign-up cannot hide.
      await sendAccountMail(body.email, async () => {
        const site = await siteOf(deps, req);
        return signUpAttemptMail({ to: normalizeEmail(body.email), siteName: site.name, signInLink: `${site.origin}/sign-in`, resetLink: `${site.origin}/reset-password` });
      });
      throw new ApiError('EMAIL_IN_USE', messages.emailInUse, { field: 'email' });
    }
    await signInAs(req, res, created.userId);
    return { status: 201, body: await me(created.userId), headers: PRIVATE };
  }, deps);

  mountRoute(router, signIn, async ({ body, req, res }) => {
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
    await signInAs(req, res, userId);
    return { body: await me(userId), headers: PRIVATE };
  }, deps);

  mountRoute(router, signOut, async ({ body, visitor, req, res, transaction }) => {
    const token = presentedToken(req, visitor!.communityTag);
    const claims = token ? await deps.sessions.verify(token) : null;
    const result = await transaction(async (trx) => {
      if (token && claims) await revokeToken(trx, token, claims);
      if (body.everywhere) await revokeAllSessions(trx, visitor!.userId);
      return { status: 204, body: undefined, headers: PRIVATE };
    });
    clearSessionCookies(req, res, visitor!.communityTag);
    return result;
  }, deps);

  mountRoute(router, refreshSession, async ({ visitor, req, res }) => {
    const { token, expiresAt } = await issueSession(deps.db, deps.sessions, visitor!.userId);
    setSessionCookie(req, res, cookieNameFor(visitor!.communityTag), token, expiresAt);
    return { body: { expiresAt: expiresAt.toISOString() }, headers: PRIVATE };
  }, deps);

  mountRoute(router, requestPasswordReset, async ({ body, req }) => {
    await deps.rateLimits.consume('account-writes-ip', ipOf(req));
    // The same 202 whether or not the address has an account (and whether or not it was mailed).
    await sendAccountMail(body.email, async () => {
      const reset = await createPasswordReset(deps.db, body.email);
      if (!reset) return null;
      const site = await siteOf(deps, req);
      return passwordResetMail({
        to: reset.email, siteName: site.name, expiresInMinutes: PASSWORD_RESET_TTL_MS / 60_000,
        link: `${site.origin}/reset-password?token=${encodeURIComponent(reset.token)}`,
      });
    });
    return { status: 202, body: { status: 'accepted' as const }, headers: PRIVATE };
  }, deps);

  mountRoute(router, confirmPasswordReset, async ({ body, req, res }) => {
    const ip = ipOf(req);
    await deps.rateLimits.consume('sign-in-ip', ip);
    const passwordHash = await hashPassword(body.password);
    const userId = await confirmReset(deps.db, body.token, passwordHash);
    if (!userId) throw new ApiError('RESET_TOKEN_INVALID', messages.resetTokenInvalid, { field: 'token' });
    await deps.rateLimits.reward('sign-in-ip', ip);
    await signInAs(req, res, userId);
    return { body: await me(userId), headers: PRIVATE };
  }, deps);
}
