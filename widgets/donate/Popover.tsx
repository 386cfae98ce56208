// A button that opens a panel next to it, placed by @floating-ui/dom (widgets/lib/popover.ts,
// as the header's dropdowns): the minimum's explanation, and the whole donate form in
// `mode="button"`. Escape closes and puts focus back on the button; a click elsewhere or focus
// leaving closes without taking focus. A `dialog` panel takes focus when it opens: its checked
// chip, else its first control.
import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { anchor as Anchor } from '../lib/popover.ts';

/**
 * @floating-ui/dom is fetched when a panel is about to open (the pointer or focus reaches its
 * button), not with the widget: it is most of a popover's bytes, the inline form's first render
 * needs none of it, and a page with <svc-header> has it already (the chunk is shared).
 */
let anchor: typeof Anchor | undefined;
let positioning: Promise<void> | undefined;
const loadPositioning = () =>
  (positioning ??= import('../lib/popover.ts').then(
    (m) => {
      anchor = m.anchor;
    },
    // Offline: the panel still opens, unplaced (at the viewport's corner), and the next opening tries again.
    () => {
      positioning = undefined;
    },
  ));

export interface PopoverProps {
  label: ComponentChildren;
  /** The button's accessible name when its label is only an icon. */
  title?: string;
  triggerClass: string;
  triggerPart: string;
  panelPart: string;
  /** Set: the panel is a dialog with this name, and focus moves into it. */
  dialog?: string;
  children: ComponentChildren;
}

export function Popover({ label, title, triggerClass, triggerPart, panelPart, dialog, children }: PopoverProps) {
  const [open, setOpen] = useState(false);
  const id = `svc-donate-pop-${useId()}`;
  const wrapper = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    if (!open || !trigger.current || !panel.current) return;
    const stop = anchor?.(trigger.current, panel.current);
    const el = panel.current;
    if (dialog)
      (el.querySelector<HTMLElement>('input:checked') ?? el.querySelector<HTMLElement>('input, button'))?.focus();
    const outside = (e: Event) => {
      if (wrapper.current && !e.composedPath().includes(wrapper.current)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => {
      stop?.();
      document.removeEventListener('pointerdown', outside);
    };
  }, [open]);

  return (
    <div
      class="pop-wrap"
      ref={wrapper}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !open) return;
        // Only the innermost open popover closes.
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
        trigger.current?.focus();
      }}
      onFocusOut={(e) => {
        if (open && !wrapper.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        ref={trigger}
        class={triggerClass}
        part={triggerPart}
        aria-label={title}
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={id}
        onPointerEnter={loadPositioning}
        onFocus={loadPositioning}
        onClick={() => (open ? setOpen(false) : void loadPositioning().then(() => setOpen(true)))}
      >
        {label}
      </button>
      {/* tabIndex -1: a click on the panel's text keeps focus inside, so it does not close. */}
      <div
        id={id}
        ref={panel}
        class="pop"
        part={panelPart}
        role={dialog ? 'dialog' : undefined}
        aria-label={dialog}
        tabIndex={-1}
        hidden={!open}
      >
        {children}
      </div>
    </div>
  );
}
