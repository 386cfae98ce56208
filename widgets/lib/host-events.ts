// Events for the host page: `svc:<widget>:<event>`, bubbling and composed so a listener on
// `document` hears them from inside any shadow root.

/** Dispatches on the element; returns false when a listener called preventDefault(). */
export function emit<T>(host: HTMLElement, widget: string, event: string, detail: T, cancelable = false): boolean {
  return host.dispatchEvent(
    new CustomEvent(`svc:${widget}:${event}`, { detail, bubbles: true, composed: true, cancelable }),
  );
}

/**
 * A click the page should handle itself (a widget's cancelable select/navigate event): not
 * modified (those open a tab), not a middle click, not already handled.
 */
export const plainClick = (e: MouseEvent) =>
  !e.defaultPrevented && e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;
