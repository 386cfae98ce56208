// The leader console's browser module (docs/leader-console.md, "Pages"): the pages are complete
// without it (server-rendered forms that post), and this makes them nicer where JavaScript runs.
// One module for every console page, built with the widgets (vite.config.ts, OTHER_ENTRIES) so it
// shares their Preact runtime chunk, which the page's header has loaded already. Each island
// mounts on the elements that ask for it by `data-island="<name>"`; the destructive forms
// (`form[data-confirm]`) get the confirmation dialog.
import { enhanceConfirmations } from './confirm.tsx';
import { ISLANDS } from './islands.ts';

function start(): void {
  enhanceConfirmations(document);
  for (const el of document.querySelectorAll<HTMLElement>('[data-island]')) {
    const mount = ISLANDS[el.dataset.island ?? ''];
    // Mounted once, whatever loads this module again.
    if (mount && el.dataset.islandMounted !== 'yes') {
      el.dataset.islandMounted = 'yes';
      mount(el);
    }
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
