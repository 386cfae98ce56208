// Which requests on a community's host the chrome proxy answers (docs/chrome-proxy.md). The spec's
// route table names each page key's routes and sub-routes; a key in `storefrontConfig.externalPages`
// is served from the customer's `landingUrl` (with the built-in page behind it for a real 404), and
// a page the leader disabled is "yielded to the customer's landing host" (no built-in page behind
// it: the not-found page). Both only with `storefrontConfig.chromeProxy.enabled` and a landing URL.
import type { CommunityRow } from '../../db/schema.ts';
import { parseJson } from '../../db/ids.ts';
import { PAGE_KEYS } from '../../../contract/enums.ts';
import type { PageKey } from '../../domain/page-access.ts';

/** The spec's route table: a key's route, and everything under it. HOME is `/` alone. */
const ROUTE_PREFIXES: ReadonlyArray<readonly [string, PageKey]> = [
  ['/events', 'EVENTS'],
  ['/marketplace', 'MARKETPLACE'],
  ['/feed', 'FEED'],
  ['/members', 'MEMBERS'],
  ['/atlas', 'ATLAS'],
  ['/blog', 'BLOG'],
  ['/conversations', 'CHAT'],
];

/** The page key whose routes a path belongs to, or null (`/apply`, `/sign-in`, `/robots.txt`...). */
export function pageKeyOfPath(path: string): PageKey | null {
  if (path === '/') return 'HOME';
  // The calendar of every event is the EVENTS page's file, beside its route rather than under it.
  if (path === '/events.ics') return 'EVENTS';
  for (const [prefix, key] of ROUTE_PREFIXES) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return key;
  }
  return null;
}

export type ProxyMode =
  /** Listed in externalPages: the customer's page, the built-in one when the customer's answers 404. */
  | 'external'
  /** Disabled by the leader: the customer's page, the not-found page when it answers 404. */
  | 'yielded';

/** One request's upstream: where it is fetched from and how its answer is dressed. */
export interface ProxyTarget {
  mode: ProxyMode;
  pageKey: PageKey;
  /** The landing URL: origin plus base path, the path without a trailing slash. */
  landing: URL;
  /** `<landingUrl><path>?<query>`. */
  upstreamUrl: URL;
  /** chromeProxy.headless: the customer's page places <svc-header> and <svc-footer> itself. */
  headless: boolean;
}

/** The parts of a community's settings the proxy reads, read once per community row. */
export interface ProxySettings {
  landing: URL;
  headless: boolean;
  external: ReadonlySet<PageKey>;
  disabled: ReadonlySet<PageKey>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPageKey = (v: unknown): v is PageKey => typeof v === 'string' && (PAGE_KEYS as readonly string[]).includes(v);

/**
 * The landing URL as the proxy uses it: http(s), no credentials, query or fragment, the base path
 * without its trailing slash. Anything else is no landing URL at all (the proxy stays off).
 */
export function landingBase(text: string | null | undefined): URL | null {
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url;
}

const settingsCache = new WeakMap<CommunityRow, ProxySettings | null>();

/** The proxy's settings of a community, or null when the proxy is off or has nowhere to fetch from. */
export function proxySettingsOf(community: CommunityRow): ProxySettings | null {
  const known = settingsCache.get(community);
  if (known !== undefined) return known;
  const settings = readProxySettings(community);
  settingsCache.set(community, settings);
  return settings;
}

function readProxySettings(community: CommunityRow): ProxySettings | null {
  let storefront: unknown;
  let pages: unknown;
  try {
    storefront = parseJson<unknown>(community.storefront_config, null);
    pages = parseJson<unknown>(community.page_settings, null);
  } catch {
    // Unreadable settings: the built-in pages, whose gate closes every page on them.
    return null;
  }
  if (!isRecord(storefront) || !isRecord(storefront.chromeProxy) || storefront.chromeProxy.enabled !== true)
    return null;
  const landing = landingBase(community.landing_url);
  if (!landing) return null;
  const external = new Set(Array.isArray(storefront.externalPages) ? storefront.externalPages.filter(isPageKey) : []);
  // Only a page the settings say is off is yielded; unreadable page settings yield nothing.
  const disabled = new Set<PageKey>();
  if (Array.isArray(pages)) {
    for (const entry of pages) {
      if (isRecord(entry) && isPageKey(entry.pageKey) && entry.enabled === false) disabled.add(entry.pageKey);
    }
  }
  return { landing, headless: storefront.chromeProxy.headless === true, external, disabled };
}

/** The upstream URL of a path on the community site: the landing URL's base path, then the path and query. */
export function upstreamUrlOf(landing: URL, pathAndQuery: string): URL {
  const base = landing.pathname === '/' ? '' : landing.pathname;
  return new URL(`${base}${pathAndQuery}`, landing.origin);
}

/**
 * What the proxy does with a request (`originalUrl`: path and query as sent), or null when the
 * built-in site answers it alone. A disabled page is yielded before externalPages is read: the
 * spec's order puts "disabled" first.
 */
export function proxyTargetFor(community: CommunityRow, originalUrl: string): ProxyTarget | null {
  const settings = proxySettingsOf(community);
  if (!settings) return null;
  const queryAt = originalUrl.indexOf('?');
  const path = queryAt === -1 ? originalUrl : originalUrl.slice(0, queryAt);
  const pageKey = pageKeyOfPath(path);
  if (pageKey === null) return null;
  const mode: ProxyMode | null = settings.disabled.has(pageKey)
    ? 'yielded'
    : settings.external.has(pageKey)
      ? 'external'
      : null;
  if (mode === null) return null;
  const upstreamUrl = upstreamUrlOf(settings.landing, originalUrl);
  // Dot segments (`/blog/../admin`, which no browser sends) would be resolved by the URL parser
  // to a path outside the page's route: such a request is not the page's to proxy.
  if (communityPathOf(settings.landing, upstreamUrl) !== path) return null;
  return { mode, pageKey, landing: settings.landing, upstreamUrl, headless: settings.headless };
}

/**
 * The community path of a landing-host URL (its path with the landing base path removed), or null
 * when the URL is elsewhere on the landing host or on another origin.
 */
export function communityPathOf(landing: URL, url: URL): string | null {
  if (url.origin !== landing.origin) return null;
  const base = landing.pathname === '/' ? '' : landing.pathname;
  if (base === '') return url.pathname;
  if (url.pathname === base) return '/';
  return url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : null;
}
