// /demo/: a page that plays a customer's own site and pastes the real snippet. Opened at
// http://127.0.0.1:<port>/demo/ it is a different origin from the API (localhost:<port>), so the
// widgets run exactly as they do on a customer's WordPress page.
//
// /demo/site/ plays the demo customer's own website (their WordPress, say): a small blog the demo
// community lists in `externalPages`, so `http://demo.localhost:<port>/blog` shows it through the
// chrome proxy (docs/chrome-proxy.md) and `/blog/<slug>` for a post it does not have falls back to
// the built-in article. Its pages are cacheable for a minute and carry validators, as a real
// site's would.
//
// /demo/hosted on a community's own host was a stand-in for the hosted site before it existed;
// the site itself is at `/` now (`http://demo.localhost:<port>/` in development), so old links
// and bookmarks are sent there for good.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Router } from 'express';
import express from 'express';
import type { Db } from '../db/index.ts';
import { provisionPublishableKey } from '../domain/api-keys.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { requestSiteTag } from '../http/session.ts';
import { messages } from '../shared/messages.ts';

const DEMO_TAG = 'demo';
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The community's hosted site in development: `<tag>.localhost` on the platform's port. */
function hostedSite(publicUrl: string, tag: string): string {
  const u = new URL(publicUrl);
  return `${u.protocol}//${tag}.localhost${u.port ? `:${u.port}` : ''}`;
}

export function demoRouter(opts: { db: Db; publicUrl: string; rootDir: string }): Router {
  const router = express.Router();
  // The demo's banner images (demo/fixture.json names them as paths on the platform, made absolute
  // against SVC_PUBLIC_URL at import). Static, ours, and never a document that could run anything.
  router.use(
    '/demo/banners',
    express.static(path.join(opts.rootDir, 'demo', 'banners'), {
      fallthrough: false,
      index: false,
      maxAge: '1d',
      setHeaders: (res) => {
        res.setHeader('Content-Security-Policy', "default-src 'none'");
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
    }),
  );
  router.use(customerBlog(path.join(opts.rootDir, 'demo', 'site')));
  const template = path.join(opts.rootDir, 'demo', 'customer-site.html');
  // Express matches '/demo' for '/demo/' as well (non-strict routing), so only redirect the bare path.
  router.get('/demo', (req, res, next) =>
    req.originalUrl.split('?')[0].endsWith('/') ? next() : res.redirect(301, '/demo/'),
  );
  router.get('/demo/', async (_req, res) => {
    const community = await findCommunityByTag(opts.db, DEMO_TAG);
    if (!community) throw notFound(messages.communityNotFound);
    const key = await provisionPublishableKey(opts.db, community.id);
    const html = (await fs.readFile(template, 'utf8'))
      .replaceAll('%SVC_PUBLIC_URL%', escapeAttr(opts.publicUrl))
      .replaceAll('%SVC_COMMUNITY%', escapeAttr(community.tag))
      .replaceAll('%SVC_PUBLISHABLE_KEY%', escapeAttr(key))
      .replaceAll('%SVC_SITE_URL%', escapeAttr(hostedSite(opts.publicUrl, community.tag)));
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(html);
  });

  // The same host test as the site's pages (a registered domain, <tag>.localhost or
  // <tag>.<SVC_SITE_DOMAIN>); on the platform host and an unknown one it falls through to their
  // not-found answers, as before.
  router.get('/demo/hosted', async (_req, res, next) => {
    if (!(await requestSiteTag())) return next();
    res.redirect(301, '/');
  });
  return router;
}

/** The demo customer's blog under /demo/site/: static pages, a 404 for anything else, a contact form. */
function customerBlog(dir: string): Router {
  const router = express.Router();
  const page = (file: string) => (_req: express.Request, res: express.Response) =>
    res.sendFile(path.join(dir, file), { maxAge: 60_000, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  // Readable from any origin, as a theme's assets on a CDN are: the page that uses them is on the community's host.
  router.use(
    '/demo/site/assets',
    express.static(path.join(dir, 'assets'), {
      fallthrough: false,
      index: false,
      maxAge: '1h',
      setHeaders: (res) => res.setHeader('Access-Control-Allow-Origin', '*'),
    }),
  );
  router.get('/demo/site/blog', page('blog/index.html'));
  router.get('/demo/site/about', page('about.html'));
  router.get('/demo/site/blog/:slug', async (req, res, next) => {
    const slug = req.params.slug;
    // Slugs are the file names the blog has; anything else is its 404, which the proxy falls back on.
    const posts = await fs.readdir(path.join(dir, 'blog'));
    if (!/^[a-z0-9-]+$/.test(slug) || slug === 'index' || !posts.includes(`${slug}.html`)) return next();
    page(`blog/${slug}.html`)(req, res);
  });
  router.post('/demo/site/blog/contact', express.urlencoded({ extended: false, limit: '8kb' }), (req, res) => {
    const name = typeof req.body?.name === 'string' ? req.body.name : 'friend';
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Thank you · Trail Notes</title><link rel="stylesheet" href="/demo/site/assets/blog.css"><link rel="icon" href="/demo/site/assets/favicon.svg"></head>
<body><main class="wrap"><h1>Thank you, ${escapeAttr(name)}</h1><p>We read every message.</p><p><a href="/demo/site/blog">Back to the blog</a></p></main></body>
</html>
`);
  });
  router.use('/demo/site', (_req, res) => {
    res.status(404).type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · Trail Notes</title></head>
<body><main><h1>Not found</h1><p>Trail Notes has no page here.</p></main></body></html>
`);
  });
  return router;
}
