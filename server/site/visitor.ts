// {site_base}/api/users/me* and /api/messaging: the signed-in visitor's own data. Every route
// here is a `session` route: 401 without a valid sign-in token, and cookie writes only from the
// site's own origin. Other users appear with public fields only.
import crypto from 'node:crypto';
import type { Request } from 'express';
import * as routes from '../../contract/routes/visitor.ts';
import { findCommunityByDomain } from '../domain/communities.ts';
import * as conversations from '../domain/conversations.ts';
import * as friends from '../domain/friends.ts';
import * as notifications from '../domain/notifications.ts';
import * as phones from '../domain/phone.ts';
import { Refusal } from '../domain/refusal.ts';
import { listOwnMemberships } from '../domain/applications.ts';
import { getOwnProfile, updateOwnProfile } from '../domain/users.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { PageInfo } from '../http/pagination.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { OutboxSmsSender, type SmsSender } from '../sms/sender.ts';
import { LINK_REAUTH_SECONDS } from '../../contract/routes/auth.ts';
import type { Visitor } from '../http/session.ts';
import type { RouteDef } from '../../contract/route.ts';
import { OutboxMailer } from '../mail/mailer.ts';
import { phoneAddedMail } from '../mail/phone-added-email.ts';

const PRIVATE = { 'Cache-Control': 'private, no-store' };

const ipOf = (req: Request) => req.ip ?? 'unknown';
/**
 * Rate-limit key of a phone: exactly SMS sign-in's (server/site/auth.ts), so a number gets one
 * hourly budget of texts whichever flow asks for them.
 */
const phoneKey = (phone: string) => crypto.createHash('sha256').update(`phone:${phone}`).digest('base64url');

/** The name a text is sent under: the community's on its hosted domain, else svc (as sign-in codes). */
async function smsSiteName(deps: Pick<RouteDeps, 'db'>, req: Request): Promise<string> {
  const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
  const community = host ? await findCommunityByDomain(deps.db, host) : undefined;
  return community ? community.name.replace(/\s+/g, ' ').trim() : 'svc';
}

function pageInfo(total: number, limit: number, offset: number): PageInfo {
  return { total, limit, offset, nextCursor: null, hasMore: offset + limit < total };
}

/** RouteDeps plus the services the phone routes share, built once per app. */
export interface VisitorDeps extends RouteDeps {
  smsSender: SmsSender;
  /** The key SMS sign-in hashes its codes under: one table, one hashing (server/domain/sms-sign-in.ts). */
  smsCodeKey: Buffer;
  platformHost: string;
}

export function visitorDeps(deps: RouteDeps): VisitorDeps {
  return {
    ...deps,
    smsSender: deps.smsSender ?? new OutboxSmsSender(deps.db, deps.outboxSeal),
    smsCodeKey: deps.sessions.deriveKey('sms codes v1'),
    platformHost: new URL(deps.publicUrl).host,
  };
}

type Ctx<D extends RouteDef> = HandlerContext<D>;

/**
 * A phone is a way to sign in, so changing it is held to the rules of linking a provider
 * (server/site/oauth.ts): only a platform session (a community's operator can read the tokens
 * sent to its own domain), signed in within LINK_REAUTH_SECONDS, and the owner is e-mailed.
 */
function assertSignInChangeAllowed(deps: VisitorDeps, req: Request, visitor: Visitor): void {
  if (visitor.communityTag !== null || req.host !== deps.platformHost)
    throw new ApiError('PLATFORM_ONLY', messages.signInChangesOnPlatform);
  if (Date.now() / 1000 - visitor.session.authTime > LINK_REAUTH_SECONDS)
    throw new ApiError('REAUTH_REQUIRED', messages.reauthRequired);
}

async function getMe({ visitor }: Ctx<typeof routes.getMe>, deps: VisitorDeps) {
  const me = await getOwnProfile(deps.db, visitor.userId);
  // The token was checked against the user a moment ago; gone now means deleted in between.
  if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
  return { body: me, headers: PRIVATE };
}

async function updateMe({ visitor, body, transaction }: Ctx<typeof routes.updateMe>) {
  return transaction(async (trx) => {
    const me = await updateOwnProfile(trx, visitor.userId, body);
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  });
}

async function startPhoneVerification(
  { visitor, body, req }: Ctx<typeof routes.startPhoneVerification>,
  deps: VisitorDeps,
) {
  assertSignInChangeAllowed(deps, req, visitor);
  // The sign-in budgets: one hourly share of texts per number and per IP, whoever asks.
  await deps.rateLimits.consume('sms-start-ip', ipOf(req));
  await deps.rateLimits.consume('sms-start-phone', phoneKey(body.phone));
  const code = await phones.startPhoneVerification(deps.db, deps.smsCodeKey, visitor.userId, body.phone);
  // Says what the code is for, so a holder who did not ask knows it does not sign anyone in.
  await deps.smsSender.send(
    body.phone,
    `Your ${await smsSiteName(deps, req)} code to add this phone number to your account is ${code}`,
  );
  return { status: 202, body: { status: 'accepted' as const }, headers: PRIVATE };
}

async function verifyPhone({ visitor, body, req, transaction }: Ctx<typeof routes.verifyPhone>, deps: VisitorDeps) {
  assertSignInChangeAllowed(deps, req, visitor);
  const userId = visitor.userId;
  // Wrong codes spend the IP's sign-in failure budget, like wrong sign-in codes; a success gives it back.
  const ip = ipOf(req);
  await deps.rateLimits.consume('sign-in-ip', ip);
  if (!(await phones.checkPhoneCode(deps.db, deps.smsCodeKey, userId, body.phone, body.code))) {
    throw new ApiError('PHONE_CODE_INVALID', messages.invalidPhoneCode, { field: 'code' });
  }
  await deps.rateLimits.reward('sign-in-ip', ip);
  try {
    return await transaction(async (trx) => {
      // Told only now, to someone who proved they hold the number: never who has it.
      await phones.attachPhone(trx, userId, body.phone);
      const me = await getOwnProfile(trx, userId);
      if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
      await new OutboxMailer(trx).send(phoneAddedMail({ to: me.email, phone: body.phone, siteName: 'svc' }));
      return { body: me, headers: PRIVATE };
    });
  } catch (err) {
    if (phones.isPhoneTaken(err)) throw new Refusal('phone_in_use');
    throw err;
  }
}

async function removePhone({ visitor, req, transaction }: Ctx<typeof routes.removePhone>, deps: VisitorDeps) {
  return transaction(async (trx) => {
    assertSignInChangeAllowed(deps, req, visitor);
    await phones.removePhone(trx, visitor.userId);
    const me = await getOwnProfile(trx, visitor.userId);
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  });
}

async function listNotifications({ visitor, query }: Ctx<typeof routes.listNotifications>, deps: VisitorDeps) {
  const offset = query.offset ?? 0;
  const page = await notifications.listNotifications(deps.db, visitor.userId, { limit: query.limit, offset });
  return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
}

async function sendFriendRequest(
  { visitor, body, res, transaction }: Ctx<typeof routes.sendFriendRequest>,
  deps: VisitorDeps,
) {
  // Per sender, every attempt (a refused one too): each request notifies someone. The bucket is
  // defined in createApp (RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR).
  await deps.rateLimits.consume('friend-requests', visitor.userId, res);
  return transaction(async (trx) => {
    return { body: await friends.sendFriendRequest(trx, visitor.userId, body.usertag), headers: PRIVATE };
  });
}

async function listIncomingFriendRequests(
  { visitor, query }: Ctx<typeof routes.listIncomingFriendRequests>,
  deps: VisitorDeps,
) {
  const offset = query.offset ?? 0;
  const page = await friends.listIncomingRequests(deps.db, visitor.userId, { limit: query.limit, offset });
  return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
}

async function acceptFriendRequest({ visitor, params, transaction }: Ctx<typeof routes.acceptFriendRequest>) {
  return transaction(async (trx) => {
    return { body: await friends.acceptFriendRequest(trx, visitor.userId, params.usertag), headers: PRIVATE };
  });
}

async function rejectFriendRequest({ visitor, params, transaction }: Ctx<typeof routes.rejectFriendRequest>) {
  return transaction(async (trx) => {
    await friends.rejectFriendRequest(trx, visitor.userId, params.usertag);
    return { body: { ok: true as const }, headers: PRIVATE };
  });
}

async function createConversation({ visitor, body, transaction }: Ctx<typeof routes.createConversation>) {
  return transaction(async (trx) => {
    const { conversation, created } = await conversations.createConversation(trx, visitor.userId, body.usertags);
    return { status: created ? 201 : 200, body: conversation, headers: PRIVATE };
  });
}

async function listConversations({ visitor, query }: Ctx<typeof routes.listConversations>, deps: VisitorDeps) {
  const offset = query.offset ?? 0;
  const page = await conversations.listConversations(deps.db, visitor.userId, { limit: query.limit, offset });
  return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
}

async function postMessage({ visitor, params, body, transaction }: Ctx<typeof routes.postMessage>) {
  return transaction(async (trx) => {
    const message = await conversations.postMessage(trx, visitor.userId, params.conversationId, body.body);
    // Not a participant reads as no such conversation, so ids cannot be probed.
    if (!message) throw notFound(messages.conversationNotFound);
    return { body: message, headers: PRIVATE };
  });
}

async function listMessages({ visitor, params, query }: Ctx<typeof routes.listMessages>, deps: VisitorDeps) {
  const offset = query.offset ?? 0;
  const page = await conversations.listMessages(deps.db, visitor.userId, params.conversationId, {
    limit: query.limit,
    offset,
  });
  if (!page) throw notFound(messages.conversationNotFound);
  return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
}

/** The write that reading used to hide: a session write, so cookie calls pass the CSRF checks. */
async function markConversationRead({ visitor, params, body, transaction }: Ctx<typeof routes.markConversationRead>) {
  return transaction(async (trx) => {
    const result = await conversations.markRead(trx, visitor.userId, params.conversationId, body.upTo);
    return { body: { conversationId: params.conversationId, unreadCount: result.unreadCount }, headers: PRIVATE };
  });
}

export const visitorHandlers = {
  getMe,
  updateMe,
  startPhoneVerification,
  verifyPhone,
  removePhone,
  listMyMemberships: async ({ visitor, query }, deps) => ({
    body: await listOwnMemberships(deps.db, visitor.userId, query.communityTag),
    headers: PRIVATE,
  }),
  listNotifications,
  getUnreadNotificationCount: async ({ visitor }, deps) => ({
    body: { count: await notifications.unreadNotificationCount(deps.db, visitor.userId) },
    headers: PRIVATE,
  }),
  markNotificationsRead: async ({ visitor, body, transaction }) =>
    transaction(async (trx) => {
      const updated = await notifications.markNotificationsRead(
        trx,
        visitor.userId,
        body.all ? { all: true } : { ids: body.ids! },
      );
      return { body: { updated }, headers: PRIVATE };
    }),
  sendFriendRequest,
  listIncomingFriendRequests,
  acceptFriendRequest,
  rejectFriendRequest,
  createConversation,
  listConversations,
  postMessage,
  listMessages,
  markConversationRead,
  getUnreadMessageCounts: async ({ visitor }, deps) => ({
    body: await conversations.unreadMessageCounts(deps.db, visitor.userId),
    headers: PRIVATE,
  }),
} satisfies Handlers<RoutesOf<typeof routes>, VisitorDeps>;
