// ATLAS: `/atlas`, the community's hotspots. The page is an accessible list grouped by category
// that is complete without JavaScript and without tiles; when SVC_MAP_TILES_URL is set it also
// carries a map, drawn by Leaflet (served by the platform, see ./static.ts) from a same-origin
// module script that reads the hotspots from a JSON data block. Only this page loads Leaflet, and
// only this page's CSP admits a script ('self') and the tiles' origin. Only a community with the
// `atlas` feature has the page; without it the page is not found.
import type { AtlasCategory, AtlasHotspot } from '../../../contract/resources.ts';
import type { MapTiles } from '../../config.ts';
import * as atlas from '../../domain/atlas.ts';
import { hasFeature } from '../../domain/communities.ts';
import { escapeHtml } from '../../shared/html.ts';
import { isMember } from './gate.ts';
import type { PageRenderer } from './context.ts';
import { jsonDataBlock } from './layout.ts';

export { jsonDataBlock };
import { ATLAS_SCRIPT_PATH, LEAFLET_CSS_PATH, LEAFLET_MODULE_PATH } from './static.ts';

/** The most hotspots the page lists (the API pages them; a community's atlas is far smaller). */
export const ATLAS_MAX_HOTSPOTS = 1000;

function groups(categories: AtlasCategory[], hotspots: AtlasHotspot[]): { name: string; items: AtlasHotspot[] }[] {
  const known = new Set(categories.map((c) => c.id));
  const out = categories.map((c) => ({ name: c.name, items: hotspots.filter((h) => h.categoryId === c.id) }));
  const other = hotspots.filter((h) => !known.has(h.categoryId));
  if (other.length) out.push({ name: 'Other places', items: other });
  return out.filter((g) => g.items.length > 0);
}

function hotspotItem(h: AtlasHotspot): string {
  return `<li><strong>${escapeHtml(h.name)}</strong>
${h.description ? `<div class="description">${escapeHtml(h.description)}</div>` : ''}
<div class="meta"><data value="${h.latitude},${h.longitude}">${h.latitude.toFixed(5)}, ${h.longitude.toFixed(5)}</data></div></li>`;
}

export function atlasPage(tiles: MapTiles | null): PageRenderer {
  return async (ctx, db) => {
    if (!hasFeature(ctx.community, 'atlas')) return 'not-found';
    // The domain's own verdict as well as the gate's: a member reads as the community, anyone else as the public.
    const access = await atlas.atlasAccess(db, ctx.community.id, isMember(ctx.viewer) ? 'community' : 'public');
    if (!access || !access.enabled) return 'not-found';
    if (access.hidden) return 'gate';
    const [categories, hotspots] = await Promise.all([
      atlas.listCategories(db, access),
      atlas.listHotspots(db, access, { limit: ATLAS_MAX_HOTSPOTS, offset: 0 }),
    ]);
    const byCategory = groups(categories, hotspots.items);
    const categoryName = new Map(categories.map((c) => [c.id, c.name]));
    const sections = byCategory.map(
      (g, i) => `<section aria-labelledby="atlas-cat-${i}">
<h2 id="atlas-cat-${i}">${escapeHtml(g.name)}</h2>
<ul class="hotspots">
${g.items.map(hotspotItem).join('\n')}
</ul>
</section>`,
    );
    const list = sections.length ? sections.join('\n') : '<p class="empty">No places on the atlas yet.</p>';
    if (!tiles || hotspots.items.length === 0) return { title: 'Atlas', main: `<h1>Atlas</h1>\n${list}` };
    const data = {
      leaflet: LEAFLET_MODULE_PATH,
      tiles: { url: tiles.url, attribution: tiles.attribution },
      hotspots: hotspots.items.map((h) => ({
        id: h.id,
        name: h.name,
        lat: h.latitude,
        lng: h.longitude,
        category: categoryName.get(h.categoryId) ?? null,
      })),
    };
    return {
      title: 'Atlas',
      main: `<h1>Atlas</h1>
<link rel="stylesheet" href="${LEAFLET_CSS_PATH}">
<div id="atlas-map" class="atlas-map" role="region" aria-label="Map of the places below"><p>The map needs JavaScript. Every place is in the list below.</p></div>
<script type="application/json" id="atlas-data">${jsonDataBlock(data)}</script>
<script type="module" src="${ATLAS_SCRIPT_PATH}"></script>
${list}`,
      csp: { 'script-src': ["'self'"], 'style-src': ["'self'"], 'img-src': [tiles.imgSrc] },
    };
  };
}
