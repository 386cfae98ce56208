// `/admin/members` and `/admin/members/requests` (docs/leader-console.md, "Pages", "Members and
// requests"): the directory with its private fields, the review queue, and what a leader does to
// a member (kick, ban, the admin role) or a request (approve, reject). Every read and write is the
// API's own operation (contract/routes/admin-members.ts), so a page refuses exactly what the API
// refuses (an admin removing an admin, the founder kicked, a decided request) and writes the same
// audit entry.
import type { Request } from 'express';
import * as routes from '../../../contract/routes/admin-members.ts';
import type { LeaderMember, LeaderReviewRequest } from '../../../contract/routes/admin-members.ts';
import { memberHandlers } from '../../admin/members.ts';
import type { Leader } from '../../http/leader.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { FormOutcome, PageBody, SiteContext } from '../pages/context.ts';
import { runOperation, type OperationOutcome } from './operations.ts';
import {
  actionForm,
  confirmationPage,
  confirmed,
  consolePage,
  consoleTime,
  doneNotice,
  formError,
  formErrorsOf,
  notice,
  pager,
  queryValue,
  type FormErrors,
} from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const PAGE_SIZE = 50;
const STATUSES = routes.MemberStatus.options;

const MEMBER_NOTICES: Record<string, string> = {
  kicked: 'The member was removed. They can apply again.',
  banned: 'The person was banned. They cannot apply again.',
  promoted: 'The member is now an admin.',
  demoted: 'The admin is now a member.',
};
const REQUEST_NOTICES: Record<string, string> = {
  approved: 'The request was approved: they are a member now, and were told by e-mail.',
  rejected: 'The request was rejected. The reason stays with the leaders.',
};

/** The directory's filter, as the search form and the row forms carry it (only the values the API takes). */
interface Filter {
  q?: string;
  status?: string;
}

function filterOf(source: Record<string, unknown>): Filter {
  const q = typeof source.q === 'string' ? source.q.trim() : '';
  const status = typeof source.status === 'string' ? source.status : '';
  return { ...(q ? { q } : {}), ...(status ? { status } : {}) };
}

/** `path` with the filter as its query (and `done`), so an action returns to the view it was made from. */
function withFilter(path: string, filter: Filter, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...filter, ...extra } as Record<string, string>).toString();
  return query ? `${path}?${query}` : path;
}

/** The optional reason of a kick, ban or reject: sent only when there is one. */
function reasonBody(form: Record<string, string>): { reason?: string } {
  const reason = (form.reason ?? '').trim();
  return reason ? { reason } : {};
}

// ---- The directory ------------------------------------------------------------------------------

function searchForm(filter: Filter): string {
  const options = ['', ...STATUSES]
    .map(
      (s) =>
        `<option value="${s}"${(filter.status ?? '') === s ? ' selected' : ''}>${s === '' ? 'Every status' : s}</option>`,
    )
    .join('');
  return `<form method="get" action="/admin/members" class="actions" role="search">
<label for="members-q">Search</label>
<input id="members-q" name="q" type="search" maxlength="100" value="${escapeHtml(filter.q ?? '')}" placeholder="Name, usertag or e-mail">
<label for="members-status">Status</label>
<select id="members-status" name="status">${options}</select>
<button type="submit" class="secondary">Search</button>
${filter.q || filter.status ? '<a href="/admin/members">Show everyone</a>' : ''}
</form>`;
}

/** The row's controls: what this leader may do to this person (the server decides again). */
function memberActions(m: LeaderMember, leader: Leader, csrf: string | null, filter: Filter): string {
  if (m.role === 'founder') return '<span class="meta">Founder</span>';
  // Admins are peers: only the founder removes one (the API answers 403 FOUNDER_ONLY otherwise).
  if (m.role === 'admin' && leader.role !== 'founder')
    return '<span class="meta">Only the founder can remove an admin</span>';
  const carried = { ...filter, name: m.name };
  const reason = (verb: string) =>
    `<input name="reason" maxlength="1000" aria-label="Reason to ${verb} ${escapeHtml(m.name)} (optional, kept for the leaders)" placeholder="Reason (optional)"> `;
  const removals: string[] = [];
  if (m.status === 'ACCEPTED')
    removals.push(
      actionForm({
        action: `/admin/members/${m.userId}/kick`,
        label: 'Kick',
        csrf,
        fields: carried,
        inner: reason('kick'),
        confirm: `Kick ${m.name}? They stop being a member at once (they can apply again).`,
        danger: true,
      }),
    );
  if (m.status !== 'BANNED')
    removals.push(
      actionForm({
        action: `/admin/members/${m.userId}/ban`,
        label: 'Ban',
        csrf,
        fields: carried,
        inner: reason('ban'),
        confirm: `Ban ${m.name}? They lose their membership and cannot apply again.`,
        danger: true,
      }),
    );
  const controls: string[] = [];
  // Roles are the founder's alone: an admin does not see the control (the API refuses it anyway).
  if (leader.role === 'founder' && m.status === 'ACCEPTED')
    controls.push(
      actionForm({
        action: `/admin/members/${m.userId}/role`,
        label: m.role === 'admin' ? 'Make member' : 'Make admin',
        csrf,
        fields: { ...filter, role: m.role === 'admin' ? 'member' : 'admin' },
      }),
    );
  // Folded away, so a row stays one line until a leader means to remove someone.
  if (removals.length)
    controls.push(
      `<details><summary>${m.status === 'ACCEPTED' ? 'Kick or ban' : 'Ban'}</summary>\n${removals.join('\n')}\n</details>`,
    );
  return controls.join('\n');
}

/** A date in the directory, to the day (the full time, UTC, on hover): the table is wide enough as it is. */
const day = (iso: string): string =>
  `<time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso.slice(0, 16).replace('T', ' '))} UTC">${escapeHtml(iso.slice(0, 10))}</time>`;

function memberRow(m: LeaderMember, leader: Leader, csrf: string | null, filter: Filter): string {
  const out = [
    m.kickedAt ? `<br><span class="meta">kicked ${consoleTime(m.kickedAt)}</span>` : '',
    m.bannedAt ? `<br><span class="meta">banned ${consoleTime(m.bannedAt)}</span>` : '',
  ].join('');
  return `<tr>
<th scope="row">${escapeHtml(m.name)}<br><span class="meta">@${escapeHtml(m.usertag)}</span></th>
<td><a href="mailto:${escapeHtml(m.email)}">${escapeHtml(m.email)}</a><br>${m.phone ? escapeHtml(m.phone) : '<span class="meta">no phone</span>'}</td>
<td>${m.status}<br><span class="meta">${m.role}</span>${out}</td>
<td>${m.segment ? escapeHtml(m.segment.name) : '<span class="meta">none</span>'}</td>
<td>asked ${day(m.requestedAt)}<br>${m.joinedAt ? `joined ${day(m.joinedAt)}` : '<span class="meta">never joined</span>'}</td>
<td>${memberActions(m, leader, csrf, filter)}</td>
</tr>`;
}

/** The directory: after a GET, or again after a refused action (with the refusal, and its status). */
async function directoryPage(
  ctx: SiteContext,
  req: Request,
  leader: Leader,
  deps: ConsoleDeps,
  filter: Filter,
  offset: string | undefined,
  refusal?: { errors: FormErrors; status: number },
): Promise<PageBody> {
  const out = await runOperation(
    routes.adminListMembers,
    memberHandlers.adminListMembers,
    deps.api,
    leader,
    { query: { limit: String(PAGE_SIZE), offset, ...filter } },
    req,
  );
  const exportHref = withFilter(`/api/admin/${leader.communityTag}/members/export`, filter);
  const head = `<h1>Members</h1>
${notice(refusal ? null : doneNotice(req, MEMBER_NOTICES))}
${refusal ? formError(refusal.errors) : ''}
<p>Everyone who has asked to join, with what only leaders see: e-mail, phone, role, status and segment. <a href="/admin/members/requests">Requests waiting for review</a>.</p>
${searchForm(filter)}`;
  if (!out.ok) {
    return consolePage(ctx, leader, {
      section: 'members',
      title: 'Members',
      status: out.error.status,
      main: `${head}\n${formError(formErrorsOf(out.error, () => null))}`,
    });
  }
  const table = out.body.length
    ? `<div class="table-wrap"><table>
<caption class="meta">Oldest request first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">E-mail and phone</th><th scope="col">Status and role</th><th scope="col">Segment</th><th scope="col">Requested and joined</th><th scope="col">Actions</th></tr></thead>
<tbody>
${out.body.map((m) => memberRow(m, leader, ctx.csrf, filter)).join('\n')}
</tbody>
</table></div>`
    : `<p class="empty">${filter.q || filter.status ? 'No one matches this search.' : 'No members yet.'}</p>`;
  return consolePage(ctx, leader, {
    section: 'members',
    title: 'Members',
    status: refusal?.status,
    main: `${head}
<p><a href="${escapeHtml(exportHref)}" download>Download CSV</a> <span class="meta">(everyone ${filter.q || filter.status ? 'this search finds' : 'listed here'}, every page)</span></p>
${table}
${pager('/admin/members', { ...filter }, out.result.page)}`,
  });
}

/** What a member action answers: a 303 to the directory with its notice, or the directory with the refusal. */
async function afterMemberAction(
  ctx: SiteContext,
  req: Request,
  leader: Leader,
  deps: ConsoleDeps,
  filter: Filter,
  out: OperationOutcome<unknown>,
  done: string,
): Promise<FormOutcome> {
  if (out.ok) return { redirect: withFilter('/admin/members', filter, { done }) };
  return directoryPage(ctx, req, leader, deps, filter, undefined, {
    errors: formErrorsOf(out.error, () => null),
    status: out.error.status,
  });
}

// ---- The review queue ---------------------------------------------------------------------------

/** An answer as the applicant gave it: a list for a multi-select, yes/no for a checkbox. */
function answerText(answer: unknown): string {
  if (answer === null || answer === undefined || answer === '') return '<span class="meta">no answer</span>';
  if (Array.isArray(answer)) return escapeHtml(answer.map(String).join(', '));
  if (typeof answer === 'boolean') return answer ? 'Yes' : 'No';
  if (typeof answer === 'object') return `<code>${escapeHtml(JSON.stringify(answer))}</code>`;
  return escapeHtml(String(answer));
}

function requestCard(r: LeaderReviewRequest, csrf: string | null): string {
  const headingId = `request-${r.requestId}`;
  const answers = r.answers.length
    ? `<dl>\n${r.answers.map((a) => `<dt>${escapeHtml(a.label)}</dt><dd>${answerText(a.answer)}</dd>`).join('\n')}\n</dl>`
    : '<p class="meta">No answers.</p>';
  return `<article class="request" aria-labelledby="${headingId}">
<h2 id="${headingId}">${escapeHtml(r.name)} <span class="meta">@${escapeHtml(r.usertag)}</span></h2>
<p class="meta">${escapeHtml(r.email)} · segment ${escapeHtml(r.segment.name)} · asked ${consoleTime(r.requestedAt)}${r.source ? ` · from ${escapeHtml(r.source)}` : ''}</p>
${answers}
<div class="actions">
${actionForm({ action: `/admin/members/requests/${r.requestId}/approve`, label: 'Approve', csrf })}
${actionForm({
  action: `/admin/members/requests/${r.requestId}/reject`,
  label: 'Reject',
  csrf,
  fields: { name: r.name },
  inner: `<input name="reason" maxlength="1000" aria-label="Reason to reject ${escapeHtml(r.name)} (internal, never sent to them)" placeholder="Internal reason (optional)"> `,
  confirm: `Reject ${r.name}'s request? They are told it was not accepted (never the reason).`,
  danger: true,
})}
</div>
</article>`;
}

async function queuePage(
  ctx: SiteContext,
  req: Request,
  leader: Leader,
  deps: ConsoleDeps,
  offset: string | undefined,
  refusal?: { errors: FormErrors; status: number },
): Promise<PageBody> {
  const out = await runOperation(
    routes.adminListRequests,
    memberHandlers.adminListRequests,
    deps.api,
    leader,
    { query: { limit: String(PAGE_SIZE), offset } },
    req,
  );
  const head = `<h1>Requests</h1>
${notice(refusal ? null : doneNotice(req, REQUEST_NOTICES))}
${refusal ? formError(refusal.errors) : ''}
<p>Requests waiting for a leader, oldest first, with the answers to the segment's form. Requests waiting for a payment are not here: the payment decides them.</p>`;
  if (!out.ok)
    return consolePage(ctx, leader, {
      section: 'requests',
      title: 'Requests',
      status: out.error.status,
      main: `${head}\n${formError(formErrorsOf(out.error, () => null))}`,
    });
  const list = out.body.length
    ? out.body.map((r) => requestCard(r, ctx.csrf)).join('\n')
    : '<p class="empty">No request is waiting for review.</p>';
  return consolePage(ctx, leader, {
    section: 'requests',
    title: 'Requests',
    status: refusal?.status,
    main: `${head}\n${list}\n${pager('/admin/members/requests', {}, out.result.page)}`,
  });
}

async function afterRequestAction(
  ctx: SiteContext,
  req: Request,
  leader: Leader,
  deps: ConsoleDeps,
  out: OperationOutcome<unknown>,
  done: string,
): Promise<FormOutcome> {
  if (out.ok) return { redirect: `/admin/members/requests?done=${done}` };
  return queuePage(ctx, req, leader, deps, undefined, {
    errors: formErrorsOf(out.error, () => null),
    status: out.error.status,
  });
}

/** The person a destructive form names, for its question (the page that sent it wrote it; shown escaped). */
const named = (form: Record<string, string>): string => (form.name ?? '').trim() || 'this person';

export function memberPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  r.get('/members', async (ctx, _db, req, leader) =>
    directoryPage(ctx, req, leader, deps, filterOf(req.query), queryValue(req, 'offset')),
  );

  r.post('/members/:userId/kick', async (ctx, _db, req, leader, form) => {
    if (!confirmed(form))
      return confirmationPage(ctx, leader, 'members', {
        question: `Kick ${named(form)}? They stop being a member at once; they can apply again.`,
        action: `/admin/members/${encodeURIComponent(String(req.params.userId))}/kick`,
        form,
        csrf: ctx.csrf,
        back: withFilter('/admin/members', filterOf(form)),
        label: 'Kick',
      });
    const out = await runOperation(
      routes.adminKickMember,
      memberHandlers.adminKickMember,
      deps.api,
      leader,
      { params: { userId: String(req.params.userId) }, body: reasonBody(form) },
      req,
    );
    return afterMemberAction(ctx, req, leader, deps, filterOf(form), out, 'kicked');
  });

  r.post('/members/:userId/ban', async (ctx, _db, req, leader, form) => {
    if (!confirmed(form))
      return confirmationPage(ctx, leader, 'members', {
        question: `Ban ${named(form)}? They lose their membership and cannot apply again.`,
        action: `/admin/members/${encodeURIComponent(String(req.params.userId))}/ban`,
        form,
        csrf: ctx.csrf,
        back: withFilter('/admin/members', filterOf(form)),
        label: 'Ban',
      });
    const out = await runOperation(
      routes.adminBanMember,
      memberHandlers.adminBanMember,
      deps.api,
      leader,
      { params: { userId: String(req.params.userId) }, body: reasonBody(form) },
      req,
    );
    return afterMemberAction(ctx, req, leader, deps, filterOf(form), out, 'banned');
  });

  r.post('/members/:userId/role', async (ctx, _db, req, leader, form) => {
    // The role as posted, unchecked: the API's schema takes `admin` or `member` and refuses the rest.
    const out = await runOperation(
      routes.adminSetMemberRole,
      memberHandlers.adminSetMemberRole,
      deps.api,
      leader,
      { params: { userId: String(req.params.userId) }, body: { role: form.role } },
      req,
    );
    return afterMemberAction(
      ctx,
      req,
      leader,
      deps,
      filterOf(form),
      out,
      form.role === 'admin' ? 'promoted' : 'demoted',
    );
  });

  r.get('/members/requests', async (ctx, _db, req, leader) =>
    queuePage(ctx, req, leader, deps, queryValue(req, 'offset')),
  );

  r.post('/members/requests/:requestId/approve', async (ctx, _db, req, leader) => {
    const out = await runOperation(
      routes.adminApproveRequest,
      memberHandlers.adminApproveRequest,
      deps.api,
      leader,
      { params: { requestId: String(req.params.requestId) } },
      req,
    );
    return afterRequestAction(ctx, req, leader, deps, out, 'approved');
  });

  r.post('/members/requests/:requestId/reject', async (ctx, _db, req, leader, form) => {
    if (!confirmed(form))
      return confirmationPage(ctx, leader, 'requests', {
        question: `Reject ${named(form)}'s request? They are told it was not accepted; the reason stays with the leaders.`,
        action: `/admin/members/requests/${encodeURIComponent(String(req.params.requestId))}/reject`,
        form,
        csrf: ctx.csrf,
        back: '/admin/members/requests',
        label: 'Reject',
      });
    const out = await runOperation(
      routes.adminRejectRequest,
      memberHandlers.adminRejectRequest,
      deps.api,
      leader,
      { params: { requestId: String(req.params.requestId) }, body: reasonBody(form) },
      req,
    );
    return afterRequestAction(ctx, req, leader, deps, out, 'rejected');
  });
}
