// loader.js: the only file a customer pastes. It defines every widget tag as a tiny custom
// element whose first connection imports that widget's chunk, so a tag that is not on the page
// costs nothing, elements added later (page builders, SPAs) upgrade on their own, and a second
// copy of this script finds its tags already defined and does nothing.
//
// It is also where the install doctor lives (docs/widgets.md, "Troubleshooting / install
// doctor"): the checks that can only run here (the snippet, tags defined by someone else, the
// page's CSP) are made here, the widgets report what they find through `config.diagnose`, and the
// first problem on the page gets one console message, worded by the doctor chunk.
import chunks, { doctor } from 'virtual:svc-widget-chunks';
import type { Doctor, Problem, WidgetModule } from '../widgets/lib/contract.ts';
import { findLoaderScript, readConfig } from './script-config.ts';

const script = findLoaderScript();

if (!script) {
  console.error('[svc] loader.js could not find its own <script> tag');
} else if (!script.dataset.community) {
  console.error('[svc] loader.js needs a data-community attribute');
} else {
  const config = readConfig(script);
  const { community, api } = config;
  const doctorChunk = () =>
    import(/* @vite-ignore */ new URL(`doctor-${doctor}.js`, script.src).href) as Promise<Doctor>;
  // Page-wide, so that two loaders (or a loader and its second copy) still say one thing. The
  // doctor chunk words the message (and adds what it needs from the page and the config).
  const said = Symbol.for('svc.doctor');
  const page = window as unknown as Record<symbol, boolean>;
  const diagnose = (problem: Problem) => {
    if (page[said]) return;
    page[said] = true;
    doctorChunk().then(
      (d) => d.report(problem, config),
      // The doctor is kept out too: whatever it would have said, this is what stops the widgets.
      () => console.error(`[svc] ${api}/widgets/ is blocked or unreachable: allow it in this page's CSP (script-src).`),
    );
  };
  config.diagnose = diagnose;
  // data-debug: the doctor logs mounts and requests; widgets wait for it so that it sees them all.
  const debugging =
    config.debug &&
    doctorChunk().then(
      (d) => d.debug(config),
      () => {},
    );

  // On the hosted site loader.js comes from the page's own origin; anywhere else the key is what
  // tells the widgets to call the platform rather than the page's own server.
  if (!config.key && api !== location.origin) diagnose({ kind: 'no-key' });
  // On the hosted site the page and its CSP are the platform's own: what it blocks is not ours.
  document.addEventListener('securitypolicyviolation', (e) => {
    if (e.disposition === 'enforce' && api !== location.origin && `${e.blockedURI}/`.startsWith(`${api}/`))
      diagnose({ kind: 'csp', directive: e.effectiveDirective, blocked: e.blockedURI });
  });

  // A page may reserve a widget's box until the script has come (`svc-events:not(:defined)
  // {min-height: …}`, docs/widgets.md "Layout shift"). Defining the tag ends that rule while the
  // widget's chunk is still on its way, so each element already there keeps that reserve, read
  // here before any tag is defined (every read first: one style pass), until its first render,
  // which is as tall (its loading state is sized).
  const held = new Map<Element, string>();
  for (const name of Object.keys(chunks))
    for (const el of document.getElementsByTagName(`svc-${name}`)) {
      const { display, minHeight } = getComputedStyle(el);
      if (!/^(inline|none)$/.test(display) && minHeight !== 'auto' && minHeight !== '0px') held.set(el, minHeight);
    }
  for (const name of Object.keys(chunks)) {
    const tag = `svc-${name}`;
    // Our element classes say which community they serve; anything else is someone else's.
    const owner = (customElements.get(tag) as { svc?: string } | undefined)?.svc;
    if (owner === community) continue; // our own second copy: harmless
    if (customElements.get(tag)) {
      diagnose(owner ? { kind: 'other-community', tag, other: owner } : { kind: 'foreign-tag', tag });
      continue;
    }
    // Chunks sit next to loader.js, wherever that is served from (platform or a CDN).
    const url = new URL(`${name}-${chunks[name]}.js`, script.src).href;
    let widget: Promise<WidgetModule> | undefined;
    const load = () =>
      (widget ??= Promise.all([import(/* @vite-ignore */ url), debugging]).then(
        ([m]: [{ default: WidgetModule }, unknown]) => m.default,
        (error) => {
          widget = undefined; // let the next connection try again
          throw error;
        },
      ));

    customElements.define(
      tag,
      class extends HTMLElement {
        static svc = community;
        connectedCallback() {
          const reserve = held.get(this);
          held.delete(this);
          const hold = reserve && !this.style.minHeight;
          // The element's own inline display, if it has one, is kept and given back.
          const display = this.style.display;
          if (hold) Object.assign(this.style, { display: display || 'block', minHeight: reserve });
          load()
            .then(
              (w) => this.isConnected && (w.connect(this, config), config.mounted?.(this)),
              () => diagnose({ kind: 'chunk', tag, url }),
            )
            // connect() renders at once: nothing is painted between it and the release.
            .finally(() => hold && Object.assign(this.style, { display, minHeight: '' }));
        }
        disconnectedCallback() {
          widget?.then(
            (w) => w.disconnect(this),
            () => {},
          );
        }
      },
    );
  }
}
