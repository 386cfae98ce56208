// The seam between the loader (a classic script, tiny, loaded on every page) and the widget
// chunks (ES modules, loaded only when their tag is on the page). Types only: the loader must
// not pull a single byte of the widget runtime into itself.

/** What the loader reads from its own `<script>` tag, handed to every widget on the page. */
export interface EmbedConfig {
  /** The community tag (`data-community`). */
  community: string;
  /** The publishable key (`data-key`), or null on the hosted apex without one. */
  key: string | null;
  /** Origin of the platform API (`data-api`, else the origin the loader was served from). */
  api: string;
  /** True when the page is the platform origin itself (or no key was given): same-origin calls with cookies. */
  hosted: boolean;
  /** Explicit community site origin (`data-site`), for links to hosted pages. */
  site: string | null;
}

/** The default export of every widget chunk. The loader's element class delegates to it. */
export interface WidgetModule {
  connect(host: HTMLElement, config: EmbedConfig): void;
  disconnect(host: HTMLElement): void;
}
