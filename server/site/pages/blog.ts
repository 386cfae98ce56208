// BLOG: `/blog` (the published articles), `/blog/<slug>` (one article) and `/blog/feed.xml` (an
// Atom feed). Articles have no visibility of their own: the BLOG page's decides, as it does for
// `GET /v1/.../articles` (readablePage), so the gate in front of these pages is the whole filter.
// Article HTML is sanitized when it is written; it goes through the same sanitizer again here, so
// a row that reached the table another way (an old import, a manual fix) is still safe to show.
import type { Request, Response } from 'express';
import type { Article } from '../../../contract/resources.ts';
import type { Db } from '../../db/index.ts';
import type { CommunityRow } from '../../db/schema.ts';
import { EMBED_ORIGINS, sanitizeArticleHtml } from '../../domain/article-html.ts';
import * as articles from '../../domain/articles.ts';
import { escapeHtml } from '../../shared/html.ts';
import { when } from './events.ts';
import { imageUrl, offsetOf, siteOrigin } from './urls.ts';
import type { PageBody, SiteContext } from './context.ts';
import { sendWithEtag, summaryText } from './layout.ts';

export const BLOG_PAGE_SIZE = 20;
export const FEED_ENTRIES = 20;

export const articleCommunity = (c: CommunityRow): articles.ArticleCommunity => ({
  id: c.id,
  tag: c.tag,
  name: c.name,
  founderUserId: c.founder_user_id,
});

const articleHref = (a: Pick<Article, 'slug'>): string => `/blog/${encodeURIComponent(a.slug)}`;

export async function blogPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const offset = offsetOf(req);
  const page = await articles.listPublished(db, articleCommunity(ctx.community), { limit: BLOG_PAGE_SIZE, offset });
  const items = page.items.map(
    (a) => `<li><a href="${articleHref(a)}">${escapeHtml(a.title)}</a>
<div class="meta">${when(a.publishedAt)} · ${a.readTimeMinutes} min read</div>
${a.excerpt ? `<p>${escapeHtml(a.excerpt)}</p>` : ''}</li>`,
  );
  const list = items.length
    ? `<ul class="articles">\n${items.join('\n')}\n</ul>`
    : `<p class="empty">${offset ? 'No more articles.' : 'No articles yet.'}</p>`;
  const more = page.hasMore ? `<p><a href="/blog?offset=${offset + BLOG_PAGE_SIZE}">Older articles</a></p>` : '';
  return {
    title: 'Blog',
    head: {
      description: `Articles from ${ctx.community.name}.`,
      canonicalPath: offset ? `/blog?offset=${offset}` : '/blog',
    },
    main: `<h1>Blog</h1>
<p><a href="/blog/feed.xml" type="application/atom+xml">Atom feed</a></p>
${list}
${more}`,
  };
}

/** A draft and a slug that does not exist are the same: not found. */
export async function articlePage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const article = await articles.getPublishedBySlug(db, articleCommunity(ctx.community), String(req.params.slug));
  if (!article) return 'not-found';
  const banner = imageUrl(article.bannerUrl);
  const origin = ctx.chrome.origin ?? '';
  const url = `${origin}${articleHref(article)}`;
  return {
    title: article.title,
    head: {
      type: 'article',
      description: article.excerpt || summaryText(article.content.replace(/<[^>]*>/g, ' ')),
      image: banner,
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'Article',
        headline: article.title,
        url,
        mainEntityOfPage: url,
        ...(article.publishedAt ? { datePublished: article.publishedAt } : {}),
        ...(banner ? { image: [banner] } : {}),
        ...(article.excerpt ? { description: article.excerpt } : {}),
        author: { '@type': 'Person', name: article.author.name },
        publisher: { '@type': 'Organization', name: ctx.community.name, url: `${origin}/` },
      },
    },
    main: `<article>
${banner ? `<img class="banner" src="${escapeHtml(banner)}" alt="">` : ''}
<h1>${escapeHtml(article.title)}</h1>
<p class="meta">${escapeHtml(article.author.name)} · ${when(article.publishedAt)} · ${article.readTimeMinutes} min read</p>
<div class="content">
${sanitizeArticleHtml(article.content)}
</div>
<p><a href="/blog">All articles</a></p>
</article>`,
    // Images in an article (and its banner) are absolute http(s) URLs anywhere; embeds only from the players the sanitizer keeps.
    csp: { 'img-src': ['https:', 'http:'], 'frame-src': [...EMBED_ORIGINS] },
  };
}

const xml = escapeHtml;

/**
 * `/blog/feed.xml`: Atom 1.0 of what the anonymous public may read, whoever asks (a feed reader
 * sends no cookie, and a copy fetched with one must not carry members' articles to a shared cache):
 * the published articles when the BLOG page is PUBLIC, none when it is MEMBERS_ONLY. The caller
 * answers not-found when the page is disabled.
 */
export async function sendBlogFeed(
  db: Db,
  req: Request,
  res: Response,
  community: CommunityRow,
  publicBlog: boolean,
): Promise<void> {
  const origin = siteOrigin(req);
  const items = publicBlog
    ? (await articles.listPublished(db, articleCommunity(community), { limit: FEED_ENTRIES, offset: 0 })).items
    : [];
  const updated = items[0]?.publishedAt ?? community.updated_at;
  const entries = items.map((a) => {
    const url = `${origin}${articleHref(a)}`;
    const published = a.publishedAt ?? community.updated_at;
    return `<entry>
<title>${xml(a.title)}</title>
<id>${xml(url)}</id>
<link rel="alternate" type="text/html" href="${xml(url)}"/>
<published>${xml(published)}</published>
<updated>${xml(published)}</updated>
<author><name>${xml(a.author.name)}</name></author>
${a.excerpt ? `<summary>${xml(a.excerpt)}</summary>\n` : ''}<content type="html">${xml(sanitizeArticleHtml(a.content))}</content>
</entry>`;
  });
  res.status(200);
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.type('application/atom+xml; charset=utf-8');
  sendWithEtag(
    res,
    `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>${xml(community.name)}</title>
<id>${xml(`${origin}/blog`)}</id>
<link rel="self" type="application/atom+xml" href="${xml(`${origin}/blog/feed.xml`)}"/>
<link rel="alternate" type="text/html" href="${xml(`${origin}/blog`)}"/>
<updated>${xml(updated)}</updated>
${entries.join('\n')}
</feed>
`,
  );
}
