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

const Amount = z.int({ error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .min(1, { error: coded('INVALID_AMOUNT', 'must be a positive integer in the smallest currency unit') })
  .max(100_000_000, { error: coded('INVALID_AMOUNT', 'is too large') });

export const DonateBody = z.object({
  donation: z.object({ amount: Amount }).strict(),
  customer: z.object({ email: Email }).strict().optional()
    .describe('required for anonymous donors; ignored when X-Svc-Auth-Token names a member'),
  successUrl: ReturnUrl.describe('absolute; may contain {CHECKOUT_SESSION_ID}'),
  cancelUrl: ReturnUrl,
}).strict();

export const DonationSummary = z.object({
  total: z.int().min(0).describe('sum of completed, not refunded donations, smallest currency unit (0 when none)'),
  count: z.int().min(0),
  currency: z.string().nullable().describe('null when there are no donations'),
}).meta({ id: 'DonationSummary' });

const DONATE_DESCRIPTION =
  'A standalone donation through the payment gateway. The amount must satisfy the parent\'s `donationConfig`: ' +
  'donations off is 400; fixed mode takes only the listed amounts, pay-what-you-want at least `minAmount` and never ' +
  'below 50 (`INVALID_DONATION_AMOUNT`). The currency is the parent\'s pricing currency. A member is named by ' +
  '`X-Svc-Auth-Token` (the sign-in cookie\'s value; then `customer.email` is ignored); `X-Svc-Member-Token` (SSO) is ' +
  'not supported and ignored. The same `X-Idempotency-Key` returns the same session, also under concurrency. ' +
  'Limited to 30 per client IP per hour. Completion emits `donation.received` and e-mails the donor a receipt, once.';

const SUMMARY_DESCRIPTION = 'Anonymized aggregates of completed donations; refunded ones are excluded.';

export const donateToProduct = route({
  operationId: 'donateToProduct',
  method: 'post',
  path: `${base}/products/{sku}/donate`,
  tag: 'Products',
  summary: 'Donate to a product',
  description: DONATE_DESCRIPTION,
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
  description: DONATE_DESCRIPTION,
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
  description: SUMMARY_DESCRIPTION,
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
  description: SUMMARY_DESCRIPTION,
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
  description: `${DONATE_DESCRIPTION} On the hosted site a signed-in visitor donates as themselves.`,
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
  description: `${DONATE_DESCRIPTION} On the hosted site a signed-in visitor donates as themselves.`,
  auth: { kind: 'widget' },
  params: EventParams,
  body: DonateBody,
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the donor to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const ProductCheckoutBody = z.object({
  quantity: z.int('must be an integer from 1 to 10').min(1, 'must be an integer from 1 to 10').max(10, 'must be an integer from 1 to 10').default(1),
  successUrl: ReturnUrl,
  cancelUrl: ReturnUrl,
  email: Email.optional().describe('the buyer, when known (else the checkout page asks)'),
  donation: z.object({ amount: Amount }).strict().optional().describe('a sidecar donation to the product: its own line, no 50 floor'),
}).strict();

const PRODUCT_CHECKOUT_DESCRIPTION =
  'Buys `quantity` of an active, paid product through the payment gateway, with an optional sidecar donation (its ' +
  'own line item and donation; the product\'s donationConfig applies, without the 50 floor). Completion emits ' +
  '`product.purchased` (and `donation.received` for the donation).';

export const widgetProductCheckout = route({
  operationId: 'widgetProductCheckout',
  method: 'post',
  path: `${actions}/products/{sku}/checkout`,
  tag: 'Community site',
  summary: 'Buy a product from a widget',
  description: PRODUCT_CHECKOUT_DESCRIPTION,
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
  description: `${PRODUCT_CHECKOUT_DESCRIPTION} The buyer is the signed-in visitor (their account's e-mail); the community is \`communityTag\`, or the one whose site this is.`,
  auth: { kind: 'session' },
  body: ProductCheckoutBody.omit({ email: true }).extend({
    sku: z.string().min(1).max(120),
    communityTag: CommunityTag.optional().describe("default: the community whose site serves this request"),
  }).strict(),
  response: { status: 200, schema: CheckoutResponse, description: 'The checkout to send the buyer to' },
  errors: [400, 401, 403, 404, 415, 429, 502, 503],
});

export const DONATION_ROUTES = [donateToProduct, productDonationSummary, donateToEvent, eventDonationSummary];
export const DONATION_WIDGET_ROUTES = [widgetDonateProduct, widgetDonateEvent, widgetProductCheckout, memberCheckout];
