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
          load().then(
            (w) => this.isConnected && w.connect(this, config),
            (error) => console.error(`[svc] <${tag}> could not load`, error),
          );
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
