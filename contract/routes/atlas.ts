import { z } from 'zod';
import { CommunityTag, Limit, OptionalOffset, pageVisibilityNote, Uuid } from '../common.ts';
import { AtlasCategory, AtlasHotspot } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

/** A bounding box in WGS-84 degrees; `minLon > maxLon` is a box that crosses the antimeridian. */
export interface Bbox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

// Plain decimals only: Number() would also take "0x1f", "1e3", "Infinity" and " ".
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const BBOX_HELP = 'must be minLon,minLat,maxLon,maxLat in decimal degrees';

/** `minLon,minLat,maxLon,maxLat` -> Bbox, or the reason it is not one. */
export function parseBbox(value: string): Bbox | string {
  const parts = value.split(',');
  if (parts.length !== 4 || !parts.every((p) => DECIMAL.test(p.trim()))) return BBOX_HELP;
  const [minLon, minLat, maxLon, maxLat] = parts.map((p) => Number(p.trim()));
  if ([minLon, maxLon].some((lon) => lon < -180 || lon > 180)) return 'longitudes must be between -180 and 180';
  if ([minLat, maxLat].some((lat) => lat < -90 || lat > 90)) return 'latitudes must be between -90 and 90';
  if (minLat > maxLat) return 'minLat must not be greater than maxLat';
  return { minLon, minLat, maxLon, maxLat };
}

const BboxParam = z
  .string()
  .transform((value, ctx) => {
    const parsed = parseBbox(value);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: parsed, input: value });
      return z.NEVER;
    }
    return parsed;
  })
  .describe(
    '`minLon,minLat,maxLon,maxLat` (WGS-84 decimal degrees, edges included). minLon > maxLon selects a box that ' +
    'crosses the antimeridian (e.g. `170,-20,-170,20`).',
  );

export const listAtlasHotspots = route({
  operationId: 'listAtlasHotspots',
  method: 'get',
  path: `${base}/atlas/hotspots`,
  tag: 'Atlas',
  summary: 'List atlas hotspots',
  description:
    'The hotspots of the community\'s atlas by name, optionally only one category and only those inside a bounding ' +
    'box. Pages with `limit` and `offset`; `X-Total-Count` counts the matches. On all atlas routes: 403 ' +
    `FEATURE_NOT_ENABLED when the community does not have the atlas. ${pageVisibilityNote('ATLAS')}`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  query: z
    .object({
      limit: Limit,
      offset: OptionalOffset.describe('default 0'),
      category: z.string().min(1).max(64).optional().describe('an AtlasCategory id; an unknown one matches nothing'),
      bbox: BboxParam.optional(),
    })
    .strict(),
  response: { status: 200, schema: z.array(AtlasHotspot), description: 'A page of hotspots', paginated: true },
  errors: [400, 401, 403, 429],
});

export const getAtlasHotspot = route({
  operationId: 'getAtlasHotspot',
  method: 'get',
  path: `${base}/atlas/hotspots/{hotspotId}`,
  tag: 'Atlas',
  summary: 'Get one atlas hotspot',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ hotspotId: Uuid }),
  response: { status: 200, schema: AtlasHotspot, description: 'The hotspot' },
  errors: [400, 401, 403, 404, 429],
});

export const listAtlasCategories = route({
  operationId: 'listAtlasCategories',
  method: 'get',
  path: `${base}/atlas/categories`,
  tag: 'Atlas',
  summary: 'List atlas categories',
  description: 'Every category of the atlas in display order (not paged: an atlas has few).',
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  response: { status: 200, schema: z.array(AtlasCategory), description: 'The categories' },
  errors: [401, 403, 429],
});

export const ATLAS_ROUTES = [listAtlasHotspots, getAtlasHotspot, listAtlasCategories];
