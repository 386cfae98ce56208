// Turns a widget description into the module the loader's element class delegates to: Preact
// rendered into an open shadow root, styled only through adopted constructable stylesheets
// (nothing injected, so a strict `style-src` CSP on the host page is no obstacle).
//
// The light DOM of the element is the no-JS fallback: a customer writes
// `<svc-events><a href="https://acme.example/events">Events</a></svc-events>`. Once the shadow
// root is attached, un-slotted light children are no longer rendered, so the link disappears
// exactly when the widget takes over, and stays for visitors without JavaScript.
//
// On the hosted site the server has rendered the widget already, into a declarative shadow root
// (`<template shadowrootmode="open">`), with the state it rendered from in a
// `<script type="application/json">`: the page-wide one (`#svc-state`: the community, who is
// signed in) and the element's own (its child). The first render then hydrates that markup from
// the same state, without a fetch, so it matches what is on screen (docs/hosted-site.md).
import { h, hydrate, render, type ComponentChild } from 'preact';
import baseCss from './base.css?inline';
import { createApiClient, type ApiClient } from './api.ts';
import { $community, loadCommunity, seedCommunity } from './community.ts';
import type { EmbedConfig, WidgetModule } from './contract.ts';
import { resolveLocale } from './format.ts';
import { emit } from './host-events.ts';
import { pageState } from './page-state.ts';
import { createThemeSheet } from './theme.ts';

export interface WidgetProps {
  host: HTMLElement;
  config: EmbedConfig;
  api: ApiClient;
  /** Current values of the widget's observed attributes (null = absent). */
  attrs: Record<string, string | null>;
  locale: string | undefined;
  /** The state the server rendered this element from (its JSON block), when it did. */
  state?: unknown;
  /** `svc:<widget>:<event>` on the host element; false when a listener prevented the default. */
  emit<T>(event: string, detail: T, cancelable?: boolean): boolean;
}

export interface WidgetSpec {
  /** The tag without `svc-`, also the middle part of host page event names. */
  name: string;
  styles: string;
  /** Attributes whose changes re-render the widget (`locale` is always watched). */
  attributes: readonly string[];
  /**
   * The values an attribute takes, for the install doctor (`theme` is checked on every widget;
   * the doctor chunk puts the pattern into words). Attributes left out take anything.
   */
  values?: Record<string, RegExp>;
  render(props: WidgetProps): ComponentChild;
}

const THEME_VALUES = /^(light|dark|auto)$/;

function sheetOf(css: string): CSSStyleSheet {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  return sheet;
}

const json = (el: Element | null | undefined) => el && JSON.parse(el.textContent!);

// Page-wide and created on first use: the runtime chunk may be evaluated before any widget
// connects, and none of this is needed until one does.
let page: { base: CSSStyleSheet; theme: CSSStyleSheet } | undefined;
function pageSheets(config: EmbedConfig) {
  if (!page) {
    // Before the theme sheet subscribes: its first values are the server's.
    // (The viewer in the same block seeds $session, in session.ts: only widgets that show who is
    // signed in load it.)
    const state = pageState();
    if (state) seedCommunity(config.community, state.community);
    const theme = createThemeSheet();
    $community.subscribe((state) => {
      theme.apply(state.status === 'ready' ? state.community.themeConfig : null);
      if (state.status === 'error' && state.error.code === 'NOT_FOUND')
        config.diagnose?.({ kind: 'unknown-community' });
    });
    page = { base: sheetOf(baseCss), theme: theme.sheet };
  }
  return page;
}

const clients = new WeakMap<EmbedConfig, ApiClient>();
function clientFor(config: EmbedConfig): ApiClient {
  let client = clients.get(config);
  if (!client) clients.set(config, (client = createApiClient(config)));
  return client;
}

interface Mounted {
  root: ShadowRoot;
  observer: MutationObserver;
}

export function defineWidget(spec: WidgetSpec): WidgetModule {
  const mounted = new WeakMap<HTMLElement, Mounted>();
  const watched = [...new Set([...spec.attributes, 'locale'])];
  let sheet: CSSStyleSheet | undefined;

  return {
    connect(host, config) {
      // Still mounted: the element was moved, and its disconnect has not torn it down.
      if (mounted.has(host)) return;
      const { base, theme } = pageSheets(config);
      let root = host.shadowRoot;
      // Server-rendered: hydrate once, with the state it was rendered from.
      let paint = root?.firstChild ? hydrate : render;
      const state = json(host.querySelector(':scope>script[type="application/json"]'));
      root ??= host.attachShadow({ mode: 'open' });
      root.adoptedStyleSheets = [base, theme, (sheet ??= sheetOf(spec.styles))];

      const api = clientFor(config);
      loadCommunity(api, config.community);

      const update = () => {
        const attrs: Record<string, string | null> = {};
        for (const name of watched) attrs[name] = host.getAttribute(name);
        const props: WidgetProps = {
          host,
          config,
          api,
          attrs,
          locale: resolveLocale(host),
          state,
          emit: (event, detail, cancelable) => emit(host, spec.name, event, detail, cancelable),
        };
        paint(h('div', { class: 'svc', part: 'root' }, spec.render(props)), root!);
        paint = render;
        // Own entries only: a host script may have added enumerable ones to Object.prototype.
        for (const [name, pattern] of Object.entries({ ...spec.values, theme: THEME_VALUES })) {
          const value = host.getAttribute(name);
          if (value !== null && !pattern.test(value))
            config.diagnose?.({ kind: 'attribute', tag: host.localName, name, value, pattern: pattern.source });
        }
      };
      // The loader's element class is generic and declares no observedAttributes, so the
      // widget watches its own attributes.
      const observer = new MutationObserver(update);
      observer.observe(host, { attributes: true, attributeFilter: watched });
      mounted.set(host, { root, observer });
      update();
      // theme auto (base.css): a `color-scheme` the page declares, on the root, the element or
      // an ancestor (inherited, so one read of the element's own), is followed; a page that
      // declares none leaves the visitor's preference. Read once, after the first paint (which,
      // hydrating, does not touch the class): a later switch between declared schemes is still
      // followed, by inheritance.
      if (getComputedStyle(host).colorScheme !== 'normal') root.querySelector('.svc')!.classList.add('page-scheme');
    },

    disconnect(host) {
      const m = mounted.get(host);
      if (!m) return;
      // Moving an element disconnects and reconnects it in one task; only tear down (and so
      // abort requests and drop state) when it is really gone.
      queueMicrotask(() => {
        if (host.isConnected || mounted.get(host) !== m) return;
        m.observer.disconnect();
        render(null, m.root);
        mounted.delete(host);
      });
    },
  };
}
