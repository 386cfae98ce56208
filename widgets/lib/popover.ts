// Dropdowns and popovers: @floating-ui/dom keeps the panel next to its trigger, flipped or
// shifted to stay on screen, and follows scrolling and resizing while it is open. Kept out of the
// shared runtime (vite.config.ts): only widgets with popovers download it.
import { autoUpdate, computePosition, flip, offset, shift, type Placement } from '@floating-ui/dom';

/**
 * Positions `panel` under `trigger` until the returned function is called. `fixed` positioning:
 * inside a shadow root the panel's offset parent is unreliable, and a fixed panel also escapes
 * the header's own overflow.
 */
export function anchor(trigger: HTMLElement, panel: HTMLElement, placement: Placement = 'bottom-start'): () => void {
  return autoUpdate(trigger, panel, () => {
    void computePosition(trigger, panel, {
      placement,
      strategy: 'fixed',
      middleware: [offset(6), flip(), shift({ padding: 8 })],
    }).then(({ x, y }) => {
      // CSSOM, not a style attribute: allowed under a strict style-src CSP.
      panel.style.left = `${x}px`;
      panel.style.top = `${y}px`;
    });
  });
}
