// `/apply` (docs/hosted-site.md): the community's segments open to applications, each with a
// plain form of its application form's fields, posted to `/apply` through the same use-case as
// the apply API and <svc-apply> (server/use-cases/applications.ts). Not found for an INVITE_ONLY
// community. It has no page key of its own and no membership gate: it is where the gate's
// "apply" link leads, so a members-only community's non-members must reach it. Anonymous
// viewers are asked to sign in first (a form post needs the session its token is bound to); a
// paid segment needs the checkout, which needs JavaScript.
//
// With the widget build a non-member gets the server-rendered <svc-apply> (applyWidget, below), and
// the plain forms only without JavaScript (a `.nojs` box; the widget hides itself then).
// The form-post contract of the plain forms:
//   segmentId     the segment's id
//   a:<fieldId>   one answer per field of the segment's application form (the form as
//                 applicationForm() completes it: e-mail and name are always there); a
//                 multi_select field repeats its name once per option chosen, a checkbox sends
//                 any value when ticked and nothing when not, a number field a decimal number
//   _csrf         the viewer's form token (./forms.ts)
import type { FormField, Segment } from '../../../contract/resources.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import { transaction } from '../../db/index.ts';
import { applicationForm } from '../../domain/applications.ts';
import { Refusal } from '../../domain/refusal.ts';
import { getSegmentForm, listPublicSegments } from '../../domain/segments.ts';
import { accountContact } from '../../domain/users.ts';
import { refusalError } from '../../http/refusals.ts';
import { escapeHtml } from '../../shared/html.ts';
import { submitApplication } from '../../use-cases/applications.ts';
import type { FormHandler, PageBody, SiteContext } from './context.ts';
import { csrfInput } from './forms.ts';
import { isMember } from './gate.ts';
import { signInHref } from './layout.ts';

/** The prefix of an answer's field name: `a:<form field id>`, so no answer can pose as segmentId or _csrf. */
const ANSWER = 'a:';

const isPaid = (s: Segment): boolean =>
  [s.priceMonthly, s.priceQuarterly, s.priceYearly, s.priceOneTime, s.installmentTotalPrice].some((p) => p !== null);

function money(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

function prices(s: Segment): string {
  const offers: [string, number | null][] = [
    ['a month', s.priceMonthly],
    ['a quarter', s.priceQuarterly],
    ['a year', s.priceYearly],
    ['once', s.priceOneTime],
    ['in installments', s.installmentTotalPrice],
  ];
  const set = offers.filter((o): o is [string, number] => o[1] !== null);
  if (set.length === 0) return 'Free';
  return set.map(([per, cents]) => `${money(cents, s.currency)} ${per}`).join(' · ');
}

/** What was typed before a refusal, to fill the form in again. */
type Draft = { segmentId: string; values: Record<string, string[]>; message: string } | null;

function fieldHtml(segmentId: string, f: FormField, values: string[]): string {
  const id = `f-${segmentId}-${f.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const name = escapeHtml(`${ANSWER}${f.id}`);
  const req = f.required ? ' required' : '';
  const label = `<label for="${id}">${escapeHtml(f.label)}${f.required ? ' (required)' : ''}</label>`;
  const help = f.helpText ? `<div class="meta">${escapeHtml(f.helpText)}</div>` : '';
  const value = escapeHtml(values[0] ?? '');
  const placeholder = f.placeholder ? ` placeholder="${escapeHtml(f.placeholder)}"` : '';
  const max = f.maxLength ? ` maxlength="${f.maxLength}"` : '';
  switch (f.type) {
    case 'long_text':
      return `<p>${label}<br><textarea id="${id}" name="${name}" rows="4"${max}${req}${placeholder}>${value}</textarea>${help}</p>`;
    case 'select':
      return `<p>${label}<br><select id="${id}" name="${name}"${req}><option value="">Choose…</option>${(
        f.options ?? []
      )
        .map((o) => `<option${values.includes(o) ? ' selected' : ''}>${escapeHtml(o)}</option>`)
        .join('')}</select>${help}</p>`;
    case 'multi_select':
      return `<fieldset><legend>${escapeHtml(f.label)}${f.required ? ' (required)' : ''}</legend>${(f.options ?? [])
        .map(
          (o, i) =>
            `<label><input type="checkbox" id="${id}-${i}" name="${name}" value="${escapeHtml(o)}"${values.includes(o) ? ' checked' : ''}> ${escapeHtml(o)}</label>`,
        )
        .join('<br>')}${help}</fieldset>`;
    case 'checkbox':
      return `<p><label><input type="checkbox" id="${id}" name="${name}" value="yes"${values.length ? ' checked' : ''}${req}> ${escapeHtml(f.label)}</label>${help}</p>`;
    default: {
      const type = { email: 'email', phone: 'tel', number: 'number', url: 'url', date: 'date', short_text: 'text' }[
        f.type
      ];
      const step = f.type === 'number' ? ' step="any"' : '';
      return `<p>${label}<br><input type="${type}" id="${id}" name="${name}" value="${value}"${max}${step}${req}${placeholder}>${help}</p>`;
    }
  }
}

async function renderApply(
  ctx: SiteContext,
  db: Db,
  outcome: { applied?: string; draft: Draft },
): Promise<{ title: string; main: string } | 'not-found'> {
  if (ctx.community.accessibility === 'INVITE_ONLY') return 'not-found';
  const name = escapeHtml(ctx.community.name);
  const segments = await listPublicSegments(db, ctx.community.id);
  const signedIn = ctx.viewer.userId !== null && ctx.csrf !== null;
  const contact = signedIn ? await accountContact(db, ctx.viewer.userId!) : null;
  const notice =
    outcome.applied === 'approved'
      ? `<p class="notice" role="status">Welcome to ${name}: your membership is active.</p>`
      : outcome.applied === 'pending'
        ? `<p class="notice" role="status">Your application was sent. ${name} will let you know its decision.</p>`
        : '';
  const intro = isMember(ctx.viewer)
    ? `<p>You are already a member of ${name}.</p>`
    : !signedIn
      ? `<p><a class="button" href="${escapeHtml(signInHref(ctx.here))}">Sign in to apply</a> Signing in first keeps your application with your account.</p>`
      : '';
  const sections: string[] = [];
  let draftShown = false;
  for (const s of segments) {
    const head = `<h2 id="seg-${escapeHtml(s.id)}">${escapeHtml(s.name)}</h2>
<p class="meta">${escapeHtml(prices(s))}</p>
${s.description ? `<div class="description">${escapeHtml(s.description)}</div>` : ''}`;
    let body = '';
    if (isPaid(s)) body = '<p class="meta">Paying for this membership needs JavaScript.</p>';
    else if (signedIn && !isMember(ctx.viewer)) {
      const form = applicationForm((await getSegmentForm(db, ctx.community.id, s.id))?.schema ?? []);
      const draft = outcome.draft?.segmentId === s.id ? outcome.draft : null;
      if (draft) draftShown = true;
      // Prefilled with the account's own address and name, which the applicant may change.
      const initial = (f: FormField): string[] =>
        draft
          ? (draft.values[f.id] ?? [])
          : f.id === form.emailId && contact
            ? [contact.email]
            : f.id === form.nameId && contact
              ? [contact.name]
              : [];
      body = `${draft ? `<p class="notice error" role="alert">${escapeHtml(draft.message)}</p>` : ''}
<form method="post" action="/apply" class="apply-form">
<input type="hidden" name="segmentId" value="${escapeHtml(s.id)}">
${form.fields.map((f) => fieldHtml(s.id, f, initial(f))).join('\n')}
${csrfInput(ctx.csrf!)}
<button type="submit">Apply: ${escapeHtml(s.name)}</button>
</form>`;
    }
    sections.push(`<section aria-labelledby="seg-${escapeHtml(s.id)}">\n${head}\n${body}\n</section>`);
  }
  const plain = `${intro}
${sections.length ? sections.join('\n') : '<p class="empty">No memberships are open to applications right now.</p>'}`;
  // With the widget build, a non-member gets <svc-apply> (any segment, paid ones through the
  // checkout, signed in or not) and the plain forms only without JavaScript; a member has nothing
  // to apply for, so the plain page says so.
  const widget = ctx.chrome.widgets && !isMember(ctx.viewer) ? await applyWidget(ctx, db, segments) : null;
  return {
    title: `Join ${ctx.community.name}`,
    main: `<h1>Join ${name}</h1>
${notice}
${outcome.draft && !draftShown ? `<p class="notice error" role="alert">${escapeHtml(outcome.draft.message)}</p>` : ''}
${widget ? `${widget}\n<div class="nojs">\n${plain}\n</div>` : plain}`,
  };
}

/**
 * `<svc-apply>` server-rendered with the public segments and their forms (the same domain reads
 * as the widget's /v1 ones), so it is in the first paint and hydrates, and a segment is chosen,
 * without a request. Its server `<style>` hides it without JavaScript (widgets/ssr.tsx), where the
 * page's plain forms, shown only then, post the same application (docs/hosted-site.md).
 */
async function applyWidget(ctx: SiteContext, db: Db, segments: Segment[]): Promise<string> {
  const forms: Record<string, FormField[]> = {};
  for (const s of segments.filter((s) => s.hasForm)) {
    const form = await getSegmentForm(db, ctx.community.id, s.id);
    if (form) forms[s.id] = form.schema;
  }
  // Attributed as the plain form's posts are (applyAction's `source`).
  return ctx.chrome.widgets!.element('apply', { source: 'hosted site' }, { segments, forms });
}

/** GET /apply; `?applied=approved|pending` is where a successful post lands. */
export async function applyPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const applied = ctx.viewer.userId !== null && typeof req.query.applied === 'string' ? req.query.applied : undefined;
  return renderApply(ctx, db, { applied, draft: null });
}

/** Every value of one field of the posted form (a multi_select repeats its name). */
function valuesOf(req: Request, name: string): string[] {
  const raw = (req.body as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
}

/** The answers the API takes, from the form's strings, by field type. */
function answersOf(
  fields: FormField[],
  req: Request,
): { answers: Record<string, unknown>; values: Record<string, string[]> } {
  const answers: Record<string, unknown> = {};
  const values: Record<string, string[]> = {};
  for (const f of fields) {
    const given = valuesOf(req, `${ANSWER}${f.id}`);
    values[f.id] = given;
    if (f.type === 'checkbox') answers[f.id] = given.length > 0;
    else if (f.type === 'multi_select') answers[f.id] = given;
    else if (given.length === 0 || given[0] === '') continue;
    else if (f.type === 'number') answers[f.id] = Number.isFinite(Number(given[0])) ? Number(given[0]) : given[0];
    else answers[f.id] = given[0];
  }
  return { answers, values };
}

/** POST /apply */
export const applyAction: FormHandler = async (ctx, db, req, form) => {
  if (ctx.community.accessibility === 'INVITE_ONLY') return 'not-found';
  const segmentId = form.segmentId ?? '';
  const segment = (await listPublicSegments(db, ctx.community.id)).find((s) => s.id === segmentId);
  const fields = segment
    ? applicationForm((await getSegmentForm(db, ctx.community.id, segment.id))?.schema ?? [])
    : null;
  const { answers, values } = fields ? answersOf(fields.fields, req) : { answers: {}, values: {} };
  const refused = async (message: string, status: number) => {
    const page = await renderApply(ctx, db, { draft: { segmentId, values, message } });
    return page === 'not-found' ? page : { ...page, status };
  };
  if (!segment || !fields) return refused('Choose one of the memberships on this page.', 400);
  // The checkout that a paid segment needs is opened by the widget's script.
  if (isPaid(segment)) return refused('Paying for this membership needs JavaScript.', 400);
  try {
    const result = await submitApplication((fn) => transaction(db, fn), ctx.community.id, {
      segmentId,
      answers,
      source: 'hosted site',
    });
    const status = 'requestStatus' in result.body ? result.body.requestStatus : 'PENDING';
    return { redirect: `/apply?applied=${status === 'APPROVED' ? 'approved' : 'pending'}` };
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    const answer = refusalError(err);
    return refused(answer.message, answer.status);
  }
};
