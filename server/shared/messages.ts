// Every human-readable error message in one place. Messages are unstable by contract (clients
// match on `code`), but tests and docs quote these, so they change here or nowhere.
export const messages = {
  apiKeyRequired: 'API key required',
  invalidApiKey: 'Invalid API key',
  keyOtherCommunity: 'API key does not belong to this community',
  signInRequired: 'Sign in to continue',
  notALeader: 'Only the founder and admins of this community can do this',
  founderOnlyRoles: "Only the community's founder can make or unmake admins",
  founderOnlyRemoveAdmin: "Only the community's founder can kick or ban an admin",
  founderOnlyMemberKeys:
    "Only the community's founder can make a key with WRITE_MEMBERS or ADMIN: such a key can kick or ban an admin",
  founderRoleFixed: "The founder's role cannot be changed",
  notAnAcceptedMemberRole: 'Only an ACCEPTED member can be made an admin',
  domainTaken: (field: string) => `${field}: this domain is already used by another community`,
  domainOfPlatform: (field: string) =>
    `${field}: this is one of the platform's own hosts (localhost, the site domain or the platform's host); use your own domain`,
  reauthRequired: 'Sign in again (within the last 10 minutes) to change how you sign in',
  signInChangesOnPlatform: "Ways to sign in are changed on the platform's own pages, not on a community's site",
  invalidCredentials: 'Incorrect e-mail or password',
  invalidSmsCode: 'Incorrect or expired code; ask for a new one',
  invalidPhoneCode: 'Incorrect or expired code; ask for a new one',
  phoneInUse: 'This number is already on another account. Remove it there first, or use another number.',
  oauthProviderNotFound: 'This sign-in provider is not available',
  oauthProviderUnavailable: 'The sign-in provider cannot be reached right now; try again later',
  oauthPlatformOnly: "Sign-in providers are linked and removed on the platform's own site only, signed in there",
  oauthNotLinked: 'No account of this provider is linked to yours',
  oauthLastSignInMethod:
    'This is the only way to sign in to your account: set a password (by a reset) or link another provider first',
  /** What the sign-in page says for each `?error=` a failed Google / Slack / Discord flow sends it back with. */
  oauthErrors: {
    oauth_denied: 'Sign-in was cancelled at the provider. Nothing was changed.',
    oauth_failed: 'The provider could not sign you in. Try again.',
    oauth_state_mismatch: 'That sign-in link did not match this browser. Start again from this page.',
    oauth_flow_expired: 'The sign-in took too long or was started in another browser. Start again from this page.',
    oauth_exchange_failed: 'We could not complete the sign-in with the provider. Try again.',
    oauth_id_token_invalid: "The provider's answer could not be verified. Try again.",
    oauth_provider_unavailable: 'The provider cannot be reached right now. Try again later or sign in another way.',
    oauth_email_unverified:
      "The provider did not give us a verified e-mail address. Verify it there, or sign in another way and link the account from the platform's site.",
    oauth_identity_in_use: 'That account is already linked to another user here. Sign out and sign in with it instead.',
    oauth_link_session_changed: 'You signed out or switched accounts while linking. Sign in and try again.',
    oauth_handoff_invalid: 'This sign-in link is invalid, used or expired. Start again from this page.',
    oauth_reauth_required:
      'To link a sign-in provider, sign in again first: linking needs a sign-in from the last 10 minutes.',
  },
  emailInUse: 'An account cannot be created with this e-mail address. If it is yours, sign in or reset your password.',
  usertagTaken: 'This usertag is not available; choose another',
  resetTokenInvalid: 'This password reset link is invalid, used or expired; ask for a new one',
  crossSiteRequest: "Cookie-authenticated changes must come from this site's own pages",
  jsonRequired: 'Send this request with Content-Type: application/json',
  originNotAllowed: 'This origin is not an allowed embed origin of the community',
  secretKeyNotAllowed:
    'Secret keys are server-only: widget actions take the publishable key (call /v1 from your server with a secret key)',
  widgetKeyRequired:
    "API key required: send the publishable key from an allowed embed origin, or call from the community's own site",
  insufficientScope: (scope: string) => `This operation requires the ${scope} scope`,
  communityNotFound: 'Community not found',
  eventNotFound: 'Event not found in this community',
  tierNotFound: 'Tier not found in this community',
  tierNotOfEvent: 'tierId is not a tier of this event',
  tierInactive: 'This tier is not accepting new tickets',
  tierIsPaid: (slug: string) => `This tier is paid: buy it with POST /events/${slug}/checkout`,
  tierIsFree: (slug: string) => `This tier is free: use POST /events/${slug}/rsvp`,
  eventIsOver: 'This event is over; it accepts no new tickets',
  tierSoldOut: 'This tier is sold out',
  onlyNLeft: (n: number) => `Only ${n} ${n === 1 ? 'seat is' : 'seats are'} left in this tier`,
  formFieldsMissing: 'Required form fields are missing',
  donationBelowMinimum: (min: number) => `A donation must be at least ${min} (smallest currency unit)`,
  donationsNotEnabled: 'Donations are not enabled here',
  donationCurrencyMismatch: (currency: string) =>
    `Donations to this event are in ${currency}; this tier is priced in another currency, so it cannot carry one`,
  donationNotListed: (amounts: number[]) => `Choose one of the listed amounts: ${amounts.join(', ')}`,
  donorEmailRequired: 'customer.email is required for a donor who is not signed in',
  productInactive: 'This product is not for sale',
  returnUrlNotAllowed: (field: string) => `${field} must be on this site or one of the community's embed origins`,
  alreadyRsvpd: 'This e-mail address already has a ticket for this tier; it has been sent there again',
  tooManyHeld: (held: number) =>
    `You already hold ${held} seats in open checkouts for this tier; pay for or cancel them first`,
  communityTagRequired: 'communityTag is required here: this host is not a community site',
  productFree: 'This product is free: there is nothing to pay',
  memberTokenUnsupported: 'X-Svc-Member-Token (single sign-on) is not supported by this server',
  urlsRequiredWithDonation:
    'successUrl and cancelUrl are required with a donation: the donation is paid through a checkout',
  paymentsUnavailable: 'Payments are not configured on this server',
  paymentProcessorError: 'The payment processor could not open a checkout; try again',
  articleNotFound: 'Article not found in this community',
  articleNeedsBanner: 'Article must have a bannerUrl before it can be published',
  productNotFound: 'Product not found in this community',
  pageMembersOnly: (page: string) => `This community shows its ${page} to members only`,
  routeNotFound: (method: string, path: string) => `No route for ${method} ${path}`,
  methodNotAllowed: (method: string, allowed: string[]) => `${method} is not allowed here; use ${allowed.join(', ')}`,
  malformedJson: 'Request body is not valid JSON',
  unreadableBody: 'Request body could not be read',
  badPathEncoding: (field: string) => `${field}: the path is not valid percent-encoded UTF-8`,
  badQueryEncoding: (field: string) => `${field}: the query string is not valid percent-encoded UTF-8`,
  refusedText: (field: string, why: 'control character' | 'unpaired surrogate') =>
    why === 'control character'
      ? `${field}: must not contain control characters (NUL and the like; one-line text not even tabs or line breaks)`
      : `${field}: must not contain an unpaired UTF-16 surrogate (not valid Unicode text)`,
  refusedKey: (field: string, why: 'control character' | 'unpaired surrogate') =>
    `${field}: a field name must not contain ${why === 'control character' ? 'control characters' : 'an unpaired UTF-16 surrogate'}`,
  nestedTooDeeply: (field: string, max: number) =>
    `${field}: nested too deeply (at most ${max} levels of lists and objects)`,
  badRequest: 'Bad request',
  headersTooLarge: 'The request headers are larger than the server accepts (16 KB in all)',
  requestTimeout: 'The request was not received in time; send it again',
  /** Advice for the person whose webhook endpoint keeps failing verification. */
  stripeSignatureHelp:
    'Stripe signature verification failed. Check that STRIPE_WEBHOOK_SECRET is the signing secret of this endpoint ' +
    '(Dashboard > Developers > Webhooks > the endpoint > Signing secret; `stripe listen` prints its own whsec_ for local forwarding), ' +
    'that the request reaches us unmodified (no proxy re-encoding the JSON body), and that the server clock is right.',
  stripeEventRetry: 'Could not process the event; it will be retried.',
  payloadTooLarge: (limit: string) => `Request body exceeds the ${limit} limit`,
  unsupportedMediaType: 'Request bodies must be application/json',
  unknownField: (field: string) => `Unknown field ${field}`,
  offsetAndCursor: 'Use either offset or cursor, not both',
  upcomingAndPast: 'upcoming and past cannot both be true',
  invalidCursor: 'Cursor is invalid or belongs to a different query',
  idempotencyKeyInvalid: 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is recommended)',
  idempotencyKeysDiffer: 'Idempotency-Key and X-Idempotency-Key differ',
  idempotencyMismatch: 'This Idempotency-Key was used with a different request in the last 24 hours',
  idempotencyInProgress: 'A request with this Idempotency-Key is still being processed; retry shortly',
  rateLimited: 'Too many requests',
  featureNotEnabled: (feature: string) => `${feature} is not enabled for this community`,
  internal: 'Internal server error',
  unavailable: 'Service temporarily unavailable',
  userNotFound: 'User not found',
  friendRequestSelf: 'You cannot send a friend request to yourself',
  friendRequestExists: 'A friend request to this user is already pending',
  alreadyFriends: 'You are already friends with this user',
  friendRequestNotFound: 'No pending friend request from this user',
  conversationNotFound: 'Conversation not found',
  conversationNeedsOthers: 'Name at least one other user',
  messageNotInConversation: 'upTo is not a message of this conversation',
  friendRequestLimit: (max: number) =>
    `You have ${max} friend requests waiting for an answer; wait for some to be answered before sending more`,
  friendRequestCooldown: 'This user turned down your last request recently; you can ask again later',
  hotspotNotFound: 'Hotspot not found in this community',
  segmentNotFound: 'Segment not found in this community',
  broadcastNotFound: 'Broadcast not found in this community',
  broadcastSegmentUnknown: (id: string) => `audience.segmentIds: ${id} is not a segment of this community`,
  broadcastAudienceEmpty: 'The audience has nobody in it: no member who has not unsubscribed',
  broadcastContentEmpty:
    'Nothing to send: the html is empty once sanitized (scripts and styles are removed) and there is no text',
  broadcastNotCancellable: (status: string) =>
    `Only a SCHEDULED broadcast can be cancelled; this one is ${status} (being sent or sent)`,
  broadcastLimit: (limit: number) => `At most ${limit} broadcasts per 24 hours per community; see Retry-After`,
  // Leader console, the compose page (server/site/console/broadcasts.ts)
  consoleScheduleNeedsTime: 'Choose when to send it (a date and time in UTC), or press Send now',
  consoleScheduleTimeFormat: 'A date and time in UTC, such as 2026-12-01T09:30',
  consoleAudienceNeedsSegment: 'Tick at least one segment, or choose every member',
  segmentNameTaken: 'Another segment of this community already has this name',
  installmentUnit: (missing: string[]) =>
    `The installment fields are set together or not at all: also send ${missing.join(', ')}`,
  installmentPartial:
    'installmentTotalPrice, installmentCount and installmentIntervalMonths are all numbers (an installment plan) or all null (none)',
  renewsAnnuallyNeedsPlan: 'installmentRenewsAnnually needs an installment plan and accessDurationMonths',
  memberNotIdentified: 'Identify the member: userId in the body or their sign-in token in X-Svc-Auth-Token',
  memberTokenInvalid: 'The sign-in token in X-Svc-Auth-Token is invalid, expired or signed out',
  memberIdentityConflict: 'userId and X-Svc-Auth-Token name different users',
  notAMember: 'Only ACCEPTED members of this community can accept its rules',
  rulesVersionMismatch: (sent: number, current: number) =>
    `Rules version ${sent} is not this community's current rules version (${current})`,
  inviteOnly: 'This community is invite-only: it takes no applications',
  invitesNeedInviteOnly: (accessibility: string) =>
    `Invite links are for INVITE_ONLY communities; this one is ${accessibility} and takes members at /apply`,
  inviteNotFound: 'Invite link not found in this community',
  inviteSegmentUnknown: 'segmentId is not a segment of this community',
  inviteSegmentPaid: 'An invite link cannot sell a membership: choose a free segment',
  segmentClosed: 'This segment is closed to new members',
  alreadyMember: 'This e-mail address is already a member of this community',
  applicationPending: 'This e-mail address already has an application waiting for review',
  applicantBanned: 'This e-mail address cannot apply to this community',
  applicationFieldsMissing: 'Required answers are missing',
  applicationAnswerInvalid: (field: string, why: string) => `${field} ${why}`,
  billingCycleRequired: (offered: string[]) => `billingCycle is required: this segment offers ${offered.join(', ')}`,
  billingCycleNotOffered: (offered: string[]) =>
    offered.length
      ? `This segment does not offer that billing cycle; it offers ${offered.join(', ')}`
      : 'This segment is free: send no billingCycle',
  applicationNotFound: 'Application not found in this community',
  applicationRejected: 'This application was rejected; it cannot be approved',
  applicationCancelled:
    'This application was closed without a decision (replaced by a newer one, or the person was banned)',
  applicationAwaitingPayment: 'This application is waiting for its payment; it is accepted when paid',
  applicationApproved: 'This application was approved; kick the member to remove them',
  memberNotFound: 'Member not found in this community',
  notAnAcceptedMember: 'Only an ACCEPTED member can be kicked',
  founderCannotBeRemoved: "The community's founder cannot be kicked or banned",
  applicationNotAwaitingPayment: (status: string) =>
    `Only an application waiting for its payment (PAYMENT_PENDING) can be checked out; this one is ${status}`,
  segmentNoPriceForCycle: (cycle: string | null) =>
    `This segment has no price for the application's billing cycle${cycle ? ` (${cycle})` : ''}; apply again with a cycle it offers`,
  applyOriginNotAllowed:
    "origin must be one of the community's embed origins, its landing URL or its hosted site (scheme://host[:port])",
  // Leader console pages, settings (server/site/console/settings.ts)
  settingsChangedMeanwhile:
    'The settings were changed since you opened this page (by another leader, or in another tab). Your values are below: check them against the current settings and save again to replace them.',
  settingsNotJson: (part: string, detail: string) => `${part} is not valid JSON: ${detail}`,
  // Leader console, integrations (server/admin/integrations.ts)
  secretAnswerNotReplayable:
    'This answer holds a secret shown once, so it is never stored to be replayed: send the request without Idempotency-Key',
  secretKeyNotFound: 'Secret key not found in this community',
  webhookReceiverNotFound: 'Webhook receiver not found in this community',
  webhookDeliveryNotFound: 'Delivery not found for this webhook receiver',
  webhookReceiverRemoved: 'This webhook receiver has been deleted; register the receiver again to receive deliveries',
  webhookReceiverNotEnabled: (status: string) =>
    `This webhook receiver is ${status.toLowerCase()}: enable it first, then send again`,
} as const;
