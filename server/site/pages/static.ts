// The hosted site's static files: Leaflet (its ESM build, CSS and marker images, straight from the
// `leaflet` package) and the atlas page's module script. Both paths carry a version (Leaflet's, a
// hash of the script), so they are cached for a year and never revalidated: a new release is a
// new URL. Served on every host, under `/_site/`, a prefix no page uses.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

const require = createRequire(import.meta.url);
const LEAFLET_DIR = path.join(path.dirname(require.resolve('leaflet/package.json')), 'dist');
const LEAFLET_VERSION = (
  JSON.parse(fs.readFileSync(require.resolve('leaflet/package.json'), 'utf8')) as { version: string }
).version;
const ATLAS_SCRIPT = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets', 'atlas-map.js'));
const ATLAS_HASH = crypto.createHash('sha256').update(ATLAS_SCRIPT).digest('hex').slice(0, 12);

export const LEAFLET_BASE = `/_site/leaflet-${LEAFLET_VERSION}`;
export const LEAFLET_MODULE_PATH = `${LEAFLET_BASE}/leaflet-src.esm.js`;
export const LEAFLET_CSS_PATH = `${LEAFLET_BASE}/leaflet.css`;
export const ATLAS_SCRIPT_PATH = `/_site/atlas-map.${ATLAS_HASH}.js`;
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

export function siteStatic(): Router {
  const router = express.Router();
  router.use(
    LEAFLET_BASE,
    express.static(LEAFLET_DIR, {
      index: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders: (res) => {
        res.setHeader('Cache-Control', IMMUTABLE_CACHE);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      },
    }),
  );
  router.get(ATLAS_SCRIPT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', IMMUTABLE_CACHE);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('text/javascript').send(ATLAS_SCRIPT);
  });
  return router;
}
