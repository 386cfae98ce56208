// /demo/: a page that plays a customer's own site and pastes the real snippet. Opened at
// http://127.0.0.1:<port>/demo/ it is a different origin from the API (localhost:<port>), so the
// widgets run exactly as they do on a customer's WordPress page.
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
