// Tickets: free RSVP and paid checkout for event tiers, on /v1 for servers (secret key with
// WRITE_SALES) and as widget actions for <svc-rsvp> on customer pages and the hosted site.
import { z } from 'zod';
import { coded } from '../errors.ts';
import { CommunityTag, Email, Line, ReturnUrl, Uuid } from '../common.ts';
import { route, WIDGET_ACTIONS_BASE } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const EventParams = z.object({ communityTag: CommunityTag, slug: z.string().min(1).max(120) });

const DonationAmount = z
  .int({ error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .min(1, { error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .max(100_000_000, { error: coded('INVALID_AMOUNT', 'is too large') });
const Donation = z
  .object({ amount: DonationAmount })
  .strict()
  .describe("a sidecar donation in the tier's currency: its own line item and its own donation");
const FormAnswers = z
  .record(z.string().max(64), z.unknown())
  .describe('answers keyed by form field id; required when the tier has a form with required fields');
const Name = Line(200).min(1, 'must not be empty');

export const RsvpBody = z
  .object({
    tierId: Uuid.describe('an active, free (priceCents 0) tier of this event'),
    email: Email,
    name: Name,
    formAnswers: FormAnswers.optional(),
    donation: Donation.optional().describe(
      'turns the RSVP into a checkout for the donation (at least 50); successUrl and cancelUrl are then required',
    ),
    successUrl: ReturnUrl.optional(),
    cancelUrl: ReturnUrl.optional(),
  })
  .strict();

export const RsvpResponse = z
  .object({
    ok: z.literal(true),
    rsvpId: Uuid,
    tierId: Uuid,
    qrCode: z.string().describe('base64 PNG of the ticket code (also e-mailed)'),
  })
  .meta({ id: 'RsvpResponse' });

export const CheckoutResponse = z
  .object({
    checkoutUrl: z.string().describe('send the buyer here'),
    sessionId: z.string().describe("the processor's session id (what {CHECKOUT_SESSION_ID} becomes)"),
  })
  .meta({ id: 'CheckoutResponse' });

export const CheckoutBody = z
  .object({
    tierId: Uuid.describe('an active paid tier of this event'),
    quantity: z
      .int('must be an integer from 1 to 10')
      .min(1, 'must be an integer from 1 to 10')
      .max(10, 'must be an integer from 1 to 10'),
    successUrl: ReturnUrl.describe('absolute; `{CHECKOUT_SESSION_ID}` is replaced by the session id'),
    cancelUrl: ReturnUrl,
    email: Email.optional().describe('the buyer, when known (else the checkout page asks)'),
    name: Name.optional(),
    formAnswers: FormAnswers.optional(),
    donation: Donation.optional(),
  })
  .strict();

const RSVP_DESCRIPTION =
  'A free ticket: answers `{ok: true, rsvpId, tierId, qrCode}`.\n\n' +
  '- `tierId` must be an active, free tier of this event: a tier of another event or an inactive one is 400 ' +
  '(`extras.field` = `tierId`); a paid tier is a 400 whose message points at `POST /events/{slug}/checkout`. An unknown ' +
  'event is 404; an event that is over (its end, or its start when it has none, is past) is 422.\n' +
  '- One RSVP per e-mail address (case-insensitive) per tier: a repeat takes no seat and emits nothing (what it ' +
  'answers differs between `/v1` and the widget action, below).\n' +
  '- Capacity is never exceeded: a full tier is `422 UNPROCESSABLE` ("This tier is sold out", `extras.remaining: 0`).\n' +
  '- Form answers: a required field left empty (or a required checkbox unticked) is 422 with `extras.field` ' +
  '`formAnswers.<id>` and `extras.fields` listing every missing id; a malformed answer, an option not offered or a ' +
  'field the form does not have is `400 INVALID_INPUT` naming `formAnswers.<id>`.\n' +
  '- `qrCode` is a base64 PNG of the ticket code `svt1.<ticket id>.<MAC>` (HMAC-SHA256 truncated to 128 bits, under a ' +
  'key derived from the master key): unforgeable, and nothing but the ticket id is needed to check one. The same QR is ' +
  'e-mailed as an inline image.\n' +
  '- The seat, the ticket, its e-mail, a notification (`rsvp.confirmed`) for a user with that address and the ' +
  '`rsvp.confirmed` webhook event commit in one transaction.\n' +
  '- With `donation {amount}` (at least 50, else `400 INVALID_DONATION_AMOUNT`) plus `successUrl` and `cancelUrl`, the ' +
  'answer is a checkout `{checkoutUrl, sessionId}` for the donation, holding one seat; paying it makes the RSVP ' +
  '(`rsvp.confirmed`, and `order.completed` for the payment) and records the donation (`donation.received`). The ' +
  "parent's `donationConfig` must allow the amount.";

const CHECKOUT_DESCRIPTION =
  'Paid tickets: holds `quantity` seats while the checkout is open (released on expiry or cancel) and answers ' +
  'with the hosted checkout `{checkoutUrl, sessionId}`.\n\n' +
  '- Paid, active tiers only (a free tier is a 400 pointing at rsvp); `quantity` an integer 1..10; more than remain is ' +
  '`422` "Only N seats are left in this tier" (`extras.remaining`). Form answers as for the RSVP.\n' +
  '- `successUrl`/`cancelUrl` are absolute http(s) URLs; `{CHECKOUT_SESSION_ID}` is replaced by the session id on the ' +
  'way back. Nothing is granted from that redirect.\n' +
  "- `email`, `name` and `formAnswers` are svc additions (the spec's body has none): without `email` the checkout " +
  "page (Stripe's, or the local one) asks for it.\n" +
  "- `donation {amount}`: a sidecar donation, its own line item and its own donation, no 50 floor; the event's " +
  "`donationConfig` must allow it, and it must be in the event's donation currency (its tiers' currency): a tier in " +
  'another currency cannot carry one (400, `extras.field` = `donation`). An order with a donation is receipted by ' +
  'e-mail beside the tickets; one without gets its ticket e-mail only.\n' +
  '- Completion (a verified Stripe event or the local Pay button, once) issues one `PAID` ticket per seat (one QR code ' +
  'each), e-mails them and emits `order.completed`. A full refund (Stripe `charge.refunded`) voids the tickets, frees ' +
  'their seats and emits `order.refunded`. A payment that arrives after its checkout expired or was cancelled takes the ' +
  'seats again if they are still free; if not, no tickets are issued, `order.completed` says `seated: false` (its ' +
  'donation is still recorded) and the error log says to refund it.\n' +
  '- Payments off (`SVC_PAYMENTS=off`) is 503; a processor failure is `502 PAYMENT_PROCESSOR_ERROR`.';

/** Widget actions act as the public; /v1 is the community's own server. */
const WIDGET_EVENTS_NOTE =
  'Only events the community shows publicly can be booked here (a members-only event is a 404); a server books any ' +
  "event of its community through `/v1`. `successUrl` and `cancelUrl` must be on the calling page's origin or another " +
  "of the community's own origins (400 naming the field otherwise).";

export const rsvpToEvent = route({
  operationId: 'rsvpToEvent',
  method: 'post',
  path: `${base}/events/{slug}/rsvp`,
  tag: 'Events',
  summary: 'RSVP to a free tier',
  description:
    `${RSVP_DESCRIPTION}\n\nA repeat answers 200 with the same \`rsvpId\` and QR code and sends no e-mail. ` +
    'A server books any event of its community, members-only ones included.',
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: EventParams,
  body: RsvpBody,
  response: {
    status: 200,
    schema: z.union([RsvpResponse, CheckoutResponse]),
    description: 'The RSVP with its QR code (or a checkout, with a donation)',
  },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 503],
});

export const checkoutEvent = route({
  operationId: 'checkoutEvent',
  method: 'post',
  path: `${base}/events/{slug}/checkout`,
  tag: 'Events',
  summary: 'Buy tickets of a paid tier',
  description:
    `${CHECKOUT_DESCRIPTION}\n\nA signed-in member is named by \`X-Svc-Auth-Token\` (the sign-in cookie's ` +
    "value, a token of this community's site or of the platform; any other, expired or signed out is `401 SIGN_IN_REQUIRED` " +
    'with `extras.field` = `X-Svc-Auth-Token`, before anything is held): the tickets are then theirs, each ticket carries ' +
    "the member's id, the account's address is the buyer's (`email` is ignored), the account's name is the tickets' " +
    'unless `name` is given, and a sidecar donation names them as its donor. Without the header the buyer is anonymous, ' +
    'whatever address they give. `X-Svc-Member-Token` (SSO) is not supported and ignored.',
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: EventParams,
  body: CheckoutBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 502, 503],
});

export const VerifiedTicket = z
  .object({
    valid: z.boolean().describe('a genuine code of this community whose ticket has not been refunded'),
    ticket: z
      .object({
        id: Uuid,
        kind: z.enum(['RSVP', 'PAID']),
        eventSlug: z.string(),
        tierId: Uuid,
        tierName: z.string(),
        name: z.string(),
        email: z.string(),
        refunded: z.boolean(),
        issuedAt: z.string(),
      })
      .optional()
      .describe('absent when the code is not one of ours'),
  })
  .meta({ id: 'VerifiedTicket' });

export const verifyTicket = route({
  operationId: 'verifyTicket',
  method: 'post',
  path: `${base}/tickets/verify`,
  tag: 'Events',
  summary: 'Check a scanned ticket code (an svc addition)',
  description:
    'For the door: the code from a ticket QR. A code of another community, a forged or mistyped one is `{valid: false}` ' +
    'without details; a refunded ticket is `valid: false` with its details.',
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
  description:
    `${RSVP_DESCRIPTION}\n\nA repeat never shows the existing ticket (whoever knows an address would get its ` +
    'QR code): it is `409 INVALID_STATE` (`extras.field` = `email`) and the ticket is e-mailed to the address again ' +
    `(within the per-address account e-mail budget). ${WIDGET_EVENTS_NOTE}`,
  auth: { kind: 'widget' },
  params: EventParams,
  body: RsvpBody,
  response: {
    status: 200,
    schema: z.union([RsvpResponse, CheckoutResponse]),
    description: 'The RSVP with its QR code (or a checkout, with a donation)',
  },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 503],
});

export const widgetCheckout = route({
  operationId: 'widgetCheckout',
  method: 'post',
  path: `${actions}/events/{slug}/checkout`,
  tag: 'Community site',
  summary: 'Buy tickets from a widget',
  description:
    `${CHECKOUT_DESCRIPTION}\n\n${WIDGET_EVENTS_NOTE} One caller (client IP, or signed-in visitor) holds at ` +
    'most 10 seats of a tier in open checkouts at a time (422 beyond). The buyer is anonymous: `X-Svc-Auth-Token` is not read here.',
  auth: { kind: 'widget' },
  params: EventParams,
  body: CheckoutBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 409, 415, 422, 429, 502, 503],
});

export const TICKET_ROUTES = [rsvpToEvent, checkoutEvent, verifyTicket];
export const TICKET_WIDGET_ROUTES = [widgetRsvp, widgetCheckout];
