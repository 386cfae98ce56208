// HOME (`/`): the community's name and description, its featured event, the next events, the
// latest articles and a join link. Events follow the EVENTS page's rules (a disabled EVENTS page
// shows none, entities by their own visibility); articles show only where the BLOG page would let
// this viewer read them. `storefrontConfig.modules.home` orders the blocks (homeModules).
import type { Db } from '../../db/index.ts';
import { parseJson } from '../../db/ids.ts';
import * as articles from '../../domain/articles.ts';
import * as events from '../../domain/events.ts';
import { escapeHtml } from '../../shared/html.ts';
import { audienceFor, eventList, when } from './events.ts';
import { gateFor, isMember } from './gate.ts';
import { applyLink, type PageBody, type SiteContext } from './context.ts';
import { imageUrl } from './urls.ts';

export const HOME_UPCOMING = 5;
export const HOME_ARTICLES = 3;

/** The home page's blocks, in their default order; `storefrontConfig.modules.home` reorders or leaves out. */
export const HOME_MODULES = ['join', 'featured', 'upcoming', 'articles'] as const;
export type HomeModule = (typeof HOME_MODULES)[number];

/**
 * `storefrontConfig.modules.home`: an array of module keys, shown in that order; a key it leaves
 * out is not shown, an unknown or repeated key is ignored. Absent (or not an array): the default.
 */
export function homeModules(storefront: Record<string, unknown> | null): HomeModule[] {
  const modules = storefront?.modules as { home?: unknown } | undefined;
  if (!Array.isArray(modules?.home)) return [...HOME_MODULES];
  const known = new Set<string>(HOME_MODULES);
  return [...new Set(modules.home.filter((k): k is HomeModule => typeof k === 'string' && known.has(k)))];
}

export async function homePage(ctx: SiteContext, db: Db): Promise<PageBody> {
  const { community } = ctx;
  const storefront = parseJson<Record<string, unknown> | null>(community.storefront_config, null);
  const description = typeof storefront?.description === 'string' ? storefront.description : '';
  const order = homeModules(storefront);
  const blocks: Partial<Record<HomeModule, string>> = {};

  const wantsEvents = order.includes('featured') || order.includes('upcoming');
  if (wantsEvents && gateFor(ctx.access, ctx.viewer, 'EVENTS', 'entity') === 'render') {
    const audience = audienceFor(ctx);
    const [featured, upcoming] = await Promise.all([
      order.includes('featured') ? events.listEvents(db, audience, { limit: 1, featured: true, upcoming: true }) : null,
      order.includes('upcoming') ? events.listEvents(db, audience, { limit: HOME_UPCOMING, upcoming: true }) : null,
    ]);
    const top = featured?.items[0];
    if (top)
      blocks.featured = `<section aria-labelledby="featured">
<h2 id="featured">Featured</h2>
<p><a href="/events/${encodeURIComponent(top.slug)}"><strong>${escapeHtml(top.name)}</strong></a></p>
<p class="meta">${when(top.startDate)}</p>
</section>`;
    if (upcoming)
      blocks.upcoming = `<section aria-labelledby="upcoming">
<h2 id="upcoming">Upcoming events</h2>
${eventList(upcoming.items, 'No upcoming events yet.')}
${upcoming.hasMore ? '<p><a href="/events">All events</a></p>' : ''}
</section>`;
  }

  if (order.includes('articles') && gateFor(ctx.access, ctx.viewer, 'BLOG') === 'render') {
    const latest = await articles.listPublished(
      db,
      { id: community.id, tag: community.tag, name: community.name, founderUserId: community.founder_user_id },
      { limit: HOME_ARTICLES, offset: 0 },
    );
    if (latest.items.length)
      blocks.articles = `<section aria-labelledby="articles">
<h2 id="articles">Latest articles</h2>
<ul class="articles">
${latest.items
  .map((a) => `<li><a href="/blog/${encodeURIComponent(a.slug)}">${escapeHtml(a.title)}</a></li>`)
  .join('\n')}
</ul>
</section>`;
  }

  const join = isMember(ctx.viewer) ? '' : applyLink(community, `Join ${community.name}`);
  if (join) blocks.join = `<p class="actions">${join}</p>`;
  const origin = ctx.chrome.origin ?? '';
  const logo = imageUrl((storefront?.header as { logoUrl?: unknown } | undefined)?.logoUrl as string | undefined);
  return {
    title: 'Home',
    head: {
      description: description || `${community.name}: events, news and members.`,
      image: logo,
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'Organization',
        name: community.name,
        url: `${origin}/`,
        ...(description ? { description } : {}),
        ...(logo ? { logo } : {}),
      },
    },
    main: `<h1>${escapeHtml(community.name)}</h1>
${description ? `<p class="description">${escapeHtml(description)}</p>` : ''}
${order
  .map((key) => blocks[key])
  .filter(Boolean)
  .join('\n')}`,
  };
}
