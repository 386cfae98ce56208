// {site_base}/api/users/me* and /api/messaging: what a signed-in visitor reads and changes about
// themselves. Private fields (e-mail, phone) appear only here, to their owner.
import { z } from 'zod';
import { CommunityTag, IsoDateTime, Limit, Line, OptionalOffset, Uuid } from '../common.ts';
import { Me, Membership } from '../resources.ts';
import { route, type RouteDef } from '../route.ts';
import { SmsSignInStart, SmsSignInVerify } from './auth.ts';

export const getMe = route({
  operationId: 'getMe',
  method: 'get',
  path: '/api/users/me',
  tag: 'Community site',
  summary: 'The signed-in visitor',
  description:
    "Served on `{site_base}` with the sign-in cookie (or `Authorization: Bearer`). The only route that returns the user's " +
    'own e-mail and phone; everywhere else other users are shown as `PublicUser` (`{id, usertag, name, profileImage}`).',
  auth: { kind: 'session' },
  response: { status: 200, schema: Me, description: 'The signed-in user' },
  errors: [401, 429],
});

export const UpdateMe = z
  .object({
    name: Line(100).min(1),
    bio: z.string().max(1000).nullable(),
    profileImage: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .max(2048)
      .nullable(),
  })
  .partial()
  .strict()
  .meta({ id: 'UpdateMe' });

export const updateMe = route({
  operationId: 'updateMe',
  method: 'patch',
  path: '/api/users/me',
  tag: 'Community site',
  summary: "Change the signed-in visitor's public profile",
  description:
    'Name, bio and profile image (an https URL); fields left out stay as they are, unknown fields are a 400. With the ' +
    "cookie, only from the site's own pages.",
  auth: { kind: 'session' },
  body: UpdateMe,
  response: { status: 200, schema: Me, description: 'The updated user' },
  errors: [400, 401, 403, 429],
});

// ---------------------------------------------------------------------------------------------
// The visitor's phone number: added only by typing back a code texted to it (docs/sign-in.md)
// ---------------------------------------------------------------------------------------------

// The phone and code fields are sign-in's own (./auth.ts).
export const PhoneVerificationStart = z
  .object({ phone: SmsSignInStart.shape.phone })
  .strict()
  .meta({ id: 'PhoneVerificationStart' });

export const PhoneVerificationStarted = z
  .object({ status: z.literal('accepted') })
  .meta({ id: 'PhoneVerificationStarted' });

export const PhoneVerificationConfirm = z
  .object({
    phone: SmsSignInVerify.shape.phone,
    code: SmsSignInVerify.shape.code,
  })
  .strict()
  .meta({ id: 'PhoneVerificationConfirm' });

export const startPhoneVerification = route({
  operationId: 'startPhoneVerification',
  method: 'post',
  path: '/api/users/me/phone',
  tag: 'Community site',
  summary: 'Text a code to a phone number the visitor wants to add',
  description:
    'Sends a 6-digit code by SMS to `phone` (E.164), valid for 10 minutes and 5 guesses, replacing any code the visitor ' +
    'asked for before. The number is not added yet: `POST /api/users/me/phone/verify` with the code does that. Always 202, ' +
    'whether or not another account has the number. Shares the SMS sign-in limits per number and per IP (429).',
  auth: { kind: 'session' },
  body: PhoneVerificationStart,
  response: { status: 202, schema: PhoneVerificationStarted, description: 'The code was sent' },
  errors: [400, 401, 403, 415, 429],
});

export const verifyPhone = route({
  operationId: 'verifyPhone',
  method: 'post',
  path: '/api/users/me/phone/verify',
  tag: 'Community site',
  summary: 'Add the phone number with the code texted to it',
  description:
    'With the right code (from `POST /api/users/me/phone`, for this number and this visitor) the number becomes the ' +
    "account's phone, replacing any other, and from then on signs in with SMS codes. A wrong, expired, used or " +
    'replaced code, or a sign-in code, is `400 PHONE_CODE_INVALID` (`extras.field` = `code`). A number another ' +
    'account has is `409 PHONE_IN_USE` (who has it is not said): remove it from that account first.',
  auth: { kind: 'session' },
  body: PhoneVerificationConfirm,
  response: { status: 200, schema: Me, description: 'The user, with the phone' },
  errors: [400, 401, 403, 409, 415, 429],
});

export const removePhone = route({
  operationId: 'removePhone',
  method: 'delete',
  path: '/api/users/me/phone',
  tag: 'Community site',
  summary: "Remove the visitor's phone number",
  description:
    'The number no longer signs in, and another account may add it. Harmless when there is none. With the cookie it ' +
    'passes the same checks as every cookie write, so it too needs `Content-Type: application/json` (and no body).',
  auth: { kind: 'session' },
  response: { status: 200, schema: Me, description: 'The user, without a phone' },
  errors: [401, 403, 415, 429],
});

// ---------------------------------------------------------------------------------------------
// Shapes other users see. A user shown to anyone but themselves carries these four fields only:
// never e-mail, phone, or anything else private.
// ---------------------------------------------------------------------------------------------

export const PublicUser = z
  .object({
    id: Uuid,
    usertag: z.string(),
    name: z.string(),
    profileImage: z.string().nullable(),
  })
  .meta({ id: 'PublicUser' });
export type PublicUser = z.infer<typeof PublicUser>;

const Paged = z
  .object({
    limit: Limit,
    offset: OptionalOffset.describe('default 0'),
  })
  .strict();

/** A usertag in a path: looked up exactly as sent (usertags are stored lowercase). */
const UsertagParam = z.object({ usertag: z.string().min(1).max(64) });
const ConversationParam = z.object({ conversationId: Uuid });

// ---------------------------------------------------------------------------------------------
// Memberships
// ---------------------------------------------------------------------------------------------

export const listMyMemberships = route({
  operationId: 'listMyMemberships',
  method: 'get',
  path: '/api/users/me/memberships/svc',
  tag: 'Community site',
  summary: "The signed-in visitor's memberships",
  description:
    'Every community membership of the signed-in user, newest first, in any status (PENDING, ACCEPTED, REJECTED, ' +
    "BANNED), in the spec's Membership shape. `createdAt` is when the user last applied, not the approval. " +
    '`platforms.svc.status` repeats `status` (the only platform entry populated today), except KICKED for a member who ' +
    'was removed (status REJECTED). A paid application waiting for its payment has no membership yet, so it is not ' +
    'listed. `communityTag` narrows the answer to one community: an empty array when the user has no membership there. ' +
    'Not paged: a user has few memberships.',
  auth: { kind: 'session' },
  query: z.object({ communityTag: CommunityTag.optional().describe('only this community') }).strict(),
  response: { status: 200, schema: z.array(Membership), description: 'The memberships' },
  errors: [400, 401, 429],
});

// ---------------------------------------------------------------------------------------------
// Notifications
// ---------------------------------------------------------------------------------------------

/**
 * What a notification is about. `friend.*` are sent by the friends endpoints; `membership.approved`
 * and `rsvp.confirmed` are reserved for the applications and tickets features. New messages are
 * not notifications: they are counted by `getUnreadMessageCounts`.
 */
export const NOTIFICATION_KINDS = [
  'friend.requested',
  'friend.accepted',
  'membership.approved',
  'rsvp.confirmed',
] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

export const Notification = z
  .object({
    id: Uuid,
    kind: NotificationKind,
    communityTag: z.string().nullable().describe('the community it belongs to; null for platform-wide ones (friends)'),
    actor: PublicUser.nullable().describe('who caused it (e.g. the requester); null when no one did or they are gone'),
    data: z.record(z.string(), z.unknown()).describe('kind-specific details'),
    readAt: IsoDateTime.nullable(),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Notification' });
export type Notification = z.infer<typeof Notification>;

export const listNotifications = route({
  operationId: 'listNotifications',
  method: 'get',
  path: '/api/users/me/notifications',
  tag: 'Community site',
  summary: "The signed-in visitor's notifications",
  description:
    'Newest first, read and unread. Page with `limit` and `offset`; `X-Total-Count` and `Link` as on every list. Kinds: ' +
    '`friend.requested` and `friend.accepted` (the friends endpoints), `membership.approved` (an application approved, by ' +
    'review or automatically; data `{communityName, segmentName}`) and `rsvp.confirmed` (tickets). A new message is not ' +
    'a notification: unread messages are counted per conversation, so a busy conversation does not flood the bell.',
  auth: { kind: 'session' },
  query: Paged,
  response: { status: 200, schema: z.array(Notification), description: 'A page of notifications', paginated: true },
  errors: [400, 401, 429],
});

export const UnreadNotificationCount = z.object({ count: z.int().min(0) }).meta({ id: 'UnreadNotificationCount' });
export type UnreadNotificationCount = z.infer<typeof UnreadNotificationCount>;

export const getUnreadNotificationCount = route({
  operationId: 'getUnreadNotificationCount',
  method: 'get',
  path: '/api/users/me/notifications/unread-count',
  tag: 'Community site',
  summary: 'How many notifications are unread',
  description: 'The number the header bell shows.',
  auth: { kind: 'session' },
  response: { status: 200, schema: UnreadNotificationCount, description: 'The unread count' },
  errors: [401, 429],
});

export const MarkNotificationsRead = z
  .object({
    ids: z
      .array(Uuid)
      .min(1)
      .max(100)
      .optional()
      .describe('notifications to mark read; ids that are not yours are ignored'),
    all: z.literal(true).optional().describe('true = every unread notification'),
  })
  .strict()
  .refine((b) => (b.ids === undefined) !== (b.all === undefined), {
    message: 'send either ids or all: true',
    path: ['ids'],
  })
  .meta({ id: 'MarkNotificationsRead' });

export const MarkNotificationsReadResult = z
  .object({ updated: z.int().min(0).describe('how many unread notifications became read') })
  .meta({ id: 'MarkNotificationsReadResult' });

export const markNotificationsRead = route({
  operationId: 'markNotificationsRead',
  method: 'patch',
  path: '/api/users/me/notifications/mark-read',
  tag: 'Community site',
  summary: 'Mark notifications read',
  description:
    "By `ids` (1 to 100) or `all: true`, exactly one of them; `updated` is the number of the caller's unread " +
    "notifications that became read. Ids of other users' notifications, unknown ids and already read ones change " +
    'nothing and are not counted, so the answer tells nothing about others.',
  auth: { kind: 'session' },
  body: MarkNotificationsRead,
  response: { status: 200, schema: MarkNotificationsReadResult, description: 'How many changed' },
  errors: [400, 401, 403, 415, 429],
});

// ---------------------------------------------------------------------------------------------
// Friends
// ---------------------------------------------------------------------------------------------

export const Friendship = z
  .object({
    user: PublicUser.describe('the other user'),
    status: z.enum(['PENDING', 'ACCEPTED']),
    requestedBy: z.enum(['me', 'them']).describe('who sent the request'),
    createdAt: IsoDateTime.describe('when the request was sent'),
    acceptedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Friendship' });
export type Friendship = z.infer<typeof Friendship>;

export const SendFriendRequest = z
  .object({ usertag: Line(64).min(1).describe('who to ask') })
  .strict()
  .meta({ id: 'SendFriendRequest' });

export const sendFriendRequest = route({
  operationId: 'sendFriendRequest',
  method: 'post',
  path: '/api/users/me/friend-requests',
  tag: 'Community site',
  summary: 'Send a friend request',
  description:
    'Asks `usertag` to be friends; they get a `friend.requested` notification. If they had already asked the ' +
    'caller, this accepts their request instead (status ACCEPTED, and they get `friend.accepted`). Asking ' +
    'oneself is `400 FRIEND_REQUEST_SELF`, asking again while a request is pending `409 FRIEND_REQUEST_EXISTS`, ' +
    'asking a friend `409 ALREADY_FRIENDS`; an unknown usertag is a 404. One friendship per pair of users, whoever asked: ' +
    'concurrent identical requests make one `201`, the others `409 FRIEND_REQUEST_EXISTS`.\n\n' +
    'Limits on asking (each request notifies someone):\n\n' +
    '- at most 100 unanswered requests per sender: past that `409 FRIEND_REQUEST_LIMIT` until some are answered (the ' +
    "count is read in the request's transaction, so concurrent requests at the very limit may each see room; the hourly " +
    'budget bounds how far past it that can go);\n' +
    '- after `usertag` rejected the caller, none to them for 7 days: `409 FRIEND_REQUEST_COOLDOWN` with `Retry-After` and ' +
    '`extras.retryAfter` (seconds); the one who said no may still ask, and the sender may ask anyone else;\n' +
    '- at most 30 calls an hour per sender, refused ones included (`429 RATE_LIMITED`, ' +
    '`RATE_LIMIT_FRIEND_REQUESTS_PER_HOUR`).\n\n' +
    'Asking back someone whose request to the caller is pending accepts it: none of the limits applies.',
  auth: { kind: 'session' },
  body: SendFriendRequest,
  response: {
    status: 201,
    schema: Friendship,
    description: 'The request (PENDING), or the friendship it completed (ACCEPTED)',
  },
  errors: [400, 401, 403, 404, 409, 415, 429],
});

export const listIncomingFriendRequests = route({
  operationId: 'listIncomingFriendRequests',
  method: 'get',
  path: '/api/users/me/friend-requests/incoming',
  tag: 'Community site',
  summary: 'Friend requests waiting for the signed-in visitor',
  description: 'Pending requests other users sent to the caller, newest first.',
  auth: { kind: 'session' },
  query: Paged,
  response: {
    status: 200,
    schema: z.array(Friendship),
    description: 'A page of pending incoming requests',
    paginated: true,
  },
  errors: [400, 401, 429],
});

export const acceptFriendRequest = route({
  operationId: 'acceptFriendRequest',
  method: 'post',
  path: '/api/users/me/friends/{usertag}/accept',
  tag: 'Community site',
  summary: 'Accept a friend request',
  description:
    'Accepts the pending request `usertag` sent to the caller; they get a `friend.accepted` notification. Only ' +
    'requests *to* the caller can be accepted: anything else (no request, one the caller sent) is a 404. ' +
    'Accepting an already accepted friendship answers it again and notifies no one. Answering a request (either way) ' +
    "marks the caller's `friend.requested` notification from that user read.",
  auth: { kind: 'session' },
  params: UsertagParam,
  response: { status: 200, schema: Friendship, description: 'The friendship' },
  errors: [401, 403, 404, 429],
});

export const FriendRequestRejected = z.object({ ok: z.literal(true) }).meta({ id: 'FriendRequestRejected' });

export const rejectFriendRequest = route({
  operationId: 'rejectFriendRequest',
  method: 'delete',
  path: '/api/users/me/friends/{usertag}/reject',
  tag: 'Community site',
  summary: 'Reject a friend request',
  description:
    'Removes the pending request `usertag` sent to the caller. The requester is not told, and may ask again ' +
    'after 7 days (the rejection is remembered). Only pending requests *to* the caller: anything else (no request, one ' +
    "the caller sent) is a 404. Marks the caller's `friend.requested` notification from that user read.",
  auth: { kind: 'session' },
  params: UsertagParam,
  response: { status: 200, schema: FriendRequestRejected, description: 'Rejected' },
  errors: [401, 403, 404, 429],
});

// ---------------------------------------------------------------------------------------------
// Conversations
// ---------------------------------------------------------------------------------------------

export const Message = z
  .object({
    id: Uuid,
    conversationId: Uuid,
    sender: PublicUser.nullable().describe("null when the sender's account is gone"),
    body: z.string(),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Message' });
export type Message = z.infer<typeof Message>;

export const Conversation = z
  .object({
    id: Uuid,
    kind: z.enum(['direct', 'group']).describe('direct = exactly two participants, one conversation per pair'),
    participants: z.array(PublicUser).describe('everyone in it, the caller included'),
    lastMessage: Message.nullable(),
    unreadCount: z.int().min(0).describe('messages from others the caller has not read'),
    createdAt: IsoDateTime,
    lastActivityAt: IsoDateTime.describe('the newest message, else the creation'),
  })
  .meta({ id: 'Conversation' });
export type Conversation = z.infer<typeof Conversation>;

export const CreateConversation = z
  .object({
    usertags: z.array(Line(64).min(1)).min(1).max(20).describe('the other participants (the caller is added)'),
  })
  .strict()
  .meta({ id: 'CreateConversation' });

export const createConversation = route({
  operationId: 'createConversation',
  method: 'post',
  path: '/api/messaging/conversations',
  tag: 'Community site',
  summary: 'Start a conversation',
  description:
    'With one other user this is their direct conversation: created once (201) and answered again on every ' +
    'later call (200), from either side; concurrent calls make one. With two or more (up to 20) it is a new group ' +
    'conversation (201). The caller is added; their own usertag and repeats are ignored; naming no one else is a 400 ' +
    '(`extras.field` = `usertags`), an unknown usertag a 404 with `extras.usertag`. Anyone signed in may start a ' +
    'conversation with any usertag; there is no blocking yet.',
  auth: { kind: 'session' },
  body: CreateConversation,
  response: {
    status: 201,
    schema: Conversation,
    description: 'The conversation (200 when the direct conversation already existed)',
  },
  errors: [400, 401, 403, 404, 415, 429],
});

export const listConversations = route({
  operationId: 'listConversations',
  method: 'get',
  path: '/api/messaging/conversations',
  tag: 'Community site',
  summary: "The signed-in visitor's conversations",
  description:
    'Conversations the caller takes part in, most recent activity first, each with its last message and unread count. ' +
    "Unread counts are exact: each message takes the conversation's next sequence number under the conversation's " +
    "lock, and a participant's unread messages are those from others numbered above their read mark.",
  auth: { kind: 'session' },
  query: Paged,
  response: { status: 200, schema: z.array(Conversation), description: 'A page of conversations', paginated: true },
  errors: [400, 401, 429],
});

export const PostMessage = z
  .object({ body: z.string().trim().min(1).max(4000) })
  .strict()
  .meta({ id: 'PostMessage' });

export const postMessage = route({
  operationId: 'postMessage',
  method: 'post',
  path: '/api/messaging/conversations/{conversationId}/messages',
  tag: 'Community site',
  summary: 'Send a message',
  description:
    'Participants only: for anyone else the conversation does not exist (the same 404 as an unknown one, so ids cannot ' +
    'be probed); a malformed id is a 400. The body is 1 to 4000 characters after trimming. Posting marks the ' +
    'conversation read for the poster.',
  auth: { kind: 'session' },
  params: ConversationParam,
  body: PostMessage,
  response: { status: 201, schema: Message, description: 'The message' },
  errors: [400, 401, 403, 404, 415, 429],
});

export const listMessages = route({
  operationId: 'listMessages',
  method: 'get',
  path: '/api/messaging/conversations/{conversationId}/messages',
  tag: 'Community site',
  summary: "A conversation's messages",
  description:
    'Newest first (a chat loads its latest page and scrolls back with `offset`). Participants only (404 for anyone ' +
    'else). Reading changes nothing (docs/decisions/0018-reading-changes-nothing.md): the caller marks what they ' +
    'have seen with `POST .../read`.',
  auth: { kind: 'session' },
  params: ConversationParam,
  query: Paged,
  response: { status: 200, schema: z.array(Message), description: 'A page of messages', paginated: true },
  errors: [400, 401, 404, 429],
});

export const MarkConversationRead = z
  .object({
    upTo: Uuid.optional().describe(
      'the newest message the caller has seen (a message of this conversation); left out = every message so far',
    ),
  })
  .strict()
  .meta({ id: 'MarkConversationRead' });

export const ConversationReadState = z
  .object({
    conversationId: Uuid,
    unreadCount: z.int().min(0).describe('messages from others in this conversation still unread after the call'),
  })
  .meta({ id: 'ConversationReadState' });

export const markConversationRead = route({
  operationId: 'markConversationRead',
  method: 'post',
  path: '/api/messaging/conversations/{conversationId}/read',
  tag: 'Community site',
  summary: 'Mark a conversation read',
  description:
    "Marks the caller's messages read up to `upTo` (that message and every older one), or up to the newest message " +
    'without it. Never moves the read mark back: marking an older message is harmless. Participants only (404 for ' +
    'anyone else); an `upTo` that is not a message of this conversation is `400` with `extras.field` = `upTo`. ' +
    "A write, so with the cookie only from the site's own pages (a GET never changes what is read). A chat calls it " +
    'after showing the newest message.',
  auth: { kind: 'session' },
  params: ConversationParam,
  body: MarkConversationRead,
  response: {
    status: 200,
    schema: ConversationReadState,
    description: "The conversation's unread count after the call",
  },
  errors: [400, 401, 403, 404, 415, 429],
});

export const UnreadMessageCounts = z
  .object({
    total: z.int().min(0),
    conversations: z
      .record(z.string(), z.int().min(1))
      .describe('conversation id -> unread messages; conversations with none are left out'),
  })
  .meta({ id: 'UnreadMessageCounts' });
export type UnreadMessageCounts = z.infer<typeof UnreadMessageCounts>;

export const getUnreadMessageCounts = route({
  operationId: 'getUnreadMessageCounts',
  method: 'get',
  path: '/api/messaging/conversations/unread/counts',
  tag: 'Community site',
  summary: 'Unread messages per conversation',
  description: 'Messages from others the caller has not read yet, in total and per conversation.',
  auth: { kind: 'session' },
  response: { status: 200, schema: UnreadMessageCounts, description: 'The unread counts' },
  errors: [401, 429],
});

/** Every visitor route, in the order the OpenAPI document lists them. */
export const VISITOR_ROUTES: RouteDef[] = [
  getMe,
  updateMe,
  startPhoneVerification,
  verifyPhone,
  removePhone,
  listMyMemberships,
  listNotifications,
  getUnreadNotificationCount,
  markNotificationsRead,
  sendFriendRequest,
  listIncomingFriendRequests,
  acceptFriendRequest,
  rejectFriendRequest,
  createConversation,
  listConversations,
  postMessage,
  listMessages,
  markConversationRead,
  getUnreadMessageCounts,
] as RouteDef[];
