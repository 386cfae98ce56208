// `vite build` produces the whole widget bundle in dist/widgets/:
//   1. the widgets: one ES-module chunk per widget plus a shared `runtime` chunk, all with
//      content-hashed names (served with a one-year immutable cache);
//   2. loader.js: a classic IIFE with a fixed name (what customers paste), which must know the
//      hashed chunk names, so it is built second, reading the map the first build wrote.
// Both are Vite environments driven by one builder, so a plain `vite build` does everything.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const OUT_DIR = path.join(ROOT, 'dist/widgets');
/** Outside OUT_DIR so the static server never publishes it; scripts/check-size.ts reads it. */
export const MANIFEST_FILE = path.join(ROOT, 'dist/widgets.manifest.json');
/**
 * The server's build of the same widget components (widgets/ssr.tsx), which the hosted site
 * renders into declarative shadow roots (docs/hosted-site.md, "How pages are made"). Outside
 * OUT_DIR, so it is never published; the server imports it.
 */
export const SSR_DIR = path.join(ROOT, 'dist/ssr');

/** Every widget tag the loader knows, as `svc-<name>`; a tag is defined once its folder exists. */
export const WIDGETS = ['events', 'rsvp', 'donate', 'apply', 'members', 'header', 'footer'] as const;

export interface WidgetManifest {
  loader: string;
  /** Widget name -> its entry chunk and every chunk that entry imports statically. */
  widgets: Record<string, { file: string; imports: string[] }>;
  /**
   * Browser modules of the same build that are not widgets, so the loader never learns them:
   * `console`, the leader console's islands (console/index.tsx), which share the widgets' runtime.
   */
  entries?: Record<string, { file: string; imports: string[] }>;
}

/** Entries of the widgets build that are not widgets (see WidgetManifest.entries). */
export const OTHER_ENTRIES = { console: 'console/index.tsx' } as const;

function widgetEntries(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of WIDGETS) {
    const file = ['index.ts', 'index.tsx']
      .map((f) => path.join(ROOT, 'widgets', name, f))
      .find((f) => fs.existsSync(f));
    if (file) entries[name] = file;
  }
  for (const [name, file] of Object.entries(OTHER_ENTRIES)) entries[name] = path.join(ROOT, file);
  return entries;
}

/**
 * The runtime chunk: what every widget needs, downloaded once and cached across widgets and
 * pages. Heavier, widget-specific libraries (@floating-ui for popovers) and the form renderer
 * (widgets/lib/forms/, only <svc-rsvp> and <svc-apply> have forms) stay with the widgets
 * that use them.
 */
const RUNTIME_MODULE =
  /[\\/]node_modules[\\/](?:preact|@preact[\\/]signals(?:-core)?|nanostores)[\\/]|[\\/]widgets[\\/]lib[\\/](?!popover|forms[\\/])/;

function writeWidgetManifest(): Plugin {
  return {
    name: 'svc:widget-manifest',
    applyToEnvironment: (env) => env.name === 'widgets',
    writeBundle(_options, bundle) {
      const manifest: WidgetManifest = { loader: 'loader.js', widgets: {}, entries: {} };
      const chunks = Object.values(bundle).filter((o) => o.type === 'chunk');
      const importsOf = (file: string, seen = new Set<string>()): string[] => {
        for (const dep of chunks.find((c) => c.fileName === file)?.imports ?? []) {
          if (!seen.has(dep)) {
            seen.add(dep);
            importsOf(dep, seen);
          }
        }
        return [...seen];
      };
      for (const chunk of chunks) {
        if (!chunk.isEntry) continue;
        const entry = { file: chunk.fileName, imports: importsOf(chunk.fileName) };
        if (Object.hasOwn(OTHER_ENTRIES, chunk.name)) manifest.entries![chunk.name] = entry;
        else manifest.widgets[chunk.name] = entry;
      }
      fs.writeFileSync(MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`);
    },
  };
}

const CHUNKS_ID = 'virtual:svc-widget-chunks';

function injectWidgetChunks(): Plugin {
  return {
    name: 'svc:widget-chunks',
    applyToEnvironment: (env) => env.name === 'loader',
    resolveId: (id) => (id === CHUNKS_ID ? `\0${CHUNKS_ID}` : undefined),
    load(id) {
      if (id !== `\0${CHUNKS_ID}`) return;
      const manifest = JSON.parse(fs.readFileSync(MANIFEST_FILE, 'utf8')) as WidgetManifest;
      const chunks = Object.fromEntries(Object.entries(manifest.widgets).map(([name, w]) => [name, w.file]));
      return `export default ${JSON.stringify(chunks)};`;
    },
  };
}

/**
 * light-dark() kept as written (baseline 2024): the minifier's fallback for older targets follows
 * prefers-color-scheme only, where the widgets follow the page's color-scheme by inheritance
 * (widgets/lib/base.css).
 */
const WIDGET_CSS_TARGET = ['chrome123', 'edge123', 'firefox120', 'safari17.5'];

export default defineConfig({
  root: ROOT,
  base: './',
  publicDir: false,
  // Preact's automatic JSX runtime (tsconfig says the same for the type checker).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [writeWidgetManifest(), injectWidgetChunks()],
  environments: {
    widgets: {
      consumer: 'client',
      build: {
        outDir: OUT_DIR,
        emptyOutDir: true,
        copyPublicDir: false,
        // Chunks import each other directly; Vite's preload helper would only add bytes.
        modulePreload: false,
        cssTarget: WIDGET_CSS_TARGET,
        rolldownOptions: {
          input: widgetEntries(),
          // Each entry's default export is what the loader calls: keep it.
          preserveEntrySignatures: 'exports-only',
          output: {
            format: 'es',
            entryFileNames: '[name]-[hash].js',
            chunkFileNames: '[name]-[hash].js',
            codeSplitting: { groups: [{ name: 'runtime', test: RUNTIME_MODULE }] },
          },
        },
      },
    },
    loader: {
      consumer: 'client',
      build: {
        outDir: OUT_DIR,
        emptyOutDir: false,
        copyPublicDir: false,
        modulePreload: false,
        rolldownOptions: {
          input: path.join(ROOT, 'loader/index.ts'),
          output: { format: 'iife', entryFileNames: 'loader.js' },
        },
      },
    },
    // Node modules, for the server: CSS `?inline` becomes strings as in the browser build, and the
    // packages (preact, preact-render-to-string, signals) stay external, so the component tree and
    // the renderer share one Preact.
    ssr: {
      consumer: 'server',
      build: {
        outDir: SSR_DIR,
        emptyOutDir: true,
        copyPublicDir: false,
        ssr: true,
        cssTarget: WIDGET_CSS_TARGET,
        rolldownOptions: {
          input: { widgets: path.join(ROOT, 'widgets/ssr.tsx') },
          output: { format: 'es', entryFileNames: '[name].js' },
        },
      },
    },
  },
  builder: {
    async buildApp(builder) {
      await builder.build(builder.environments.widgets);
      await builder.build(builder.environments.loader);
      await builder.build(builder.environments.ssr);
    },
  },
});
