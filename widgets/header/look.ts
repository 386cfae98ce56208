// storefrontConfig.header -> how the header looks. The spec's header keys become either a class
// (keys that pick one of a few designs) or a custom property (colours, fonts, lengths):
//   --svc-theme-header-<kebab-key>  set here on the header from the community's config, and
//   --svc-header-<kebab-key>        for the host page to override, as with the theme tokens.
// Values go in through Preact's style object (CSSOM setProperty), so a hostile value stays a value.
import { isRecord } from '../lib/links.ts';

/** Keys that choose a design: `<kebab-key>-<value>` on the header, with the default when unset. */
export const VARIANTS = {
  style: 'solid', // solid | transparent | blur
  density: 'comfortable', // compact | comfortable | spacious
  logoLockup: 'logo-text', // logo-text | logo | text | stacked
  navLinkStyle: 'plain', // plain | underline | pill
  navPosition: 'right', // left | center | right
  navActiveIndicator: 'underline', // underline | dot | pill | color | none
  iconChrome: 'none', // none | outline | filled
  signInStyle: 'button', // button | outline | link | icon
} as const;

/** Keys that are values: colours, fonts and lengths (a bare number is px). borderBottom is both: see below. */
export const PROPERTIES = [
  'bgColor', 'textColor', 'navFont', 'navFontSize', 'navFontWeight', 'navSpacing', 'navLetterSpacing',
  'navTextTransform', 'navLinkPadding', 'navActiveColor',
] as const;
const UNITLESS = new Set(['navFontWeight']);

export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export type Variants = { -readonly [K in keyof typeof VARIANTS]: string };

export interface HeaderLook {
  classes: string;
  /** The chosen design per variant key (the default when unset or unusable). */
  variants: Variants;
  vars: Record<string, string>;
  showBell: boolean;
}

function variant(value: unknown, fallback: string): string {
  const v = typeof value === 'string' ? kebab(value.trim()).replace(/^-/, '') : '';
  return /^[a-z0-9-]{1,40}$/.test(v) ? v : fallback;
}

function cssValue(key: string, value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return UNITLESS.has(key) ? String(value) : `${value}px`;
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return v && v.length <= 200 ? v : null;
}

export function headerLook(header: unknown): HeaderLook {
  const config = isRecord(header) ? header : {};
  const variants = Object.fromEntries(Object.entries(VARIANTS).map(([key, fallback]) => [key, variant(config[key], fallback)])) as Variants;
  const classes = Object.entries(variants).map(([key, value]) => `${kebab(key)}-${value}`);
  const vars: Record<string, string> = {};
  for (const key of PROPERTIES) {
    const value = cssValue(key, config[key]);
    if (value !== null) vars[`--svc-theme-header-${kebab(key)}`] = value;
  }
  // borderBottom: true draws the default line, a string is its colour.
  const border = config.borderBottom;
  if (border === true || (typeof border === 'string' && border.trim())) {
    classes.push('border-bottom');
    if (typeof border === 'string') vars['--svc-theme-header-border-color'] = border.trim();
  }
  return { classes: classes.join(' '), variants, vars, showBell: config.showBell === true };
}
