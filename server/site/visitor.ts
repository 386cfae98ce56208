// {site_base}/api/users/me* and /api/messaging: the signed-in visitor's own data. Every route
// here is a `session` route: 401 without a valid sign-in token, and cookie writes only from the
// site's own origin. Other users appear with public fields only.
import crypto from 'node:crypto';
import type { Request, Router } from 'express';
import {
  acceptFriendRequest, createConversation, getMe, getUnreadMessageCounts, getUnreadNotificationCount,
  listConversations, listIncomingFriendRequests, listMessages, listMyMemberships, listNotifications,
  markConversationRead, markNotificationsRead, postMessage, rejectFriendRequest, removePhone, sendFriendRequest,
  startPhoneVerification, updateMe, verifyPhone,
} from '../../contract/routes/visitor.ts';
import { findCommunityByDomain } from '../domain/communities.ts';
import * as conversations from '../domain/conversations.ts';
import * as friends from '../domain/friends.ts';
import * as notifications from '../domain/notifications.ts';
import * as phones from '../domain/phone.ts';
import { listOwnMemberships } from '../domain/applications.ts';
import { getOwnProfile, updateOwnProfile } from '../domain/users.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { PageInfo } from '../http/pagination.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { OutboxSmsSender } from '../sms/sender.ts';
import { LINK_REAUTH_SECONDS } from '../../contract/routes/auth.ts';
import type { Visitor } from '../http/session.ts';
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
async function smsSiteName(deps: RouteDeps, req: Request): Promise<string> {
  const host = (req.hostname ?? '').toLowerCase().replace(/\.$/, '');
  const community = host ? await findCommunityByDomain(deps.db, host) : undefined;
  return community ? community.name.replace(/\s+/g, ' ').trim() : 'svc';
}

function pageInfo(total: number, limit: number, offset: number): PageInfo {
  return { total, limit, offset, nextCursor: null, hasMore: offset + limit < total };
}

/** Domain refusals of the friends rules -> the HTTP error with its stable code. */
function friendError(err: unknown): never {
  if (!(err instanceof friends.FriendError)) throw err;
  switch (err.reason) {
    case 'limit': throw new ApiError('FRIEND_REQUEST_LIMIT', messages.friendRequestLimit(friends.FRIEND_REQUEST_PENDING_MAX));
    case 'cooldown': throw new ApiError('FRIEND_REQUEST_COOLDOWN', messages.friendRequestCooldown,
      { retryAfter: err.retryAfter }, { 'Retry-After': String(err.retryAfter) });
    case 'self': throw new ApiError('FRIEND_REQUEST_SELF', messages.friendRequestSelf, { field: 'usertag' });
    case 'exists': throw new ApiError('FRIEND_REQUEST_EXISTS', messages.friendRequestExists);
    case 'already_friends': throw new ApiError('ALREADY_FRIENDS', messages.alreadyFriends);
    case 'user_not_found': throw notFound(messages.userNotFound);
    case 'no_request': throw notFound(messages.friendRequestNotFound);
  }
}

export function mountVisitor(router: Router, deps: RouteDeps): void {
  const { db } = deps;

  mountRoute(router, getMe, async ({ visitor }) => {
    const me = await getOwnProfile(deps.db, visitor!.userId);
    // The token was checked against the user a moment ago; gone now means deleted in between.
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  }, deps);

  mountRoute(router, updateMe, async ({ visitor, body, transaction }) => transaction(async (trx) => {
    const me = await updateOwnProfile(trx, visitor!.userId, body);
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  }), deps);

  // Phone ---------------------------------------------------------------------------------------

  const smsSender = deps.smsSender ?? new OutboxSmsSender(db, deps.outboxSeal);
  // The key SMS sign-in hashes its codes under: one table, one hashing (server/domain/sms-sign-in.ts).
  const smsCodeKey = deps.sessions.deriveKey('sms codes v1');

  // A phone is a way to sign in, so changing it is held to the rules of linking a provider
  // (server/site/oauth.ts): only a platform session (a community's operator can read the tokens
  // sent to its own domain), signed in within LINK_REAUTH_SECONDS, and the owner is e-mailed.
  const platformHost = new URL(deps.publicUrl).host;
  const assertSignInChangeAllowed = (req: Request, visitor: Visitor) => {
    if (visitor.communityTag !== null || req.host !== platformHost) throw new ApiError('PLATFORM_ONLY', messages.signInChangesOnPlatform);
    if (Date.now() / 1000 - visitor.session.authTime > LINK_REAUTH_SECONDS) throw new ApiError('REAUTH_REQUIRED', messages.reauthRequired);
  };

  mountRoute(router, startPhoneVerification, async ({ visitor, body, req }) => {
    assertSignInChangeAllowed(req, visitor!);
    // The sign-in budgets: one hourly share of texts per number and per IP, whoever asks.
    await deps.rateLimits.consume('sms-start-ip', ipOf(req));
    await deps.rateLimits.consume('sms-start-phone', phoneKey(body.phone));
    const code = await phones.startPhoneVerification(db, smsCodeKey, visitor!.userId, body.phone);
    // Says what the code is for, so a holder who did not ask knows it does not sign anyone in.
    await smsSender.send(body.phone, `Your ${await smsSiteName(deps, req)} code to add this phone number to your account is ${code}`);
    return { status: 202, body: { status: 'accepted' as const }, headers: PRIVATE };
  }, deps);

  mountRoute(router, verifyPhone, async ({ visitor, body, req, transaction }) => {
    assertSignInChangeAllowed(req, visitor!);
    const userId = visitor!.userId;
    // Wrong codes spend the IP's sign-in failure budget, like wrong sign-in codes; a success gives it back.
    const ip = ipOf(req);
    await deps.rateLimits.consume('sign-in-ip', ip);
    if (!(await phones.checkPhoneCode(db, smsCodeKey, userId, body.phone, body.code))) {
      throw new ApiError('PHONE_CODE_INVALID', messages.invalidPhoneCode, { field: 'code' });
    }
    await deps.rateLimits.reward('sign-in-ip', ip);
    const inUse = () => new ApiError('PHONE_IN_USE', messages.phoneInUse, { field: 'phone' });
    try {
      return await transaction(async (trx) => {
        // Told only now, to someone who proved they hold the number: never who has it.
        if ((await phones.attachPhone(trx, userId, body.phone)) === 'in_use') throw inUse();
        const me = await getOwnProfile(trx, userId);
        if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
        await new OutboxMailer(trx).send(phoneAddedMail({ to: me.email, phone: body.phone, siteName: 'svc' }));
        return { body: me, headers: PRIVATE };
      });
    } catch (err) {
      if (phones.isPhoneTaken(err)) throw inUse();
      throw err;
    }
  }, deps);

  mountRoute(router, removePhone, async ({ visitor, req, transaction }) => transaction(async (trx) => {
    assertSignInChangeAllowed(req, visitor!);
    await phones.removePhone(trx, visitor!.userId);
    const me = await getOwnProfile(trx, visitor!.userId);
    if (!me) throw new ApiError('SIGN_IN_REQUIRED', messages.signInRequired);
    return { body: me, headers: PRIVATE };
  }), deps);

  mountRoute(router, listMyMemberships, async ({ visitor, query }) => ({
    body: await listOwnMemberships(db, visitor!.userId, query.communityTag),
    headers: PRIVATE,
  }), deps);

  // Notifications ------------------------------------------------------------------------------

  mountRoute(router, listNotifications, async ({ visitor, query }) => {
    const offset = query.offset ?? 0;
    const page = await notifications.listNotifications(db, visitor!.userId, { limit: query.limit, offset });
    return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
  }, deps);

  mountRoute(router, getUnreadNotificationCount, async ({ visitor }) => ({
    body: { count: await notifications.unreadNotificationCount(db, visitor!.userId) },
    headers: PRIVATE,
  }), deps);

  mountRoute(router, markNotificationsRead, async ({ visitor, body, transaction }) => transaction(async (trx) => {
    const updated = await notifications.markNotificationsRead(trx, visitor!.userId, body.all ? { all: true } : { ids: body.ids! });
    return { body: { updated }, headers: PRIVATE };
  }), deps);

  // Friends ------------------------------------------------------------------------------------

  mountRoute(router, sendFriendRequest, async ({ visitor, body, res, transaction }) => {
    // Per sender, every attempt (a refused one too): each request notifies someone. The bucket is
    // defined in createApp (RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR).
    await deps.rateLimits.consume('friend-requests', visitor!.userId, res);
    return transaction(async (trx) => {
      try {
        return { body: await friends.sendFriendRequest(trx, visitor!.userId, body.usertag), headers: PRIVATE };
      } catch (err) {
        return friendError(err);
      }
    });
  }, deps);

  mountRoute(router, listIncomingFriendRequests, async ({ visitor, query }) => {
    const offset = query.offset ?? 0;
    const page = await friends.listIncomingRequests(db, visitor!.userId, { limit: query.limit, offset });
    return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
  }, deps);

  mountRoute(router, acceptFriendRequest, async ({ visitor, params, transaction }) => transaction(async (trx) => {
    try {
      return { body: await friends.acceptFriendRequest(trx, visitor!.userId, params.usertag), headers: PRIVATE };
    } catch (err) {
      return friendError(err);
    }
  }), deps);

  mountRoute(router, rejectFriendRequest, async ({ visitor, params, transaction }) => transaction(async (trx) => {
    try {
      await friends.rejectFriendRequest(trx, visitor!.userId, params.usertag);
    } catch (err) {
      friendError(err);
    }
    return { body: { ok: true as const }, headers: PRIVATE };
  }), deps);

  // Conversations ------------------------------------------------------------------------------

  mountRoute(router, createConversation, async ({ visitor, body, transaction }) => transaction(async (trx) => {
    try {
      const { conversation, created } = await conversations.createConversation(trx, visitor!.userId, body.usertags);
      return { status: created ? 201 : 200, body: conversation, headers: PRIVATE };
    } catch (err) {
      if (!(err instanceof conversations.ConversationError)) throw err;
      if (err.reason === 'needs_others') throw new ApiError('INVALID_INPUT', messages.conversationNeedsOthers, { field: 'usertags' });
      throw new ApiError('NOT_FOUND', messages.userNotFound, { field: 'usertags', usertag: err.usertag });
    }
  }), deps);

  mountRoute(router, listConversations, async ({ visitor, query }) => {
    const offset = query.offset ?? 0;
    const page = await conversations.listConversations(db, visitor!.userId, { limit: query.limit, offset });
    return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
  }, deps);

  mountRoute(router, postMessage, async ({ visitor, params, body, transaction }) => transaction(async (trx) => {
    const message = await conversations.postMessage(trx, visitor!.userId, params.conversationId, body.body);
    // Not a participant reads as no such conversation, so ids cannot be probed.
    if (!message) throw notFound(messages.conversationNotFound);
    return { body: message, headers: PRIVATE };
  }), deps);

  mountRoute(router, listMessages, async ({ visitor, params, query }) => {
    const offset = query.offset ?? 0;
    const page = await conversations.listMessages(db, visitor!.userId, params.conversationId, { limit: query.limit, offset });
    if (!page) throw notFound(messages.conversationNotFound);
    return { body: page.items, page: pageInfo(page.total, query.limit, offset), headers: PRIVATE };
  }, deps);

  // The write that reading used to hide: a session write, so cookie calls pass the CSRF checks.
  mountRoute(router, markConversationRead, async ({ visitor, params, body, transaction }) => transaction(async (trx) => {
    const result = await conversations.markRead(trx, visitor!.userId, params.conversationId, body.upTo);
    if (!result.ok && result.reason === 'not_participant') throw notFound(messages.conversationNotFound);
    if (!result.ok) throw new ApiError('INVALID_INPUT', messages.messageNotInConversation, { field: 'upTo' });
    return { body: { conversationId: params.conversationId, unreadCount: result.unreadCount }, headers: PRIVATE };
  }), deps);

  mountRoute(router, getUnreadMessageCounts, async ({ visitor }) => ({
    body: await conversations.unreadMessageCounts(db, visitor!.userId),
    headers: PRIVATE,
  }), deps);
}
