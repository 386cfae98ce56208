// The local gateway: a test checkout hosted by this server, used when no Stripe key is set.
//   GET  /checkout/<sessionId>         what is being paid, with Pay and Cancel
//   POST /checkout/<sessionId>/pay     fulfil() exactly as a Stripe webhook would, then 303 to successUrl
//   POST /checkout/<sessionId>/cancel  release the holds, then 303 to cancelUrl
// No money moves. It exists so every paid flow can be demonstrated and tested offline, which is
// also why it is off in production unless SVC_PAYMENTS=local asks for it (server/payments/config.ts).
import crypto from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { Email } from '../../contract/common.ts';
import type { Db } from '../db/index.ts';
import { formatMoney } from '../mail/format.ts';
import { escapeHtml } from '../shared/html.ts';
import { withSessionId, type CheckoutRecord, type PaymentGateway } from './gateway.ts';
import type { Payments } from './payments.ts';

const LOCAL_SESSION = /^cs_local_[0-9a-f]{32}$/;

export class LocalGateway implements PaymentGateway {
  readonly name = 'local' as const;
  constructor(private readonly publicUrl: string) {}

  async createSession(_checkout: CheckoutRecord): Promise<{ processorSessionId: string; checkoutUrl: string }> {
    // Unguessable: the URL is the only thing that lets someone press Pay.
    const processorSessionId = `cs_local_${crypto.randomBytes(16).toString('hex')}`;
    return { processorSessionId, checkoutUrl: `${this.publicUrl}/checkout/${processorSessionId}` };
  }
}

/**
 * `https://shop.example:8443`, rebuilt from checked parts: a URL's `origin` can carry characters
 * (`;`, `,`) that would end a CSP directive or start another policy.
 */
function cspSource(url: string): string | null {
  try {
    const u = new URL(url);
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !/^[a-z0-9.-]+$/.test(u.hostname)) return null;
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}`;
  } catch {
    return null;
  }
}

function csp(nonce: string, checkout: CheckoutRecord | null): string {
  // Chrome applies form-action to the redirect that follows a form post, so the buyer's
  // success and cancel origins must be listed or Pay would be blocked on its way back.
  const targets = checkout ? [cspSource(checkout.successUrl), cspSource(checkout.cancelUrl)].filter(Boolean) : [];
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action 'self' ${[...new Set(targets)].join(' ')}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `
  body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
  main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px #0002}
  .test{background:#fff4d6;border:1px solid #e9c46a;border-radius:8px;padding:.5rem .75rem;font-size:.875rem}
  table{width:100%;border-collapse:collapse;margin:1rem 0}td{padding:.4rem 0;border-bottom:1px solid #eee}
  td.amount{text-align:right;white-space:nowrap}tr.total td{font-weight:600;border:0}
  .actions{display:flex;gap:.75rem;margin-top:1.5rem;align-items:flex-end}
  input{font:inherit;padding:.5rem;border:1px solid #888;border-radius:6px;width:100%;box-sizing:border-box}
  [role=alert]{color:#b00020}
  button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #1b1d21;cursor:pointer;background:#fff}
  button.pay{background:#1b1d21;color:#fff}button:focus-visible{outline:3px solid #4c8bf5;outline-offset:2px}
`;

function page(res: Response, status: number, checkout: CheckoutRecord | null, title: string, body: string): void {
  const nonce = crypto.randomBytes(16).toString('base64');
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', csp(nonce, checkout));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`);
}

function checkoutBody(checkout: CheckoutRecord, communityName: string, problem?: string): string {
  const rows = checkout.lineItems
    .map(
      (item) => `<tr><td>${escapeHtml(item.name)}${item.quantity > 1 ? ` &times; ${item.quantity}` : ''}</td>
<td class="amount">${escapeHtml(formatMoney(item.unitAmount * item.quantity, checkout.currency))}</td></tr>`,
    )
    .join('');
  const base = `/checkout/${checkout.processorSessionId}`;
  return `<p class="test" role="note">Test checkout: no money moves. With Stripe configured, buyers see Stripe Checkout here.</p>
<h1>Pay ${escapeHtml(communityName)}</h1>
${checkout.customerEmail ? `<p>Receipt to <strong>${escapeHtml(checkout.customerEmail)}</strong></p>` : ''}
<table aria-label="What you are paying for"><tbody>${rows}
<tr class="total"><td>Total (${escapeHtml(checkout.currency)})</td><td class="amount" data-testid="total">${escapeHtml(formatMoney(checkout.amountTotal, checkout.currency))}</td></tr>
</tbody></table>
<div class="actions">
<form method="post" action="${base}/pay">${
    checkout.customerEmail
      ? ''
      : `
<p><label for="email">E-mail for your receipt and tickets</label><br>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254"${problem ? ' aria-invalid="true" aria-describedby="email-problem"' : ''}></p>
${problem ? `<p id="email-problem" role="alert">${escapeHtml(problem)}</p>` : ''}`
  }
<button class="pay" type="submit">Pay ${escapeHtml(formatMoney(checkout.amountTotal, checkout.currency))}</button></form>
<form method="post" action="${base}/cancel"><button type="submit">Cancel</button></form>
</div>`;
}

function closedBody(checkout: CheckoutRecord): string {
  if (checkout.status === 'COMPLETED') {
    return `<h1>Paid</h1><p>This checkout has been paid.</p><p><a href="${escapeHtml(withSessionId(checkout.successUrl, checkout.processorSessionId!))}">Continue</a></p>`;
  }
  const what =
    checkout.status === 'EXPIRED' ? 'has expired' : checkout.status === 'CANCELLED' ? 'was cancelled' : 'failed';
  return `<h1>Checkout closed</h1><p>This checkout ${what}; nothing was charged.</p><p><a href="${escapeHtml(checkout.cancelUrl)}">Go back</a></p>`;
}

/** Mounted only when the local gateway is the configured one. */
export function localCheckoutRouter(db: Db, payments: Payments): Router {
  const router = express.Router();

  // Loads the session, expiring it first when its time is up (the sweep may not have run yet).
  const load = async (req: Request): Promise<CheckoutRecord | null> => {
    const id = String(req.params.sessionId);
    if (!LOCAL_SESSION.test(id)) return null;
    let checkout = await payments.find(id);
    if (checkout?.status === 'OPEN' && Date.parse(checkout.expiresAt) <= Date.now()) {
      await payments.release(id, 'EXPIRED');
      checkout = await payments.find(id);
    }
    return checkout;
  };
  const notFound = (res: Response) =>
    page(
      res,
      404,
      null,
      'Checkout not found',
      '<h1>Checkout not found</h1><p>This link is not a checkout of this server.</p>',
    );
  // The forms are on this page; a post from anywhere else is refused (browsers that send Fetch
  // Metadata tell us; the unguessable session id is the guard for the rest).
  const crossSite = (req: Request) => {
    const site = req.get('sec-fetch-site');
    return site !== undefined && site !== 'same-origin';
  };

  router.get('/checkout/:sessionId', async (req, res) => {
    const checkout = await load(req);
    if (!checkout) return notFound(res);
    if (checkout.status !== 'OPEN') return page(res, 200, checkout, 'Checkout closed', closedBody(checkout));
    const community = await db
      .selectFrom('communities')
      .select('name')
      .where('id', '=', checkout.communityId)
      .executeTakeFirst();
    page(
      res,
      200,
      checkout,
      `Pay ${community?.name ?? ''}`,
      checkoutBody(checkout, community?.name ?? 'this community'),
    );
  });

  router.post('/checkout/:sessionId/pay', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    if (crossSite(req))
      return page(res, 403, null, 'Refused', '<h1>Refused</h1><p>Pay from the checkout page itself.</p>');
    const checkout = await load(req);
    if (!checkout) return notFound(res);
    if (checkout.status === 'OPEN') {
      // Stripe's page asks for the e-mail when the seller did not pass one; so does this one.
      const email = typeof req.body?.email === 'string' ? req.body.email.trim() : '';
      // The API's own rule for addresses: it also keeps out the control characters a form can post.
      if (!checkout.customerEmail && !Email.safeParse(email).success) {
        const community = await db
          .selectFrom('communities')
          .select('name')
          .where('id', '=', checkout.communityId)
          .executeTakeFirst();
        return page(
          res,
          400,
          checkout,
          'Pay',
          checkoutBody(checkout, community?.name ?? 'this community', 'Enter a valid e-mail address.'),
        );
      }
      await payments.fulfil(checkout.processorSessionId!, `pi_local_${crypto.randomBytes(12).toString('hex')}`, {
        email: email || null,
      });
      const after = await payments.find(checkout.processorSessionId!);
      if (after?.status === 'COMPLETED')
        return res.redirect(303, withSessionId(after.successUrl, after.processorSessionId!));
      return page(res, 409, after, 'Checkout closed', closedBody(after!));
    }
    // A second click on Pay lands where the first did.
    if (checkout.status === 'COMPLETED')
      return res.redirect(303, withSessionId(checkout.successUrl, checkout.processorSessionId!));
    page(res, 410, checkout, 'Checkout closed', closedBody(checkout));
  });

  router.post('/checkout/:sessionId/cancel', async (req, res) => {
    if (crossSite(req))
      return page(res, 403, null, 'Refused', '<h1>Refused</h1><p>Cancel from the checkout page itself.</p>');
    const checkout = await load(req);
    if (!checkout) return notFound(res);
    if (checkout.status === 'OPEN') await payments.release(checkout.processorSessionId!, 'CANCELLED');
    const after = await payments.find(checkout.processorSessionId!);
    if (after?.status === 'COMPLETED') return page(res, 409, after, 'Already paid', closedBody(after));
    res.redirect(303, checkout.cancelUrl);
  });

  return router;
}
