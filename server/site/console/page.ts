// The console's pages (docs/leader-console.md, "Pages"): who may open them, the frame every one
// shares (the site's chrome around the console's own navigation) and the small pieces forms are
// made of. Every console page is rendered for one signed-in leader, so it is `private, no-store`
// (the hosted site's rule for any signed-in viewer) and never kept by the anonymous page cache.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import { ApiError } from '../../http/api-error.ts';
import type { PageInfo } from '../../http/pagination.ts';
import { authenticateLeader, type Leader } from '../../http/leader.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { PageContent, SiteContext } from '../pages/context.ts';
import { csrfInput } from '../pages/forms.ts';

/**
 * The leader looking at the page, or what the hosted site answers instead: the sign-in gate for
 * an anonymous viewer, the "not allowed" page for anyone else (a member, an applicant, a leader of
 * another community), whatever they asked for, before anything of the page is read.
 */
export async function consoleLeader(ctx: SiteContext, db: Db): Promise<Leader | 'gate' | 'forbidden'> {
  if (ctx.viewer.userId === null) return 'gate';
  try {
    return await authenticateLeader(
      db,
      { userId: ctx.viewer.userId, communityTag: ctx.community.tag },
      ctx.community.tag,
    );
  } catch (err) {
    if (err instanceof ApiError) return 'forbidden';
    throw err;
  }
}

const CONSOLE_STYLE = `
.console { display: grid; grid-template-columns: minmax(10em, 13em) 1fr; gap: 2em; align-items: start; }
@media (max-width: 44em) { .console { grid-template-columns: 1fr; } }
.console-nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.2em; }
.console-nav a { display: block; padding: 0.35em 0.6em; border-radius: 6px; text-decoration: none; }
.console-nav a[aria-current="page"] { background: color-mix(in srgb, var(--brand) 14%, transparent); font-weight: 600; color: CanvasText; }
.console-who { margin: 0 0 0.6em; font-weight: 600; }
.console-section { min-width: 0; }
.field { margin: 0 0 1em; display: flex; flex-direction: column; gap: 0.25em; max-width: 40em; }
.field label, fieldset legend { font-weight: 600; }
.field input, .field select, .field textarea { font: inherit; padding: 0.45em 0.55em; border: 1px solid GrayText; border-radius: 6px; background: Canvas; color: CanvasText; }
.field textarea { min-height: 8em; font-family: ui-monospace, monospace; font-size: 0.9em; }
.field input[aria-invalid="true"], .field textarea[aria-invalid="true"], .field select[aria-invalid="true"] { border-color: #c62828; }
.hint { margin: 0; color: var(--muted); font-size: 0.9em; }
.field-error { margin: 0; color: #c62828; font-weight: 600; }
@media (prefers-color-scheme: dark) { .field-error { color: #ff8a80; } }
fieldset { border: 1px solid color-mix(in srgb, GrayText 40%, transparent); border-radius: 6px; margin: 0 0 1em; padding: 0.6em 1em; }
button { font: inherit; padding: 0.45em 0.9em; border-radius: 6px; border: 1px solid var(--brand); background: var(--brand); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--brand); }
button.danger { background: #b71c1c; border-color: #b71c1c; }
.inline-form { display: inline; margin: 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(10em, 1fr)); gap: 1em; margin: 0 0 1.5em; padding: 0; list-style: none; }
.stats li { border: 1px solid color-mix(in srgb, GrayText 35%, transparent); border-radius: 8px; padding: 0.8em 1em; }
.stats .value { display: block; font-size: 1.6em; font-weight: 700; }
.chart { display: block; width: 100%; max-width: 40em; height: auto; }
.chart rect { fill: var(--brand); }
.secret { font-family: ui-monospace, monospace; padding: 0.6em; border: 2px dashed var(--brand); border-radius: 6px; word-break: break-all; user-select: all; }
.table-wrap { overflow-x: auto; }
`;

/** The console's sections, in the order of its navigation. */
export const CONSOLE_SECTIONS = [
  { key: 'overview', href: '/admin', label: 'Overview' },
  { key: 'members', href: '/admin/members', label: 'Members' },
  { key: 'requests', href: '/admin/members/requests', label: 'Requests' },
  { key: 'settings', href: '/admin/settings', label: 'Settings' },
  { key: 'integrations', href: '/admin/integrations', label: 'Integrations' },
  { key: 'invites', href: '/admin/invites', label: 'Invites' },
  { key: 'broadcasts', href: '/admin/broadcasts', label: 'Broadcasts' },
  { key: 'audit', href: '/admin/audit-log', label: 'Audit log' },
] as const;
export type ConsoleSection = (typeof CONSOLE_SECTIONS)[number]['key'];

export interface ConsolePage {
  section: ConsoleSection;
  title: string;
  /** The section's content, below its heading; everything user-written in it escaped. */
  main: string;
  status?: number;
  /** Frames the page shows (a live preview): added to the CSP's frame-src. */
  frames?: boolean;
}

/** A console page as the hosted site renders it: the console's navigation, then the section. */
export function consolePage(ctx: SiteContext, leader: Leader, page: ConsolePage): PageContent {
  const nav = CONSOLE_SECTIONS.map(
    (s) =>
      `<li><a href="${s.href}"${s.key === page.section ? ' aria-current="page"' : ''}>${escapeHtml(s.label)}</a></li>`,
  ).join('\n');
  return {
    title: `${page.title} · Console`,
    status: page.status,
    noStore: true,
    style: CONSOLE_STYLE,
    // The console's Preact islands (console/index.tsx): confirmation dialogs, live previews.
    // Without the build (or without JavaScript) every page still works by its forms.
    moduleScripts: ctx.chrome.widgets?.entryFiles('console') ?? [],
    csp: page.frames ? { 'frame-src': ["'self'"] } : undefined,
    main: `<div class="console">
<nav class="console-nav" aria-label="Console">
<p class="console-who">${escapeHtml(leader.name)} <span class="meta">(${leader.role})</span></p>
<ul>
${nav}
</ul>
</nav>
<div class="console-section">
${page.main}
</div>
</div>`,
  };
}

/** Errors a refused form shows: the message for each field it names, and one for the form. */
export interface FormErrors {
  /** Form field name -> the message shown next to it. */
  fields: Record<string, string>;
  /** A refusal that names no field on this form. */
  form?: string;
}

export const noErrors = (): FormErrors => ({ fields: {} });

/**
 * The refusal of an operation as the errors of a form: its field, when the page shows one under
 * that name (`fieldFor` maps the API's dotted path onto the form's inputs), else the form's.
 */
export function formErrorsOf(error: ApiError, fieldFor: (path: string) => string | null = (p) => p): FormErrors {
  const path = typeof error.extras?.field === 'string' ? error.extras.field : null;
  const field = path === null ? null : fieldFor(path);
  return field === null ? { fields: {}, form: error.message } : { fields: { [field]: error.message } };
}

/**
 * A field's error: the text under it, and what its input carries (`aria-invalid`, and
 * `aria-describedby` naming the error and the field's hint when it has one).
 */
export function fieldError(errors: FormErrors, name: string, hintId?: string): { html: string; attrs: string } {
  const message = errors.fields[name];
  const id = `error-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const described = [hintId, message === undefined ? undefined : id].filter(Boolean).join(' ');
  return {
    html: message === undefined ? '' : `<p class="field-error" id="${id}">${escapeHtml(message)}</p>`,
    attrs: `${message === undefined ? '' : ' aria-invalid="true"'}${described ? ` aria-describedby="${described}"` : ''}`,
  };
}

/** The form's own error (one no field shows), at its top; announced when the page loads. */
export const formError = (errors: FormErrors): string =>
  errors.form ? `<p class="notice error" role="alert">${escapeHtml(errors.form)}</p>` : '';

/** A notice after a change (`?done=...` on the page a form redirected to). */
export const notice = (text: string | null): string =>
  text ? `<p class="notice" role="status">${escapeHtml(text)}</p>` : '';

/** The id a field's input has, from its name. */
export const fieldId = (name: string): string => `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** One labelled input (or textarea), its value, its hint and its error. */
export function textField(opts: {
  name: string;
  label: string;
  value?: string | null;
  errors: FormErrors;
  type?: 'text' | 'url' | 'email' | 'datetime-local' | 'number' | 'color' | 'search' | 'textarea';
  required?: boolean;
  hint?: string;
  /** More attributes for the input, written as they are (the caller's, never user input). */
  attrs?: string;
}): string {
  const id = fieldId(opts.name);
  const hintId = opts.hint ? `${id}-hint` : undefined;
  const err = fieldError(opts.errors, opts.name, hintId);
  const common = `id="${id}" name="${escapeHtml(opts.name)}"${opts.required ? ' required' : ''}${err.attrs}${opts.attrs ?? ''}`;
  const input =
    opts.type === 'textarea'
      ? `<textarea ${common}>${escapeHtml(opts.value ?? '')}</textarea>`
      : `<input ${common} type="${opts.type ?? 'text'}" value="${escapeHtml(opts.value ?? '')}">`;
  return `<div class="field">
<label for="${id}">${escapeHtml(opts.label)}</label>
${hintId ? `<p class="hint" id="${hintId}">${escapeHtml(opts.hint!)}</p>\n` : ''}${input}
${err.html}
</div>`;
}

/**
 * A form that changes or removes something: posted to `action` with the CSRF token. A
 * destructive one (`confirm`) asks first: with JavaScript the console's module opens a dialog
 * holding `confirm` (console/confirm.tsx); without it the post answers a page that asks, whose
 * button posts again with `confirmed=yes` (confirmationPage below). Either way the change is
 * made only by a post that says it was confirmed.
 */
export function actionForm(opts: {
  action: string;
  label: string;
  csrf: string | null;
  fields?: Record<string, string>;
  confirm?: string;
  danger?: boolean;
  inner?: string;
}): string {
  const hidden = Object.entries(opts.fields ?? {})
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return `<form method="post" action="${escapeHtml(opts.action)}" class="inline-form"${opts.confirm ? ` data-confirm="${escapeHtml(opts.confirm)}"` : ''}>${opts.csrf ? csrfInput(opts.csrf) : ''}${hidden}${opts.inner ?? ''}<button type="submit"${opts.danger ? ' class="danger"' : ''}>${escapeHtml(opts.label)}</button></form>`;
}

/** Whether a destructive post was confirmed (the dialog's button or the confirmation page's). */
export const confirmed = (form: Record<string, string>): boolean => form.confirmed === 'yes';

/**
 * The page a destructive post answers when it was not confirmed (no JavaScript): what will
 * happen, and a button that posts the same fields again with `confirmed=yes`. Nothing changed.
 */
export function confirmationPage(
  ctx: SiteContext,
  leader: Leader,
  section: ConsoleSection,
  opts: {
    question: string;
    action: string;
    form: Record<string, string>;
    csrf: string | null;
    back: string;
    label: string;
  },
): PageContent {
  const fields = Object.fromEntries(Object.entries(opts.form).filter(([k]) => k !== '_csrf' && k !== 'confirmed'));
  return consolePage(ctx, leader, {
    section,
    title: 'Are you sure?',
    main: `<h1>Are you sure?</h1>
<p>${escapeHtml(opts.question)}</p>
<div class="actions">
${actionForm({ action: opts.action, label: opts.label, csrf: opts.csrf, fields: { ...fields, confirmed: 'yes' }, danger: true })}
<a href="${escapeHtml(opts.back)}">Cancel</a>
</div>`,
  });
}

/** Every value of a repeated form field (checkboxes): the site's form reader keeps only the first. */
export function formList(req: Request, name: string): string[] {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

/** A `?done=` notice's text from the query: only the page's own known notices are shown. */
export function doneNotice(req: Request, known: Record<string, string>): string | null {
  const done = req.query.done;
  return typeof done === 'string' && Object.hasOwn(known, done) ? known[done] : null;
}

/**
 * "Newer" and "Older" links under a list paged by offset (the API's PageInfo): the same path,
 * its other query values kept, `offset` moved by a page.
 */
export function pager(path: string, query: Record<string, string | undefined>, page: PageInfo | undefined): string {
  if (!page || page.offset === null) return '';
  const href = (offset: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '' && k !== 'offset') q.set(k, v);
    if (offset > 0) q.set('offset', String(offset));
    const s = q.toString();
    return escapeHtml(s ? `${path}?${s}` : path);
  };
  const links = [
    page.offset > 0 ? `<a href="${href(Math.max(0, page.offset - page.limit))}" rel="prev">Newer</a>` : '',
    page.hasMore ? `<a href="${href(page.offset + page.limit)}" rel="next">Older</a>` : '',
  ].filter(Boolean);
  const shown = `${page.total === 0 ? 0 : page.offset + 1}–${Math.min(page.offset + page.limit, page.total)} of ${page.total}`;
  return `<nav class="pager actions" aria-label="Pages"><span class="meta">${shown}</span>${links.join(' ')}</nav>`;
}

/** A query string value, when the request has exactly one. */
export const queryValue = (req: Request, name: string): string | undefined => {
  const v = req.query[name];
  return typeof v === 'string' ? v : undefined;
};

/** A date and time as leaders read it in the console: UTC, to the minute. */
export const consoleTime = (iso: string | null | undefined): string =>
  iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))} UTC</time>` : '';
