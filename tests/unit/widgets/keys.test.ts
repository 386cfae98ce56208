import { describe, expect, it } from 'vitest';
import { barKey, menuKey, triggerKey } from '../../../widgets/header/keys.ts';

describe('dropdown trigger keys', () => {
  it('opens on the first item with ArrowDown and on the last with ArrowUp', () => {
    expect(triggerKey('ArrowDown', 3)).toBe(0);
    expect(triggerKey('ArrowUp', 3)).toBe(2);
  });

  it('leaves other keys (Enter and Space click the button) and empty dropdowns alone', () => {
    for (const key of ['Enter', ' ', 'Tab', 'ArrowLeft', 'a']) expect(triggerKey(key, 3)).toBeNull();
    expect(triggerKey('ArrowDown', 0)).toBeNull();
  });
});

describe('keys inside an open dropdown', () => {
  it('moves with the arrows and wraps around at both ends', () => {
    expect(menuKey('ArrowDown', 0, 3)).toBe(1);
    expect(menuKey('ArrowDown', 2, 3)).toBe(0);
    expect(menuKey('ArrowUp', 1, 3)).toBe(0);
    expect(menuKey('ArrowUp', 0, 3)).toBe(2);
  });

  it('jumps with Home and End', () => {
    expect(menuKey('Home', 2, 4)).toBe(0);
    expect(menuKey('End', 0, 4)).toBe(3);
  });

  it('closes on Escape (focus goes back to the trigger)', () => {
    expect(menuKey('Escape', 1, 3)).toBe('close');
    expect(menuKey('Escape', -1, 0)).toBe('close');
  });

  it('does not take Tab, letters or Enter: Tab leaves and closes, Enter follows the link', () => {
    for (const key of ['Tab', 'Enter', ' ', 'a', 'ArrowLeft', 'ArrowRight']) expect(menuKey(key, 0, 3)).toBeNull();
  });

  it('starts from the top when focus is not on an item yet', () => {
    expect(menuKey('ArrowDown', -1, 3)).toBe(0);
  });
});

describe('keys on the nav bar', () => {
  it('moves between top-level items with ArrowRight and ArrowLeft, wrapping', () => {
    expect(barKey('ArrowRight', 0, 4)).toBe(1);
    expect(barKey('ArrowRight', 3, 4)).toBe(0);
    expect(barKey('ArrowLeft', 0, 4)).toBe(3);
  });

  it('ignores other keys, and focus that is not on a top-level item', () => {
    expect(barKey('ArrowDown', 0, 4)).toBeNull();
    expect(barKey('ArrowRight', -1, 4)).toBeNull();
  });
});
