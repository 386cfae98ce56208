// `/admin/audit-log`: every change made through the console, newest first, with who made it and
// what it was before and after. Read through the API's listAuditLog, so the page shows exactly
// what `GET /api/admin/{tag}/audit-log` answers.
import * as routes from '../../../contract/routes/admin.ts';
import { auditLogHandlers } from '../../admin/audit-log.ts';
import { escapeHtml } from '../../shared/html.ts';
import { runOperation } from './operations.ts';
import { consolePage, consoleTime, formError, formErrorsOf, pager, queryValue } from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const PAGE_SIZE = 50;

/** A before or after value, as compact JSON; long ones folded away. */
function stateCell(value: unknown): string {
  if (value === null || value === undefined) return '<span class="meta">none</span>';
  const json = JSON.stringify(value);
  if (json.length <= 160) return `<code>${escapeHtml(json)}</code>`;
  return `<details><summary>${escapeHtml(json.slice(0, 80))}…</summary><pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre></details>`;
}

export function auditLogPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  r.get('/audit-log', async (ctx, _db, req, leader) => {
    const action = queryValue(req, 'action');
    const offset = queryValue(req, 'offset');
    const query = { limit: String(PAGE_SIZE), offset, ...(action ? { action } : {}) };
    const out = await runOperation(
      routes.listAuditLog,
      auditLogHandlers.listAuditLog,
      deps.api,
      leader,
      { query },
      req,
    );
    const filter = `<form method="get" action="/admin/audit-log" class="actions" role="search">
<label for="audit-action">Action</label>
<input id="audit-action" name="action" value="${escapeHtml(action ?? '')}" placeholder="settings.update">
<button type="submit" class="secondary">Filter</button>
${action ? '<a href="/admin/audit-log">Show every action</a>' : ''}
</form>`;
    if (!out.ok) {
      return consolePage(ctx, leader, {
        section: 'audit',
        title: 'Audit log',
        status: out.error.status,
        main: `<h1>Audit log</h1>\n${filter}\n${formError(formErrorsOf(out.error, () => null))}`,
      });
    }
    const rows = out.body
      .map(
        (e) => `<tr>
<td>${consoleTime(e.createdAt)}</td>
<td>${escapeHtml(e.actor.name ?? e.actor.userId ?? 'someone')}</td>
<td><code>${escapeHtml(e.action)}</code></td>
<td>${escapeHtml(e.target.type)}${e.target.id ? ` <span class="meta">${escapeHtml(e.target.id)}</span>` : ''}</td>
<td>${stateCell(e.before)}</td>
<td>${stateCell(e.after)}</td>
</tr>`,
      )
      .join('\n');
    const table = out.body.length
      ? `<div class="table-wrap"><table>
<caption class="meta">Newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
      : `<p class="empty">${action ? 'No change with this action.' : 'No change has been made through the console yet.'}</p>`;
    return consolePage(ctx, leader, {
      section: 'audit',
      title: 'Audit log',
      main: `<h1>Audit log</h1>
<p>Every change made in this console: who made it, when, and what it was before and after. Secrets are recorded by their prefix only.</p>
${filter}
${table}
${pager('/admin/audit-log', { action }, out.result.page)}`,
    });
  });
}
