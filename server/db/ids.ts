import { v7 } from 'uuid';

/** Time-ordered UUIDv7: ids sort by creation and index well. */
export const newId = (): string => v7();
export const nowIso = (): string => new Date().toISOString();
export const toBool = (v: number | null | undefined): boolean => v === 1;
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null) return fallback;
  return JSON.parse(text) as T;
}
