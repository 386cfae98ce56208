// Reads the embed settings from the loader's own <script> tag.
import type { EmbedConfig } from '../widgets/lib/contract.ts';

/**
 * `document.currentScript` is set while a classic script (async or not) runs; the query is for
 * the odd host that re-inserts or wraps our tag (some tag managers) and loses it.
 */
export function findLoaderScript(): HTMLScriptElement | null {
  return (
    (document.currentScript as HTMLScriptElement | null) ?? document.querySelector('script[src*="/widgets/loader.js"]')
  );
}

export function readConfig(script: HTMLScriptElement): EmbedConfig {
  const data = script.dataset;
  const key = data.key || null;
  const api = new URL(data.api || script.src, location.href).origin;
  return {
    community: data.community || '',
    key,
    api,
    // On the platform's own origin (the hosted apex) calls are same-origin and carry the
    // visitor's cookie; a page without a key can only be that.
    hosted: location.origin === api || !key,
    site: data.site || null,
    debug: 'debug' in data,
  };
}
