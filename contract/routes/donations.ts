// Donations to products and events, their public summaries, and buying a product: /v1 for
// servers, widget actions for <svc-donate>, and the signed-in member's own checkout.
import { z } from 'zod';
import { coded } from '../errors.ts';
import { CommunityTag, Email, ReturnUrl } from '../common.ts';
import { route, WIDGET_ACTIONS_BASE } from '../route.ts';
import { CheckoutResponse } from './tickets.ts';

const base = '/v1/communities/{communityTag}';
const ProductParams = z.object({ communityTag: CommunityTag, sku: z.string().min(1).max(120) });
const EventParams = z.object({ communityTag: CommunityTag, slug: z.string().min(1).max(120) });

const Amount = z
  .int({ error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .min(1, { error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .max(100_000_000, { error: coded('INVALID_AMOUNT', 'is too large') });

export const DonateBody = z
  .object({
    donation: z.object({ amount: Amount }).strict(),
    customer: z
      .object({ email: Email })
      .strict()
      .optional()
      .describe('required for anonymous donors; ignored when X-Svc-Auth-Token names a member'),
    successUrl: ReturnUrl.describe('absolute; may contain {CHECKOUT_SESSION_ID}'),
    cancelUrl: ReturnUrl,
  })
  .strict();

export const DonationSummary = z
  .object({
    total: z.int().min(0).describe('sum of completed, not refunded donations, smallest currency unit (0 when none)'),
    count: z.int().min(0),
    currency: z.string().nullable().describe('null when there are no donations'),
  })
  .meta({ id: 'DonationSummary' });

const DONATE_DESCRIPTION =
  'A standalone donation through the payment gateway; answers the checkout `{checkoutUrl, sessionId}`.\n\n' +
  "- `donation.amount` is a positive integer in minor units, else `400 INVALID_AMOUNT`. The parent's `donationConfig` " +
  'decides: missing or `enabled: false` is `400 INVALID_INPUT` (`extras.field` = `donation`); fixed mode takes only the ' +
  'listed amounts (`400 INVALID_DONATION_AMOUNT`, `extras.amounts`); pay-what-you-want takes at least `minAmount` and ' +
  'never less than 50 (`400 INVALID_DONATION_AMOUNT`, `extras.minimum`).\n' +
  "- The currency is the parent's pricing currency: a product's `currency`; an event's tiers' currency (the first " +
  "active tier's), or its `donationConfig.currency` when it has no tiers.\n" +
  "- A member is named by `X-Svc-Auth-Token` (the sign-in cookie's value, a token of this community's site or of the " +
  "platform's sign-in pages; another community's token, an expired or signed-out one is `401 SIGN_IN_REQUIRED`): " +
  "`customer.email` is then ignored and the account's address is used. `X-Svc-Member-Token` (SSO) is not supported and " +
  'ignored: such a donor is anonymous and needs `customer.email` (400 naming `customer.email` without it).\n' +
  '- The same `X-Idempotency-Key` (or `Idempotency-Key`) returns the same session, also when many requests race: ' +
  'duplicates wait for the first and replay its answer.\n' +
  '- At most 30 standalone donations per client IP per hour (`RATE_LIMIT_DONATIONS_PER_IP_PER_HOUR`), then ' +
  '`429 RATE_LIMITED` with `Retry-After` and the `X-RateLimit-*` headers; a server calling for many donors from one ' +
  'address should raise it. Sidecar donations (on a ticket, RSVP or product checkout) do not count.\n' +
  '- Nothing is recorded until the payment completes: then the donation is written and `donation.received` emitted ' +
  "once (idempotent on the processor's transaction id), and the donor is e-mailed one receipt. A full refund " +
  '(Stripe `charge.refunded`, also of a standalone donation refunded in the Stripe dashboard) marks it refunded (out of ' +
  'the summary) and emits `donation.refunded`; there is no refund endpoint in v1 and partial refunds are logged for a ' +
  'person, not handled.';

/** Widget actions act as the public (docs/api.md, "Page visibility"). */
const WIDGET_DONATE_NOTE =
  'The widget action acts as the public: an event must be one the events list shows (404 otherwise) and a product must ' +
  'be on a public marketplace page (`403 PAGE_MEMBERS_ONLY` otherwise). `successUrl` and `cancelUrl` must be on the ' +
  "calling page's origin or another of the community's own origins (400 naming the field). On the hosted site a " +
  'signed-in visitor donates as themselves.';

const SUMMARY_DESCRIPTION =
  'Anonymized aggregates of completed donations, refunded ones excluded: `{total, count, currency}`, ' +
  '`{total: 0, count: 0, currency: null}` when there are none. Never cached (`Cache-Control: no-store`).';

export const donateToProduct = route({
  operationId: 'donateToProduct',
  method: 'post',
  path: `${base}/products/{sku}/donate`,
  tag: 'Products',
  summary: 'Donate to a product',
  description: `${DONATE_DESCRIPTION}\n\nA server's secret key donates to any product of its community, whatever the marketplace page's visibility.`,
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: ProductParams,
  body: DonateBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the donor to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const donateToEvent = route({
  operationId: 'donateToEvent',
  method: 'post',
  path: `${base}/events/{slug}/donate`,
  tag: 'Events',
  summary: 'Donate to an event',
  description: `${DONATE_DESCRIPTION}\n\nA server's secret key donates to any event of its community.`,
  auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
  params: EventParams,
  body: DonateBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the donor to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const productDonationSummary = route({
  operationId: 'productDonationSummary',
  method: 'get',
  path: `${base}/products/{sku}/donations/summary`,
  tag: 'Products',
  summary: "A product's donations: total and count",
  description: `${SUMMARY_DESCRIPTION} When the MARKETPLACE page is members-only, the publishable key gets 403 PAGE_MEMBERS_ONLY; secret keys are not gated by page visibility.`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: ProductParams,
  response: { status: 200, schema: DonationSummary, description: 'The summary' },
  errors: [401, 403, 404, 429],
});

export const eventDonationSummary = route({
  operationId: 'eventDonationSummary',
  method: 'get',
  path: `${base}/events/{slug}/donations/summary`,
  tag: 'Events',
  summary: "An event's donations: total and count",
  description: `${SUMMARY_DESCRIPTION} The event must be one the events list shows, for every key (404 otherwise).`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: EventParams,
  response: { status: 200, schema: DonationSummary, description: 'The summary' },
  errors: [401, 403, 404, 429],
});

const actions = WIDGET_ACTIONS_BASE;

export const widgetDonateProduct = route({
  operationId: 'widgetDonateProduct',
  method: 'post',
  path: `${actions}/products/{sku}/donate`,
  tag: 'Community site',
  summary: 'Donate to a product from a widget',
  description: `${DONATE_DESCRIPTION}\n\n${WIDGET_DONATE_NOTE}`,
  auth: { kind: 'widget' },
  params: ProductParams,
  body: DonateBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the donor to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const widgetDonateEvent = route({
  operationId: 'widgetDonateEvent',
  method: 'post',
  path: `${actions}/events/{slug}/donate`,
  tag: 'Community site',
  summary: 'Donate to an event from a widget',
  description: `${DONATE_DESCRIPTION}\n\n${WIDGET_DONATE_NOTE}`,
  auth: { kind: 'widget' },
  params: EventParams,
  body: DonateBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the donor to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const ProductCheckoutBody = z
  .object({
    quantity: z
      .int('must be an integer from 1 to 10')
      .min(1, 'must be an integer from 1 to 10')
      .max(10, 'must be an integer from 1 to 10')
      .default(1),
    successUrl: ReturnUrl,
    cancelUrl: ReturnUrl,
    email: Email.optional().describe('the buyer, when known (else the checkout page asks)'),
    donation: z
      .object({ amount: Amount })
      .strict()
      .optional()
      .describe('a sidecar donation to the product: its own line, no 50 floor'),
  })
  .strict();

const PRODUCT_CHECKOUT_DESCRIPTION =
  'Buys `quantity` (1..10, default 1) of a product through the payment gateway; answers the checkout ' +
  '`{checkoutUrl, sessionId}`. Only active products with a price: an inactive or free product is 400 ' +
  '(`extras.field` = `sku`). Products have no stock in v1. An optional sidecar donation is its own line item and its ' +
  "own donation (the product's `donationConfig` must allow the amount, without the 50 floor). Completion records the " +
  'order and emits `product.purchased` once (and `donation.received` for the donation), and e-mails the buyer one ' +
  'receipt.';

export const widgetProductCheckout = route({
  operationId: 'widgetProductCheckout',
  method: 'post',
  path: `${actions}/products/{sku}/checkout`,
  tag: 'Community site',
  summary: 'Buy a product from a widget',
  description: `${PRODUCT_CHECKOUT_DESCRIPTION}\n\n${WIDGET_DONATE_NOTE.replace('donates', 'buys')}`,
  auth: { kind: 'widget' },
  params: ProductParams,
  body: ProductCheckoutBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 403, 404, 415, 429, 502, 503],
});

export const memberCheckout = route({
  operationId: 'memberCheckout',
  method: 'post',
  path: '/api/users/me/checkout',
  tag: 'Community site',
  summary: 'Buy a product as the signed-in member',
  description:
    `${PRODUCT_CHECKOUT_DESCRIPTION}\n\nThe buyer is the signed-in visitor (their account's e-mail); the community is ` +
    "`communityTag`, or the one whose site this is (400 naming `communityTag` when neither says). `successUrl` and `cancelUrl` must be on one of the community's " +
    'origins or, on its own hosted site, that site (400 naming the field).',
  auth: { kind: 'session' },
  body: ProductCheckoutBody.omit({ email: true })
    .extend({
      sku: z.string().min(1).max(120),
      communityTag: CommunityTag.optional().describe('default: the community whose site serves this request'),
    })
    .strict(),
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const DONATION_ROUTES = [donateToProduct, productDonationSummary, donateToEvent, eventDonationSummary];
export const DONATION_WIDGET_ROUTES = [widgetDonateProduct, widgetDonateEvent, widgetProductCheckout, memberCheckout];
