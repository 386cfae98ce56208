// The install doctor's words: one message per install problem, saying what is wrong and the fix.
// A chunk of its own, imported by the loader only once a problem is seen (loader/index.ts), so a
// page that is set up right never downloads it; it imports nothing. When this chunk cannot be
// loaded either (the page's CSP or the network keeps the platform's scripts out) the loader says
// so in its one message of its own. docs/widgets.md, "Troubleshooting / install doctor", lists
// every message: keep the two in step.
import type { EmbedConfig, Problem } from '../contract.ts';

/** Where the problem was seen: the page, the loader's settings. */
export interface Seen {
  community: string;
  /** The platform origin the widgets call (`data-api`, else where loader.js came from). */
  api: string;
  /** This page's origin. */
  page: string;
}

const DOCS = 'docs/widgets.md#troubleshooting--install-doctor';

export function explain(problem: Problem, seen: Seen): string {
  const { community, api, page } = seen;
  switch (problem.kind) {
    case 'no-key':
      return (
        `loader.js has no data-key, so the widgets on ${page} would call ${page} itself instead of ${api}. ` +
        `Add data-key="pk_live_..." to the loader's <script> tag: community "${community}"'s publishable key ` +
        `(GET ${api}/v1/communities/${community}/publishable-key, or the leader console's Integrations page). ` +
        `Only the community's hosted site leaves it out. (${DOCS})`
      );
    case 'unknown-community':
      return (
        `${api} has no community "${community}" (data-community on loader.js). ` +
        `Check the tag: it is the community's tag as in its address, e.g. data-community="acme". (${DOCS})`
      );
    case 'origin-not-allowed':
      return (
        `${page} is not one of community "${community}"'s embed origins, so RSVPs, donations and applications ` +
        `from this page are refused (403 ORIGIN_NOT_ALLOWED). Add ${page} to the embed origins: ` +
        `the leader console's Settings page (/admin/settings, "Site", embed origins one per line), ` +
        `or "embedOrigins" with svc community update ${community} <file>. (${DOCS})`
      );
    case 'csp':
      return (
        `this page's Content-Security-Policy (${problem.directive}) blocked ${problem.blocked}. ` +
        `Allow ${api} in the page's script-src, connect-src and img-src. (${DOCS})`
      );
    case 'chunk':
      return (
        `<${problem.tag}> could not load its code from ${problem.url}. Check that ${api} is reachable from ` +
        `this page and that its Content-Security-Policy allows it (script-src). (${DOCS})`
      );
    case 'foreign-tag':
      return (
        `<${problem.tag}> was already defined by another script on this page, so it is not svc's widget. ` +
        `Remove the other script (or its definition of ${problem.tag}). (${DOCS})`
      );
    case 'other-community':
      return (
        `two svc loaders are on this page, for "${problem.other}" and "${community}"; the first one owns the tags, ` +
        `so every widget shows "${problem.other}". Keep one loader: one community per page. (${DOCS})`
      );
    case 'attribute':
      return (
        `<${problem.tag} ${problem.name}="${problem.value}">: "${problem.value}" is not a value of ${problem.name}; ` +
        `use ${expected(problem.name, problem.pattern)}. (${DOCS})`
      );
  }
}

/** The loader's one console message for the page's first problem. */
export function report(problem: Problem, config: EmbedConfig): void {
  console.error(`[svc] ${explain(problem, { community: config.community, api: config.api, page: location.origin })}`);
}

/** Words for the patterns widgets declare (WidgetSpec.values) that are not a list of words. */
const WORDS: Record<string, string> = { limit: 'a whole number from 1 to 100' };

/** `^(light|dark|auto)$` -> `"light", "dark" or "auto"`; other patterns by the attribute's name. */
export function expected(name: string, pattern: string): string {
  const words = /^\^\(([\w|-]+)\)\$$/.exec(pattern)?.[1].split('|');
  if (!words) return Object.hasOwn(WORDS, name) ? WORDS[name] : `a value matching /${pattern}/`;
  const quoted = words.map((w) => `"${w}"`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0];
}

/** Platform paths worth a debug line: the API, the site API and the widget chunks. */
const PLATFORM_PATH = /^\/(v1|api|widgets)\//;

/**
 * `data-debug`: one console line per widget as it mounts (the loader calls `config.mounted`) and
 * per request to the platform, with its status, from the browser's resource timing (so the
 * runtime carries no logging of its own; requests made before this chunk arrived are buffered).
 */
export function debug(config: EmbedConfig): void {
  const origin = config.hosted ? location.origin : config.api;
  const calls = config.hosted ? `${origin} (same-origin, no key)` : `${origin} with key ${config.key}`;
  config.mounted = (host) => {
    const attributes = [...host.attributes].map((a) => ` ${a.name}="${a.value}"`).join('');
    console.info(`[svc] <${host.localName}${attributes}> mounted: community "${config.community}", calls ${calls}`);
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      const url = new URL(entry.name);
      if (url.origin !== origin || !PLATFORM_PATH.test(url.pathname)) continue;
      // 0 when the browser hides it (a cross-origin answer without CORS).
      console.info(`[svc] fetched ${entry.name} (${entry.responseStatus || 'status not exposed'})`);
    }
  }).observe({ type: 'resource', buffered: true });
}
