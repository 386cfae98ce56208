// The one origin rule: which origins belong to a community. It is the guard behind every place a
// visitor can be sent or a page can act for the community: `next` after sign-in, `returnTo` of a
// provider sign-in, the return URLs of checkouts, the `origin` of an application's checkout, and
// the CORS of widget actions. Documented in docs/api.md, "The origin rule".
//
// A community's origins are
// - its embed origins (`embedOrigins`): the customer pages its widgets run on;
// - its landing site (the origin of `landingUrl`);
// - its hosted sites: each registered domain and `<tag>.localhost`, on the platform's scheme and port.
// Cross-origin widget actions (CORS, the publishable key's Origin) take the embed origins only: the
// hosted sites call same-origin, and a landing site that embeds widgets lists itself.
//
// A URL is judged the way a browser will read it: resolved with `new URL(target, base)` (dot
// segments, backslashes, tabs and newlines, encoded dots, case and default ports all settled by
// the WHATWG parser), then its origin compared. What is handed on is the normalised result,
// never the text that came in.
import type { Db } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';
import { CommunityCache } from './communities.ts';

/**
 * `scheme://host[:port]` as a browser serialises it in `Origin` (lower-case host, default port
 * dropped, IDN in punycode), or null for anything that is not a plain http(s) origin: `*`,
 * `null`, a path, a query, credentials. Stored embed origins are read through this, so a listed
 * `https://Shop.Example:443/` allows `https://shop.example`, and a malformed entry allows nothing.
 */
export function normalizeOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  // `new URL('https://a.example?')` has an empty search but the text had one: refuse that too.
  if (/[?#]/.test(text)) return null;
  return url.origin;
}

/** What the database says about a community's origins. */
export interface CommunityOrigins {
  id: string;
  tag: string;
  /** Normalised embed origins; malformed entries are dropped. */
  embeds: ReadonlySet<string>;
  /** The origin of `landingUrl`, or null. */
  landing: string | null;
  /** Registered custom domains, sorted. */
  domains: readonly string[];
}

const originsByTag = new CommunityCache<CommunityOrigins | null>();

function originOfUrl(text: string | null): string | null {
  if (!text) return null;
  try {
    return normalizeOrigin(new URL(text).origin);
  } catch {
    return null;
  }
}

/** The community's origins by tag, or null when there is no such community; cached (COMMUNITY_CACHE_MS). */
export function communityOrigins(db: Db, tag: string): Promise<CommunityOrigins | null> {
  return originsByTag.get(db, tag, async () => {
    const row = await db
      .selectFrom('communities')
      .select(['id', 'tag', 'embed_origins', 'landing_url'])
      .where('tag', '=', tag)
      .executeTakeFirst();
    if (!row) return null;
    const domains = await db
      .selectFrom('community_domains')
      .select('hostname')
      .where('community_id', '=', row.id)
      .orderBy('hostname')
      .execute();
    const listed = parseJson<unknown>(row.embed_origins, []);
    const embeds = new Set<string>();
    for (const entry of Array.isArray(listed) ? listed : []) {
      const origin = typeof entry === 'string' ? normalizeOrigin(entry) : null;
      if (origin) embeds.add(origin);
    }
    return {
      id: row.id,
      tag: row.tag,
      embeds,
      landing: originOfUrl(row.landing_url),
      domains: domains.map((d) => d.hostname),
    };
  });
}

/**
 * The community's own sites, in the order a default return goes to: its landing site, its
 * registered domains, then `<tag>.localhost`. Hosted sites are on the platform's scheme and port
 * (`platformUrl`, SVC_PUBLIC_URL).
 */
export function communitySites(c: CommunityOrigins, platformUrl: string): string[] {
  const platform = new URL(platformUrl);
  const hosted = (host: string) =>
    normalizeOrigin(`${platform.protocol}//${host}${platform.port ? `:${platform.port}` : ''}`);
  const sites = [c.landing, ...c.domains.map(hosted), hosted(`${c.tag}.localhost`)];
  return [...new Set(sites.filter((o): o is string => o !== null))];
}

/**
 * Every origin that belongs to the community (none for no community), plus `here`: the site a
 * request is on, when the caller has established that it is this community's (or the platform's).
 */
export function ownOrigins(
  c: CommunityOrigins | null,
  platformUrl: string,
  ...here: Array<string | null>
): Set<string> {
  const own = new Set(c ? [...c.embeds, ...communitySites(c, platformUrl)] : []);
  for (const origin of here) if (origin) own.add(origin);
  return own;
}

/**
 * `target` resolved against `base` as a browser resolves a link on that page, when the result is
 * an http(s) URL without credentials whose origin is one of `allowed`; else null.
 */
export function resolveOwnUrl(target: string, base: string, allowed: ReadonlySet<string>): URL | null {
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password) return null;
  return allowed.has(url.origin) ? url : null;
}

// What the URL parser itself strips before it starts: leading and trailing C0 controls and
// spaces, and every tab and newline. A scheme is judged on what is left, as the browser will.
const PARSER_STRIPS = /^[\u0000-\u0020]+|[\u0000-\u0020]+$|[\t\n\r]/g;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const MAX_TARGET_LENGTH = 2000;

/**
 * Where a visitor may be sent after signing in (`next`, `returnTo`), as text safe to hand to a
 * browser, else `/`. `site` is the origin of the page the visitor is on (what a relative target
 * is resolved against); `allowed` the other origins it may lead to (the community's, per the
 * origin rule; `site` always counts). Resolved as the browser will (so `/.//evil.example`,
 * `/%2e//evil.example` and `/\evil.example` are recognised as the other host they are), then
 * - a target on `site` given as a path stays a path (`pathname + search + hash`), so it follows
 *   the scheme the visitor is really on; one whose path starts with `//` is refused, because a
 *   browser would read that path as another host;
 * - an absolute URL on an allowed origin becomes its normalised `href`;
 * - anything else (another origin, `javascript:`, `data:`, credentials, not a string, longer
 *   than 2000 characters) is `/`.
 * `pathOnly` limits the answer to paths on `site` (a provider sign-in can only come back here).
 */
export function safeReturnTarget(
  target: unknown,
  site: string,
  allowed: ReadonlySet<string> = new Set(),
  opts: { pathOnly?: boolean } = {},
): string {
  if (typeof target !== 'string' || target.length === 0 || target.length > MAX_TARGET_LENGTH) return '/';
  const here = normalizeOrigin(site);
  if (!here) return '/';
  const url = resolveOwnUrl(target, here, opts.pathOnly ? new Set([here]) : new Set([...allowed, here]));
  if (!url) return '/';
  const absolute = HAS_SCHEME.test(target.replace(PARSER_STRIPS, ''));
  if (url.origin === here && (!absolute || opts.pathOnly)) {
    return url.pathname.startsWith('//') ? '/' : `${url.pathname}${url.search}${url.hash}`;
  }
  return opts.pathOnly ? '/' : url.href;
}

/**
 * The URL fields whose origin is not one of `allowed`, by field name. Return URLs are normalised
 * by their schema (contract/common.ts ReturnUrl) before they get here; this judges where they lead.
 */
export function foreignReturnUrls(
  allowed: ReadonlySet<string>,
  urls: ReadonlyArray<readonly [field: string, url: string | undefined]>,
): string[] {
  return urls
    .filter(([, url]) => url !== undefined && resolveOwnUrl(url, 'http://base.invalid', allowed) === null)
    .map(([field]) => field);
}
