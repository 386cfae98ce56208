// Sign-in with Google, Slack and Discord (docs/sign-in.md, "Google, Slack and Discord"):
//   GET    /api/auth/oauth/{provider}/start?returnTo=/path   -> the provider (a sign-in, on any site)
//   GET    /api/auth/oauth/{provider}/callback               <- the provider (platform origin only)
//   GET    /api/auth/oauth/complete?code=                    the last step on a community's domain
//   POST   /api/auth/oauth/{provider}/link                   linking, on the platform only
//   DELETE /api/auth/oauth/{provider}/link                   unlinking, on the platform only
//
// Providers accept only pre-registered redirect URIs, so every flow returns to the platform's
// callback. A flow started on the platform ends there with the `svc_auth` cookie. A flow started
// on a community's domain must end with that domain's host-only cookie, which the platform
// cannot set: its start sets a binding cookie on the domain and sends the browser to the
// platform's start with an encrypted ticket; the callback stores the verified identity under a
// single-use 60-second code and redirects to the domain's /complete, which redeems the code only
// on that origin and only with the binding cookie, then signs in there.
//
// A GET never links, on any host: a signed-in visitor who starts one is signed in as whoever the
// provider account belongs to. A linked identity signs in everywhere, so linking is started only
// by the platform's own pages (a same-origin POST; SameSite=Lax sends the cookie on any top-level
// GET), only with a platform session (a community's operator can read the tokens sent to its
// domain, never the platform's), and only within minutes of that session's sign-in (a token that
// leaked some other way is not enough on its own).
//
// Every failure of a navigation is a redirect to the site's /sign-in?error=<code>, never a session
// and never a 500: the visitor is mid-navigation, not a JSON client.
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import * as client from 'openid-client';
import type { Logger } from 'pino';
import * as routes from '../../contract/routes/auth.ts';
import { LINK_REAUTH_SECONDS, type OAuthErrorCode } from '../../contract/routes/auth.ts';
import { issueSession } from '../domain/accounts.ts';
import { safeReturnTarget } from '../domain/community-origins.ts';
import {
  linkIdentity,
  signInWithIdentity,
  unlinkProvider,
  type ExternalIdentity,
  type OnLinked,
} from '../domain/oauth-identities.ts';
import { ApiError } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers } from '../http/handlers.ts';
import {
  requestSiteTag,
  cookieNameFor,
  parseCookies,
  requestOrigin,
  setSessionCookie,
  signedInVisitor,
  type Visitor,
} from '../http/session.ts';
import { secureAttribute } from '../http/transport-security.ts';
import { identityLinkedMail } from '../mail/identity-linked-email.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { OAUTH_DEFAULTS, type OAuthConfig, type OAuthProviderId } from '../oauth/config.ts';
import { FLOW_TTL_SECONDS, FlowTokens, type OAuthFlow } from '../oauth/flow-tokens.ts';
import { createHandoff, redeemHandoff, sha256 } from '../oauth/handoffs.ts';
import { callbackPath, OAUTH_BASE, PROVIDER_NAMES, startPath } from '../oauth/links.ts';
import { OAuthProviders, ProviderError } from '../oauth/providers.ts';

/** RouteDeps plus what app.ts passes for this feature (absent: every provider off). */
export type OAuthRouteDeps = RouteDeps & { oauth?: OAuthConfig; logger?: Logger };

/** Holds the flow's secrets on the platform, per provider, for the callback only. */
export const flowCookieName = (provider: OAuthProviderId): string => `svc_oauth_${provider}`;
/** Set on a community's domain at the start: only this browser can redeem the handoff there. */
export const BIND_COOKIE = 'svc_oauth_bind';
const COOKIE_PATH = '/api/auth/oauth/';

/**
 * Only a path on the site the request is on, resolved as the browser will (the origin rule's
 * safeReturnTarget): `//host`, `/.//host`, `/\host`, another origin and the like become `/`.
 */
const safeReturnTo = (value: unknown, req: Request, publicUrl: string): string =>
  safeReturnTarget(value, requestOrigin(req) ?? publicUrl, undefined, { pathOnly: true });
const single = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function timingSafeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

function flowCookie(req: Request, name: string, value: string, maxAge: number): string {
  return `${name}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secureAttribute(req)}`;
}

/** A navigation, not an API answer: no body, not cached, and the codes in URLs never leak as a Referer. */
function redirect(res: Response, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.status(302).setHeader('Location', location).end();
}

/** The sign-in page of a site (`origin`, or this one) showing `code`, then going on to `returnTo`. */
function signInPageWith(
  code: OAuthErrorCode,
  where: { origin?: string | null; returnTo?: string | null } = {},
): string {
  const query = new URLSearchParams({ error: code });
  if (where.returnTo && where.returnTo !== '/') query.set('next', where.returnTo);
  return `${where.origin ?? ''}/sign-in?${query}`;
}

/** Where a failure lands: the sign-in page of the site the flow belongs to, with the code. */
function failTo(
  res: Response,
  code: OAuthErrorCode,
  where: { origin?: string | null; returnTo?: string | null } = {},
): void {
  redirect(res, signInPageWith(code, where));
}

const NO_STORE = { 'Cache-Control': 'private, no-store' };

/** OAuthRouteDeps plus the providers and flow sealing, built once per app by setUpOAuth. */
export interface OAuthDeps extends OAuthRouteDeps {
  oauthProviders: OAuthProviders;
  flowTokens: FlowTokens;
  platformHost: string;
}

export function setUpOAuth(deps: OAuthRouteDeps): OAuthDeps {
  const settings = deps.oauth ?? { providers: {}, requestsPerIp: OAUTH_DEFAULTS.requestsPerIp };
  // Starts, callbacks, completions and link starts together, per client IP: a flow is 2 to 4 of them.
  deps.rateLimits.define('oauth-ip', { points: settings.requestsPerIp, durationSec: 15 * 60 });
  return {
    ...deps,
    oauthProviders: new OAuthProviders(settings.providers),
    flowTokens: new FlowTokens((purpose) => deps.sessions.deriveKey(purpose)),
    platformHost: new URL(deps.publicUrl).host,
  };
}

const redirectUri = (deps: OAuthDeps, provider: OAuthProviderId) => `${deps.publicUrl}${callbackPath(provider)}`;

async function limit(deps: OAuthDeps, req: Request, res: Response): Promise<void> {
  const ip = req.ip ?? 'unknown';
  await deps.rateLimits.consume('anonymous', ip, res);
  await deps.rateLimits.consume('oauth-ip', ip, res);
}

/** The provider named if it is enabled; a disabled one does not exist (404). */
function providerOf(deps: OAuthDeps, name: unknown): OAuthProviderId {
  const id = deps.oauthProviders.find(String(name));
  if (!id) throw new ApiError('NOT_FOUND', messages.oauthProviderNotFound);
  return id;
}

/** A new flow's secrets, and the provider's URL with them (ProviderError when it is unreachable). */
async function beginFlow(
  deps: OAuthDeps,
  provider: OAuthProviderId,
  base: Pick<OAuthFlow, 'returnTo' | 'link' | 'handoff'>,
): Promise<{ flow: OAuthFlow; url: URL }> {
  const flow: OAuthFlow = {
    provider,
    ...base,
    state: client.randomState(),
    nonce: deps.oauthProviders.isOidc(provider) ? client.randomNonce() : null,
    codeVerifier: client.randomPKCECodeVerifier(),
  };
  return {
    flow,
    url: await deps.oauthProviders.authorizationUrl(provider, { redirectUri: redirectUri(deps, provider), ...flow }),
  };
}

/** The owner hears of every link, in the transaction that makes it: a link nobody knows of is a takeover nobody sees. */
function tellOwner(deps: OAuthDeps): OnLinked {
  return async (trx, linked) => {
    const provider = linked.provider as OAuthProviderId;
    await new OutboxMailer(trx).send(
      identityLinkedMail({
        to: linked.email,
        siteName: 'svc',
        providerName: PROVIDER_NAMES[provider] ?? provider,
        provider,
        platformUrl: deps.publicUrl,
        credentialsRemoved: linked.credentialsRemoved,
      }),
    );
  };
}

/** Sign in as whoever the identity is (never a link), set this site's cookie, go to `returnTo`. */
async function signIn(
  deps: OAuthDeps,
  req: Request,
  res: Response,
  f: { identity: ExternalIdentity; communityTag: string | null; returnTo: string },
): Promise<void> {
  const outcome = await signInWithIdentity(deps.db, f.identity, tellOwner(deps));
  if (!outcome.ok) return failTo(res, 'oauth_email_unverified', { returnTo: f.returnTo });
  const { token, expiresAt } = await issueSession(deps.db, deps.sessions, outcome.userId, { site: f.communityTag });
  setSessionCookie(req, res, cookieNameFor(f.communityTag), token, expiresAt);
  redirect(res, f.returnTo);
}

/** The callback of a linking flow, on the platform: link to the session that asked, if it is still the one here. */
async function link(
  deps: OAuthDeps,
  req: Request,
  res: Response,
  identity: ExternalIdentity,
  flow: OAuthFlow & { link: NonNullable<OAuthFlow['link']> },
): Promise<void> {
  // A link asked for by one session never lands on whoever happens to be signed in now.
  const visitor = await signedInVisitor(deps.db, deps.sessions, req, null);
  if (
    visitor?.userId !== flow.link.userId ||
    visitor.claims.sid !== flow.link.sessionId ||
    visitor.claims.site !== null
  ) {
    return failTo(res, 'oauth_link_session_changed', { returnTo: flow.returnTo });
  }
  const outcome = await linkIdentity(deps.db, identity, flow.link.userId, tellOwner(deps));
  if (!outcome.ok) {
    return failTo(res, outcome.reason === 'identity_in_use' ? 'oauth_identity_in_use' : 'oauth_link_session_changed', {
      returnTo: flow.returnTo,
    });
  }
  redirect(res, flow.returnTo);
}

/** Linking and unlinking: only the platform's own host, where no community's operator reads the cookie. */
function assertPlatform(deps: OAuthDeps, req: Request, visitor: Visitor): void {
  if (visitor.communityTag !== null || req.host !== deps.platformHost)
    throw new ApiError('PLATFORM_ONLY', messages.oauthPlatformOnly);
}

/**
 * A start on a community's domain: bind this browser here, then continue on the platform. Whoever
 * is signed in here plays no part: the flow signs in, it never links.
 */
async function handOffToPlatform(
  deps: OAuthDeps,
  req: Request,
  res: Response,
  provider: OAuthProviderId,
): Promise<void> {
  // The same normalized origin the redeem compares against (requestOrigin on both sides).
  const origin = requestOrigin(req);
  if (!origin) return failTo(res, 'oauth_handoff_invalid');
  const bind = crypto.randomBytes(32).toString('base64url');
  const ticket = await deps.flowTokens.sealTicket({
    provider,
    returnTo: safeReturnTo(req.query.returnTo, req, deps.publicUrl),
    handoff: { origin, bindHash: sha256(bind) },
  });
  // The binding outlives the ticket by the flow's own 10 minutes at the provider.
  res.append('Set-Cookie', flowCookie(req, BIND_COOKIE, bind, FLOW_TTL_SECONDS + 120));
  redirect(res, `${deps.publicUrl}${startPath(provider)}?ticket=${encodeURIComponent(ticket)}`);
}

async function startOAuthSignIn(req: Request, res: Response, deps: OAuthDeps): Promise<void> {
  const provider = providerOf(deps, req.params.provider);
  await limit(deps, req, res);
  const communityTag = await requestSiteTag();
  if (communityTag) return handOffToPlatform(deps, req, res, provider);
  if (req.host !== deps.platformHost) {
    // Another name for the platform: the flow cookie must be set where the callback will read it.
    return redirect(res, `${deps.publicUrl}${req.originalUrl}`);
  }

  let base: Pick<OAuthFlow, 'returnTo' | 'link' | 'handoff'>;
  const ticketText = single(req.query.ticket);
  if (ticketText !== null) {
    const ticket = await deps.flowTokens.openTicket(ticketText);
    if (!ticket || ticket.provider !== provider) return failTo(res, 'oauth_flow_expired');
    base = { returnTo: ticket.returnTo, link: null, handoff: ticket.handoff };
  } else {
    base = { returnTo: safeReturnTo(req.query.returnTo, req, deps.publicUrl), link: null, handoff: null };
  }
  let started: { flow: OAuthFlow; url: URL };
  try {
    started = await beginFlow(deps, provider, base);
  } catch (err) {
    deps.logger?.warn({ err, provider }, 'oauth provider unavailable');
    return failTo(res, 'oauth_provider_unavailable', { origin: base.handoff?.origin, returnTo: base.returnTo });
  }
  res.append(
    'Set-Cookie',
    flowCookie(req, flowCookieName(provider), await deps.flowTokens.sealFlow(started.flow), FLOW_TTL_SECONDS),
  );
  redirect(res, started.url.href);
}

async function oauthCallback(req: Request, res: Response, deps: OAuthDeps): Promise<void> {
  const provider = providerOf(deps, req.params.provider);
  await limit(deps, req, res);
  // One try per flow, whatever happens next.
  res.append('Set-Cookie', flowCookie(req, flowCookieName(provider), '', 0));
  const sealed = parseCookies(req.headers.cookie).get(flowCookieName(provider));
  const flow = sealed ? await deps.flowTokens.openFlow(sealed) : null;
  if (!flow || flow.provider !== provider) return failTo(res, 'oauth_flow_expired');
  const back = { origin: flow.handoff?.origin, returnTo: flow.returnTo };

  const error = single(req.query.error);
  if (error !== null) return failTo(res, error === 'access_denied' ? 'oauth_denied' : 'oauth_failed', back);
  const state = single(req.query.state);
  if (state === null || !timingSafeEqualText(state, flow.state)) return failTo(res, 'oauth_state_mismatch', back);
  if (single(req.query.code) === null) return failTo(res, 'oauth_failed', back);

  // The registered redirect URI with the query the provider sent: never built from the Host header.
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  let identity: ExternalIdentity;
  try {
    const profile = await deps.oauthProviders.finish(provider, {
      callbackUrl: new URL(`${redirectUri(deps, provider)}${query}`),
      state: flow.state,
      nonce: flow.nonce,
      codeVerifier: flow.codeVerifier,
    });
    identity = { provider, ...profile };
  } catch (err) {
    const code = err instanceof ProviderError ? err.code : 'oauth_exchange_failed';
    deps.logger?.warn({ err: err instanceof ProviderError ? err.cause : err, provider, code }, 'oauth callback failed');
    return failTo(res, code, back);
  }

  if (flow.link) return link(deps, req, res, identity, { ...flow, link: flow.link });
  if (flow.handoff) {
    const code = await createHandoff(deps.db, {
      identity,
      origin: flow.handoff.origin,
      bindHash: flow.handoff.bindHash,
      returnTo: flow.returnTo,
    });
    return redirect(res, `${flow.handoff.origin}${OAUTH_BASE}/complete?code=${encodeURIComponent(code)}`);
  }
  return signIn(deps, req, res, { identity, communityTag: null, returnTo: flow.returnTo });
}

async function completeOAuthSignIn(req: Request, res: Response, deps: OAuthDeps): Promise<void> {
  await limit(deps, req, res);
  res.append('Set-Cookie', flowCookie(req, BIND_COOKIE, '', 0));
  const communityTag = await requestSiteTag();
  const code = single(req.query.code);
  const origin = requestOrigin(req);
  const handoff = communityTag && code && origin ? await redeemHandoff(deps.db, code, origin) : null;
  if (!handoff) return failTo(res, 'oauth_handoff_invalid');
  const bind = parseCookies(req.headers.cookie).get(BIND_COOKIE);
  if (!bind || !timingSafeEqualText(sha256(bind), handoff.bindHash))
    return failTo(res, 'oauth_handoff_invalid', { returnTo: handoff.returnTo });
  return signIn(deps, req, res, { identity: handoff.identity, communityTag, returnTo: handoff.returnTo });
}

async function linkOAuthProvider(
  { params, body, visitor, req, res }: HandlerContext<typeof routes.linkOAuthProvider>,
  deps: OAuthDeps,
) {
  assertPlatform(deps, req, visitor);
  const provider = providerOf(deps, params.provider);
  await deps.rateLimits.consume('oauth-ip', req.ip ?? 'unknown', res);
  const returnTo = safeReturnTo(body.returnTo, req, deps.publicUrl);
  // By sign-in time, which a refresh keeps: a session extended for weeks is not a recent sign-in.
  if (Date.now() / 1000 - visitor.session.authTime > LINK_REAUTH_SECONDS) {
    return {
      body: { redirectUrl: signInPageWith('oauth_reauth_required', { origin: deps.publicUrl, returnTo }) },
      headers: NO_STORE,
    };
  }
  let started: { flow: OAuthFlow; url: URL };
  try {
    started = await beginFlow(deps, provider, {
      returnTo,
      link: { userId: visitor.userId, sessionId: visitor.session.sid },
      handoff: null,
    });
  } catch (err) {
    deps.logger?.warn({ err, provider }, 'oauth provider unavailable');
    throw new ApiError('SERVICE_UNAVAILABLE', messages.oauthProviderUnavailable);
  }
  res.append(
    'Set-Cookie',
    flowCookie(req, flowCookieName(provider), await deps.flowTokens.sealFlow(started.flow), FLOW_TTL_SECONDS),
  );
  return { body: { redirectUrl: started.url.href }, headers: NO_STORE };
}

async function unlinkOAuthProvider(
  { params, visitor, req, transaction }: HandlerContext<typeof routes.unlinkOAuthProvider>,
  deps: OAuthDeps,
) {
  assertPlatform(deps, req, visitor);
  return transaction(async (trx) => {
    await unlinkProvider(trx, visitor.userId, params.provider);
    return { status: 204, body: undefined, headers: NO_STORE };
  });
}

export type OAuthRoutes =
  | typeof routes.startOAuthSignIn
  | typeof routes.oauthCallback
  | typeof routes.completeOAuthSignIn
  | typeof routes.linkOAuthProvider
  | typeof routes.unlinkOAuthProvider;

export const oauthHandlers = {
  // Navigations, not JSON: every failure is a redirect to /sign-in?error=, so they are mounted
  // without the JSON route's validation.
  startOAuthSignIn: { navigation: startOAuthSignIn },
  oauthCallback: { navigation: oauthCallback },
  completeOAuthSignIn: { navigation: completeOAuthSignIn },
  linkOAuthProvider,
  unlinkOAuthProvider,
} satisfies Handlers<OAuthRoutes, OAuthDeps>;
