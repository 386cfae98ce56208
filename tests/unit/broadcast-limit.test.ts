// The rolling 24 h window of broadcast sends, as pure functions of the counted send times.
import { describe, expect, it } from 'vitest';
import { busiestWindow, DAY_MS, earliestFit } from '../../server/domain/broadcasts.ts';

const H = 60 * 60 * 1000;
const T = Date.parse('2026-06-01T12:00:00Z');

describe('busiestWindow', () => {
  it('counts the new send with the sends of the 24 h before it', () => {
    expect(busiestWindow([], T)).toBe(1);
    expect(busiestWindow([T - H, T - 2 * H], T)).toBe(3);
  });

  it('leaves out a send exactly 24 h old: the window is (t - 24 h, t]', () => {
    expect(busiestWindow([T - DAY_MS], T)).toBe(1);
    expect(busiestWindow([T - DAY_MS + 1], T)).toBe(2);
  });

  it('counts the windows that end at later sends too', () => {
    // Four sends 20 h ahead and one 2 h ahead: the window ending at the later sends holds all of them.
    const later = [T + 20 * H, T + 20 * H, T + 20 * H, T + 20 * H];
    expect(busiestWindow(later, T)).toBe(5);
    expect(busiestWindow([...later, T + 2 * H], T)).toBe(6);
    expect(busiestWindow([...later, T + 2 * H], T - 5 * H)).toBe(2);
  });
});

describe('earliestFit', () => {
  it('is the time asked for when the send fits', () => {
    expect(earliestFit([T - H, T - H], T)).toBe(T);
  });

  it('is when the oldest send of a full window turns 24 h old', () => {
    const oldest = T - 23 * H;
    expect(earliestFit([oldest, T - H, T - H, T - H, T - H], T)).toBe(oldest + DAY_MS);
  });

  it('waits past scheduled sends that would fill the window later', () => {
    // Five sends at T + 1 h: a send at T fits nowhere until T + 1 h + 24 h.
    const scheduled = Array.from({ length: 5 }, () => T + H);
    expect(earliestFit(scheduled, T)).toBe(T + H + DAY_MS);
  });
});
