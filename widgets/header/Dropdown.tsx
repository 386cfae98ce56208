// A disclosure dropdown (WAI-ARIA "disclosure navigation"): a button with aria-expanded and
// aria-controls opens a list of links or buttons, placed by @floating-ui/dom. Keyboard: ArrowDown
// or ArrowUp on the trigger opens it on the first or last item; inside, the arrows move (wrapping),
// Home and End jump, Escape closes and puts focus back on the trigger; Tab, a click elsewhere or
// choosing an item closes it.
import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Placement } from '@floating-ui/dom';
import type { anchor as Anchor } from '../lib/popover.ts';
import { menuKey, triggerKey } from './keys.ts';

/**
 * @floating-ui/dom (the popover chunk) is fetched when the pointer or focus first reaches a
 * dropdown, not with the header, as <svc-donate> does: it is a third of the header's bytes and its
 * first render, the one the hosted site hydrates, needs none of it. A panel opened before it
 * arrives is placed when it does (offline: it stays unplaced, and the next opening tries again).
 */
let anchor: typeof Anchor | undefined;
let positioning: Promise<void> | undefined;
const loadPositioning = () =>
  (positioning ??= import('../lib/popover.ts').then(
    (m) => {
      anchor = m.anchor;
    },
    () => {
      positioning = undefined;
    },
  ));

export interface DropdownProps {
  /** What the trigger shows; its text is the trigger's accessible name. */
  label: ComponentChildren;
  triggerClass: string;
  triggerPart: string;
  panelPart: string;
  placement?: Placement;
  /** `<li>` elements, each holding one link or button (other items are skipped by the keys). */
  children: ComponentChildren;
  /** Extra data attributes for the trigger (the nav bar finds its top-level items by them). */
  top?: boolean;
}

export function Dropdown({ label, triggerClass, triggerPart, panelPart, placement, children, top }: DropdownProps) {
  const [open, setOpen] = useState(false);
  const id = `svc-dd-${useId()}`;
  const wrapper = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLUListElement>(null);
  const focusOnOpen = useRef<number | null>(null);

  const items = () => [...(panel.current?.querySelectorAll<HTMLElement>('a[href], button:not([disabled])') ?? [])];
  const focusItem = (index: number) => items()[index]?.focus();
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  };

  // Layout effect: the panel is placed (and focus moved into it) before the browser paints, so it
  // never flashes at the corner of the viewport.
  useLayoutEffect(() => {
    if (!open || !trigger.current || !panel.current) return;
    let stop: (() => void) | undefined;
    let live = true;
    const place = () => {
      if (live && anchor) stop = anchor(trigger.current!, panel.current!, placement);
    };
    if (anchor) place();
    else void loadPositioning().then(place);
    if (focusOnOpen.current !== null) focusItem(focusOnOpen.current);
    focusOnOpen.current = null;
    const outside = (e: Event) => {
      if (wrapper.current && !e.composedPath().includes(wrapper.current)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => {
      live = false;
      stop?.();
      document.removeEventListener('pointerdown', outside);
    };
  }, [open]);

  return (
    <div
      class="dd"
      ref={wrapper}
      onPointerEnter={loadPositioning}
      onFocusIn={loadPositioning}
      onFocusOut={(e) => {
        // Focus left the dropdown (Tab, or a click elsewhere): close without taking focus back.
        if (open && !wrapper.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        ref={trigger}
        class={triggerClass}
        part={triggerPart}
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={id}
        data-top={top ? '' : undefined}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && open) {
            e.preventDefault();
            e.stopPropagation();
            return close(true);
          }
          const index = triggerKey(e.key, items().length);
          if (index === null) return;
          e.preventDefault();
          if (open) focusItem(index);
          else {
            focusOnOpen.current = index;
            setOpen(true);
          }
        }}
      >
        {label}
      </button>
      <ul
        id={id}
        ref={panel}
        class="pop"
        part={panelPart}
        hidden={!open}
        onKeyDown={(e) => {
          const list = items();
          const next = menuKey(e.key, list.indexOf(e.target as HTMLElement), list.length);
          if (next === null) return;
          e.preventDefault();
          e.stopPropagation();
          if (next === 'close') close(true);
          else list[next].focus();
        }}
        onClick={(e) => {
          if ((e.target as Element).closest('a[href]')) setOpen(false);
        }}
      >
        {children}
      </ul>
    </div>
  );
}
