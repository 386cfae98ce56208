// FEED: `/feed` (the community's posts, newest first, `?after=<cursor>` for older ones) and
// `/feed/post/<id>` (one post; ids are `article-<id>` and `event-<id>`, see server/domain/feed.ts).
// The sources follow the pages they come from, as HOME does: articles only where the BLOG page
// would render for this viewer, events unless the EVENTS page is disabled and then by their own
// visibility; SENT broadcasts (`broadcast-<id>`, their web version) for their audience only.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import * as feed from '../../domain/feed.ts';
import { isRefusal } from '../../domain/refusal.ts';
import { escapeHtml } from '../../shared/html.ts';
import { imageUrl } from './urls.ts';
import { sanitizeArticleHtml } from '../../domain/article-html.ts';
import { audienceFor, when } from './events.ts';
import { gateFor } from './gate.ts';
import type { PageBody, SiteContext } from './context.ts';

export const FEED_PAGE_SIZE = 20;

export function sourcesFor(ctx: SiteContext): feed.FeedSource[] {
  const sources: feed.FeedSource[] = [];
  if (gateFor(ctx.access, ctx.viewer, 'BLOG') === 'render') sources.push(feed.articleSource(ctx.community.id));
  if (gateFor(ctx.access, ctx.viewer, 'EVENTS', 'entity') === 'render')
    sources.push(feed.eventSource(audienceFor(ctx)));
  sources.push(feed.broadcastSource(ctx.community.id, ctx.viewer.userId));
  return sources;
}

const KIND_LABEL: Record<string, string> = { article: 'Article', event: 'New event', broadcast: 'E-mail to members' };

function postItem(p: feed.FeedPost): string {
  return `<li class="post post-${escapeHtml(p.kind)}">
<div class="meta">${escapeHtml(KIND_LABEL[p.kind] ?? p.kind)} · ${when(p.at)}</div>
<a href="/feed/post/${encodeURIComponent(p.id)}">${escapeHtml(p.title)}</a>
${p.kind === 'event' && p.startDate ? `<div class="meta">Starts ${when(p.startDate)}</div>` : ''}
</li>`;
}

export async function feedPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const after = typeof req.query.after === 'string' ? req.query.after : undefined;
  let page: feed.FeedPage;
  try {
    page = await feed.listFeed(db, sourcesFor(ctx), { limit: FEED_PAGE_SIZE, after });
  } catch (err) {
    // A cursor that is not one of ours names no page of the feed.
    if (isRefusal(err, 'invalid_cursor')) return 'not-found';
    throw err;
  }
  const list = page.items.length
    ? `<ol class="feed">\n${page.items.map(postItem).join('\n')}\n</ol>`
    : `<p class="empty">${after ? 'No older posts.' : 'Nothing posted yet.'}</p>`;
  return {
    title: 'Feed',
    main: `<h1>Feed</h1>
${list}
${page.nextCursor ? `<p><a href="/feed?after=${encodeURIComponent(page.nextCursor)}">Older posts</a></p>` : ''}`,
  };
}

export async function feedPostPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const post = await feed.getFeedPost(db, sourcesFor(ctx), String(req.params.id));
  if (!post) return 'not-found';
  const banner = imageUrl(post.bannerUrl);
  const body =
    post.html !== null
      ? `<div class="content">\n${sanitizeArticleHtml(post.html)}\n</div>`
      : post.summary
        ? `<div class="description">${escapeHtml(post.summary)}</div>`
        : '';
  return {
    title: post.title,
    main: `<article class="post">
<p class="meta">${escapeHtml(KIND_LABEL[post.kind] ?? post.kind)} · ${when(post.at)}</p>
${banner ? `<img class="banner" src="${escapeHtml(banner)}" alt="">` : ''}
<h1>${escapeHtml(post.title)}</h1>
${post.startDate ? `<p class="meta">Starts ${when(post.startDate)}</p>` : ''}
${body}
<p>${post.kind === 'broadcast' ? '' : `<a href="${escapeHtml(post.href)}">${post.kind === 'event' ? 'Event page' : 'Article page'}</a> · `}<a href="/feed">All posts</a></p>
</article>`,
    csp: { 'img-src': ['https:', 'http:'] },
  };
}
