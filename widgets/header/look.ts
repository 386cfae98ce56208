// storefrontConfig.header -> how the header looks. The spec's header keys become either a class
// (keys that pick one of a few designs) or a custom property (colours, fonts, lengths):
//   --svc-theme-header-<kebab-key>  set here on the header from the community's config, and
//   --svc-header-<kebab-key>        for the host page to override, as with the theme tokens.
// Values go in through Preact's style object (CSSOM setProperty), so a hostile value stays a value;
// and only values of the kind each key takes are let through at all (an allow-list: colours,
// lengths, keywords, plain font names). A custom property holds whatever it is given, and the
// stylesheet substitutes it where it is used: `url(...)` would fetch from anywhere, `var(...)`
// would read the host page's properties, and quotes, escapes, braces or semicolons have no place
// in any of these values. Anything else is dropped and the key keeps its default.
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
  'bgColor',
  'textColor',
  'navFont',
  'navFontSize',
  'navFontWeight',
  'navSpacing',
  'navLetterSpacing',
  'navTextTransform',
  'navLinkPadding',
  'navActiveColor',
] as const;
const UNITLESS = new Set(['navFontWeight']);

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
/** Named colours and colour keywords (`transparent`, `currentcolor`): letters only. */
const NAMED = /^[a-z]{3,30}$/i;
/** rgb()/rgba()/hsl()/hsla() with numbers, %, `deg` and their separators only. */
const COLOR_FUNCTION = /^(?:rgba?|hsla?)\((?:[\d.%+\-\s,/]|deg){1,60}\)$/i;
const LENGTH = /^(?:0|[+-]?(?:\d{1,4}(?:\.\d{1,4})?|\.\d{1,4})(?:px|em|rem|%|vw|vh|vmin|vmax|ch|ex|pt))$/i;
const KEYWORD = /^[a-z][a-z-]{0,29}$/i;
/** Unquoted family names, comma-separated: `Inter, system-ui, sans-serif`. */
const FONT_FAMILIES = /^[a-z0-9][a-z0-9 -]{0,40}(?:,\s*[a-z0-9][a-z0-9 -]{0,40}){0,5}$/i;

const isColor = (v: string): boolean => HEX.test(v) || NAMED.test(v) || COLOR_FUNCTION.test(v);
const isLength = (v: string): boolean => LENGTH.test(v) || KEYWORD.test(v);

/** What each value key accepts (a string after trimming); numbers are handled before. */
const ACCEPTS: Record<(typeof PROPERTIES)[number], (v: string) => boolean> = {
  bgColor: isColor,
  textColor: isColor,
  navActiveColor: isColor,
  navFont: (v) => FONT_FAMILIES.test(v),
  navFontSize: isLength,
  navFontWeight: (v) => /^(?:[1-9]\d{0,2}|1000)$/.test(v) || /^(?:normal|bold|bolder|lighter)$/i.test(v),
  navSpacing: isLength,
  navLetterSpacing: isLength,
  navTextTransform: (v) => /^(?:none|uppercase|lowercase|capitalize|full-width)$/i.test(v),
  // One to four lengths: `6px 12px`.
  navLinkPadding: (v) => v.split(/\s+/).length <= 4 && v.split(/\s+/).every((part) => LENGTH.test(part)),
};

/** A colour from the allow-list, or null. */
export function safeColor(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return isColor(v) ? v : null;
}

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

/** The CSS value for a value key, or null when it is not one of the values that key takes. */
export function cssValue(key: (typeof PROPERTIES)[number], value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 10_000)
    return UNITLESS.has(key) ? String(value) : `${value}px`;
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return v && v.length <= 200 && ACCEPTS[key](v) ? v : null;
}

export function headerLook(header: unknown): HeaderLook {
  const config = isRecord(header) ? header : {};
  const variants = Object.fromEntries(
    Object.entries(VARIANTS).map(([key, fallback]) => [key, variant(config[key], fallback)]),
  ) as Variants;
  const classes = Object.entries(variants).map(([key, value]) => `${kebab(key)}-${value}`);
  const vars: Record<string, string> = {};
  for (const key of PROPERTIES) {
    const value = cssValue(key, config[key]);
    if (value !== null) vars[`--svc-theme-header-${kebab(key)}`] = value;
  }
  // borderBottom: true draws the default line, a string is its colour (an unusable one: the default colour).
  const border = config.borderBottom;
  if (border === true || (typeof border === 'string' && border.trim())) {
    classes.push('border-bottom');
    const color = safeColor(border);
    if (color !== null) vars['--svc-theme-header-border-color'] = color;
  }
  return { classes: classes.join(' '), variants, vars, showBell: config.showBell === true };
}
