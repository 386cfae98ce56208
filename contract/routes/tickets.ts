// Tickets: free RSVP and paid checkout for event tiers, on /v1 for servers (secret key with
// WRITE_SALES) and as widget actions for <svc-rsvp> on customer pages and the hosted site.
import { z } from 'zod';
import { coded } from '../errors.ts';
import { CommunityTag, Email, Line, ReturnUrl, Uuid } from '../common.ts';
import { route, WIDGET_ACTIONS_BASE } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const EventParams = z.object({ communityTag: CommunityTag, slug: z.string().min(1).max(120) });

const DonationAmount = z.int({ error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .min(1, { error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .max(100_000_000, { error: coded('INVALID_AMOUNT', 'is too large') });
const Donation = z.object({ amount: DonationAmount }).strict().describe('a sidecar donation in the tier\'s currency: its own line item and its own donation');
const FormAnswers = z.record(z.string().max(64), z.unknown()).describe('answers keyed by form field id; required when the tier has a form with required fields');
const Name = Line(200).min(1, 'must not be empty');

export const RsvpBody = z.object({
  tierId: Uuid.describe('an active, free (priceCents 0) tier of this event'),
  email: Email,
  name: Name,
  formAnswers: FormAnswers.optional(),
  donation: Donation.optional().describe('turns the RSVP into a checkout for the donation (at least 50); successUrl and cancelUrl are then required'),
  successUrl: ReturnUrl.optional(),
  cancelUrl: ReturnUrl.optional(),
}).strict();

export const RsvpResponse = z.object({
  ok: z.literal(true),
  rsvpId: Uuid,
  tierId: Uuid,
  qrCode: z.string().describe('base64 PNG of the ticket code (also e-mailed)'),
}).meta({ id: 'RsvpResponse' });

export const CheckoutResponse = z.object({
  checkoutUrl: z.string().describe('send the buyer here'),
  sessionId: z.string().describe("the processor's session id (what {CHECKOUT_SESSION_ID} becomes)"),
}).meta({ id: 'CheckoutResponse' });

export const CheckoutBody = z.object({
  tierId: Uuid.describe('an active paid tier of this event'),
  quantity: z.int('must be an integer from 1 to 10').min(1, 'must be an integer from 1 to 10').max(10, 'must be an integer from 1 to 10'),
  successUrl: ReturnUrl.describe('absolute; `{CHECKOUT_SESSION_ID}` is replaced by the session id'),
  cancelUrl: ReturnUrl,
  email: Email.optional().describe('the buyer, when known (else the checkout page asks)'),
  name: Name.optional(),
  formAnswers: FormAnswers.optional(),
  donation: Donation.optional(),
}).strict();

const RSVP_DESCRIPTION =
  'A free ticket. One per e-mail address per tier: a repeat answers with the same RSVP and sends nothing. ' +
  'The tier must be active and free; a paid tier is a 400 pointing at checkout. Capacity is never exceeded: a full ' +
  'tier is 422. Missing required form answers are 422, malformed ones 400. The QR code is also e-mailed. With ' +
  '`donation`, the answer is a checkout instead (`{checkoutUrl, sessionId}`) and the RSVP is made when it is paid.';

const CHECKOUT_DESCRIPTION =
  'Paid tickets: holds `quantity` seats while the checkout is open (released on expiry or cancel) and answers ' +
  'with the hosted checkout. Payment issues one ticket (one QR code) per seat, e-mails them and emits ' +
  '`order.completed`. More than the remaining seats is 422.';

export const rsvpToEvent = route({
  operationId: 'rsvpToEvent',
  method: 'post',
  path: `${base}/events/{slug}/rsvp`,
  tag: 'Events',
  summary: 'RSVP to a free tier',
  description: RSVP_DESCRIPTION,
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: EventParams,
  body: RsvpBody,
  response: { status: 200, schema: z.union([RsvpResponse, CheckoutResponse]), description: 'The RSVP with its QR code (or a checkout, with a donation)' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 503],
});

export const checkoutEvent = route({
  operationId: 'checkoutEvent',
  method: 'post',
  path: `${base}/events/{slug}/checkout`,
  tag: 'Events',
  summary: 'Buy tickets of a paid tier',
  description: `${CHECKOUT_DESCRIPTION} A signed-in member is named by \`X-Svc-Auth-Token\` (the sign-in cookie's ` +
    'value, a token of this community\'s site or of the platform; any other is 401): the tickets are theirs and their ' +
    'account\'s address is used (`email` is ignored). `X-Svc-Member-Token` (SSO) is not supported and ignored.',
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: EventParams,
  body: CheckoutBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 502, 503],
});

export const VerifiedTicket = z.object({
  valid: z.boolean().describe('a genuine code of this community whose ticket has not been refunded'),
  ticket: z.object({
    id: Uuid,
    kind: z.enum(['RSVP', 'PAID']),
    eventSlug: z.string(),
    tierId: Uuid,
    tierName: z.string(),
    name: z.string(),
    email: z.string(),
    refunded: z.boolean(),
    issuedAt: z.string(),
  }).optional().describe('absent when the code is not one of ours'),
}).meta({ id: 'VerifiedTicket' });

export const verifyTicket = route({
  operationId: 'verifyTicket',
  method: 'post',
  path: `${base}/tickets/verify`,
  tag: 'Events',
  summary: 'Check a scanned ticket code (an svc addition)',
  description: 'For the door: the code from a ticket QR. A code of another community, a forged or mistyped one is `valid: false` without details.',
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: z.object({ communityTag: CommunityTag }),
  body: z.object({ code: z.string().min(1).max(200) }).strict(),
  response: { status: 200, schema: VerifiedTicket, description: 'The verdict' },
  errors: [400, 401, 403, 404, 415, 429],
});

const actions = WIDGET_ACTIONS_BASE;

export const widgetRsvp = route({
  operationId: 'widgetRsvp',
  method: 'post',
  path: `${actions}/events/{slug}/rsvp`,
  tag: 'Community site',
  summary: 'RSVP from a widget',
  description: RSVP_DESCRIPTION,
  auth: { kind: 'widget' },
  params: EventParams,
  body: RsvpBody,
  response: { status: 200, schema: z.union([RsvpResponse, CheckoutResponse]), description: 'The RSVP with its QR code (or a checkout, with a donation)' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 503],
});

export const widgetCheckout = route({
  operationId: 'widgetCheckout',
  method: 'post',
  path: `${actions}/events/{slug}/checkout`,
  tag: 'Community site',
  summary: 'Buy tickets from a widget',
  description: CHECKOUT_DESCRIPTION,
  auth: { kind: 'widget' },
  params: EventParams,
  body: CheckoutBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 502, 503],
});

export const TICKET_ROUTES = [rsvpToEvent, checkoutEvent, verifyTicket];
export const TICKET_WIDGET_ROUTES = [widgetRsvp, widgetCheckout];
