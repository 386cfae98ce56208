// `/sitemap.xml` and `/robots.txt` of a community's site: what an anonymous visitor (a crawler) can
// open. The built-in pages whose gate renders for no viewer (members-only and disabled pages, and
// MARKETPLACE and ATLAS without their feature, left out), then the events the public sees, the
// published articles of a public blog and the products of a public marketplace. Member profiles
// are left out: a directory is for visitors, not for search engines. Both are the same for every
// viewer, so they are cached publicly whatever the cookie.
import type { Request, Response } from 'express';
import type { Db } from '../../db/index.ts';
import * as articles from '../../domain/articles.ts';
import * as events from '../../domain/events.ts';
import * as products from '../../domain/products.ts';
import { escapeHtml } from '../../shared/html.ts';
import { articleCommunity } from './blog.ts';
import type { SiteContext } from './context.ts';
import { gateFor } from './gate.ts';
import { BUILT_IN_NAV } from './nav.ts';
import { siteOrigin } from './urls.ts';
import { sendWithEtag } from './layout.ts';
import { hasFeature } from '../../domain/communities.ts';

/** Most entries of each kind in the sitemap (the protocol allows 50,000 URLs in one file). */
export const SITEMAP_PER_KIND = 1000;
export const SEO_CACHE = 'public, max-age=3600';

const anonymous = { userId: null } as const;

function opensForAnyone(ctx: Pick<SiteContext, 'community' | 'access'>, key: (typeof BUILT_IN_NAV)[number]): boolean {
  if (key.feature && !hasFeature(ctx.community, key.feature)) return false;
  return gateFor(ctx.access, anonymous, key.key) === 'render';
}

/** The site-relative paths of the sitemap, pages first. */
export async function sitemapPaths(db: Db, ctx: Pick<SiteContext, 'community' | 'access'>): Promise<string[]> {
  const { community } = ctx;
  const open = (key: string) => BUILT_IN_NAV.some((p) => p.key === key && opensForAnyone(ctx, p));
  // CHAT is never open to anyone but members, so it is never here.
  const paths = BUILT_IN_NAV.filter((p) => opensForAnyone(ctx, p)).map((p) => p.href);
  // Events judge their own visibility (rule 4): public ones are listed unless EVENTS is disabled.
  if (gateFor(ctx.access, anonymous, 'EVENTS', 'entity') === 'render') {
    const audience = events.audienceOf(community.id, community);
    const [upcoming, past] = await Promise.all([
      events.listEvents(db, audience, { limit: SITEMAP_PER_KIND, upcoming: true }),
      events.listEvents(db, audience, { limit: SITEMAP_PER_KIND, past: true }),
    ]);
    for (const e of [...upcoming.items, ...past.items]) paths.push(`/events/${encodeURIComponent(e.slug)}`);
  }
  if (open('BLOG')) {
    const page = await articles.listPublished(db, articleCommunity(community), { limit: SITEMAP_PER_KIND, offset: 0 });
    for (const a of page.items) paths.push(`/blog/${encodeURIComponent(a.slug)}`);
  }
  if (open('MARKETPLACE')) {
    const page = await products.listActive(db, community.id, false, { limit: SITEMAP_PER_KIND, offset: 0 });
    for (const p of page.items) paths.push(`/marketplace/${encodeURIComponent(p.sku)}`);
  }
  return paths;
}

export async function sendSitemap(
  db: Db,
  req: Request,
  res: Response,
  ctx: Pick<SiteContext, 'community' | 'access'>,
): Promise<void> {
  const origin = siteOrigin(req);
  const urls = (await sitemapPaths(db, ctx)).map((p) => `<url><loc>${escapeHtml(`${origin}${p}`)}</loc></url>`);
  res.setHeader('Cache-Control', SEO_CACHE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type('application/xml; charset=utf-8');
  sendWithEtag(
    res,
    `<?xml version="1.0" encoding="utf-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls.join('\n')}
</urlset>
`,
  );
}

export function sendRobots(req: Request, res: Response): void {
  res.setHeader('Cache-Control', SEO_CACHE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The API answers JSON, the sign-in and form posts are no pages to index.
  res.type('text/plain; charset=utf-8').send(`User-agent: *
Disallow: /api/
Disallow: /v1/
Disallow: /sign-in
Allow: /

Sitemap: ${siteOrigin(req)}/sitemap.xml
`);
}
