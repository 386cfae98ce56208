// The server's entry to the widgets (built by vite.config.ts's `ssr` environment into
// dist/ssr/widgets.js, which server/site/widgets-ssr.ts imports): the same components the
// browser chunks render, rendered to a string for a declarative shadow root. The browser then
// hydrates that markup from the same state (widgets/lib/define-element.ts).
//
// The components read page-wide stores ($community, $session) and `location`; the server sets
// them for the one synchronous render and clears them after, so requests cannot see each other's.
import { h, options } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Community } from '../contract/resources.ts';
import footerCss from './footer/styles.css?inline';
import { Footer } from './footer/Footer.tsx';
import headerCss from './header/styles.css?inline';
import { Header } from './header/Header.tsx';
import { headerLook } from './header/look.ts';
import type { ApiClient } from './lib/api.ts';
import baseCss from './lib/base.css?inline';
import { $community } from './lib/community.ts';
import type { EmbedConfig } from './lib/contract.ts';
import type { WidgetProps } from './lib/define-element.ts';
import fieldsCss from './lib/forms/fields.css?inline';
import { $session, type SessionUser } from './lib/session.ts';
import { themeDeclarations } from './lib/theme.ts';
import { RsvpWidget } from './rsvp/RsvpWidget.tsx';
import rsvpCss from './rsvp/styles.css?inline';
import type { RsvpSeed } from './rsvp/store.ts';
import { DonateWidget } from './donate/DonateWidget.tsx';
import donateCss from './donate/styles.css?inline';
import type { DonateSeed } from './donate/store.ts';
import { ApplyWidget } from './apply/ApplyWidget.tsx';
import applyCss from './apply/styles.css?inline';
import type { ApplySeed } from './apply/store.ts';
import { MembersDirectory } from './members/MembersDirectory.tsx';
import membersCss from './members/styles.css?inline';
import type { MembersSeed } from './members/feed.ts';

export type { RsvpSeed, RsvpSsr } from './rsvp/store.ts';
export type { DonateSeed } from './donate/store.ts';
export type { ApplySeed } from './apply/store.ts';
export type { MembersSeed } from './members/feed.ts';
export type { SessionUser } from './lib/session.ts';

/**
 * Server only, and only without JavaScript (`scripting: none`): the header's menu button and
 * dropdowns need a script, so there the nav is always shown and each dropdown's links are listed
 * in place.
 */
const HEADER_NO_SCRIPT =
  '@media (scripting:none){.hdr .menu-btn{display:none}.nav{display:flex}.pop[hidden]{display:block;position:static;box-shadow:none;border:0}}';

/**
 * What only a visitor without JavaScript sees (the RSVP's plain-form parts, the donate block's
 * note). `<noscript>` is not used: inside a declarative shadow root it is parsed as markup and
 * shown or hidden by the browser's own rules, where this media query is exact.
 */
const NO_SCRIPT_ONLY = '.nojs{display:none}@media (scripting:none){.nojs{display:block}}';

/** The same styles and components as each widget's index.ts (defineWidget's `styles` and `render`). */
const WIDGETS = {
  header: { styles: headerCss + HEADER_NO_SCRIPT, render: (p: WidgetProps) => h(Header, p) },
  footer: { styles: footerCss, render: (p: WidgetProps) => h(Footer, p) },
  rsvp: { styles: fieldsCss + rsvpCss + NO_SCRIPT_ONLY, render: (p: WidgetProps) => h(RsvpWidget, p) },
  // A donation is a paid checkout, which needs a script: without one the form is not offered.
  donate: {
    styles: `${donateCss}@media (scripting:none){.svc{display:none}}`,
    render: (p: WidgetProps) => h(DonateWidget, p),
  },
  // Without a script the `/apply` page's own plain forms take its place (server/site/pages/apply.ts).
  apply: {
    styles: `${fieldsCss}${applyCss}@media (scripting:none){.svc{display:none}}`,
    render: (p: WidgetProps) => h(ApplyWidget, p),
  },
  // Its filter needs a script: without one the `/members` page's own list takes its place.
  members: {
    styles: `${membersCss}@media (scripting:none){.svc{display:none}}`,
    render: (p: WidgetProps) => h(MembersDirectory, p),
  },
} as const;

export type SsrWidgetName = keyof typeof WIDGETS;

export interface SsrInput {
  community: Community;
  /** The viewer as `/api/users/me` would give them to the header; null when signed out. */
  session: SessionUser | null;
  /** The page's absolute URL, as the browser will see it (`location.href` in the components). */
  href: string;
  /** The element's attributes (`current`, `route`, `event`). */
  attrs: Record<string, string | null>;
  /** The element's own state (RsvpSeed for `rsvp`, ApplySeed for `apply`, the unread count for `header`). */
  state?: RsvpSeed | DonateSeed | ApplySeed | MembersSeed | { unread: number };
  locale?: string;
}

export interface SsrOutput {
  /** The shadow root's markup after its `<style>`. */
  html: string;
  /** The shadow root's `<style>` text: exactly what the page's CSP hashes. */
  css: string;
}

// A CSS value that stays a value inside `<style>` text: no way out of the declaration, the rule or
// the element, and no fetches. The browser's theme sheet sets values through CSSOM instead; a
// value dropped here is only missing until hydration applies it there.
const SAFE_VALUE = /^[\w\s#.,%+\-/()'"]{1,200}$/;
const safeValue = (v: string) => SAFE_VALUE.test(v) && !/url\(|\\/i.test(v) && !/^[^"]*"[^"]*$|^[^']*'[^']*$/.test(v);

/**
 * The theme's custom properties (and `extra`: the header's look) as declarations, the same mapping
 * the widgets' theme sheet applies (widgets/lib/theme.ts); values that could leave the
 * declaration are dropped.
 */
export function themeDeclarationText(community: Community, extra: Record<string, string> = {}): string {
  return [...themeDeclarations(community.themeConfig), ...Object.entries(extra)]
    .filter(([, v]) => safeValue(v))
    .map(([k, v]) => `${k}:${v}`)
    .join(';');
}

/** `:host` custom properties of the theme (and the header's look), as the widgets' theme sheet sets them. */
export function themeRule(community: Community, extra: Record<string, string> = {}): string {
  const decls = themeDeclarationText(community, extra);
  return decls ? `:host{${decls}}` : '';
}

const serverApi = (origin: string): ApiClient => ({
  resolve: (path) => new URL(path, origin).href,
  // Components load data in effects, which a server render never runs.
  get: () => Promise.reject(new Error('no requests during a server render')),
});

// Inline `style` attributes are refused by the page's CSP (no 'unsafe-inline'): the server render
// leaves them out. Hydration does not set attributes, and later renders compare with the same
// values, so the browser never sets them either; what they carry must be in the `<style>` (the
// header's look is, as :host custom properties).
let rendering = false;
const previousVnode = options.vnode;
options.vnode = (vnode) => {
  if (rendering && typeof vnode.type === 'string' && vnode.props && 'style' in vnode.props)
    delete (vnode.props as { style?: unknown }).style;
  previousVnode?.(vnode);
};

/**
 * The segment cards' colours, which the browser render sets as an inline `--_segment` (dropped
 * here, see above): as rules in the `<style>` instead, for the values safeValue lets through.
 */
function segmentColors(seed: ApplySeed | undefined): string {
  return (seed?.segments ?? [])
    .filter((s) => /^[\w-]{1,100}$/.test(s.id) && s.color && safeValue(s.color))
    .map((s) => `.segment[data-segment="${s.id}"]{--_segment:${s.color}}`)
    .join('');
}

export function renderWidget(name: SsrWidgetName, input: SsrInput): SsrOutput {
  const widget = WIDGETS[name];
  const url = new URL(input.href);
  const config: EmbedConfig = {
    community: input.community.communityTag,
    key: null,
    api: url.origin,
    hosted: true,
    site: null,
  };
  const g = globalThis as { location?: unknown };
  const hadLocation = 'location' in g;
  const previous = g.location;
  g.location = url;
  $community.set({ status: 'ready', community: input.community });
  $session.set(input.session);
  rendering = true;
  try {
    const props: WidgetProps = {
      host: null as unknown as HTMLElement,
      config,
      api: serverApi(url.origin),
      attrs: { locale: null, ...input.attrs },
      locale: input.locale ?? 'en',
      state: input.state,
      emit: () => true,
    };
    const tree = h('div', { class: 'svc', part: 'root' }, widget.render(props));
    const html = renderToString(tree);
    const look = name === 'header' ? headerLook(input.community.storefrontConfig.header).vars : {};
    const extra = name === 'apply' ? segmentColors(input.state as ApplySeed | undefined) : '';
    return { html, css: baseCss + themeRule(input.community, look) + widget.styles + extra };
  } finally {
    rendering = false;
    $community.set({ status: 'idle' });
    $session.set(undefined);
    if (hadLocation) g.location = previous;
    else delete g.location;
  }
}
