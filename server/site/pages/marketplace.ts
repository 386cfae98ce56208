// MARKETPLACE: `/marketplace` (the active products) and `/marketplace/<sku>` (one product, with a
// buy form and, when the product takes donations, a donate form). Only a community with the
// `marketplace` feature has these pages; without it they are not found. Products have no
// visibility of their own: the MARKETPLACE page's decides, as it does for `GET /v1/.../products`.
//
// Buying and donating are plain form posts to `/marketplace/<sku>/buy` and `/.../donate`, which
// run the same use-cases as the widget actions (productCheckout, donate) and answer a 303 to the
// payment gateway's checkout: they work without JavaScript. See ./index.ts for the origin check.
import type { Request, Response } from 'express';
import type { DonationConfig, Product } from '../../../contract/resources.ts';
import { transaction, type Db } from '../../db/index.ts';
import { hasFeature, saleCommunity } from '../../domain/communities.ts';
import { parseJson } from '../../db/ids.ts';
import * as products from '../../domain/products.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { SaleDeps } from '../../use-cases/checkout.ts';
import { donate, productCheckout, spendDonationBudget } from '../../use-cases/donations.ts';
import { imageUrl, offsetOf, siteOrigin } from './urls.ts';
import { money, parseMajorAmount } from './money.ts';

import type { PageBody, PageRenderer, SiteContext } from './context.ts';

export const PRODUCTS_PAGE_SIZE = 24;

export const marketplaceOn = (ctx: SiteContext): boolean => hasFeature(ctx.community, 'marketplace');
const userSellers = (ctx: SiteContext): boolean => {
  try {
    return products.userSellerMode(parseJson<unknown>(ctx.community.storefront_config, null));
  } catch {
    return false;
  }
};

const productHref = (p: Pick<Product, 'sku'>): string => `/marketplace/${encodeURIComponent(p.sku)}`;

export async function marketplacePage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  if (!marketplaceOn(ctx)) return 'not-found';
  const offset = offsetOf(req);
  const page = await products.listActive(db, ctx.community.id, userSellers(ctx), {
    limit: PRODUCTS_PAGE_SIZE,
    offset,
  });
  const items = page.items.map((p) => {
    const image = imageUrl(p.imageUrl);
    return `<li>${image ? `<img src="${escapeHtml(image)}" alt="" width="64" height="64"> ` : ''}<a href="${productHref(p)}">${escapeHtml(p.name)}</a>
<div class="meta">${p.priceCents > 0 ? escapeHtml(money(p.priceCents, p.currency)) : 'Donations'}</div></li>`;
  });
  return {
    title: 'Marketplace',
    head: { description: `What ${ctx.community.name} sells.` },
    main: `<h1>Marketplace</h1>
${items.length ? `<ul class="products">\n${items.join('\n')}\n</ul>` : `<p class="empty">${offset ? 'No more products.' : 'Nothing for sale yet.'}</p>`}
${page.hasMore ? `<p><a href="/marketplace?offset=${offset + PRODUCTS_PAGE_SIZE}">More products</a></p>` : ''}`,
    csp: { 'img-src': ['https:', 'http:'] },
  };
}

/** The product this form or page is about: an active product of this community, else null. */
export async function activeProduct(ctx: SiteContext, db: Db, sku: string): Promise<Product | null> {
  const product = await products.getBySku(db, ctx.community.id, userSellers(ctx), sku);
  return product && product.isActive ? product : null;
}

const takesDonations = (config: DonationConfig | null | undefined): config is DonationConfig =>
  Boolean(config && config.enabled);

function donateForm(p: Product, config: DonationConfig, signedIn: boolean): string {
  const label = escapeHtml(config.label ?? 'Choose an amount');
  const amounts = (config.amounts ?? []).filter((a) => config.mode === 'fixed' || a >= (config.minAmount ?? 0));
  const chips = amounts
    .map(
      (a, i) =>
        `<label><input type="radio" name="amount" value="${a}"${i === 0 ? ' checked' : ''}> ${escapeHtml(money(a, config.currency))}</label>`,
    )
    .join('\n');
  const other =
    config.mode === 'pwyw'
      ? `<label>Other amount (${escapeHtml(config.currency)}) <input name="other" inputmode="decimal" autocomplete="off"></label>
${config.minAmount ? `<p class="meta">Minimum ${escapeHtml(money(config.minAmount, config.currency))}</p>` : ''}`
      : '';
  return `<form class="donate" method="post" action="${productHref(p)}/donate">
<fieldset><legend>${label}</legend>
${chips}
${other}
</fieldset>
${signedIn ? '' : '<label>E-mail (for the receipt) <input type="email" name="email" autocomplete="email" required></label>\n'}<button type="submit">Donate</button>
</form>`;
}

const NOTICES: Record<string, string> = {
  bought: 'Thank you: your order is complete. The receipt is on its way by e-mail.',
  donated: 'Thank you for your donation. The receipt is on its way by e-mail.',
};

/**
 * The product page. Its forms answer a 303 to the payment gateway's checkout, and browsers hold
 * that redirect to the page's form-action, so the page admits the gateway's origins there.
 */
export const productPage =
  (checkoutOrigins: string[]): PageRenderer =>
  (ctx, db, req) =>
    productBody(ctx, db, req, checkoutOrigins);

async function productBody(ctx: SiteContext, db: Db, req: Request, checkoutOrigins: string[]): Promise<PageBody> {
  if (!marketplaceOn(ctx)) return 'not-found';
  const p = await activeProduct(ctx, db, String(req.params.sku));
  if (!p) return 'not-found';
  const image = imageUrl(p.imageUrl);
  const notice =
    typeof req.query.done === 'string' && Object.hasOwn(NOTICES, req.query.done) ? NOTICES[req.query.done] : '';
  const buy =
    p.priceCents > 0
      ? `<form class="buy" method="post" action="${productHref(p)}/buy">
<p class="price"><strong>${escapeHtml(money(p.priceCents, p.currency))}</strong></p>
<label>Quantity <input type="number" name="quantity" value="1" min="1" max="10" required></label>
<button type="submit" class="button">Buy</button>
</form>`
      : '';
  return {
    title: p.name,
    head: { description: p.description ?? `${p.name} from ${ctx.community.name}.`, image },
    csp: { 'img-src': ['https:', 'http:'], 'form-action': checkoutOrigins },
    main: `<article>
${notice ? `<p role="status" class="notice">${escapeHtml(notice)}</p>` : ''}
<h1>${escapeHtml(p.name)}</h1>
${image ? `<img class="product-image" src="${escapeHtml(image)}" alt="">` : ''}
${p.description ? `<div class="description">${escapeHtml(p.description)}</div>` : ''}
${buy}
${takesDonations(p.donationConfig) ? `<section aria-labelledby="donate"><h2 id="donate">Support it</h2>\n${donateForm(p, p.donationConfig, ctx.viewer.userId !== null)}\n</section>` : ''}
<p><a href="/marketplace">All products</a></p>
</article>`,
  };
}

/** The amount a donate form chose, in minor units: the typed "other" amount wins over a chip. */
export function donationAmount(body: Record<string, unknown>, config: DonationConfig): number | null {
  const other = typeof body.other === 'string' ? body.other.trim() : '';
  if (other !== '' && config.mode === 'pwyw') return parseMajorAmount(other, config.currency);
  const chip = typeof body.amount === 'string' && /^\d{1,12}$/.test(body.amount) ? Number(body.amount) : null;
  return chip;
}

export { takesDonations };

/** What a form post on the site ends in: a redirect (to the checkout), or a page that says why not. */
export type ActionOutcome = { redirect: string } | PageBody;

function returnUrls(req: Request, p: Product, done: string): { successUrl: string; cancelUrl: string } {
  const here = `${siteOrigin(req)}${productHref(p)}`;
  return { successUrl: `${here}?done=${done}`, cancelUrl: here };
}

const sorry = (p: Product, title: string, text: string): PageBody => ({
  title,
  main: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${productHref(p)}">Back to ${escapeHtml(p.name)}</a></p>`,
});

/** `POST /marketplace/<sku>/buy`: the widget's product checkout, as the signed-in visitor when there is one. */
export async function buyProduct(ctx: SiteContext, sales: SaleDeps, req: Request): Promise<ActionOutcome> {
  if (!marketplaceOn(ctx)) return 'not-found';
  const p = await activeProduct(ctx, sales.db, String(req.params.sku));
  if (!p) return 'not-found';
  const body = (req.body ?? {}) as Record<string, unknown>;
  const quantity = typeof body.quantity === 'string' && /^\d{1,2}$/.test(body.quantity) ? Number(body.quantity) : 1;
  if (quantity < 1 || quantity > 10) return sorry(p, 'Check the quantity', 'Choose from 1 to 10.');
  const community = await saleCommunity(sales.db, { id: ctx.community.id });
  const result = await productCheckout(
    sales,
    (fn) => transaction(sales.db, fn),
    community,
    p.sku,
    { quantity, ...returnUrls(req, p, 'bought') },
    ctx.viewer.userId,
  );
  return { redirect: result.body.checkoutUrl };
}

/** `POST /marketplace/<sku>/donate`: the widget's product donation, under the same per-IP budget. */
export async function donateToProduct(
  ctx: SiteContext,
  sales: SaleDeps,
  req: Request,
  res: Response,
): Promise<ActionOutcome> {
  if (!marketplaceOn(ctx)) return 'not-found';
  const p = await activeProduct(ctx, sales.db, String(req.params.sku));
  if (!p || !takesDonations(p.donationConfig)) return 'not-found';
  await spendDonationBudget(sales.rateLimits, req, res);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const amount = donationAmount(body, p.donationConfig);
  if (amount === null) return sorry(p, 'Check the amount', 'Choose an amount, or type one in the currency shown.');
  const email = typeof body.email === 'string' && body.email.trim() !== '' ? body.email.trim() : undefined;
  // The receipt goes to the signed-in donor's account, else to the e-mail the form asks for.
  if (ctx.viewer.userId === null && !email)
    return sorry(p, 'Check your e-mail', 'Give an e-mail address for the receipt.');
  const community = await saleCommunity(sales.db, { id: ctx.community.id });
  const result = await donate(
    sales,
    (fn) => transaction(sales.db, fn),
    community,
    'PRODUCT',
    p.sku,
    { donation: { amount }, ...(email ? { customer: { email } } : {}), ...returnUrls(req, p, 'donated') },
    ctx.viewer.userId,
  );
  return { redirect: result.body.checkoutUrl };
}
