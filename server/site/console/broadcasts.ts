// The console's broadcasts: the list with the sends left in the 24 h window, the compose form (a
// test to the leader, send now, schedule) with its preview, and one broadcast with its cancel. Every
// read and write is an operation of contract/routes/admin-broadcasts.ts run through runOperation, so
// a form accepts, refuses, limits and audits exactly as the JSON API does.
//
// The preview without JavaScript: the form's "Preview" button posts the same fields to
// `/admin/broadcasts/preview` into the page's iframe (formaction/formtarget), which answers the
// e-mail as previewLeaderBroadcast renders it, as a document of its own whose CSP runs no script.
// With JavaScript the island console/broadcast-preview.tsx presses that button for the leader as
// they type.
import type { Request } from 'express';
import type { z } from 'zod';
import * as routes from '../../../contract/routes/admin-broadcasts.ts';
import type { Broadcast } from '../../../contract/resources.ts';
import { leaderBroadcastHandlers as handlers } from '../../admin/broadcasts.ts';
import type { Leader } from '../../http/leader.ts';
import { escapeHtml } from '../../shared/html.ts';
import { messages } from '../../shared/messages.ts';
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
  formError,
  formErrorsOf,
  formList,
  noErrors,
  notice,
  pager,
  queryValue,
  textField,
  type FormErrors,
} from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const PAGE_SIZE = 20;
const PREVIEW_FRAME = 'broadcast-preview';

type Segment = z.infer<typeof routes.AudienceSegment>;
type Allowance = z.infer<typeof routes.BroadcastAllowance>;

const DONE = {
  sent: 'Queued: it is being sent to the audience now.',
  scheduled: 'Scheduled. You can cancel it until it starts.',
  test: 'A test copy is on its way to your e-mail address. It does not count toward the limit.',
  cancelled: 'Cancelled: it will not be sent.',
};

/** What the compose form holds, as typed (re-shown with the errors of a refused send). */
interface Draft {
  subject: string;
  html: string;
  text: string;
  audience: 'everyone' | 'segments';
  segmentIds: string[];
  sendAt: string;
}

function draftOf(req: Request, form: Record<string, string>): Draft {
  return {
    subject: form.subject ?? '',
    html: form.html ?? '',
    text: form.text ?? '',
    audience: form.audience === 'segments' ? 'segments' : 'everyone',
    segmentIds: formList(req, 'segmentIds'),
    sendAt: form.sendAt ?? '',
  };
}

/** A `datetime-local` value read as UTC (the form says so); anything else is left for the API to refuse. */
function utcInstant(local: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)
    ? `${local.length === 16 ? `${local}:00` : local}Z`
    : local;
}

/**
 * The send's body from the form, naming only the fields the compose form has: whatever else a
 * post carries (`testTo`, `status`, `communityId`) never reaches the operation. A test goes to the
 * leader's own address, never to one the form names.
 */
function bodyOf(draft: Draft, intent: 'send' | 'schedule' | 'test' | 'preview', leader: Leader) {
  return {
    subject: draft.subject,
    ...(draft.html.trim() !== '' ? { html: draft.html } : {}),
    ...(draft.text.trim() !== '' ? { text: draft.text } : {}),
    ...(draft.audience === 'segments' ? { audience: { segmentIds: draft.segmentIds } } : {}),
    ...(intent === 'schedule' ? { sendAt: utcInstant(draft.sendAt) } : {}),
    ...(intent === 'test' ? { testTo: leader.email } : {}),
  };
}

/** The compose form's input for a field the API names by its path. */
function composeField(path: string): string | null {
  if (path === 'subject' || path === 'html' || path === 'text' || path === 'sendAt') return path;
  if (path === 'audience' || path.startsWith('audience.')) return 'segmentIds';
  return null;
}

function audienceText(b: Broadcast, segments: Segment[]): string {
  if (b.test) return `Test to ${escapeHtml(b.testTo ?? '')}`;
  if (!b.audience) return 'Every member';
  const names = new Map(segments.map((s) => [s.id, s.name]));
  return b.audience.segmentIds.map((id) => escapeHtml(names.get(id) ?? 'a removed segment')).join(', ');
}

function allowanceText(a: Allowance): string {
  return a.remaining > 0
    ? `<p class="notice" id="allowance"><strong>${a.remaining} of ${a.limit} sends left</strong> in the rolling 24 hours (scheduled sends count at their time; tests never count).</p>`
    : `<p class="notice error" id="allowance"><strong>0 of ${a.limit} sends left</strong> in the rolling 24 hours: the next send fits at ${consoleTime(a.nextSendAt)}. Tests can still be sent.</p>`;
}

/** A page that could not be read (the feature off, a bad query): the heading and why. */
function refusedPage(
  ctx: SiteContext,
  leader: Leader,
  title: string,
  error: { status: number; message: string },
): PageBody {
  return consolePage(ctx, leader, {
    section: 'broadcasts',
    title,
    status: error.status,
    main: `<h1>${escapeHtml(title)}</h1>\n<p class="notice error" role="alert">${escapeHtml(error.message)}</p>`,
  });
}

function composeForm(
  ctx: SiteContext,
  leader: Leader,
  opts: { draft: Draft; errors: FormErrors; segments: Segment[]; allowance: Allowance },
): string {
  const { draft, errors } = opts;
  const audienceError = fieldError(errors, 'segmentIds');
  const segmentBoxes = opts.segments.length
    ? opts.segments
        .map(
          (s) =>
            `<li><label><input type="checkbox" name="segmentIds" value="${escapeHtml(s.id)}"${draft.segmentIds.includes(s.id) ? ' checked' : ''}> ${escapeHtml(s.name)}${s.active ? '' : ' <span class="meta">(closed)</span>'}</label></li>`,
        )
        .join('\n')
    : '<li class="meta">This community has no segment.</li>';
  const sendAtHint = 'In UTC, not your local time. Up to 30 days ahead. Used by Schedule only.';
  return `<form method="post" action="/admin/broadcasts" id="compose" data-island="broadcast-preview" data-preview-target="${PREVIEW_FRAME}">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
${formError(errors)}
${textField({ name: 'subject', label: 'Subject', value: draft.subject, errors, required: true, hint: 'One line. {{name}} becomes each member’s name.', attrs: ' maxlength="200" autocomplete="off"' })}
${textField({ name: 'html', label: 'Body (HTML)', value: draft.html, errors, type: 'textarea', hint: 'Sanitized like an article: scripts and styles are removed. {{name}} becomes each member’s name.' })}
${textField({ name: 'text', label: 'Plain-text part (optional)', value: draft.text, errors, type: 'textarea', hint: 'Made from the HTML when left empty. One of the two is required.' })}
<fieldset${audienceError.attrs.replace(' aria-invalid="true"', '')}>
<legend>Audience</legend>
<div><label><input type="radio" name="audience" value="everyone"${draft.audience === 'everyone' ? ' checked' : ''}> Every member</label></div>
<div><label><input type="radio" name="audience" value="segments"${draft.audience === 'segments' ? ' checked' : ''}> The members of these segments:</label></div>
<ul class="segment-choices">
${segmentBoxes}
</ul>
${audienceError.html}
</fieldset>
${textField({ name: 'sendAt', label: 'Send at (UTC)', value: draft.sendAt, errors, type: 'datetime-local', hint: sendAtHint })}
<div class="actions">
<button type="submit" name="intent" value="send">Send now</button>
<button type="submit" name="intent" value="schedule">Schedule</button>
<button type="submit" name="intent" value="test" class="secondary">Send a test to me</button>
<button type="submit" formaction="/admin/broadcasts/preview" formtarget="${PREVIEW_FRAME}" formnovalidate class="secondary" data-preview-button>Preview</button>
</div>
<p class="hint">A test goes to ${escapeHtml(leader.email)} only, marked [TEST]; it never counts toward the limit.</p>
</form>
${allowanceText(opts.allowance)}
<section aria-labelledby="preview-title">
<h2 id="preview-title">Preview</h2>
<p class="hint" id="preview-hint">The e-mail as ${escapeHtml(leader.name)} would get it. Press Preview to refresh it (with JavaScript it follows your typing).</p>
<iframe name="${PREVIEW_FRAME}" id="${PREVIEW_FRAME}" class="preview-frame" title="Preview of the e-mail" src="/admin/broadcasts/preview" sandbox width="100%" height="420"></iframe>
</section>`;
}

/** The preview document: the e-mail's html (or its text) in a page of its own that runs no script. */
function previewDocument(
  title: string,
  content: { subject: string; html: string | null; text: string; recipients: number } | { error: string },
): PageBody {
  const body =
    'error' in content
      ? `<main><h1>Preview</h1><p>${escapeHtml(content.error)}</p></main>`
      : `<header><h1>Subject: ${escapeHtml(content.subject)}</h1><p>Would reach ${content.recipients} ${content.recipients === 1 ? 'person' : 'people'} now.</p><hr></header>
<main>${content.html ?? `<pre>${escapeHtml(content.text)}</pre>`}</main>`;
  return {
    file: {
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
${body}
</body>
</html>`,
      // The e-mail's own inline styles are kept (it is shown as mail clients show it); nothing
      // else loads, no script runs (no script source at all; the frame is `sandbox` too), and only
      // the console may frame it.
      csp: "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
    },
  };
}

export function broadcastPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  const audiences = (leader: Leader, req: Request) =>
    runOperation(routes.listBroadcastAudiences, handlers.listBroadcastAudiences, deps.api, leader, {}, req);
  const allowanceNow = (leader: Leader, req: Request) =>
    runOperation(routes.getBroadcastAllowance, handlers.getBroadcastAllowance, deps.api, leader, {}, req);

  async function composePage(
    ctx: SiteContext,
    leader: Leader,
    req: Request,
    draft: Draft,
    errors: FormErrors,
    status?: number,
  ): Promise<PageBody> {
    const [segments, allowance] = await Promise.all([audiences(leader, req), allowanceNow(leader, req)]);
    if (!segments.ok) return refusedPage(ctx, leader, 'New broadcast', segments.error);
    if (!allowance.ok) return refusedPage(ctx, leader, 'New broadcast', allowance.error);
    return consolePage(ctx, leader, {
      section: 'broadcasts',
      title: 'New broadcast',
      status,
      frames: true,
      main: `<h1>New broadcast</h1>
<p><a href="/admin/broadcasts">All broadcasts</a></p>
${composeForm(ctx, leader, { draft, errors, segments: segments.body, allowance: allowance.body })}`,
    });
  }

  r.get('/broadcasts', async (ctx, _db, req, leader) => {
    const offset = queryValue(req, 'offset');
    const [list, allowance, segments] = await Promise.all([
      runOperation(
        routes.listLeaderBroadcasts,
        handlers.listLeaderBroadcasts,
        deps.api,
        leader,
        { query: { limit: String(PAGE_SIZE), ...(offset ? { offset } : {}) } },
        req,
      ),
      allowanceNow(leader, req),
      audiences(leader, req),
    ]);
    if (!list.ok) return refusedPage(ctx, leader, 'Broadcasts', list.error);
    if (!allowance.ok) return refusedPage(ctx, leader, 'Broadcasts', allowance.error);
    if (!segments.ok) return refusedPage(ctx, leader, 'Broadcasts', segments.error);
    const rows = list.body
      .map(
        (b) => `<tr>
<td><a href="/admin/broadcasts/${escapeHtml(b.id)}">${escapeHtml(b.subject)}</a></td>
<td>${escapeHtml(b.status)}</td>
<td>${audienceText(b, segments.body)}</td>
<td>${b.status === 'SCHEDULED' ? 'Scheduled for ' : ''}${consoleTime(b.completedAt ?? b.sendAt)}</td>
<td>${b.counts.recipients} / ${b.counts.sent} / ${b.counts.failed} / ${b.counts.unsubscribed}</td>
</tr>`,
      )
      .join('\n');
    const table = list.body.length
      ? `<div class="table-wrap"><table>
<caption class="meta">Newest first. Counts: recipients / sent / failed / unsubscribed by its link.</caption>
<thead><tr><th scope="col">Subject</th><th scope="col">State</th><th scope="col">Audience</th><th scope="col">Scheduled or sent</th><th scope="col">Counts</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
      : '<p class="empty">No broadcast yet.</p>';
    return consolePage(ctx, leader, {
      section: 'broadcasts',
      title: 'Broadcasts',
      main: `<h1>Broadcasts</h1>
${notice(doneNotice(req, DONE))}
${allowanceText(allowance.body)}
<p class="actions"><a href="/admin/broadcasts/new">New broadcast</a></p>
${table}
${pager('/admin/broadcasts', {}, list.result.page)}`,
    });
  });

  r.get('/broadcasts/new', async (ctx, _db, req, leader) =>
    composePage(
      ctx,
      leader,
      req,
      { subject: '', html: '', text: '', audience: 'everyone', segmentIds: [], sendAt: '' },
      noErrors(),
    ),
  );

  // The iframe's first document, before anything was typed.
  r.get('/broadcasts/preview', async () => previewDocument('Preview', { error: 'Nothing to preview yet.' }));

  r.post('/broadcasts/preview', async (_ctx, _db, req, leader, form) => {
    const out = await runOperation(
      routes.previewLeaderBroadcast,
      handlers.previewLeaderBroadcast,
      deps.api,
      leader,
      { body: bodyOf(draftOf(req, form), 'preview', leader) },
      req,
    );
    if (!out.ok) {
      const field = typeof out.error.extras?.field === 'string' ? `${out.error.extras.field}: ` : '';
      return previewDocument('Preview', { error: `Nothing to preview yet. ${field}${out.error.message}` });
    }
    return previewDocument(`Preview: ${out.body.subject}`, out.body);
  });

  r.post('/broadcasts', async (ctx, _db, req, leader, form) => {
    const draft = draftOf(req, form);
    const intent = form.intent === 'schedule' ? 'schedule' : form.intent === 'test' ? 'test' : 'send';
    // Two refusals the form words itself, before the API's: its own fields, not the body's.
    if (intent === 'schedule' && draft.sendAt.trim() === '')
      return composePage(ctx, leader, req, draft, { fields: { sendAt: messages.consoleScheduleNeedsTime } }, 400);
    if (draft.audience === 'segments' && draft.segmentIds.length === 0 && intent !== 'test')
      return composePage(
        ctx,
        leader,
        req,
        draft,
        { fields: { segmentIds: messages.consoleAudienceNeedsSegment } },
        400,
      );
    const out = await runOperation(
      routes.sendLeaderBroadcast,
      handlers.sendLeaderBroadcast,
      deps.api,
      leader,
      { body: bodyOf(draft, intent, leader) },
      req,
    );
    if (!out.ok) {
      const errors = formErrorsOf(out.error, composeField);
      if (errors.fields.sendAt && !/future|ahead/.test(out.error.message))
        errors.fields.sendAt = messages.consoleScheduleTimeFormat;
      return composePage(ctx, leader, req, draft, errors, out.error.status);
    }
    const done = intent === 'test' ? 'test' : out.body.status === 'SCHEDULED' ? 'scheduled' : 'sent';
    return { redirect: `/admin/broadcasts/${out.body.id}?done=${done}` };
  });

  r.get('/broadcasts/:broadcastId', async (ctx, _db, req, leader) => {
    const id = String(req.params.broadcastId);
    const [one, segments] = await Promise.all([
      runOperation(
        routes.getLeaderBroadcast,
        handlers.getLeaderBroadcast,
        deps.api,
        leader,
        { params: { broadcastId: id } },
        req,
      ),
      audiences(leader, req),
    ]);
    if (!one.ok) return refusedPage(ctx, leader, 'Broadcast', one.error);
    if (!segments.ok) return refusedPage(ctx, leader, 'Broadcast', segments.error);
    const b = one.body;
    const row = (label: string, value: string) => `<tr><th scope="row">${label}</th><td>${value}</td></tr>`;
    const cancel =
      b.status === 'SCHEDULED'
        ? `<p>${actionForm({
            action: `/admin/broadcasts/${b.id}/cancel`,
            label: 'Cancel this broadcast',
            csrf: ctx.csrf,
            confirm: `Cancel “${b.subject}”? It will not be sent, and the send it took is freed.`,
            danger: true,
          })}</p>`
        : '';
    return consolePage(ctx, leader, {
      section: 'broadcasts',
      title: b.subject,
      main: `<h1>${escapeHtml(b.subject)}</h1>
${notice(doneNotice(req, DONE))}
<p><a href="/admin/broadcasts">All broadcasts</a></p>
<div class="table-wrap"><table>
<tbody>
${row('State', escapeHtml(b.status))}
${row('Audience', audienceText(b, segments.body))}
${row(b.status === 'SCHEDULED' ? 'Scheduled for' : 'Send time', consoleTime(b.sendAt))}
${row('Created', consoleTime(b.createdAt))}
${b.startedAt ? row('Started', consoleTime(b.startedAt)) : ''}
${b.completedAt ? row('Completed', consoleTime(b.completedAt)) : ''}
${b.cancelledAt ? row('Cancelled', consoleTime(b.cancelledAt)) : ''}
${row('Recipients', String(b.counts.recipients))}
${row('Sent', String(b.counts.sent))}
${row('Failed', String(b.counts.failed))}
${row('Unsubscribed by its link', String(b.counts.unsubscribed))}
</tbody>
</table></div>
${cancel}`,
    });
  });

  r.post('/broadcasts/:broadcastId/cancel', async (ctx, _db, req, leader, form) => {
    const id = String(req.params.broadcastId);
    if (!confirmed(form))
      return confirmationPage(ctx, leader, 'broadcasts', {
        question: 'Cancel this scheduled broadcast? It will not be sent.',
        action: `/admin/broadcasts/${id}/cancel`,
        form,
        csrf: ctx.csrf,
        back: `/admin/broadcasts/${id}`,
        label: 'Cancel the broadcast',
      });
    const out = await runOperation(
      routes.cancelLeaderBroadcast,
      handlers.cancelLeaderBroadcast,
      deps.api,
      leader,
      { params: { broadcastId: id } },
      req,
    );
    if (!out.ok) return refusedPage(ctx, leader, 'Broadcast', out.error);
    return { redirect: `/admin/broadcasts/${out.body.id}?done=cancelled` };
  });
}
