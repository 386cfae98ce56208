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
  /** `data-debug` on the loader: log what each widget mounted and fetched. */
  debug?: boolean;
  /**
   * The install doctor (loader/index.ts): explains the first install problem on the page in one
   * console message with its fix, and stays silent after that. Absent where no loader runs (SSR).
   */
  diagnose?(problem: Problem): void;
  /** With `data-debug`: told of each widget once it has mounted. */
  mounted?(host: HTMLElement): void;
}

/** The install doctor's chunk (widgets/lib/doctor/), which the loader imports on a problem or `data-debug`. */
export interface Doctor {
  /** Writes the one console message for `problem` (the loader makes sure it is the page's first). */
  report(problem: Problem, config: EmbedConfig): void;
  debug(config: EmbedConfig): void;
}

/**
 * An install problem the doctor can explain (widgets/lib/doctor/, docs/widgets.md
 * "Troubleshooting"). `tag` is the element's tag name.
 */
export type Problem =
  /** No `data-key` on a page that is not the community's hosted site. */
  | { kind: 'no-key' }
  /** The platform knows no community `data-community` names (404 from the community fetch). */
  | { kind: 'unknown-community' }
  /** A widget action refused with 403 ORIGIN_NOT_ALLOWED: this page is not an embed origin. */
  | { kind: 'origin-not-allowed' }
  /** The page's Content-Security-Policy blocked a request to the platform. */
  | { kind: 'csp'; directive: string; blocked: string }
  /** A widget's chunk could not be imported (and no CSP violation said why). */
  | { kind: 'chunk'; tag: string; url: string }
  /** Another script defined one of our tags first. */
  | { kind: 'foreign-tag'; tag: string }
  /** Another svc loader, for another community, defined the tags first. */
  | { kind: 'other-community'; tag: string; other: string }
  /** An attribute value the widget does not know; `pattern` (a RegExp's source) is what it takes. */
  | { kind: 'attribute'; tag: string; name: string; value: string; pattern: string };

/** The default export of every widget chunk. The loader's element class delegates to it. */
export interface WidgetModule {
  connect(host: HTMLElement, config: EmbedConfig): void;
  disconnect(host: HTMLElement): void;
}
