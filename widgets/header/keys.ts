// Keyboard handling of the header's dropdowns and nav bar, as pure functions of the key and the
// focus position, so the rules are unit-tested without a browser. The pattern is the WAI-ARIA
// "disclosure navigation" one: a button with aria-expanded/aria-controls opens a list of links.

/** Opening from the trigger: ArrowDown focuses the first item, ArrowUp the last. */
export function triggerKey(key: string, count: number): number | null {
  if (count === 0) return null;
  if (key === 'ArrowDown') return 0;
  if (key === 'ArrowUp') return count - 1;
  return null;
}

/**
 * Inside an open dropdown with focus on item `index` of `count`: the item to focus next
 * (arrows wrap around, Home and End jump), 'close' for Escape (focus goes back to the trigger),
 * or null when the key is not ours (Tab leaves the dropdown and closes it on its own).
 */
export function menuKey(key: string, index: number, count: number): number | 'close' | null {
  if (key === 'Escape') return 'close';
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown':
      return (index + 1) % count;
    case 'ArrowUp':
      return (index - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

/** On the nav bar itself: ArrowRight and ArrowLeft move between top-level items, wrapping. */
export function barKey(key: string, index: number, count: number): number | null {
  if (count === 0 || index < 0) return null;
  if (key === 'ArrowRight') return (index + 1) % count;
  if (key === 'ArrowLeft') return (index - 1 + count) % count;
  return null;
}
