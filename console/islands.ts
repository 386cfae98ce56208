// The console's islands by name: an element with `data-island="<name>"` gets `mount(element)`.
// Each island enhances markup the server rendered (and that works without it); add one here.
import { settingsPreview } from './settings-preview.tsx';
import { copySecret } from './copy-secret.ts';
import { mountBroadcastPreview } from './broadcast-preview.tsx';

export type Island = (el: HTMLElement) => void;

export const ISLANDS: Record<string, Island> = {
  'settings-preview': settingsPreview,
  'copy-secret': copySecret,
  'broadcast-preview': mountBroadcastPreview,
};
