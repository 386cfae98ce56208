// Link templates: the attributes a customer puts on a widget so its links go to their own pages
// (`event-href="/events/{slug}"`, docs/widgets.md, "Where links go"). A chunk of its own
// (vite.config.ts, OTHER_ENTRIES): the other widgets import it with `shared`, and <svc-events>
// only when it has an `event-href`, so a page with default links downloads none of it.

const SAFE_PROTOCOL = /^(https?|mailto|tel):$/;

/** `href` resolved against `base`; null unless it is a web, mail or phone link. */
export function safeUrl(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return SAFE_PROTOCOL.test(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

const warned = new Set<string>();

/**
 * `template` (an attribute's value) with each `{name}` replaced by `values[name]` URL-encoded
 * (`{path}` keeps its slashes, but one at its start: it is a path the URL parser escaped already), resolved against the
 * page, so a relative template stays on the customer's site. Null without a template, and when
 * it names a placeholder it does not have or makes no web address: then the console says so
 * (once per template) and the caller keeps its default link.
 */
export function fillTemplate(attribute: string, template: string | null | undefined, values: Record<string, string>) {
  if (!template) return null;
  let unknown = '';
  const filled = template.replace(/\{([^{}]*)\}/g, (all, name: string) => {
    if (!Object.hasOwn(values, name)) unknown ||= all;
    // A path's leading slashes collapse to one: `//host/x` would otherwise leave for another host.
    return name === 'path' ? values[name].replace(/^\/+/, '/') : encodeURIComponent(values[name]);
  });
  // A relative template whose value put `//` at its start (`/{path}`) would name another host.
  const url = unknown ? null : safeUrl(template.startsWith('//') ? filled : filled.replace(/^\/+/, '/'), location.href);
  if (!url && !warned.has(attribute + template)) {
    warned.add(attribute + template);
    console.error(
      `[svc] ${attribute}="${template}": ${unknown ? `unknown placeholder ${unknown}` : 'not a web address'}` +
        ` (use ${Object.keys(values).map((name) => `{${name}}`)}); linking to the community's site instead`,
    );
  }
  return url;
}
