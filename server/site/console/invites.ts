// `/admin/invites` (docs/leader-console.md, "Pages", "Invites"): the community's invite links, a
// form that makes one, and revoke. Through the API's operations (contract/routes/admin-invites.ts):
// the code exists in the create operation's answer only (the database keeps its hash), so the page
// that answers the create shows it, once, itself: no redirect, nothing kept by any cache.
import type { Request } from 'express';
import * as routes from '../../../contract/routes/admin-invites.ts';
import { INVITE_LIMITS, type InviteLink } from '../../../contract/routes/admin-invites.ts';
import type { Segment } from '../../../contract/resources.ts';
import { inviteHandlers } from '../../admin/invites.ts';
import { listPublicSegments } from '../../domain/segments.ts';
import type { Db } from '../../db/index.ts';
import type { Leader } from '../../http/leader.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { PageBody, SiteContext } from '../pages/context.ts';
import { csrfInput } from '../pages/forms.ts';
import { runOperation } from './operations.ts';
import {
  actionForm,
  confirmationPage,
  confirmed,
  consolePage,
  consoleTime,
  doneNotice,
  fieldError,
  fieldId,
  formError,
  formErrorsOf,
  noErrors,
  notice,
  pager,
  queryValue,
  textField,
  type FormErrors,
} from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const PAGE_SIZE = 50;
const CREATE_FIELDS = ['expiresAt', 'maxUses', 'segmentId', 'note'] as const;
type CreateForm = Partial<Record<(typeof CREATE_FIELDS)[number], string>>;

/** The segments a link may put people in: the free ones (a link pays nothing: the API refuses a paid one). */
const isFree = (s: Segment) =>
  [s.priceMonthly, s.priceQuarterly, s.priceYearly, s.priceOneTime, s.installmentTotalPrice].every((p) => p === null);

/**
 * The create form's values as the API's body: empty fields left out (the API's defaults apply),
 * the expiry read as UTC (the console shows every time in UTC), the limit as a number when it is
 * one. Anything else the form carries is not passed on, so nothing the route does not name is set.
 */
function createBody(form: CreateForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const expiresAt = form.expiresAt?.trim();
  if (expiresAt) body.expiresAt = /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(expiresAt) ? `${expiresAt}:00Z` : expiresAt;
  const maxUses = form.maxUses?.trim();
  if (maxUses) body.maxUses = /^\d{1,9}$/.test(maxUses) ? Number(maxUses) : maxUses;
  if (form.segmentId) body.segmentId = form.segmentId;
  const note = form.note?.trim();
  if (note) body.note = note;
  return body;
}

function segmentSelect(segments: Segment[], form: CreateForm, errors: FormErrors): string {
  const id = fieldId('segmentId');
  const err = fieldError(errors, 'segmentId', `${id}-hint`);
  const options = [
    `<option value="">No segment</option>`,
    ...segments
      .filter(isFree)
      .map(
        (s) =>
          `<option value="${escapeHtml(s.id)}"${form.segmentId === s.id ? ' selected' : ''}>${escapeHtml(s.name)}</option>`,
      ),
  ].join('');
  return `<div class="field">
<label for="${id}">Segment</label>
<p class="hint" id="${id}-hint">Who joins by the link is put in this segment. Only free segments: joining by a link pays nothing.</p>
<select id="${id}" name="segmentId"${err.attrs}>${options}</select>
${err.html}
</div>`;
}

function createForm(ctx: SiteContext, segments: Segment[], form: CreateForm, errors: FormErrors): string {
  const inviteOnly = ctx.community.accessibility === 'INVITE_ONLY';
  const explanation = inviteOnly
    ? ''
    : `<p class="notice" id="invites-closed">This community is <strong>${ctx.community.accessibility}</strong>: people join at <a href="/apply">/apply</a>, so no invite link can be made here (the API answers 409 INVALID_STATE). Links made while it was INVITE_ONLY rest: their page says the community now takes members without an invitation and points to /apply. Make the community INVITE_ONLY in its settings to use links.</p>`;
  // Shown disabled rather than left out, so a leader sees what a link would take.
  return `<h2>New invite link</h2>
${explanation}
<form method="post" action="/admin/invites">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<fieldset${inviteOnly ? '' : ' disabled aria-describedby="invites-closed"'}>
<legend>The link</legend>
${formError(errors)}
${textField({
  name: 'expiresAt',
  label: 'Expires (UTC)',
  type: 'datetime-local',
  value: form.expiresAt,
  errors,
  hint: `Leave empty for ${INVITE_LIMITS.defaultDays} days from now; at most ${INVITE_LIMITS.maxDays} days ahead. Every link expires.`,
})}
${textField({
  name: 'maxUses',
  label: 'Use limit',
  type: 'number',
  value: form.maxUses,
  errors,
  hint: `How many people may join by it (1 to ${INVITE_LIMITS.maxUses.toLocaleString('en-US')}); empty for no limit but the expiry.`,
  attrs: ` min="1" max="${INVITE_LIMITS.maxUses}" step="1"`,
})}
${segmentSelect(segments, form, errors)}
${textField({
  name: 'note',
  label: 'Note',
  value: form.note,
  errors,
  hint: 'For the leaders: who the link is for. Never shown to the people who use it.',
  attrs: ` maxlength="${INVITE_LIMITS.note}"`,
})}
<button type="submit">Create link</button>
</fieldset>
</form>`;
}

function inviteRow(i: InviteLink, segmentNames: Map<string, string>, csrf: string | null): string {
  const segment = i.segmentId
    ? escapeHtml(segmentNames.get(i.segmentId) ?? 'a closed segment')
    : '<span class="meta">none</span>';
  const revoke =
    i.status === 'ACTIVE'
      ? actionForm({
          action: `/admin/invites/${i.id}/revoke`,
          label: 'Revoke',
          csrf,
          fields: { prefix: i.prefix },
          confirm: `Revoke the link ${i.prefix}…? It stops working at once; the members who joined by it stay.`,
          danger: true,
        })
      : '';
  return `<tr>
<th scope="row"><code>/join/${escapeHtml(i.prefix)}…</code>${i.note ? `<br>${escapeHtml(i.note)}` : ''}</th>
<td>${i.status}${i.revokedAt ? `<br><span class="meta">${consoleTime(i.revokedAt)}</span>` : ''}</td>
<td>${i.uses} / ${i.maxUses ?? '<span class="meta">no limit</span>'}</td>
<td>${consoleTime(i.expiresAt)}</td>
<td>${segment}</td>
<td>${escapeHtml(i.createdBy.name ?? 'a former leader')}<br><span class="meta">${consoleTime(i.createdAt)}</span></td>
<td>${revoke}</td>
</tr>`;
}

const INVITE_NOTICES: Record<string, string> = { revoked: 'The link was revoked: it no longer works.' };

/**
 * The invites page: the list and the form; with `created`, the new link on top (its only
 * showing); with errors, the form as it was posted, the refusal next to its field.
 */
async function invitesPage(
  ctx: SiteContext,
  db: Db,
  req: Request,
  leader: Leader,
  deps: ConsoleDeps,
  opts: {
    form?: CreateForm;
    /** The create form's refusal. */
    errors?: FormErrors;
    /** Another action's refusal (revoke), shown at the top. */
    refusal?: FormErrors;
    status?: number;
    created?: { url: string; prefix: string };
  } = {},
): Promise<PageBody> {
  const offset = opts.form || opts.created || opts.refusal ? undefined : queryValue(req, 'offset');
  const out = await runOperation(
    routes.listInviteLinks,
    inviteHandlers.listInviteLinks,
    deps.api,
    leader,
    { query: { limit: String(PAGE_SIZE), offset } },
    req,
  );
  const segments = await listPublicSegments(db, leader.communityId);
  const segmentNames = new Map(segments.map((s) => [s.id, s.name]));
  const created = opts.created
    ? `<section class="notice" role="status" aria-labelledby="created-heading">
<h2 id="created-heading">Your new invite link</h2>
<p><strong>Shown only once — copy it now.</strong> The code is stored only as a hash, so this page is the one place it can be read; afterwards the link is listed by its first characters (<code>${escapeHtml(opts.created.prefix)}…</code>). A lost link cannot be shown again: revoke it and make another.</p>
<p class="secret">${escapeHtml(opts.created.url)}</p>
</section>`
    : '';
  let list: string;
  let status = opts.status;
  if (!out.ok) {
    list = formError(formErrorsOf(out.error, () => null));
    status ??= out.error.status;
  } else {
    list = out.body.length
      ? `<div class="table-wrap"><table>
<caption class="meta">Newest first</caption>
<thead><tr><th scope="col">Link</th><th scope="col">State</th><th scope="col">Uses / limit</th><th scope="col">Expires</th><th scope="col">Segment</th><th scope="col">Created by</th><th scope="col">Actions</th></tr></thead>
<tbody>
${out.body.map((i) => inviteRow(i, segmentNames, ctx.csrf)).join('\n')}
</tbody>
</table></div>
${pager('/admin/invites', {}, out.result.page)}`
      : '<p class="empty">No invite link yet.</p>';
  }
  return consolePage(ctx, leader, {
    section: 'invites',
    title: opts.created ? 'Invite link created' : 'Invites',
    status,
    main: `<h1>Invites</h1>
${notice(opts.created || opts.errors || opts.refusal ? null : doneNotice(req, INVITE_NOTICES))}
${opts.refusal ? formError(opts.refusal) : ''}
${created}
<p>An invite link <code>/join/&lt;code&gt;</code> on this site makes whoever opens it, signed in, a member at once, without an application. It works until it expires, is used up or is revoked.</p>
${createForm(ctx, segments, opts.created ? {} : (opts.form ?? {}), opts.errors ?? noErrors())}
<h2>Links</h2>
${list}`,
  });
}

export function invitePages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  r.get('/invites', async (ctx, db, req, leader) => invitesPage(ctx, db, req, leader, deps));

  r.post('/invites', async (ctx, db, req, leader, form) => {
    const submitted: CreateForm = Object.fromEntries(
      CREATE_FIELDS.filter((k) => form[k] !== undefined).map((k) => [k, form[k]]),
    );
    const out = await runOperation(
      routes.createInviteLink,
      inviteHandlers.createInviteLink,
      deps.api,
      leader,
      { body: createBody(submitted) },
      req,
    );
    if (!out.ok)
      return invitesPage(ctx, db, req, leader, deps, {
        form: submitted,
        errors: formErrorsOf(out.error, (path) => CREATE_FIELDS.find((f) => f === path) ?? null),
        status: out.error.status,
      });
    // Answered here, not by a redirect: the code is in this answer and nowhere else.
    const page = await invitesPage(ctx, db, req, leader, deps, {
      created: { url: out.body.url, prefix: out.body.prefix },
    });
    return typeof page === 'object' && !('file' in page) ? { ...page, status: 201 } : page;
  });

  r.post('/invites/:inviteId/revoke', async (ctx, _db, req, leader, form) => {
    const inviteId = String(req.params.inviteId);
    if (!confirmed(form))
      return confirmationPage(ctx, leader, 'invites', {
        question: `Revoke the invite link ${(form.prefix ?? '').trim() || ''}…? It stops working at once; the members who joined by it stay.`,
        action: `/admin/invites/${encodeURIComponent(inviteId)}/revoke`,
        form,
        csrf: ctx.csrf,
        back: '/admin/invites',
        label: 'Revoke',
      });
    const out = await runOperation(
      routes.revokeInviteLink,
      inviteHandlers.revokeInviteLink,
      deps.api,
      leader,
      { params: { inviteId } },
      req,
    );
    if (out.ok) return { redirect: '/admin/invites?done=revoked' };
    return invitesPage(ctx, _db, req, leader, deps, {
      refusal: formErrorsOf(out.error, () => null),
      status: out.error.status,
    });
  });
}
