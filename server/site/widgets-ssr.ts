// The widgets on hosted pages, rendered on the server (docs/hosted-site.md, "How pages are made").
// `npm run build` writes the server's build of the widget components to dist/ssr/widgets.js
// (vite.config.ts, the `ssr` environment) next to the browser chunks and their manifest; this
// module imports it once and renders each `<svc-x>` as
//   <svc-x attrs><template shadowrootmode="open"><style>CSS</style>MARKUP</template>[state]</svc-x>
// so the widget is in the first paint, with or without JavaScript, and the browser chunk hydrates
// it in place. A page collects what its widgets need: the hash of each `<style>` for the CSP, and
// the chunks to preload (its widgets' only, never another's).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Community } from '../../contract/resources.ts';
import type { WidgetManifest } from '../../vite.config.ts';
import type * as Ssr from '../../widgets/ssr.tsx';
import { escapeHtml } from '../shared/html.ts';

export type SessionUser = Ssr.SessionUser;
export type RsvpSeed = Ssr.RsvpSeed;
export type SsrWidgetName = Ssr.SsrWidgetName;
/** An element's own state: the RSVP's event, tiers and forms; the apply widget's segments and forms; the header's unread count. */
export type ElementState = RsvpSeed | Ssr.DonateSeed | Ssr.ApplySeed | Ssr.MembersSeed | { unread: number };

/** The built bundle: the server module and the browser chunks' manifest. */
export interface WidgetBuild {
  ssr: typeof Ssr;
  manifest: WidgetManifest;
}

const builds = new Map<string, Promise<WidgetBuild>>();

/** The build under `distDir` (dist/), loaded once per process. */
export function loadWidgetBuild(distDir: string): Promise<WidgetBuild> {
  let build = builds.get(distDir);
  if (!build) {
    build = (async () => {
      const file = path.join(distDir, 'ssr', 'widgets.js');
      const manifestFile = path.join(distDir, 'widgets.manifest.json');
      if (!fs.existsSync(file) || !fs.existsSync(manifestFile))
        throw new Error(`The widget build is missing (${file}): run \`npm run build\`.`);
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as WidgetManifest;
      return { ssr: (await import(pathToFileURL(file).href)) as typeof Ssr, manifest };
    })();
    // A failed load is tried again on the next page (after a build, say).
    build.catch(() => builds.delete(distDir));
    builds.set(distDir, build);
  }
  return build;
}

/**
 * JSON for a `<script type="application/json">` block: never executed, and with `<`, `>` and `&`
 * escaped so no text in it can close the element (`</script>`) or open a comment.
 */
export function jsonBlock(value: unknown, id?: string): string {
  const json = JSON.stringify(value ?? null)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<script type="application/json"${id ? ` id="${id}"` : ''}>${json}</script>`;
}

export const cspHash = (text: string): string =>
  `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;

/** One page's widgets: renders them, and remembers their styles and chunks for the page's head and CSP. */
export class PageWidgets {
  private readonly styles = new Set<string>();
  private readonly names = new Set<string>();

  constructor(
    private readonly build: WidgetBuild,
    /** The community (its nav already the viewer's), the viewer and this page's absolute URL. */
    readonly input: { community: Community; session: SessionUser | null; href: string },
  ) {}

  /**
   * `<svc-{name}>` rendered. `attrs` become the element's attributes (escaped); `state` is the
   * element's own JSON block (not executed), what the browser hydrates from. `noscript` (HTML,
   * escaped by the caller) goes in the root after the widget in a `.nojs` box, shown only without
   * JavaScript (`@media (scripting: none)`); hydration leaves it there, hidden.
   */
  element(name: SsrWidgetName, attrs: Record<string, string>, state?: ElementState, noscript?: string): string {
    const { html, css } = this.build.ssr.renderWidget(name, { ...this.input, attrs, state });
    this.styles.add(css);
    this.names.add(name);
    const attributes = Object.entries(attrs)
      .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
      .join('');
    // The server-only part of the state (the no-JS form's CSRF token and markup) stays out of the block.
    const block = state ? jsonBlock({ ...state, ssr: undefined }) : '';
    // (renderWidget takes the element's state as the component's `state` prop, whatever the widget.)
    return `<svc-${name}${attributes}><template shadowrootmode="open"><style>${css}</style>${html}${noscript ? `<div class="nojs">${noscript}</div>` : ''}</template>${block}</svc-${name}>`;
  }

  /** The community's theme as custom-property declarations, for the page's own `:root`. */
  themeDeclarations(): string {
    return this.build.ssr.themeDeclarationText(this.input.community);
  }

  /** CSP sources for every `<style>` in the widgets' shadow roots. */
  styleHashes(): string[] {
    return [...this.styles].map(cspHash);
  }

  /**
   * A browser module of the build that is not a widget (`console`, the console's islands): the
   * URLs of the chunks it imports and, last, its own; none when the build has no such entry.
   */
  entryFiles(name: 'console'): string[] {
    const entry = this.build.manifest.entries?.[name];
    return entry ? [...entry.imports, entry.file].map((f) => `/widgets/${f}`) : [];
  }

  /** The widget names on the page, in the order first rendered. */
  widgetNames(): string[] {
    return [...this.names];
  }

  /**
   * For `<head>`: the loader as a module (it defines the tags; a tag's chunk is imported when its
   * element connects, so only the page's widgets load) and a modulepreload for each chunk those
   * widgets need, so they download in parallel with the page. No inline script.
   */
  head(): string {
    if (this.names.size === 0) return '';
    const { manifest } = this.build;
    const files = new Set<string>();
    for (const name of this.names) {
      const widget = manifest.widgets[name];
      if (!widget) continue;
      for (const f of [...widget.imports, widget.file]) files.add(f);
    }
    const preloads = [...files].map((f) => `<link rel="modulepreload" href="/widgets/${escapeHtml(f)}">`);
    const tag = escapeHtml(this.input.community.communityTag);
    return [
      ...preloads,
      `<script type="module" src="/widgets/${escapeHtml(manifest.loader)}" data-community="${tag}"></script>`,
    ].join('\n');
  }

  /** For the end of `<body>`: the page-wide state every widget hydrates from (community, viewer). */
  stateBlock(): string {
    if (this.names.size === 0) return '';
    return jsonBlock({ community: this.input.community, session: this.input.session }, 'svc-state');
  }
}
