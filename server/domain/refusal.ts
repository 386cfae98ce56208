// How the domain says no: one thrown shape, a `Refusal` with a reason from one closed list and
// the detail that reason carries. What each reason becomes on the wire (code, status, message,
// extras) is one table in server/http/refusals.ts, which the compiler keeps complete; mountRoute
// translates a thrown Refusal with it. Where two routes answer the same situation differently
// (a product or an event that is not there, a segment closed at submit or at checkout), the
// reasons are apart, so the table stays one entry per reason.
import type { BillingCycle } from './applications.ts';

type Fields = { fieldIds: string[] };
type Invalid = { fieldId: string; why: string };

/** Every reason, and the detail it carries (`void`: none). */
export interface RefusalDetails {
  community_not_found: void;
  /** A page the reader may not see (MEMBERS_ONLY to the public); `what` names it ("blog"). */
  page_members_only: { what: string };
  // Tickets
  event_not_found: void;
  tier_not_found: void;
  tier_inactive: void;
  /** The event's slug: the message names the route to use instead. */
  tier_is_paid: { slug: string };
  tier_is_free: { slug: string };
  event_past: void;
  sold_out: { remaining?: number };
  too_many_held: { held: number };
  form_missing: Fields;
  form_invalid: Partial<Invalid>;
  already_rsvpd: void;
  /** An RSVP with a donation is a checkout, which needs both return URLs. */
  return_urls_required: { field: 'successUrl' | 'cancelUrl' };
  // Donations and products
  donations_not_enabled: void;
  donation_not_listed: { amounts: number[] };
  donation_below_minimum: { minimum: number };
  donor_email_required: void;
  donation_currency_mismatch: { currency: string };
  product_not_found: void;
  product_inactive: void;
  product_free: void;
  // Payments (server/payments: no gateway configured, or the processor failed)
  payments_unavailable: void;
  payment_processor_error: void;
  invalid_stripe_signature: { reason: string };
  // Applications and members
  invite_only: void;
  segment_not_found: void;
  segment_closed: void;
  answers_missing: Fields;
  answer_invalid: Partial<Invalid>;
  billing_cycle_required: { offered: BillingCycle[] };
  billing_cycle_not_offered: { offered: BillingCycle[] };
  already_member: void;
  application_pending: void;
  banned: void;
  request_not_found: void;
  request_rejected: void;
  request_cancelled: void;
  request_awaiting_payment: void;
  request_approved: void;
  member_not_found: void;
  not_accepted: void;
  founder: void;
  // The leader console's member moderation (an admin acting where only the founder may)
  founder_only_roles: void;
  founder_only_remove_admin: void;
  founder_only_member_keys: void;
  founder_role_fixed: void;
  role_not_accepted: void;
  // The checkout of a paid application (answered on `requestId`, not `segmentId`)
  not_payment_pending: { status: string };
  no_price_for_cycle: { cycle: string | null };
  checkout_segment_closed: void;
  // Rules acceptance: `asked` is the version sent, `currentVersion` the community's (0: none yet)
  rules_version_mismatch: { asked: number; currentVersion: number };
  not_a_member: void;
  // Segments (the admin's PATCH)
  installment_unit: { missing: string[] };
  installment_partial: { field: string };
  renews_needs_plan: { field: string };
  segment_name_taken: void;
  // Settings (the leader console): `field` is `domains.<i>`, or `domains` for a race lost at commit
  domain_taken: { field: string };
  domain_of_platform: { field: string };
  // Broadcasts (server/domain/broadcasts.ts)
  broadcasts_not_enabled: void;
  broadcast_not_found: void;
  /** A segment id of `audience.segmentIds` that is not a segment of this community. */
  broadcast_segment_unknown: { segmentId: string };
  broadcast_audience_empty: void;
  /** Nothing to send: the html sanitizes to nothing (or is absent) and the text is blank. */
  broadcast_content_empty: { field: 'html' | 'text' };
  /** QUEUED, SENDING or SENT: past the point a cancel can stop it. */
  broadcast_not_cancellable: { status: string };
  /** The 24 h limit: `retryAfter` seconds from now until it would fit, at `resetAt` (epoch s). */
  broadcast_limit: { limit: number; retryAfter: number; resetAt: number };
  // Invite links (server/domain/invites.ts)
  /** Invite links exist only for INVITE_ONLY communities; `accessibility` is the community's. */
  invites_need_invite_only: { accessibility: string };
  invite_not_found: void;
  invite_segment_unknown: void;
  invite_segment_paid: void;
  // Lists
  invalid_cursor: void;
  // Friends (server/domain/friends.ts)
  friend_request_limit: { max: number };
  /** `retryAfter`: seconds until the sender may ask the same person again. */
  friend_request_cooldown: { retryAfter: number };
  friend_request_self: void;
  friend_request_exists: void;
  already_friends: void;
  user_not_found: void;
  friend_request_not_found: void;
  // Conversations (server/domain/conversations.ts)
  conversation_needs_others: void;
  /** A usertag of the new conversation names nobody. */
  conversation_user_not_found: { usertag: string };
  conversation_not_found: void;
  message_not_in_conversation: void;
  // Accounts
  email_in_use: void;
  /** Another account has verified this number (told only to someone who proved they hold it). */
  phone_in_use: void;
  usertag_taken: void;
  oauth_not_linked: void;
  last_sign_in_method: void;
  // The leader console's integrations (server/domain/integrations.ts)
  secret_key_not_found: void;
  webhook_receiver_not_found: void;
  webhook_delivery_not_found: void;
  webhook_receiver_removed: void;
  /** Replay and resend need an ENABLED receiver; `status` is what it is. */
  webhook_receiver_not_enabled: { status: string };
  /** The SSRF guard refused the receiver URL; `why` is its advice. */
  webhook_url_refused: { why: string };
}

export type RefusalReason = keyof RefusalDetails;

type DetailArgs<R extends RefusalReason> = RefusalDetails[R] extends void ? [] : [detail: RefusalDetails[R]];

export class Refusal<R extends RefusalReason = RefusalReason> extends Error {
  readonly detail: RefusalDetails[R];

  constructor(
    readonly reason: R,
    ...detail: DetailArgs<R>
  ) {
    super(reason);
    this.name = 'Refusal';
    this.detail = detail[0] as RefusalDetails[R];
  }
}

/** `err` is a Refusal for `reason` (narrowed, with its detail). */
export function isRefusal<R extends RefusalReason>(err: unknown, reason: R): err is Refusal<R> {
  return err instanceof Refusal && err.reason === reason;
}
