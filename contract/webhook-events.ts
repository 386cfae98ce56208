// The webhook event catalog: every event name the platform emits and the shape of its `data`.
// `emit()` validates against these before it writes the outbox, so a payload never leaves the
// server in a shape this file does not promise. docs/webhooks.md documents each entry; keep the
// two in step. The spec fixes only the names and member.approved's fields; the other shapes
// are ours, and adding an optional field is not a breaking change for receivers.
import { z } from 'zod';

const Id = z.string().min(1);
/** UTC only (`...Z`): receivers compare timestamps across events without parsing offsets. */
const At = z.iso.datetime();
const Money = { amount: z.int().min(0), currency: z.string().length(3) };

export const WEBHOOK_EVENTS = {
  // `source` is the submitter's free-form attribution (the spec: "persisted and sent in
  // member.requested"), null when none was given; `requestId` is what approve and reject take.
  'member.requested': z.strictObject({
    requestId: Id,
    membershipId: Id,
    userId: Id,
    segmentId: Id.nullable(),
    source: z.string().max(200).nullable(),
    requestedAt: At,
  }),
  'member.approved': z.strictObject({ memberId: Id, userId: Id, approvedAt: At, approvedBy: Id.nullable() }),
  'member.rejected': z.strictObject({
    requestId: Id,
    membershipId: Id,
    userId: Id,
    rejectedAt: At,
    rejectedBy: Id.nullable(),
  }),
  'member.kicked': z.strictObject({ memberId: Id, userId: Id, kickedAt: At, kickedBy: Id.nullable() }),
  'member.banned': z.strictObject({ memberId: Id, userId: Id, bannedAt: At, bannedBy: Id.nullable() }),
  'article.published': z.strictObject({ articleId: Id, slug: z.string(), title: z.string(), publishedAt: At }),
  'product.purchased': z.strictObject({
    productId: Id,
    transactionId: Id,
    quantity: z.int().min(1),
    ...Money,
    customerEmail: z.string().nullable(),
    purchasedAt: At,
  }),
  'donation.received': z.strictObject({
    donationId: Id,
    transactionId: Id,
    ...Money,
    target: z.strictObject({ type: z.enum(['COMMUNITY', 'PRODUCT', 'EVENT']), id: Id }),
    donorEmail: z.string().nullable(),
    receivedAt: At,
  }),
  'donation.refunded': z.strictObject({ donationId: Id, transactionId: Id, ...Money, refundedAt: At }),
  // Tickets. An RSVP is a free ticket; an order is one paid checkout of `quantity` tickets of a tier.
  'rsvp.confirmed': z.strictObject({
    rsvpId: Id,
    eventId: Id,
    eventSlug: z.string(),
    tierId: Id,
    email: z.string(),
    name: z.string(),
    confirmedAt: At,
  }),
  'order.completed': z.strictObject({
    orderId: Id,
    eventId: Id,
    eventSlug: z.string(),
    tierId: Id,
    quantity: z.int().min(1),
    ticketIds: z.array(Id),
    // False when the payment arrived after its hold expired and the seats had gone: no tickets, refund it.
    seated: z.boolean(),
    ...Money,
    donationAmount: z.int().min(0),
    customerEmail: z.string().nullable(),
    transactionId: Id,
    completedAt: At,
  }),
  'order.refunded': z.strictObject({
    orderId: Id,
    transactionId: Id,
    ...Money,
    ticketIds: z.array(Id),
    refundedAt: At,
  }),
  // Once per broadcast (never a test send), when every recipient's message has been sent or has failed.
  'broadcast.sent': z.strictObject({
    broadcastId: Id,
    subject: z.string(),
    recipients: z.int().min(0),
    sent: z.int().min(0),
    failed: z.int().min(0),
    sendAt: At,
    completedAt: At,
  }),
} as const;

export type WebhookEventName = keyof typeof WEBHOOK_EVENTS;
export type WebhookEventData<E extends WebhookEventName> = z.input<(typeof WEBHOOK_EVENTS)[E]>;
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_EVENTS) as WebhookEventName[];

/** Subscribing to `*` means every event, including ones added later. */
export const ALL_EVENTS = '*';

export const isWebhookEventName = (name: string): name is WebhookEventName => Object.hasOwn(WEBHOOK_EVENTS, name);

/** The body of every delivery, in this key order (the signature covers the exact bytes). */
export const WebhookDeliveryBody = z.strictObject({
  event: z.string(),
  deliveryId: z.string().regex(/^del_[0-9a-f]{32}$/),
  createdAt: At,
  communityTag: z.string(),
  data: z.record(z.string(), z.unknown()),
});
