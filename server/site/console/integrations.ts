// `/admin/integrations`: the community's secret keys and webhook receivers, a receiver's page with
// its deliveries, and a delivery's attempt log (docs/leader-console.md, "Pages", "Integrations").
// Every read and write is the API's own operation (contract/routes/admin-integrations.ts), so the
// founder-only scopes, the SSRF guard of receiver URLs and the audit entries are the API's.
//
// A secret (a new key, a new receiver's or a rotated signing secret) is in the answer to the post
// that made it and nowhere else: that answer is the page itself, never a redirect to a page that
// could be reloaded, bookmarked or kept in history with the secret on it.
import type { Request } from 'express';
import type { RouteDef } from '../../../contract/route.ts';
import * as routes from '../../../contract/routes/admin-integrations.ts';
import { SCOPES, type Scope } from '../../../contract/enums.ts';
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES } from '../../../contract/webhook-events.ts';
import { integrationHandlers as handlers } from '../../admin/integrations.ts';
import { MEMBER_REMOVING_SCOPES } from '../../domain/integrations.ts';
import type { ApiError } from '../../http/api-error.ts';
import type { RouteHandler } from '../../http/handlers.ts';
import type { Leader } from '../../http/leader.ts';
import type { RouteDeps } from '../../http/routes.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { FormOutcome, PageContent, SiteContext } from '../pages/context.ts';
import { csrfInput } from '../pages/forms.ts';
import { runOperation, type OperationInput } from './operations.ts';
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
  formList,
  noErrors,
  notice,
  pager,
  queryValue,
  textField,
  type FormErrors,
} from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const BASE = '/admin/integrations';
const DELIVERIES_PAGE_SIZE = 20;

const SCOPE_LABELS: Record<Scope, string> = {
  READ_PUBLIC: 'Read what the community shows publicly',
  WRITE_MEMBERS: 'Approve, reject, kick and ban members',
  WRITE_SALES: 'Tickets, products, orders and donations',
  WRITE_BROADCASTS: 'Send broadcasts',
  ADMIN: 'Everything (satisfies every scope)',
};

/** The rotation overlaps offered, in seconds (the API takes 0 to 7 days). */
const OVERLAPS: Array<[number, string]> = [
  [0, 'No overlap: the old secret stops at once'],
  [3600, '1 hour'],
  [86400, '24 hours'],
  [routes.MAX_ROTATION_OVERLAP_SECONDS, '7 days'],
];
const DEFAULT_OVERLAP = 86400;

const MAIN_NOTICES = {
  'key-revoked': 'The key was revoked: every request made with it is refused from now on.',
  'receiver-deleted': 'The receiver was deleted: nothing more is sent to it. Its deliveries stay readable on its page.',
};
const RECEIVER_NOTICES = {
  updated: 'The receiver was saved.',
  enabled: 'The receiver is enabled: new events are delivered to it again.',
  disabled: 'The receiver is disabled: nothing is sent to it, and its pending deliveries were cancelled.',
  resent: 'The failed deliveries were queued again; their attempts appear below as they are made.',
  'resent-none': 'No delivery failed for good since then: nothing was queued.',
};
const DELIVERY_NOTICES = {
  replayed:
    'The delivery was queued again, with the same delivery id and body and a fresh signature. Its new attempt appears below once it is made (reload the page).',
};

type Receiver = (typeof routes.WebhookReceiver)['_output'];
type Delivery = (typeof routes.WebhookDelivery)['_output'];

/** A form's submitted values and its errors, to show it again after a refusal. */
interface FormState {
  values: Record<string, string | string[]>;
  errors: FormErrors;
}
const blankForm = (): FormState => ({ values: {}, errors: noErrors() });

/** The form field a refused body path belongs to: `scopes.2` is the scopes' checkboxes. */
const fieldOf =
  (...names: string[]) =>
  (path: string): string | null =>
    names.find((n) => path === n || path.startsWith(`${n}.`)) ?? null;

const receiverPath = (id: string) => `${BASE}/webhooks/${encodeURIComponent(id)}`;
const deliveryPath = (endpointId: string, deliveryId: string) =>
  `${receiverPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`;

/** A delivery's state as leaders read it: a PENDING one that failed is retrying. */
function deliveryState(d: Delivery): string {
  switch (d.status) {
    case 'SUCCEEDED':
      return 'Delivered';
    case 'PERMANENTLY_FAILED':
      return 'Failed for good';
    case 'CANCELLED':
      return 'Cancelled';
    case 'PENDING':
      return d.lastAttemptAt === null ? 'Pending' : 'Failed, retrying';
  }
}

function lastOutcome(d: Delivery): string {
  if (d.lastStatusCode !== null) return `<code>${d.lastStatusCode}</code>`;
  if (d.lastError) return escapeHtml(d.lastError);
  return '<span class="meta">no attempt yet</span>';
}

const eventList = (events: string[]) =>
  events.includes(ALL_EVENTS)
    ? 'every event'
    : events.map((e) => `<code>${escapeHtml(e)}</code>`).join(', ') || '<span class="meta">none</span>';

const receiverState = (r: Receiver) =>
  r.status === 'ENABLED'
    ? 'Enabled'
    : r.status === 'DISABLED'
      ? `Disabled${r.disabledReason ? ` <span class="meta">(${escapeHtml(r.disabledReason)})</span>` : ''}`
      : 'Deleted';

/** Checkboxes of a repeated field, in a fieldset whose legend names them, with the group's error. */
function checkboxGroup(opts: {
  name: string;
  legend: string;
  hint?: string;
  options: Array<{ value: string; label: string; checked: boolean; disabled?: string }>;
  errors: FormErrors;
}): string {
  const hintId = opts.hint ? `${fieldId(opts.name)}-hint` : undefined;
  const err = fieldError(opts.errors, opts.name);
  // The group, not each box, is what the hint and the error describe.
  const described = [hintId, err.html ? `error-${opts.name}` : undefined].filter(Boolean).join(' ');
  const boxes = opts.options
    .map((o) => {
      const id = `${fieldId(opts.name)}-${o.value.replace(/[^A-Za-z0-9_-]/g, '-')}`;
      const disabledHintId = o.disabled ? `${id}-why` : undefined;
      return `<div>
<input type="checkbox" id="${id}" name="${escapeHtml(opts.name)}" value="${escapeHtml(o.value)}"${o.checked ? ' checked' : ''}${o.disabled ? ` disabled aria-describedby="${disabledHintId}"` : ''}>
<label for="${id}">${o.label}</label>${o.disabled ? ` <span class="hint" id="${disabledHintId}">${escapeHtml(o.disabled)}</span>` : ''}
</div>`;
    })
    .join('\n');
  return `<fieldset${described ? ` aria-describedby="${described}"` : ''}>
<legend>${escapeHtml(opts.legend)}</legend>
${hintId ? `<p class="hint" id="${hintId}">${escapeHtml(opts.hint!)}</p>\n` : ''}${err.html}
${boxes}
</fieldset>`;
}

const submitted = (values: Record<string, string | string[]>, name: string): string[] | undefined => {
  const v = values[name];
  return v === undefined ? undefined : Array.isArray(v) ? v : [v];
};

function keyForm(ctx: SiteContext, leader: Leader, state: FormState): string {
  const chosen = submitted(state.values, 'scopes') ?? ['READ_PUBLIC'];
  const founderOnly =
    leader.role === 'founder' ? null : 'Only the founder can give this scope: a key with it can remove admins.';
  return `<form method="post" action="${BASE}/keys" aria-labelledby="new-key-heading">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<h3 id="new-key-heading">Create a secret key</h3>
${formError(state.errors)}
${textField({ name: 'name', label: 'Name', value: String(state.values.name ?? ''), errors: state.errors, hint: 'What the key is for, to recognise it by (the shop, the CRM sync...).', attrs: ' maxlength="100"' })}
${checkboxGroup({
  name: 'scopes',
  legend: 'Scopes',
  hint: 'What the key may do on /v1. Give it no more than it needs.',
  errors: state.errors,
  options: SCOPES.map((s) => ({
    value: s,
    label: `<code>${s}</code> ${escapeHtml(SCOPE_LABELS[s])}`,
    checked: chosen.includes(s),
    disabled: founderOnly !== null && MEMBER_REMOVING_SCOPES.includes(s) ? founderOnly : undefined,
  })),
})}
<button type="submit">Create key</button>
</form>`;
}

/** The receiver's URL, description and events: the same fields to register one and to edit it. */
function receiverFields(state: FormState, current?: Receiver): string {
  const events = submitted(state.values, 'events') ?? current?.events ?? [ALL_EVENTS];
  const value = (name: 'url' | 'description') =>
    state.values[name] !== undefined ? String(state.values[name]) : (current?.[name] ?? '');
  return `${textField({ name: 'url', label: 'URL', type: 'url', required: true, value: value('url'), errors: state.errors, hint: 'Where the events are posted: https:// on a public address.' })}
${textField({ name: 'description', label: 'Description', value: value('description'), errors: state.errors, hint: 'Optional: a note to recognise the receiver by.', attrs: ' maxlength="1000"' })}
${checkboxGroup({
  name: 'events',
  legend: 'Events',
  hint: 'The events posted to it. "Every event" includes events added later.',
  errors: state.errors,
  options: [
    { value: ALL_EVENTS, label: 'Every event', checked: events.includes(ALL_EVENTS) },
    ...WEBHOOK_EVENT_NAMES.map((e) => ({ value: e, label: `<code>${e}</code>`, checked: events.includes(e) })),
  ],
})}`;
}

/** What the submitted receiver form asks for, as the API's body. */
function receiverBody(req: Request, form: Record<string, string>) {
  const description = (form.description ?? '').trim();
  return { url: (form.url ?? '').trim(), events: formList(req, 'events'), description: description || null };
}
const receiverValues = (req: Request, form: Record<string, string>) => ({
  url: form.url ?? '',
  description: form.description ?? '',
  events: formList(req, 'events'),
});
const RECEIVER_FIELDS = fieldOf('url', 'events', 'description');

export function integrationPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  const run = <D extends RouteDef>(
    def: D,
    handler: RouteHandler<D, RouteDeps>,
    req: Request,
    leader: Leader,
    input: OperationInput = {},
  ) => runOperation(def, handler, deps.api, leader, input, req);

  /** The integrations page: keys, receivers, the two create forms (again, with errors, after a refusal). */
  async function integrationsPage(
    ctx: SiteContext,
    req: Request,
    leader: Leader,
    opts: { status?: number; keys?: FormState; receivers?: FormState; error?: ApiError } = {},
  ): Promise<PageContent> {
    const keys = await run(routes.listSecretKeys, handlers.listSecretKeys, req, leader);
    const receivers = await run(routes.listWebhookReceivers, handlers.listWebhookReceivers, req, leader);
    // Neither list takes any input a leader could get wrong: a refusal here is a fault.
    if (!keys.ok) throw keys.error;
    if (!receivers.ok) throw receivers.error;
    const lastDeliveries = await Promise.all(
      receivers.body.map(async (rc) => {
        const out = await run(routes.listWebhookDeliveries, handlers.listWebhookDeliveries, req, leader, {
          params: { endpointId: rc.id },
          query: { limit: '1' },
        });
        return out.ok ? (out.body[0] ?? null) : null;
      }),
    );

    const keyRows = keys.body
      .map(
        (k) => `<tr>
<td><code>${escapeHtml(k.prefix)}…</code></td>
<td>${k.name ? escapeHtml(k.name) : '<span class="meta">no name</span>'}</td>
<td>${k.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</td>
<td>${consoleTime(k.createdAt)}</td>
<td>${k.lastUsedAt ? consoleTime(k.lastUsedAt) : '<span class="meta">never</span>'}</td>
<td>${k.revokedAt ? `Revoked ${consoleTime(k.revokedAt)}` : 'Active'}</td>
<td>${
          k.revokedAt
            ? ''
            : actionForm({
                action: `${BASE}/keys/${encodeURIComponent(k.id)}/revoke`,
                label: 'Revoke',
                csrf: ctx.csrf,
                danger: true,
                confirm: `Revoke the key ${k.prefix}…${k.name ? ` (${k.name})` : ''}? Every request made with it is refused from now on; this cannot be undone.`,
              })
        }</td>
</tr>`,
      )
      .join('\n');
    const keyTable = keys.body.length
      ? `<div class="table-wrap"><table>
<caption class="meta">Keys are shown by their first characters; the whole key was shown once, when it was created.</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>
${keyRows}
</tbody>
</table></div>`
      : '<p class="empty">No secret key yet.</p>';

    const receiverRows = receivers.body
      .map((rc, i) => {
        const last = lastDeliveries[i];
        return `<tr>
<td><a href="${receiverPath(rc.id)}">${escapeHtml(rc.url)}</a>${rc.description ? `<br><span class="meta">${escapeHtml(rc.description)}</span>` : ''}</td>
<td>${eventList(rc.events)}</td>
<td>${receiverState(rc)}</td>
<td>${last ? `${deliveryState(last)} <span class="meta">${escapeHtml(last.event)}, ${consoleTime(last.createdAt)}</span>` : '<span class="meta">none yet</span>'}</td>
</tr>`;
      })
      .join('\n');
    const receiverTable = receivers.body.length
      ? `<div class="table-wrap"><table>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Last delivery</th></tr></thead>
<tbody>
${receiverRows}
</tbody>
</table></div>`
      : '<p class="empty">No webhook receiver yet.</p>';

    const receiverForm = opts.receivers ?? blankForm();
    return consolePage(ctx, leader, {
      section: 'integrations',
      title: 'Integrations',
      status: opts.status,
      main: `<h1>Integrations</h1>
${notice(doneNotice(req, MAIN_NOTICES))}
${opts.error ? formError(formErrorsOf(opts.error, () => null)) : ''}
<section aria-labelledby="keys-heading">
<h2 id="keys-heading">Secret keys</h2>
<p>A secret key lets a server of yours use this community's API (<code>/v1</code>) with the scopes it was given. Keep it on the server: never in a page, an app or a repository.</p>
${keyTable}
${keyForm(ctx, leader, opts.keys ?? blankForm())}
</section>
<section aria-labelledby="receivers-heading">
<h2 id="receivers-heading">Webhook receivers</h2>
<p>A receiver is a URL of yours that the community's events are posted to, signed with its secret (<code>Svc-Signature</code>).</p>
${receiverTable}
<form method="post" action="${BASE}/webhooks" aria-labelledby="new-receiver-heading">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<h3 id="new-receiver-heading">Add a webhook receiver</h3>
${formError(receiverForm.errors)}
${receiverFields(receiverForm)}
<button type="submit">Add receiver</button>
</form>
</section>`,
    });
  }

  /** The page a secret is shown on, this once. */
  function secretPage(
    ctx: SiteContext,
    leader: Leader,
    opts: { title: string; secret: string; about: string; use: string; back: string; backLabel: string },
  ): PageContent {
    return consolePage(ctx, leader, {
      section: 'integrations',
      title: opts.title,
      main: `<h1>${escapeHtml(opts.title)}</h1>
${opts.about}
<p class="notice" role="status"><strong>This is the only time it is shown: copy it now.</strong> It is stored so that nobody, here or on the server, can read it again; a lost one cannot be shown again.</p>
<p><label for="new-secret">The secret</label></p>
<p><output id="new-secret" class="secret" data-island="copy-secret">${escapeHtml(opts.secret)}</output></p>
${opts.use}
<p><a href="${escapeHtml(opts.back)}">${escapeHtml(opts.backLabel)}</a></p>`,
    });
  }

  /** A receiver's page, with the forms that change it and its deliveries. */
  async function receiverPage(
    ctx: SiteContext,
    req: Request,
    leader: Leader,
    endpointId: string,
    opts: { status?: number; edit?: FormState; rotate?: FormState; resend?: FormState; error?: ApiError } = {},
  ): Promise<PageContent> {
    const got = await run(routes.getWebhookReceiver, handlers.getWebhookReceiver, req, leader, {
      params: { endpointId },
    });
    if (!got.ok) {
      return consolePage(ctx, leader, {
        section: 'integrations',
        title: 'Receiver not found',
        status: got.error.status,
        main: `<h1>Receiver not found</h1>
${formError(formErrorsOf(got.error, () => null))}
<p><a href="${BASE}">Back to integrations</a></p>`,
      });
    }
    const rc = got.body;
    const status = queryValue(req, 'status');
    const offset = queryValue(req, 'offset');
    const deliveries = await run(routes.listWebhookDeliveries, handlers.listWebhookDeliveries, req, leader, {
      params: { endpointId },
      query: { limit: String(DELIVERIES_PAGE_SIZE), ...(offset ? { offset } : {}), ...(status ? { status } : {}) },
    });
    const live = rc.status !== 'REMOVED';
    const here = receiverPath(rc.id);

    const edit = opts.edit ?? blankForm();
    const rotate = opts.rotate ?? blankForm();
    const resend = opts.resend ?? blankForm();
    const chosenOverlap = String(rotate.values.overlapSeconds ?? DEFAULT_OVERLAP);
    const overlapErr = fieldError(rotate.errors, 'overlapSeconds');
    const sinceDefault = rc.createdAt.slice(0, 16);

    const manage = live
      ? `<section aria-labelledby="edit-heading">
<h2 id="edit-heading">Change the receiver</h2>
<form method="post" action="${here}">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
${formError(edit.errors)}
${receiverFields(edit, rc)}
<button type="submit">Save</button>
</form>
</section>
<section aria-labelledby="state-heading">
<h2 id="state-heading">Enable, rotate, delete</h2>
<div class="actions">
${
  rc.status === 'ENABLED'
    ? actionForm({
        action: `${here}/disable`,
        label: 'Disable',
        csrf: ctx.csrf,
        danger: true,
        confirm:
          'Disable this receiver? Nothing is sent to it until it is enabled again, and its pending deliveries are cancelled.',
      })
    : actionForm({ action: `${here}/enable`, label: 'Enable', csrf: ctx.csrf })
}
${actionForm({
  action: `${here}/delete`,
  label: 'Delete receiver',
  csrf: ctx.csrf,
  danger: true,
  confirm:
    'Delete this receiver? Nothing more is sent to it, its pending deliveries are cancelled and its secret erased. Its deliveries stay readable.',
})}
</div>
<h3 id="rotate-heading">Rotate the signing secret</h3>
<p>A new secret signs every delivery from now on, shown once. During the overlap the old secret signs too: each delivery carries two <code>v1=</code> signatures in <code>Svc-Signature</code>, so the receiver keeps accepting deliveries while you put the new secret in place.</p>
${formError(rotate.errors)}
${actionForm({
  action: `${here}/rotate-secret`,
  label: 'Rotate secret',
  csrf: ctx.csrf,
  danger: true,
  confirm: 'Rotate the signing secret? A new secret is shown once; the old one stops signing when the overlap ends.',
  inner: `<div class="field">
<label for="field-overlapSeconds">Keep the old secret signing for</label>
<select id="field-overlapSeconds" name="overlapSeconds"${overlapErr.attrs}>
${OVERLAPS.map(([s, label]) => `<option value="${s}"${String(s) === chosenOverlap ? ' selected' : ''}>${escapeHtml(label)}</option>`).join('\n')}
</select>
${overlapErr.html}
</div>`,
})}
</section>`
      : '<p class="notice">This receiver was deleted: nothing is sent to it. Its deliveries stay readable below.</p>';

    let deliveriesHtml: string;
    if (!deliveries.ok) {
      deliveriesHtml = formError(formErrorsOf(deliveries.error, () => null));
    } else if (deliveries.body.length === 0) {
      deliveriesHtml = `<p class="empty">${status ? 'No delivery in this state.' : 'Nothing has been delivered to this receiver yet.'}</p>`;
    } else {
      const rows = deliveries.body
        .map(
          (d) => `<tr>
<td><a href="${deliveryPath(rc.id, d.id)}"><code>${escapeHtml(d.id)}</code></a></td>
<td><code>${escapeHtml(d.event)}</code></td>
<td>${deliveryState(d)}${d.status === 'PENDING' && d.nextAttemptAt ? ` <span class="meta">next ${consoleTime(d.nextAttemptAt)}</span>` : ''}</td>
<td>${d.totalAttempts}${d.round > 1 ? ` <span class="meta">(round ${d.round})</span>` : ''}</td>
<td>${lastOutcome(d)}</td>
<td>${consoleTime(d.createdAt)}</td>
<td>${
            rc.status === 'ENABLED'
              ? actionForm({
                  action: `${deliveryPath(rc.id, d.id)}/replay`,
                  label: 'Replay',
                  csrf: ctx.csrf,
                })
              : ''
          }</td>
</tr>`,
        )
        .join('\n');
      deliveriesHtml = `<div class="table-wrap"><table>
<caption class="meta">Newest first</caption>
<thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
${pager(here, { status }, deliveries.result.page)}`;
    }
    const filter = `<form method="get" action="${here}" class="actions" role="search" aria-label="Deliveries by state">
<label for="delivery-status">State</label>
<select id="delivery-status" name="status">
<option value="">Any</option>
${[
  ['PENDING', 'Pending or retrying'],
  ['SUCCEEDED', 'Delivered'],
  ['PERMANENTLY_FAILED', 'Failed for good'],
  ['CANCELLED', 'Cancelled'],
]
  .map(([v, label]) => `<option value="${v}"${v === status ? ' selected' : ''}>${label}</option>`)
  .join('\n')}
</select>
<button type="submit" class="secondary">Show</button>
</form>`;
    const resendForm =
      rc.status === 'ENABLED'
        ? `<form method="post" action="${here}/resend" aria-labelledby="resend-heading">
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<h3 id="resend-heading">Resend failed deliveries</h3>
${formError(resend.errors)}
${textField({
  name: 'since',
  label: 'Every delivery that failed for good, created since (UTC)',
  type: 'datetime-local',
  required: true,
  value: String(resend.values.since ?? sinceDefault),
  errors: resend.errors,
  hint: 'Each is sent again with its own delivery id, in a new round with the full retry schedule.',
})}
<button type="submit">Resend</button>
</form>`
        : '';

    return consolePage(ctx, leader, {
      section: 'integrations',
      title: `Receiver ${rc.url}`,
      // A refused filter (`?status=`, `?offset=`) is the page's answer too, not a 200 with an error on it.
      status: opts.status ?? (deliveries.ok ? undefined : deliveries.error.status),
      main: `<p><a href="${BASE}">Integrations</a></p>
<h1>Webhook receiver</h1>
${notice(doneNotice(req, RECEIVER_NOTICES))}
${opts.error ? formError(formErrorsOf(opts.error, () => null)) : ''}
<dl>
<dt>URL</dt><dd><code>${escapeHtml(rc.url)}</code></dd>
${rc.description ? `<dt>Description</dt><dd>${escapeHtml(rc.description)}</dd>` : ''}
<dt>Events</dt><dd>${eventList(rc.events)}</dd>
<dt>State</dt><dd>${receiverState(rc)}</dd>
<dt>Created</dt><dd>${consoleTime(rc.createdAt)}</dd>
${rc.previousSecretExpiresAt ? `<dt>Rotation</dt><dd>The previous secret signs too until ${consoleTime(rc.previousSecretExpiresAt)}</dd>` : ''}
</dl>
${manage}
<section aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Deliveries</h2>
${filter}
${deliveriesHtml}
${resendForm}
</section>`,
    });
  }

  /** A delivery and its attempt log. */
  async function deliveryPage(
    ctx: SiteContext,
    req: Request,
    leader: Leader,
    endpointId: string,
    deliveryId: string,
    opts: { status?: number; error?: ApiError } = {},
  ): Promise<PageContent> {
    const got = await run(routes.getWebhookDelivery, handlers.getWebhookDelivery, req, leader, {
      params: { endpointId, deliveryId },
    });
    if (!got.ok) {
      return consolePage(ctx, leader, {
        section: 'integrations',
        title: 'Delivery not found',
        status: got.error.status,
        main: `<h1>Delivery not found</h1>
${formError(formErrorsOf(got.error, () => null))}
<p><a href="${BASE}">Back to integrations</a></p>`,
      });
    }
    const receiver = await run(routes.getWebhookReceiver, handlers.getWebhookReceiver, req, leader, {
      params: { endpointId },
    });
    const { delivery: d, attempts } = got.body;
    const rows = attempts
      .map(
        (a) => `<tr>
<td>${a.number}</td>
<td>${a.round}</td>
<td>${a.outcome === 'SUCCEEDED' ? 'Succeeded' : a.outcome === 'FAILED' ? 'Failed' : 'Abandoned'}</td>
<td>${consoleTime(a.startedAt)}</td>
<td>${a.durationMs === null ? '' : `${a.durationMs} ms`}</td>
<td>${a.statusCode === null ? '<span class="meta">none</span>' : `<code>${a.statusCode}</code>`}</td>
<td>${a.responseBody ? `<pre>${escapeHtml(a.responseBody.slice(0, 500))}${a.responseBody.length > 500 ? '…' : ''}</pre>` : ''}${a.error ? `<p class="field-error">${escapeHtml(a.error)}</p>` : ''}</td>
</tr>`,
      )
      .join('\n');
    const enabled = receiver.ok && receiver.body.status === 'ENABLED';
    return consolePage(ctx, leader, {
      section: 'integrations',
      title: `Delivery ${d.id}`,
      status: opts.status,
      main: `<p><a href="${BASE}">Integrations</a> › <a href="${receiverPath(endpointId)}">Receiver</a></p>
<h1>Delivery <code>${escapeHtml(d.id)}</code></h1>
${notice(doneNotice(req, DELIVERY_NOTICES))}
${opts.error ? formError(formErrorsOf(opts.error, () => null)) : ''}
<dl>
<dt>Event</dt><dd><code>${escapeHtml(d.event)}</code> <span class="meta">${escapeHtml(d.eventId)}</span></dd>
<dt>State</dt><dd>${deliveryState(d)}</dd>
<dt>Attempts</dt><dd>${d.totalAttempts} in ${d.round} round${d.round === 1 ? '' : 's'}</dd>
<dt>Last answer</dt><dd>${lastOutcome(d)}</dd>
${d.status === 'PENDING' && d.nextAttemptAt ? `<dt>Next attempt</dt><dd>${consoleTime(d.nextAttemptAt)}</dd>` : ''}
<dt>Created</dt><dd>${consoleTime(d.createdAt)}</dd>
</dl>
${
  enabled
    ? `<p>Replaying sends the same body with the same <code>Svc-Delivery-Id</code> and a fresh signature, in a new round with the full retry schedule; receivers that deduplicate on the id process it once.</p>
<div class="actions">${actionForm({ action: `${deliveryPath(endpointId, d.id)}/replay`, label: 'Replay delivery', csrf: ctx.csrf })}</div>`
    : '<p class="meta">The receiver is not enabled: enable it to replay this delivery.</p>'
}
<h2>Attempts</h2>
${
  attempts.length
    ? `<div class="table-wrap"><table>
<thead><tr><th scope="col">#</th><th scope="col">Round</th><th scope="col">Outcome</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Status</th><th scope="col">Answer</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p class="empty">No attempt yet.</p>'
}`,
    });
  }

  // ------------------------------------------------------------------------------------------
  // Pages

  r.get('/integrations', (ctx, _db, req, leader) => integrationsPage(ctx, req, leader));
  r.get('/integrations/webhooks/:endpointId', (ctx, _db, req, leader) =>
    receiverPage(ctx, req, leader, req.params.endpointId as string),
  );
  r.get('/integrations/webhooks/:endpointId/deliveries/:deliveryId', (ctx, _db, req, leader) =>
    deliveryPage(ctx, req, leader, req.params.endpointId as string, req.params.deliveryId as string),
  );

  // ------------------------------------------------------------------------------------------
  // Keys

  r.post('/integrations/keys', async (ctx, _db, req, leader, form): Promise<FormOutcome> => {
    const name = (form.name ?? '').trim();
    const scopes = formList(req, 'scopes');
    const out = await run(routes.createSecretKey, handlers.createSecretKey, req, leader, {
      body: { ...(name ? { name } : {}), scopes },
    });
    if (!out.ok) {
      return integrationsPage(ctx, req, leader, {
        status: out.error.status,
        keys: { values: { name: form.name ?? '', scopes }, errors: formErrorsOf(out.error, fieldOf('name', 'scopes')) },
      });
    }
    const { key, secret } = out.body;
    return secretPage(ctx, leader, {
      title: 'Your new secret key',
      secret,
      about: `<p>The key ${key.name ? `“${escapeHtml(key.name)}” ` : ''}was created with the scopes ${key.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ')}. From now on it is listed by its first characters, <code>${escapeHtml(key.prefix)}…</code>.</p>`,
      use: `<h2>Using it</h2>
<p>Send it in the <code>X-API-Key</code> header of every request to this community's API, from your server only:</p>
<pre><code>curl -H "X-API-Key: $SVC_SECRET_KEY" ${escapeHtml(deps.api.publicUrl)}/v1/communities/${escapeHtml(leader.communityTag)}/events</code></pre>
<p>If it is ever exposed, revoke it on the integrations page and create another.</p>`,
      back: BASE,
      backLabel: 'I have copied it: back to integrations',
    });
  });

  r.post('/integrations/keys/:keyId/revoke', async (ctx, _db, req, leader, form) => {
    const keyId = req.params.keyId as string;
    const action = `${BASE}/keys/${encodeURIComponent(keyId)}/revoke`;
    if (!confirmed(form)) {
      return confirmationPage(ctx, leader, 'integrations', {
        question: 'Revoke this key? Every request made with it is refused from now on; this cannot be undone.',
        action,
        form,
        csrf: ctx.csrf,
        back: BASE,
        label: 'Revoke key',
      });
    }
    const out = await run(routes.revokeSecretKey, handlers.revokeSecretKey, req, leader, { params: { keyId } });
    if (!out.ok) return integrationsPage(ctx, req, leader, { status: out.error.status, error: out.error });
    return { redirect: `${BASE}?done=key-revoked` };
  });

  // ------------------------------------------------------------------------------------------
  // Receivers

  r.post('/integrations/webhooks', async (ctx, _db, req, leader, form) => {
    const out = await run(routes.createWebhookReceiver, handlers.createWebhookReceiver, req, leader, {
      body: receiverBody(req, form),
    });
    if (!out.ok) {
      return integrationsPage(ctx, req, leader, {
        status: out.error.status,
        receivers: { values: receiverValues(req, form), errors: formErrorsOf(out.error, RECEIVER_FIELDS) },
      });
    }
    const { receiver, secret } = out.body;
    return secretPage(ctx, leader, {
      title: 'Your new webhook receiver',
      secret,
      about: `<p>Events (${eventList(receiver.events)}) are posted to <code>${escapeHtml(receiver.url)}</code> from now on, each signed with this secret.</p>`,
      use: `<h2>Using it</h2>
<p>Keep the secret on the receiving server. Each delivery has an <code>Svc-Signature: t=&lt;time&gt;,v1=&lt;signature&gt;</code> header: the HMAC-SHA256 of <code>&lt;time&gt;.&lt;raw body&gt;</code> with this secret. Stripe's libraries verify it as they are, for example <code>stripe.webhooks.constructEvent(body, signature, secret)</code>. Deduplicate on <code>Svc-Delivery-Id</code>: a delivery may arrive more than once.</p>`,
      back: receiverPath(receiver.id),
      backLabel: "I have copied it: to the receiver's page",
    });
  });

  r.post('/integrations/webhooks/:endpointId', async (ctx, _db, req, leader, form) => {
    const endpointId = req.params.endpointId as string;
    const out = await run(routes.updateWebhookReceiver, handlers.updateWebhookReceiver, req, leader, {
      params: { endpointId },
      body: receiverBody(req, form),
    });
    if (!out.ok) {
      return receiverPage(ctx, req, leader, endpointId, {
        status: out.error.status,
        edit: { values: receiverValues(req, form), errors: formErrorsOf(out.error, RECEIVER_FIELDS) },
      });
    }
    return { redirect: `${receiverPath(endpointId)}?done=updated` };
  });

  r.post('/integrations/webhooks/:endpointId/enable', async (ctx, _db, req, leader) => {
    const endpointId = req.params.endpointId as string;
    const out = await run(routes.enableWebhookReceiver, handlers.enableWebhookReceiver, req, leader, {
      params: { endpointId },
    });
    if (!out.ok) return receiverPage(ctx, req, leader, endpointId, { status: out.error.status, error: out.error });
    return { redirect: `${receiverPath(endpointId)}?done=enabled` };
  });

  r.post('/integrations/webhooks/:endpointId/disable', async (ctx, _db, req, leader, form) => {
    const endpointId = req.params.endpointId as string;
    if (!confirmed(form)) {
      return confirmationPage(ctx, leader, 'integrations', {
        question:
          'Disable this receiver? Nothing is sent to it until it is enabled again, and its pending deliveries are cancelled.',
        action: `${receiverPath(endpointId)}/disable`,
        form,
        csrf: ctx.csrf,
        back: receiverPath(endpointId),
        label: 'Disable receiver',
      });
    }
    const out = await run(routes.disableWebhookReceiver, handlers.disableWebhookReceiver, req, leader, {
      params: { endpointId },
    });
    if (!out.ok) return receiverPage(ctx, req, leader, endpointId, { status: out.error.status, error: out.error });
    return { redirect: `${receiverPath(endpointId)}?done=disabled` };
  });

  r.post('/integrations/webhooks/:endpointId/delete', async (ctx, _db, req, leader, form) => {
    const endpointId = req.params.endpointId as string;
    if (!confirmed(form)) {
      return confirmationPage(ctx, leader, 'integrations', {
        question:
          'Delete this receiver? Nothing more is sent to it, its pending deliveries are cancelled and its secret erased. Its deliveries stay readable.',
        action: `${receiverPath(endpointId)}/delete`,
        form,
        csrf: ctx.csrf,
        back: receiverPath(endpointId),
        label: 'Delete receiver',
      });
    }
    const out = await run(routes.deleteWebhookReceiver, handlers.deleteWebhookReceiver, req, leader, {
      params: { endpointId },
    });
    if (!out.ok) return receiverPage(ctx, req, leader, endpointId, { status: out.error.status, error: out.error });
    return { redirect: `${BASE}?done=receiver-deleted` };
  });

  r.post('/integrations/webhooks/:endpointId/rotate-secret', async (ctx, _db, req, leader, form) => {
    const endpointId = req.params.endpointId as string;
    if (!confirmed(form)) {
      return confirmationPage(ctx, leader, 'integrations', {
        question:
          'Rotate the signing secret? A new secret is shown once; the old one stops signing when the overlap ends.',
        action: `${receiverPath(endpointId)}/rotate-secret`,
        form,
        csrf: ctx.csrf,
        back: receiverPath(endpointId),
        label: 'Rotate secret',
      });
    }
    const given = form.overlapSeconds ?? String(DEFAULT_OVERLAP);
    // A number the select offers goes as a number; anything else as it came, for the API to refuse.
    const overlapSeconds = /^\d{1,9}$/.test(given) ? Number(given) : given;
    const out = await run(routes.rotateWebhookSecret, handlers.rotateWebhookSecret, req, leader, {
      params: { endpointId },
      body: { overlapSeconds },
    });
    if (!out.ok) {
      return receiverPage(ctx, req, leader, endpointId, {
        status: out.error.status,
        rotate: { values: { overlapSeconds: given }, errors: formErrorsOf(out.error, fieldOf('overlapSeconds')) },
      });
    }
    const { receiver, secret } = out.body;
    const until = receiver.previousSecretExpiresAt;
    return secretPage(ctx, leader, {
      title: 'The new signing secret',
      secret,
      about: `<p>Deliveries to <code>${escapeHtml(receiver.url)}</code> are signed with this secret from now on. ${
        until
          ? `Until ${consoleTime(until)} the previous secret signs them too: each carries two <code>v1=</code> signatures in <code>Svc-Signature</code>, one per secret, so your receiver accepts them with either secret. Put the new one in place before then.`
          : 'The previous secret no longer signs anything: put the new one in place now, or deliveries will be rejected by your receiver.'
      }</p>`,
      use: '',
      back: receiverPath(receiver.id),
      backLabel: "I have copied it: back to the receiver's page",
    });
  });

  // ------------------------------------------------------------------------------------------
  // Deliveries

  r.post('/integrations/webhooks/:endpointId/deliveries/:deliveryId/replay', async (ctx, _db, req, leader) => {
    const endpointId = req.params.endpointId as string;
    const deliveryId = req.params.deliveryId as string;
    const out = await run(routes.replayWebhookDelivery, handlers.replayWebhookDelivery, req, leader, {
      params: { endpointId, deliveryId },
    });
    if (!out.ok) {
      return deliveryPage(ctx, req, leader, endpointId, deliveryId, { status: out.error.status, error: out.error });
    }
    return { redirect: `${deliveryPath(endpointId, deliveryId)}?done=replayed` };
  });

  r.post('/integrations/webhooks/:endpointId/resend', async (ctx, _db, req, leader, form) => {
    const endpointId = req.params.endpointId as string;
    const given = (form.since ?? '').trim();
    // The datetime-local input gives the minute without a zone; the console's times are UTC.
    const since = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(given)
      ? `${given}:00Z`
      : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(given)
        ? `${given}Z`
        : given;
    const out = await run(routes.resendWebhookDeliveries, handlers.resendWebhookDeliveries, req, leader, {
      params: { endpointId },
      body: { since },
    });
    if (!out.ok) {
      return receiverPage(ctx, req, leader, endpointId, {
        status: out.error.status,
        resend: { values: { since: given }, errors: formErrorsOf(out.error, fieldOf('since')) },
      });
    }
    return { redirect: `${receiverPath(endpointId)}?done=${out.body.requeued.length ? 'resent' : 'resent-none'}` };
  });
}
