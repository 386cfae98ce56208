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

/** What all three atlas reads share. */
const ATLAS_NOTE =
  "Without the atlas feature (`atlas` in the community's `features`), every atlas route answers `403 FEATURE_NOT_ENABLED` " +
  '"Atlas is not enabled for this community", for every key and whether or not the hotspot exists: checked after the ' +
  'key, scope and query validation (a malformed `bbox` is still a 400), before any data is read. Then the page: ' +
  `${pageVisibilityNote('ATLAS')} Cached like the other public reads.`;

export const listAtlasHotspots = route({
  operationId: 'listAtlasHotspots',
  method: 'get',
  path: `${base}/atlas/hotspots`,
  tag: 'Atlas',
  summary: 'List atlas hotspots',
  description:
    "The hotspots of the community's atlas by name (ties by id), optionally only one category and only those inside a " +
    'bounding box. Pages with `limit` and `offset`; `X-Total-Count` counts the matches, exactly unless a `bbox` holds ' +
    'more than 1,000 of them: then counting stops and `X-Total-Count-Accuracy: lower-bound` says there are at least ' +
    'that many. ' +
    ATLAS_NOTE +
    '\n\n' +
    '`bbox=minLon,minLat,maxLon,maxLat`, WGS-84 decimal degrees, edges included. Each part is a plain decimal ' +
    '(`-122.5`, `+.5`): no exponents, hex, `Infinity` or `NaN`; longitudes within [-180, 180], latitudes within [-90, 90], ' +
    'and `minLat <= maxLat`. Anything else (three or five parts, an empty part, the parameter twice) is ' +
    '`400 INVALID_INPUT` with `extras.field` = `bbox`. `minLon > maxLon` is a box that crosses the 180° meridian: it ' +
    'selects longitudes `>= minLon` or `<= maxLon` (`170,-20,-170,20` is the strip around Fiji and Samoa; ' +
    '`-170,-20,170,20` the rest of the world). `minLon == maxLon` is a single meridian. There is no wrap for latitude: a ' +
    'box never crosses a pole. `category=<id>` keeps one category; an unknown id matches nothing (`[]`, not a 404).',
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
  description: `A malformed \`hotspotId\` is a 400, an unknown one 404 "Hotspot not found in this community". ${ATLAS_NOTE}`,
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
  description: `Every category of the atlas in display order (not paged: an atlas has few). ${ATLAS_NOTE}`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  response: { status: 200, schema: z.array(AtlasCategory), description: 'The categories' },
  errors: [401, 403, 429],
});

export const ATLAS_ROUTES = [listAtlasHotspots, getAtlasHotspot, listAtlasCategories];
