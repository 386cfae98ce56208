// `/admin/settings`: the community's configuration for its founder and admins, in six forms (one
// per group of fields), each posting only its own fields as one PATCH through the API's
// updateCommunitySettings, and read through getCommunitySettings, so the page accepts, refuses
// and audits exactly what `PATCH /api/admin/{tag}/settings` does (docs/leader-console.md,
// "Pages" -> "Settings"). `/admin/settings/preview` renders a sample page with the DRAFT header
// and theme, through the hosted pages' own server render of <svc-header> and <svc-footer>.
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { z } from 'zod';
import { Accessibility, PAGE_KEYS, Visibility } from '../../../contract/enums.ts';
import { ThemeConfig } from '../../../contract/resources.ts';
import * as routes from '../../../contract/routes/admin-settings.ts';
import { settingsHandlers } from '../../admin/settings.ts';
import type { ApiError } from '../../http/api-error.ts';
import type { Leader } from '../../http/leader.ts';
import { escapeHtml } from '../../shared/html.ts';
import { messages } from '../../shared/messages.ts';
import type { PageContent, SiteContext } from '../pages/context.ts';
import { csrfInput } from '../pages/forms.ts';
import { pageSiteOf } from '../sign-in-page.ts';
import { loadWidgetBuild, PageWidgets } from '../widgets-ssr.ts';
import { runOperation } from './operations.ts';
import {
  consolePage,
  doneNotice,
  fieldError,
  fieldId,
  formError,
  formErrorsOf,
  formList,
  noErrors,
  notice,
  textField,
  type FormErrors,
} from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

type Settings = z.infer<typeof routes.CommunitySettings>;
type Patch = z.input<typeof routes.CommunitySettingsPatch>;
/** A form's fields as the page shows them: name -> text (a ticked checkbox is `yes`). */
type Values = Record<string, string>;

const GROUPS = ['access', 'site', 'theme', 'header', 'pages', 'advanced'] as const;
type Group = (typeof GROUPS)[number];

const DONE: Record<Group, string> = {
  access: 'Access saved.',
  site: 'Site addresses saved.',
  theme: 'Theme saved.',
  header: 'Header saved.',
  pages: 'Pages saved.',
  advanced: 'Advanced settings saved.',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// Reading, and the fingerprint that guards against lost updates

/** JSON with object keys sorted: equal settings give equal fingerprints whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * What each form carries of the settings it was rendered from. Not a secret (the leader may read
 * the settings anyway): only a way to tell that they changed since, so a form never overwrites a
 * change it did not show (another admin's, or another tab's).
 */
export const settingsFingerprint = (settings: Settings): string =>
  crypto.createHash('sha256').update(canonical(settings)).digest('base64url').slice(0, 32);

async function readSettings(deps: ConsoleDeps, leader: Leader, req: Request): Promise<Settings> {
  const out = await runOperation(
    routes.getCommunitySettings,
    settingsHandlers.getCommunitySettings,
    deps.api,
    leader,
    {},
    req,
  );
  // The gate has just read this community: a refusal here is a fault, answered by the error page.
  if (!out.ok) throw out.error;
  return out.body;
}

// ---------------------------------------------------------------------------------------------
// The groups: their fields, read from the settings and turned back into a patch

/** One line per entry; blank lines and surrounding spaces dropped. */
const lines = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

// Theme ---------------------------------------------------------------------------------------

const THEME_KEYS = Object.keys(ThemeConfig.shape) as (keyof typeof ThemeConfig.shape)[];
const THEME_COLOURS = new Set<string>([
  'bgColor',
  'textColor',
  'brandColor',
  'linkColor',
  'accentColor',
  'primaryBtnBg',
  'primaryBtnText',
  'secondaryBtnBg',
  'secondaryBtnText',
  'secondaryBtnBorder',
]);
const THEME_LABELS: Record<string, string> = {
  bgColor: 'Background',
  textColor: 'Text',
  brandColor: 'Brand',
  linkColor: 'Links',
  accentColor: 'Accent',
  bodyFont: 'Body font',
  headingFont: 'Heading font',
  buttonRadius: 'Button corner radius',
  inputRadius: 'Input corner radius',
  cardRadius: 'Card corner radius',
  primaryBtnBg: 'Primary button background',
  primaryBtnText: 'Primary button text',
  secondaryBtnBg: 'Secondary button background',
  secondaryBtnText: 'Secondary button text',
  secondaryBtnBorder: 'Secondary button border',
};
/** What an unset colour's picker starts at: the widgets' own defaults (widgets/lib/base.css). */
const PICKER_START: Record<string, string> = { bgColor: '#ffffff', textColor: '#1d2127', primaryBtnText: '#ffffff' };
const RRGGBB = /^#[0-9a-f]{6}$/i;
const themeField = (key: string) => `themeConfig.${key}`;
const unsetField = (key: string) => `themeConfig.${key}.unset`;

function themeValues(theme: Settings['themeConfig']): Values {
  const values: Values = {};
  for (const key of THEME_KEYS) {
    const v = theme[key];
    values[themeField(key)] = typeof v === 'string' ? v : '';
  }
  return values;
}

/** The submitted theme fields; a colour whose "Not set" box is ticked is empty. */
function themeSubmitted(form: Values): Values {
  const values: Values = {};
  for (const key of THEME_KEYS) {
    values[themeField(key)] = form[unsetField(key)] === 'yes' ? '' : (form[themeField(key)] ?? '').trim();
  }
  return values;
}

function themeFrom(values: Values, stored: Settings['themeConfig']): Record<string, string> {
  const theme: Record<string, string> = {};
  for (const key of THEME_KEYS) {
    const value = values[themeField(key)] ?? '';
    if (value === '') continue;
    const before = stored[key];
    // A colour picker answers in lowercase: the stored spelling of the same colour is kept.
    theme[key] = typeof before === 'string' && before.toLowerCase() === value.toLowerCase() ? before : value;
  }
  return theme;
}

// Header --------------------------------------------------------------------------------------

/** storefrontConfig.header's keys the form shows (docs/widgets.md, "Header config keys"). */
const HEADER_CHOICES: Record<string, string[]> = {
  style: ['solid', 'transparent', 'blur'],
  density: ['compact', 'comfortable', 'spacious'],
  logoLockup: ['logo-text', 'logo', 'text', 'stacked'],
  navPosition: ['left', 'center', 'right'],
  navLinkStyle: ['plain', 'underline', 'pill'],
  navActiveIndicator: ['underline', 'dot', 'pill', 'color', 'none'],
  iconChrome: ['none', 'outline', 'filled'],
  signInStyle: ['button', 'outline', 'link', 'icon'],
};
const HEADER_TEXT: Record<string, { label: string; hint?: string }> = {
  storeName: { label: 'Name shown', hint: "Empty: the community's name." },
  logoUrl: { label: 'Logo URL', hint: 'An https:// image, or a path on this site.' },
  bgColor: { label: 'Background colour', hint: "A CSS colour (#1f3d2f, rgb(...), a name). Empty: the theme's." },
  textColor: { label: 'Text colour', hint: "Empty: the theme's." },
  navActiveColor: { label: 'Current page colour' },
  borderBottom: { label: 'Bottom border', hint: 'true for a hairline, a colour for a coloured one; empty for none.' },
  navFont: { label: 'Navigation font', hint: 'Family names, comma-separated: Inter, system-ui, sans-serif' },
  navFontSize: { label: 'Navigation font size', hint: 'A length (15px, 1rem); a bare number is px.' },
  navFontWeight: { label: 'Navigation font weight', hint: '100-1000, normal or bold.' },
  navSpacing: { label: 'Space between links' },
  navLetterSpacing: { label: 'Letter spacing' },
  navTextTransform: { label: 'Text transform', hint: 'none, uppercase, lowercase or capitalize.' },
  navLinkPadding: { label: 'Link padding', hint: 'One to four lengths: 6px 12px' },
};
const HEADER_LABELS: Record<string, string> = {
  style: 'Style',
  density: 'Density',
  logoLockup: 'Logo and name',
  navPosition: 'Navigation position',
  navLinkStyle: 'Navigation link style',
  navActiveIndicator: 'Current page indicator',
  iconChrome: 'Icon buttons',
  signInStyle: 'Sign-in button',
};
const HEADER_KEYS = [...Object.keys(HEADER_TEXT), ...Object.keys(HEADER_CHOICES), 'showBell'];
/** Header keys whose bare number means px (or a weight): stored as a number, as the widget reads it. */
const HEADER_NUMERIC = new Set(['navFontSize', 'navFontWeight', 'navSpacing', 'navLetterSpacing', 'navLinkPadding']);
const headerField = (key: string) => `header.${key}`;

function headerValues(header: unknown): Values {
  const h = isRecord(header) ? header : {};
  const values: Values = {};
  for (const key of HEADER_KEYS) {
    const v = h[key];
    if (key === 'showBell') values[headerField(key)] = v === true ? 'yes' : '';
    else
      values[headerField(key)] =
        typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  }
  return values;
}

function headerSubmitted(form: Values): Values {
  const values: Values = {};
  for (const key of HEADER_KEYS) values[headerField(key)] = (form[headerField(key)] ?? '').trim();
  return values;
}

/** The header from the form; keys the form does not show are kept as stored. */
function headerFrom(values: Values, stored: unknown): Record<string, unknown> {
  const before = isRecord(stored) ? stored : {};
  const header: Record<string, unknown> = Object.fromEntries(
    Object.entries(before).filter(([k]) => !HEADER_KEYS.includes(k)),
  );
  for (const key of HEADER_KEYS) {
    const value = values[headerField(key)] ?? '';
    if (key === 'showBell') {
      // Off is the default: an unticked box writes `false` only where the key was already stored.
      if (value === 'yes') header.showBell = true;
      else if ('showBell' in before) header.showBell = false;
      continue;
    }
    if (value === '') continue;
    if (key === 'borderBottom' && (value === 'true' || value === 'false')) header[key] = value === 'true';
    else if (HEADER_NUMERIC.has(key) && /^-?\d{1,4}(\.\d{1,4})?$/.test(value)) header[key] = Number(value);
    else header[key] = value;
  }
  return header;
}

// Pages ---------------------------------------------------------------------------------------

type PageKey = (typeof PAGE_KEYS)[number];
const PAGE_LABELS: Record<PageKey, string> = {
  HOME: 'Home',
  EVENTS: 'Events',
  MARKETPLACE: 'Marketplace',
  FEED: 'Feed',
  MEMBERS: 'Members',
  ATLAS: 'Atlas',
  BLOG: 'Blog',
  CHAT: 'Chat',
};
const enabledField = (key: string) => `pages.${key}.enabled`;
const visibilityField = (key: string) => `pages.${key}.visibility`;

function pageValues(pageSettings: Settings['pageSettings']): Values {
  const values: Values = {};
  for (const key of PAGE_KEYS) {
    const s = pageSettings.find((p) => p.pageKey === key);
    values[enabledField(key)] = s === undefined || s.enabled ? 'yes' : '';
    values[visibilityField(key)] = s?.visibility ?? '';
  }
  return values;
}

function pageSubmitted(form: Values): Values {
  const values: Values = {};
  for (const key of PAGE_KEYS) {
    values[enabledField(key)] = form[enabledField(key)] === 'yes' ? 'yes' : '';
    values[visibilityField(key)] = form[visibilityField(key)] ?? '';
  }
  return values;
}

/**
 * pageSettings from the rows: the stored entries in their order, changed as the form says, then
 * an entry for each page the form changes from the default (shown, the community's visibility),
 * so saving an untouched form changes nothing.
 */
function pagesFrom(values: Values, stored: Settings['pageSettings']) {
  const entry = (pageKey: PageKey) => {
    const visibility = values[visibilityField(pageKey)] ?? '';
    return {
      pageKey,
      enabled: values[enabledField(pageKey)] === 'yes',
      // An unknown value goes to the API as it is, which refuses it naming this row.
      visibility: visibility === '' ? null : visibility,
    };
  };
  const known = new Set<string>(PAGE_KEYS);
  const kept = stored.map((s) => (known.has(s.pageKey) ? entry(s.pageKey) : s));
  const added = PAGE_KEYS.filter((k) => !stored.some((s) => s.pageKey === k))
    .map(entry)
    .filter((e) => !e.enabled || e.visibility !== null);
  return [...kept, ...added];
}

// Advanced ------------------------------------------------------------------------------------

/** storefrontConfig's parts other than the header, each a JSON textarea. */
const ADVANCED_KEYS = ['nav', 'footer', 'modules', 'pages', 'chromeProxy', 'externalPages', 'rules'];
const ADVANCED_HINTS: Record<string, string> = {
  nav: 'A list of items: {"href", "label", "iconKey", "external", "visibleWhen", "children": [...]}.',
  footer: 'An object: title, columns of links, social links, copyright.',
  modules: 'An object, e.g. {"marketplace": {"userSellers": true}}.',
  pages: 'An object of per-page settings.',
  chromeProxy: '{"enabled": true, "headless": false}',
  externalPages: 'Page keys served by your own site, e.g. ["BLOG"].',
  rules: '{"version": 1, "text": "..."}',
};
const advancedField = (key: string) => `advanced.${key}`;
/** The parts this form shows: the known ones, and any other part the stored config has. */
const advancedKeys = (storefront: Settings['storefrontConfig']): string[] => [
  ...ADVANCED_KEYS,
  ...Object.keys(storefront).filter((k) => k !== 'header' && !ADVANCED_KEYS.includes(k)),
];

function advancedValues(storefront: Settings['storefrontConfig']): Values {
  const values: Values = {};
  for (const key of advancedKeys(storefront)) {
    const v = (storefront as Record<string, unknown>)[key];
    values[advancedField(key)] = v === undefined ? '' : JSON.stringify(v, null, 2);
  }
  return values;
}

function advancedSubmitted(form: Values, storefront: Settings['storefrontConfig']): Values {
  const values: Values = {};
  for (const key of advancedKeys(storefront)) values[advancedField(key)] = form[advancedField(key)] ?? '';
  return values;
}

// ---------------------------------------------------------------------------------------------
// A group's submitted values -> its patch, or the errors that stop it before the API

type Draft = { values: Values; patch: Patch | null; errors: FormErrors };

function draftOf(group: Group, form: Values, stored: Settings): Draft {
  const ok = (values: Values, patch: Patch): Draft => ({ values, patch, errors: noErrors() });
  switch (group) {
    case 'access': {
      const values = { visibility: form.visibility ?? '', accessibility: form.accessibility ?? '' };
      return ok(values, values as Patch);
    }
    case 'site': {
      const values = {
        landingUrl: (form.landingUrl ?? '').trim(),
        domains: form.domains ?? '',
        embedOrigins: form.embedOrigins ?? '',
      };
      return ok(values, {
        landingUrl: values.landingUrl === '' ? null : values.landingUrl,
        domains: lines(values.domains),
        embedOrigins: lines(values.embedOrigins),
      });
    }
    case 'theme': {
      const values = themeSubmitted(form);
      return ok(values, { themeConfig: themeFrom(values, stored.themeConfig) as Patch['themeConfig'] });
    }
    case 'header': {
      const values = headerSubmitted(form);
      const header = headerFrom(values, stored.storefrontConfig.header);
      const { header: _old, ...rest } = stored.storefrontConfig;
      return ok(values, {
        storefrontConfig: Object.keys(header).length > 0 ? { ...rest, header } : rest,
      });
    }
    case 'pages': {
      const values = pageSubmitted(form);
      return ok(values, { pageSettings: pagesFrom(values, stored.pageSettings) as Patch['pageSettings'] });
    }
    case 'advanced': {
      const values = advancedSubmitted(form, stored.storefrontConfig);
      const errors: FormErrors = { fields: {} };
      const storefront: Record<string, unknown> = {};
      if (stored.storefrontConfig.header !== undefined) storefront.header = stored.storefrontConfig.header;
      for (const key of advancedKeys(stored.storefrontConfig)) {
        const text = values[advancedField(key)].trim();
        if (text === '') continue;
        try {
          storefront[key] = JSON.parse(text);
        } catch (err) {
          errors.fields[advancedField(key)] = messages.settingsNotJson(key, (err as Error).message);
        }
      }
      if (Object.keys(errors.fields).length > 0) return { values, patch: null, errors };
      return ok(values, { storefrontConfig: storefront as Patch['storefrontConfig'] });
    }
  }
}

/**
 * The form field showing the API's refused path (`domains.1`, `themeConfig.brandColor`,
 * `storefrontConfig.nav.0.href`, `pageSettings.2.visibility`), and the message as shown there.
 */
function refusalOf(group: Group, error: ApiError, patch: Patch | null, stored: Settings): FormErrors {
  const field = (path: string): string | null => {
    const [head, second, ...rest] = path.split('.');
    switch (head) {
      case 'visibility':
      case 'accessibility':
        return group === 'access' ? head : null;
      case 'landingUrl':
      case 'domains':
      case 'embedOrigins':
        return group === 'site' ? head : null;
      case 'themeConfig':
        return group === 'theme' && second && THEME_KEYS.includes(second as never) ? themeField(second) : null;
      case 'pageSettings': {
        const entry = second === undefined ? undefined : patch?.pageSettings?.[Number(second)];
        if (group !== 'pages' || !entry) return null;
        return rest[0] === 'enabled' ? enabledField(entry.pageKey) : visibilityField(entry.pageKey);
      }
      case 'storefrontConfig':
        if (group === 'header' && second === 'header')
          return rest[0] && HEADER_KEYS.includes(rest[0]) ? headerField(rest[0]) : null;
        if (group === 'advanced' && second && advancedKeys(stored.storefrontConfig).includes(second))
          return advancedField(second);
        return null;
      default:
        return null;
    }
  };
  const errors = formErrorsOf(error, field);
  // A line of a list is named by its value: the textarea has no line numbers to point at.
  const path = typeof error.extras?.field === 'string' ? error.extras.field : '';
  const m = /^(domains|embedOrigins)\.(\d+)$/.exec(path);
  const listed = m ? (patch?.[m[1] as 'domains' | 'embedOrigins'] as string[] | undefined)?.[Number(m[2])] : undefined;
  if (m && listed !== undefined && errors.fields[m[1]]) {
    errors.fields[m[1]] = `"${listed}": ${error.message.replace(/^[\w.]+: /, '')}`;
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Rendering

interface GroupState {
  values: Values;
  errors: FormErrors;
}

function selectField(opts: {
  name: string;
  label: string;
  value: string;
  options: { value: string; label: string }[];
  errors: FormErrors;
  hint?: string;
}): string {
  const id = fieldId(opts.name);
  const hintId = opts.hint ? `${id}-hint` : undefined;
  const err = fieldError(opts.errors, opts.name, hintId);
  const options = [...opts.options];
  // A stored value the form does not offer stays selectable, so saving keeps it.
  if (!options.some((o) => o.value === opts.value))
    options.push({ value: opts.value, label: `${opts.value} (current)` });
  return `<div class="field">
<label for="${id}">${escapeHtml(opts.label)}</label>
${hintId ? `<p class="hint" id="${hintId}">${escapeHtml(opts.hint!)}</p>\n` : ''}<select id="${id}" name="${escapeHtml(opts.name)}"${err.attrs}>
${options.map((o) => `<option value="${escapeHtml(o.value)}"${o.value === opts.value ? ' selected' : ''}>${escapeHtml(o.label)}</option>`).join('\n')}
</select>
${err.html}
</div>`;
}

function checkboxField(name: string, label: string, checked: boolean, errors: FormErrors): string {
  const id = fieldId(name);
  const err = fieldError(errors, name);
  return `<div class="field check">
<label for="${id}"><input type="checkbox" id="${id}" name="${escapeHtml(name)}" value="yes"${checked ? ' checked' : ''}${err.attrs}> ${escapeHtml(label)}</label>
${err.html}
</div>`;
}

function groupForm(
  group: Group,
  ctx: SiteContext,
  fingerprint: string,
  state: GroupState,
  inner: string,
  opts: { preview?: boolean } = {},
): string {
  const preview = opts.preview ? `<input type="hidden" name="draft" value="${group}">` : '';
  const previewButton = opts.preview
    ? '\n<button type="submit" class="secondary" formaction="/admin/settings/preview" formtarget="settings-preview">Preview</button>'
    : '';
  return `<form method="post" action="/admin/settings/${group}" id="settings-${group}"${opts.preview ? ' data-preview' : ''} novalidate>
${ctx.csrf ? csrfInput(ctx.csrf) : ''}<input type="hidden" name="fingerprint" value="${escapeHtml(fingerprint)}">${preview}
${formError(state.errors)}
${inner}
<div class="actions"><button type="submit">Save</button>${previewButton}</div>
</form>`;
}

function accessForm(ctx: SiteContext, fp: string, s: GroupState): string {
  const v = s.values;
  return groupForm(
    'access',
    ctx,
    fp,
    s,
    `${selectField({
      name: 'visibility',
      label: 'Who can see the site',
      value: v.visibility,
      options: Visibility.options.map((o) => ({
        value: o,
        label: o === 'PUBLIC' ? 'Everyone (PUBLIC)' : 'Members only (MEMBERS_ONLY)',
      })),
      errors: s.errors,
      hint: 'Pages follow this unless the Pages form sets their own.',
    })}
${selectField({
  name: 'accessibility',
  label: 'How people join',
  value: v.accessibility,
  options: Accessibility.options.map((o) => ({
    value: o,
    label:
      o === 'OPEN'
        ? 'Anyone can join (OPEN)'
        : o === 'APPLICATION'
          ? 'By application (APPLICATION)'
          : 'By invite link only (INVITE_ONLY)',
  })),
  errors: s.errors,
})}`,
  );
}

function siteForm(ctx: SiteContext, fp: string, s: GroupState): string {
  const v = s.values;
  return groupForm(
    'site',
    ctx,
    fp,
    s,
    `${textField({
      name: 'landingUrl',
      label: 'Landing site',
      value: v.landingUrl,
      errors: s.errors,
      type: 'url',
      hint: 'Your own website (https://...), where the external pages are proxied from. Empty: none.',
    })}
${textField({
  name: 'domains',
  label: 'Domains',
  value: v.domains,
  errors: s.errors,
  type: 'textarea',
  hint: 'One hostname per line (club.example.org), no scheme or port. Point each at this platform first.',
})}
${textField({
  name: 'embedOrigins',
  label: 'Embed origins',
  value: v.embedOrigins,
  errors: s.errors,
  type: 'textarea',
  hint: 'One origin per line (https://www.example.org): the sites whose pages use your widgets to book, donate and apply.',
})}`,
  );
}

function themeForm(ctx: SiteContext, fp: string, s: GroupState): string {
  const fields = THEME_KEYS.map((key) => {
    const name = themeField(key);
    const value = s.values[name] ?? '';
    const label = THEME_LABELS[key] ?? key;
    if (!THEME_COLOURS.has(key) || (value !== '' && !RRGGBB.test(value))) {
      return textField({
        name,
        label,
        value,
        errors: s.errors,
        hint: THEME_COLOURS.has(key) ? 'A CSS colour. Empty: the default.' : 'Empty: the default.',
      });
    }
    // A colour input always has a colour: "Not set" is how the key is removed.
    const id = fieldId(name);
    const err = fieldError(s.errors, name);
    // Ten boxes all called "Not set" would be told apart by nobody using a screen reader: each is
    // named by its colour too.
    return `<div class="field colour">
<label for="${id}">${escapeHtml(label)}</label>
<span class="colour-row"><input type="color" id="${id}" name="${name}" value="${escapeHtml((value || PICKER_START[key] || '#1f5bd8').toLowerCase())}"${err.attrs}>
<label class="unset"><input type="checkbox" name="${unsetField(key)}" value="yes" aria-label="${escapeHtml(label)}: not set (the default)"${value === '' ? ' checked' : ''}> Not set (the default)</label></span>
${err.html}
</div>`;
  }).join('\n');
  return groupForm('theme', ctx, fp, s, `<div class="theme-grid">\n${fields}\n</div>`, { preview: true });
}

function headerForm(ctx: SiteContext, fp: string, s: GroupState): string {
  const v = s.values;
  const texts = Object.entries(HEADER_TEXT).map(([key, f]) =>
    textField({ name: headerField(key), label: f.label, value: v[headerField(key)], errors: s.errors, hint: f.hint }),
  );
  const choices = Object.entries(HEADER_CHOICES).map(([key, options]) =>
    selectField({
      name: headerField(key),
      label: HEADER_LABELS[key],
      value: v[headerField(key)] ?? '',
      options: [{ value: '', label: 'Default' }, ...options.map((o) => ({ value: o, label: o }))],
      errors: s.errors,
    }),
  );
  return groupForm(
    'header',
    ctx,
    fp,
    s,
    `${choices.join('\n')}
${checkboxField(headerField('showBell'), 'Show the notifications bell to signed-in visitors', v[headerField('showBell')] === 'yes', s.errors)}
${texts.join('\n')}`,
    { preview: true },
  );
}

function pagesForm(ctx: SiteContext, fp: string, s: GroupState): string {
  const rows = PAGE_KEYS.map((key) => {
    const vName = visibilityField(key);
    const eName = enabledField(key);
    const vErr = fieldError(s.errors, vName);
    const eErr = fieldError(s.errors, eName);
    const value = s.values[vName] ?? '';
    const options = [
      { value: '', label: "The community's" },
      { value: 'PUBLIC', label: 'Everyone' },
      { value: 'MEMBERS_ONLY', label: 'Members only' },
    ];
    if (!options.some((o) => o.value === value)) options.push({ value, label: `${value} (current)` });
    return `<tr>
<th scope="row">${escapeHtml(PAGE_LABELS[key])}${key === 'CHAT' ? ' <span class="meta">(always members only)</span>' : ''}</th>
<td><input type="checkbox" id="${fieldId(eName)}" name="${eName}" value="yes" aria-label="${escapeHtml(PAGE_LABELS[key])} is on"${s.values[eName] === 'yes' ? ' checked' : ''}${eErr.attrs}>${eErr.html}</td>
<td><select id="${fieldId(vName)}" name="${vName}" aria-label="Who can see ${escapeHtml(PAGE_LABELS[key])}"${vErr.attrs}>
${options.map((o) => `<option value="${escapeHtml(o.value)}"${o.value === value ? ' selected' : ''}>${escapeHtml(o.label)}</option>`).join('\n')}
</select>${vErr.html}</td>
</tr>`;
  }).join('\n');
  return groupForm(
    'pages',
    ctx,
    fp,
    s,
    `<div class="table-wrap"><table>
<caption class="meta">A page that is off is not found, and leaves the navigation.</caption>
<thead><tr><th scope="col">Page</th><th scope="col">On</th><th scope="col">Who can see it</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`,
  );
}

function advancedForm(ctx: SiteContext, fp: string, s: GroupState, storefront: Settings['storefrontConfig']): string {
  const keys = [
    ...new Set([...advancedKeys(storefront), ...Object.keys(s.values).map((k) => k.replace(/^advanced\./, ''))]),
  ];
  const fields = keys.map((key) =>
    textField({
      name: advancedField(key),
      label: key,
      value: s.values[advancedField(key)] ?? '',
      errors: s.errors,
      type: 'textarea',
      hint: `${ADVANCED_HINTS[key] ?? 'JSON.'} Empty: none.`,
      attrs: ' spellcheck="false"',
    }),
  );
  return groupForm('advanced', ctx, fp, s, fields.join('\n'));
}

const SETTINGS_STYLE = `
.settings-group { margin: 0 0 2.5em; }
.settings-group h2 { margin: 0 0 0.6em; }
.theme-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(16em, 1fr)); gap: 0 1.5em; }
.colour-row { display: flex; align-items: center; gap: 0.8em; flex-wrap: wrap; }
.field input[type="color"] { width: 3.2em; height: 2.2em; padding: 0.1em; }
.field.check label, .unset { font-weight: 400; }
.preview-frame { width: 100%; height: 34em; border: 1px solid color-mix(in srgb, GrayText 45%, transparent); border-radius: 6px; background: Canvas; }
`;

interface RenderOpts {
  /** The group whose form re-renders what was submitted, with its errors. */
  failed?: { group: Group; state: GroupState };
  status?: number;
}

function settingsPage(
  ctx: SiteContext,
  leader: Leader,
  req: Request,
  settings: Settings,
  opts: RenderOpts = {},
): PageContent {
  const fp = settingsFingerprint(settings);
  const stateOf = (group: Group, values: () => Values): GroupState =>
    opts.failed?.group === group ? opts.failed.state : { values: values(), errors: noErrors() };
  const site = stateOf('site', () => ({
    landingUrl: settings.landingUrl ?? '',
    domains: settings.domains.join('\n'),
    embedOrigins: settings.embedOrigins.join('\n'),
  }));
  const section = (
    group: Group,
    title: string,
    intro: string,
    form: string,
  ) => `<section class="settings-group" aria-labelledby="settings-${group}-title">
<h2 id="settings-${group}-title">${escapeHtml(title)}</h2>
<p class="hint">${escapeHtml(intro)}</p>
${form}
</section>`;
  const page = consolePage(ctx, leader, {
    section: 'settings',
    title: 'Settings',
    status: opts.status,
    frames: true,
    main: `<h1>Settings</h1>
${notice(doneNotice(req, DONE))}
<p>Each form saves its own settings only, at once, for every visitor and widget. Every change is in the <a href="/admin/audit-log?action=settings.update">audit log</a>.</p>
${section(
  'access',
  'Access',
  'Who can see the site, and how people join.',
  accessForm(
    ctx,
    fp,
    stateOf('access', () => ({ visibility: settings.visibility, accessibility: settings.accessibility })),
  ),
)}
${section('site', 'Site', 'Where the community lives: its landing site, its domains, and the sites that embed its widgets.', siteForm(ctx, fp, site))}
${section(
  'theme',
  'Theme',
  'Colours, fonts and corners of the hosted site and of every widget, wherever it is embedded.',
  themeForm(
    ctx,
    fp,
    stateOf('theme', () => themeValues(settings.themeConfig)),
  ),
)}
${section(
  'header',
  'Header',
  'The header at the top of every page (and of the header widget on your own site).',
  headerForm(
    ctx,
    fp,
    stateOf('header', () => headerValues(settings.storefrontConfig.header)),
  ),
)}
<section class="settings-group" aria-labelledby="settings-preview-title">
<h2 id="settings-preview-title">Preview</h2>
<p class="hint">The header and theme as drafted in the two forms above, on a sample page. Press Preview to update it; nothing is saved until you press Save.</p>
<div data-island="settings-preview"><iframe class="preview-frame" name="settings-preview" title="Preview" src="/admin/settings/preview"></iframe></div>
</section>
${section(
  'pages',
  'Pages',
  'Which pages are on, and who can see each.',
  pagesForm(
    ctx,
    fp,
    stateOf('pages', () => pageValues(settings.pageSettings)),
  ),
)}
${section(
  'advanced',
  'Advanced',
  'The rest of the storefront configuration, as JSON, one part per box: the navigation, footer, modules and more. Each box replaces its part whole; an empty box removes it.',
  advancedForm(
    ctx,
    fp,
    stateOf('advanced', () => advancedValues(settings.storefrontConfig)),
    settings.storefrontConfig,
  ),
)}`,
  });
  return { ...page, style: `${page.style ?? ''}${SETTINGS_STYLE}` };
}

// ---------------------------------------------------------------------------------------------
// The preview

const PREVIEW_STYLE = `
.preview-note { font-size: 0.9em; }
.sample { padding: 1.2em; border-radius: var(--svc-theme-card-radius, 10px); background: var(--svc-theme-bg-color, Canvas); color: var(--svc-theme-text-color, CanvasText); font-family: var(--svc-theme-body-font, inherit); border: 1px solid color-mix(in srgb, GrayText 35%, transparent); }
.sample h2 { font-family: var(--svc-theme-heading-font, inherit); margin-top: 0; }
.sample a { color: var(--svc-theme-link-color, var(--brand)); }
.sample .accent { border-left: 4px solid var(--svc-theme-accent-color, var(--brand)); padding-left: 0.8em; }
.sample .primary, .sample .secondary { display: inline-block; font: inherit; font-weight: 600; padding: 0.55em 1em; border-radius: var(--svc-theme-button-radius, 6px); text-decoration: none; }
.sample .primary { background: var(--svc-theme-primary-btn-bg, var(--brand)); color: var(--svc-theme-primary-btn-text, #fff); border: 1px solid var(--svc-theme-primary-btn-bg, var(--brand)); }
.sample .secondary { background: var(--svc-theme-secondary-btn-bg, transparent); color: var(--svc-theme-secondary-btn-text, inherit); border: 1px solid var(--svc-theme-secondary-btn-border, currentColor); }
.sample input { font: inherit; padding: 0.45em 0.55em; border-radius: var(--svc-theme-input-radius, 6px); border: 1px solid GrayText; }
`;

/** The draft theme: the submitted keys the schema takes (a key it refuses is left to the defaults). */
function draftTheme(values: Values, stored: Settings['themeConfig']): Settings['themeConfig'] {
  const theme = themeFrom(values, stored);
  return Object.fromEntries(
    Object.entries(theme).filter(([k, v]) => ThemeConfig.safeParse({ [k]: v }).success),
  ) as Settings['themeConfig'];
}

async function previewPage(
  deps: ConsoleDeps,
  ctx: SiteContext,
  leader: Leader,
  req: Request,
  form: Values | null,
): Promise<PageContent> {
  const stored = await readSettings(deps, leader, req);
  const drafts = form === null ? [] : formList(req, 'draft');
  const theme = drafts.includes('theme') ? draftTheme(themeSubmitted(form!), stored.themeConfig) : stored.themeConfig;
  const header = drafts.includes('header')
    ? headerFrom(headerSubmitted(form!), stored.storefrontConfig.header)
    : stored.storefrontConfig.header;
  const current = ctx.chrome.widgets;
  if (current) {
    // The hosted pages' own render of the chrome, given a community that has the draft.
    const community = current.input.community;
    const draft = {
      ...community,
      themeConfig: theme,
      storefrontConfig: { ...community.storefrontConfig, header: header ?? {} },
    };
    ctx.chrome.widgets = new PageWidgets(await loadWidgetBuild(deps.distDir), { ...current.input, community: draft });
  }
  ctx.chrome.site = pageSiteOf({ ...ctx.community, theme_config: JSON.stringify(theme) });
  const name = escapeHtml(ctx.community.name);
  return {
    title: 'Preview',
    noStore: true,
    style: PREVIEW_STYLE,
    main: `<p class="notice preview-note" role="status">Preview of your draft: nothing here is saved.</p>
<div class="sample">
<h1>Welcome to ${name}</h1>
<p>This is how text reads on your site, with <a href="#sample">a link</a> in it.</p>
<p class="accent">An accented note, as event cards and highlights show it.</p>
<h2>Upcoming</h2>
<p class="actions"><a class="primary" href="#sample">Join us</a> <a class="secondary" href="#sample">Learn more</a></p>
<p><label for="sample-input">Your e-mail</label><br><input id="sample-input" type="email" placeholder="you@example.com"></p>
</div>`,
  };
}

// ---------------------------------------------------------------------------------------------
// Routes

export function settingsPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  r.get('/settings', async (ctx, _db, req, leader) =>
    settingsPage(ctx, leader, req, await readSettings(deps, leader, req)),
  );

  // A GET answers the stored look (the frame's first page); a post, the draft it carries.
  r.get('/settings/preview', (ctx, _db, req, leader) => previewPage(deps, ctx, leader, req, null));
  r.post('/settings/preview', (ctx, _db, req, leader, form) => previewPage(deps, ctx, leader, req, form));

  for (const group of GROUPS) {
    r.post(`/settings/${group}`, async (ctx, _db, req, leader, form) => {
      const stored = await readSettings(deps, leader, req);
      const draft = draftOf(group, form, stored);
      const refuse = (errors: FormErrors, status: number, now = stored) =>
        settingsPage(ctx, leader, req, now, { failed: { group, state: { values: draft.values, errors } }, status });
      // Judged before anything is sent: a form made from older settings would overwrite a change it never showed.
      if (form.fingerprint !== settingsFingerprint(stored))
        return refuse({ fields: {}, form: messages.settingsChangedMeanwhile }, 409);
      if (draft.patch === null) return refuse(draft.errors, 400);
      const out = await runOperation(
        routes.updateCommunitySettings,
        settingsHandlers.updateCommunitySettings,
        deps.api,
        leader,
        { body: draft.patch },
        req,
      );
      if (!out.ok) return refuse(refusalOf(group, out.error, draft.patch, stored), out.error.status);
      return { redirect: `/admin/settings?done=${group}` };
    });
  }
}
