// /demo/: a page that plays a customer's own site and pastes the real snippet. Opened at
// http://127.0.0.1:<port>/demo/ it is a different origin from the API (localhost:<port>), so the
// widgets run exactly as they do on a customer's WordPress page.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Router } from 'express';
import express from 'express';
import type { Db } from '../db/index.ts';
import { provisionPublishableKey } from '../domain/api-keys.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../http/messages.ts';

const DEMO_TAG = 'demo';
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function demoRouter(opts: { db: Db; publicUrl: string; rootDir: string }): Router {
  const router = express.Router();
  const template = path.join(opts.rootDir, 'demo', 'customer-site.html');
  router.get('/demo', (_req, res) => res.redirect(301, '/demo/'));
  router.get('/demo/', async (_req, res) => {
    const community = await findCommunityByTag(opts.db, DEMO_TAG);
    if (!community) throw notFound(messages.communityNotFound);
    const key = await provisionPublishableKey(opts.db, community.id);
    const html = (await fs.readFile(template, 'utf8'))
      .replaceAll('%SVC_PUBLIC_URL%', escapeAttr(opts.publicUrl))
      .replaceAll('%SVC_COMMUNITY%', escapeAttr(community.tag))
      .replaceAll('%SVC_PUBLISHABLE_KEY%', escapeAttr(key));
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(html);
  });
  return router;
}
