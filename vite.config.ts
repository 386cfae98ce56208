// `vite build` produces the whole widget bundle in dist/widgets/:
//   1. the widgets: one ES-module chunk per widget plus the `runtime` and `shared` chunks, all with
//      content-hashed names (served with a one-year immutable cache);
//   2. loader.js: a classic IIFE with a fixed name (what customers paste), which must know the
//      hashed chunk names, so it is built second, reading the map the first build wrote;
//   3. brotli and gzip copies of both, for the server to send (COMPRESSED_DIR).
// Both are Vite environments driven by one builder, so a plain `vite build` does everything.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { gzipAsync } from '@gfx/zopfli';
import { defineConfig, type Plugin } from 'vite';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
const OUT_DIR = path.join(ROOT, 'dist/widgets');
/** Outside OUT_DIR so the static server never publishes it; scripts/check-size.ts reads it. */
export const MANIFEST_FILE = path.join(ROOT, 'dist/widgets.manifest.json');
/**
 * Brotli and gzip copies of every file in OUT_DIR (`<file>.br`, `<file>.gz`), made once at build
 * time at the highest levels, which would cost too much per request. Outside OUT_DIR so they are
 * never URLs of their own: the server sends them for the file's own URL when the request's
 * Accept-Encoding allows (server/site/widgets-static.ts, docs/widgets.md "How the bundle is
 * served"), and scripts/check-size.ts measures them through that handler.
 */
export const COMPRESSED_DIR = path.join(ROOT, 'dist/widgets-compressed');
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
   * Browser modules of the same build that are not widgets, so the loader defines no tag for
   * them: `console`, the leader console's islands (console/index.tsx), which share the widgets'
   * runtime; `doctor`, the install doctor's messages, which the loader imports on a problem;
   * `link-template`, which <svc-events> imports when it has an `event-href`.
   */
  entries?: Record<string, { file: string; imports: string[] }>;
}

/**
 * Entries of the widgets build that are not widgets (see WidgetManifest.entries). `doctor` (the
 * install doctor's messages, widgets/lib/doctor/) is the one the loader learns: it imports it
 * once it sees an install problem. `link-template` is an entry so that its chunk exports its
 * functions by name: <svc-events> imports it dynamically, and a dynamic import of a plain shared
 * chunk would need a namespace object built by a helper chunk every widget would then import.
 */
export const OTHER_ENTRIES = {
  console: 'console/index.tsx',
  doctor: 'widgets/lib/doctor/index.ts',
  'link-template': 'widgets/lib/link-template.ts',
} as const;

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
 * pages: Preact (not its hooks), nanostores and widgets/lib. It is what `<svc-events>`, the widget
 * most pages have, downloads besides its own chunk, so what <svc-events> does not use stays out
 * (SHARED_MODULE), link templates included (their own chunk, see OTHER_ENTRIES). Vite's preload
 * helper (one line, bareDynamicImports) is here because <svc-events> has a dynamic import too: in
 * `shared` it would bring that chunk along. Heavier, widget-specific libraries (@floating-ui for popovers) and the form
 * renderer (widgets/lib/forms/, only <svc-rsvp> and <svc-apply> have forms) stay with the
 * widgets that use them; the install doctor (widgets/lib/doctor/) is a chunk of its own.
 */
const RUNTIME_MODULE =
  /[\\/]node_modules[\\/](?:preact[\\/](?!hooks[\\/])|nanostores[\\/])|[\\/]widgets[\\/]lib[\\/](?!popover|forms[\\/]|doctor[\\/]|session|links|link-template|store-signal|signals|descriptor-guard)|^\0vite\/preload-helper/;
/**
 * The `shared` chunk: what every widget but <svc-events> uses on top of the runtime:
 * preact/hooks, @preact/signals with its Preact integration (store-signal.ts), the visitor's
 * session and config links (5 KB gzip). <svc-events> renders without them (a class component on
 * nanostores stores, widgets/events/). The other widgets download it once, with the runtime.
 */
const SHARED_MODULE =
  /[\\/]node_modules[\\/](?:preact[\\/]hooks|@preact[\\/]signals(?:-core)?)[\\/]|[\\/]widgets[\\/]lib[\\/](?:session|links|store-signal|signals|descriptor-guard)\.ts$/;

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

/**
 * Vite wraps every dynamic `import()` of a browser build in its preload helper, even with
 * `modulePreload: false` (vitejs/vite#18551): 0.9 KB gzip of `<link rel=modulepreload>` and CSS
 * preloading, in a chunk of its own that `<svc-header>` and `<svc-donate>` imported statically.
 * The widgets preload nothing and import no CSS files (their styles are `?inline` strings), so the
 * helper only has to call the import.
 */
const PRELOAD_HELPER_ID = '\0vite/preload-helper.js';
function bareDynamicImports(): Plugin {
  return {
    name: 'svc:bare-dynamic-imports',
    enforce: 'pre',
    applyToEnvironment: (env) => env.name === 'widgets',
    load: (id) => (id === PRELOAD_HELPER_ID ? 'export const __vitePreload = (load) => load();' : undefined),
  };
}

/**
 * Writes COMPRESSED_DIR afresh from OUT_DIR. A copy no smaller than its file is left out: the
 * server then sends the file as it is. The gzip copies are made with Zopfli (@gfx/zopfli, the
 * WebAssembly build of Google's encoder): ordinary gzip any client inflates, about 2% smaller than
 * zlib's level 9 for these files (0.24 KB off `loader.js` + runtime + <svc-events>), which only a
 * build-time copy can afford (it takes seconds, not milliseconds). Brotli is already at its best.
 */
async function precompress(): Promise<void> {
  fs.rmSync(COMPRESSED_DIR, { recursive: true, force: true });
  fs.mkdirSync(COMPRESSED_DIR, { recursive: true });
  for (const file of fs.readdirSync(OUT_DIR)) {
    const raw = fs.readFileSync(path.join(OUT_DIR, file));
    const copies = {
      br: brotliCompressSync(raw, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
      gz: await gzipAsync(raw, { numiterations: 15 }),
    };
    for (const [ext, bytes] of Object.entries(copies))
      if (bytes.length < raw.length) fs.writeFileSync(path.join(COMPRESSED_DIR, `${file}.${ext}`), bytes);
  }
}

/**
 * JSX as calls of Preact's `h` (createElement), the classic transform, rather than the automatic
 * runtime's `jsx()`: `h` is in the runtime chunk anyway, and preact/jsx-runtime is another 0.13 KB
 * gzip of it (its own vnode factory) that every widget downloads. Both make the same vnodes (keys,
 * refs, defaultProps). Only .tsx files get the import, under names no module uses.
 */
const JSX_H = 'jsxH';
const JSX_FRAGMENT = 'JsxFragment';
function preactH(): Plugin {
  return {
    name: 'svc:preact-h',
    enforce: 'pre',
    // On the first line, before what is there: no line moves, so the source map stays true (null).
    transform: (code, id) =>
      /\.tsx$/.test(id)
        ? { code: `import { h as ${JSX_H}, Fragment as ${JSX_FRAGMENT} } from 'preact';${code}`, map: null }
        : undefined,
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
      // Only the hash of each `[name]-[hash].js` (entryFileNames): the loader puts the name back,
      // which spares it every widget's name twice over.
      const hashOf = (name: string, file: string | undefined) => {
        const hash = file?.startsWith(`${name}-`) && file.endsWith('.js') && file.slice(name.length + 1, -3);
        if (!hash) throw new Error(`the widgets build made no ${name}-[hash].js`);
        return hash;
      };
      const chunks = Object.fromEntries(
        Object.entries(manifest.widgets).map(([name, w]) => [name, hashOf(name, w.file)]),
      );
      const doctor = hashOf('doctor', manifest.entries?.doctor?.file);
      return `export default ${JSON.stringify(chunks)};\nexport const doctor = ${JSON.stringify(doctor)};`;
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
  // JSX compiles to Preact's own `h` (see preactH); the type checker reads it as Preact's automatic
  // runtime (tsconfig), which types the same elements.
  oxc: { jsx: { runtime: 'classic', pragma: JSX_H, pragmaFrag: JSX_FRAGMENT } },
  plugins: [preactH(), bareDynamicImports(), writeWidgetManifest(), injectWidgetChunks()],
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
            codeSplitting: {
              groups: [
                { name: 'runtime', test: RUNTIME_MODULE },
                { name: 'shared', test: SHARED_MODULE },
                // Ahead of `shared`, which would take it along with links.ts, its importer.
                { name: 'link-template', test: /[\\/]widgets[\\/]lib[\\/]link-template\.ts$/, priority: 1 },
              ],
            },
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
      // Once both have written OUT_DIR.
      await precompress();
      await builder.build(builder.environments.ssr);
    },
  },
});
