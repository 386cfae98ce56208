// Theme tokens. Each themeConfig key becomes two custom properties:
//   --svc-theme-<key>  set from the community's themeConfig on :host (this file), and
//   --svc-<key>        left for the host page to set anywhere (`:root`, a wrapper, the element),
// and the widget styles read `var(--svc-<key>, var(--svc-theme-<key>, <default>))`, so the host
// page always wins over the community, which wins over our defaults.
import type { ThemeConfig } from '../../contract/resources.ts';

export const themeProperty = (key: string, layer: 'theme' | 'public' = 'theme'): string =>
  `--svc-${layer === 'theme' ? 'theme-' : ''}${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Custom properties for a themeConfig; values that are not strings are ignored. */
export function themeDeclarations(theme: ThemeConfig | undefined | null): [string, string][] {
  return Object.entries(theme ?? {})
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '')
    .map(([key, value]) => [themeProperty(key), value.trim()]);
}

/**
 * One sheet shared by every widget's shadow root, so a theme change restyles them all at once.
 * Values go in through CSSOM `setProperty` rather than CSS text: a hostile value such as
 * `red;} * {display:none` then stays a (useless) value instead of becoming a rule.
 */
export function createThemeSheet(): { sheet: CSSStyleSheet; apply(theme: ThemeConfig | undefined | null): void } {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(':host{}');
  const style = (sheet.cssRules[0] as CSSStyleRule).style;
  return {
    sheet,
    apply(theme) {
      for (let i = style.length - 1; i >= 0; i--) style.removeProperty(style[i]);
      for (const [name, value] of themeDeclarations(theme)) style.setProperty(name, value);
    },
  };
}
