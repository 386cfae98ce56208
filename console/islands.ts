// The console's islands by name: an element with `data-island="<name>"` gets `mount(element)`.
// Each island enhances markup the server rendered (and that works without it); add one here.
import { settingsPreview } from './settings-preview.tsx';
import { copySecret } from './copy-secret.ts';

export type Island = (el: HTMLElement) => void;

export const ISLANDS: Record<string, Island> = {
  'settings-preview': settingsPreview,
  'copy-secret': copySecret,
};
