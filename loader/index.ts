// loader.js: the only file a customer pastes. It defines every widget tag as a tiny custom
// element whose first connection imports that widget's chunk, so a tag that is not on the page
// costs nothing, elements added later (page builders, SPAs) upgrade on their own, and a second
// copy of this script finds its tags already defined and does nothing.
import chunks from 'virtual:svc-widget-chunks';
import type { WidgetModule } from '../widgets/lib/contract.ts';
import { findLoaderScript, readConfig } from './script-config.ts';

const script = findLoaderScript();

if (!script) {
  console.error('[svc] loader.js could not find its own <script> tag');
} else if (!script.dataset.community) {
  console.error('[svc] loader.js needs a data-community attribute');
} else {
  const config = readConfig(script);
  // A page may reserve a widget's box until the script has come (`svc-events:not(:defined)
  // {min-height: …}`, docs/widgets.md "Layout shift"). Defining the tag ends that rule while the
  // widget's chunk is still on its way, so each element already there keeps that reserve, read
  // here before any tag is defined (every read first: one style pass), until its first render,
  // which is as tall (its loading state is sized).
  const held = new Map<Element, string>();
  for (const name of Object.keys(chunks))
    for (const el of document.getElementsByTagName(`svc-${name}`)) {
      const { display, minHeight } = getComputedStyle(el);
      if (display !== 'inline' && minHeight !== 'auto' && minHeight !== '0px') held.set(el, minHeight);
    }
  for (const name of Object.keys(chunks)) {
    const tag = `svc-${name}`;
    if (customElements.get(tag)) continue;
    // Chunks sit next to loader.js, wherever that is served from (platform or a CDN).
    const url = new URL(chunks[name], script.src).href;
    let widget: Promise<WidgetModule> | undefined;
    const load = () =>
      (widget ??= import(/* @vite-ignore */ url).then(
        (m: { default: WidgetModule }) => m.default,
        (error) => {
          widget = undefined; // let the next connection try again
          throw error;
        },
      ));

    customElements.define(
      tag,
      class extends HTMLElement {
        connectedCallback() {
          const reserve = held.get(this);
          held.delete(this);
          const hold = reserve && !this.style.minHeight;
          if (hold) Object.assign(this.style, { display: 'block', minHeight: reserve });
          load()
            .then(
              (w) => this.isConnected && w.connect(this, config),
              (error) => console.error(`[svc] <${tag}> could not load`, error),
            )
            // connect() renders at once: nothing is painted between it and the release.
            .finally(() => hold && Object.assign(this.style, { display: '', minHeight: '' }));
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
