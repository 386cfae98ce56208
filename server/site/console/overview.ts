// `/admin`, the console's home: members, pending requests, upcoming events, and the last 30 days
// of donations and RSVPs as small bar charts. Read through the API's getLeaderOverview, so the page
// shows what `GET /api/admin/{tag}/overview` answers. The charts are SVG drawn here (no script);
// the CSP allows no style attribute, so bar sizes are SVG attributes and colours come from classes.
import type { z } from 'zod';
import * as routes from '../../../contract/routes/admin.ts';
import { overviewHandlers } from '../../admin/overview.ts';
import { escapeHtml } from '../../shared/html.ts';
import { money } from '../pages/money.ts';
import { runOperation } from './operations.ts';
import { consolePage, consoleTime, formError, formErrorsOf } from './page.ts';
import type { ConsoleDeps, ConsoleRoutes } from './routes.ts';

const CHART_WIDTH = 600;
const CHART_HEIGHT = 120;

/** Amounts in several currencies, each in its own (never added across currencies). */
const amounts = (list: { currency: string; amount: number }[]): string =>
  list.length ? list.map((a) => escapeHtml(money(a.amount, a.currency))).join(', ') : '—';

/**
 * A bar per day, tallest = the busiest day. The picture is named by its heading (`aria-labelledby`)
 * and described by a sentence; the numbers themselves are in the table under it, for screen readers
 * and for anyone who wants them exact.
 */
function barChart(opts: {
  id: string;
  title: string;
  days: { date: string; count: number }[];
  unit: string;
  tableHead: string[];
  row: (i: number) => string[];
}): string {
  const max = Math.max(1, ...opts.days.map((d) => d.count));
  const slot = CHART_WIDTH / opts.days.length;
  const bars = opts.days
    .map((d, i) => {
      const height = d.count === 0 ? 0 : Math.max(2, Math.round((d.count / max) * CHART_HEIGHT));
      return `<rect x="${(i * slot + 1).toFixed(1)}" y="${CHART_HEIGHT - height}" width="${(slot - 2).toFixed(1)}" height="${height}"><title>${escapeHtml(d.date)}: ${d.count} ${escapeHtml(opts.unit)}</title></rect>`;
    })
    .join('');
  const total = opts.days.reduce((n, d) => n + d.count, 0);
  const busiest = opts.days.reduce((a, d) => (d.count > a.count ? d : a), opts.days[0]);
  const summary =
    total === 0
      ? `None from ${opts.days[0].date} to ${opts.days[opts.days.length - 1].date}.`
      : `${total} ${opts.unit} from ${opts.days[0].date} to ${opts.days[opts.days.length - 1].date}; the busiest day was ${busiest.date} with ${busiest.count}.`;
  const rows = opts.days
    .map(
      (_, i) =>
        `<tr>${opts
          .row(i)
          .map((c, j) => (j === 0 ? `<th scope="row">${c}</th>` : `<td>${c}</td>`))
          .join('')}</tr>`,
    )
    .join('\n');
  return `<section aria-labelledby="${opts.id}-title">
<h2 id="${opts.id}-title">${escapeHtml(opts.title)}</h2>
<p class="meta" id="${opts.id}-summary">${escapeHtml(summary)}</p>
<svg class="chart" id="${opts.id}" role="img" aria-labelledby="${opts.id}-title" aria-describedby="${opts.id}-summary" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" preserveAspectRatio="none" focusable="false">${bars}</svg>
<details>
<summary>${escapeHtml(opts.title)} as a table</summary>
<div class="table-wrap"><table>
<thead><tr>${opts.tableHead.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
</details>
</section>`;
}

type Overview = z.infer<typeof routes.LeaderOverview>;

function overviewMain(o: Overview): string {
  const stat = (label: string, value: string, href?: string) =>
    `<li><span class="value">${value}</span> ${href ? `<a href="${href}">${escapeHtml(label)}</a>` : escapeHtml(label)}</li>`;
  const donationTotal = o.donations.totals.reduce((n, t) => n + t.count, 0);
  const events = o.events.next.length
    ? `<ul>
${o.events.next
  .map(
    (e) =>
      `<li><a href="/events/${encodeURIComponent(e.slug)}/manage">${escapeHtml(e.name)}</a> <span class="meta">${consoleTime(e.startDate)}</span></li>`,
  )
  .join('\n')}
</ul>${o.events.upcoming > o.events.next.length ? `\n<p class="meta">and ${o.events.upcoming - o.events.next.length} more.</p>` : ''}`
    : '<p class="empty">No upcoming event.</p>';
  return `<h1>Overview</h1>
<ul class="stats" aria-label="In numbers">
${stat('members', String(o.members.accepted), '/admin/members')}
${stat('pending requests', String(o.requests.pending), '/admin/members/requests')}
${stat('upcoming events', String(o.events.upcoming))}
${stat('donations in 30 days', String(donationTotal))}
${stat('RSVPs in 30 days', String(o.rsvps.total))}
</ul>
<section aria-labelledby="next-events">
<h2 id="next-events">Upcoming events</h2>
${events}
</section>
<p class="meta">The charts cover the last 30 days in UTC, today included; refunded donations and tickets are left out. Amounts are per currency: donations in different currencies are never added together.</p>
${
  o.donations.totals.length
    ? `<p>Donations in 30 days: ${o.donations.totals.map((t) => `${escapeHtml(money(t.amount, t.currency))} (${t.count})`).join(', ')}</p>`
    : ''
}
${barChart({
  id: 'donations-chart',
  title: 'Donations by day',
  days: o.donations.days,
  unit: 'donations',
  tableHead: ['Day (UTC)', 'Donations', 'Amount'],
  row: (i) => {
    const d = o.donations.days[i];
    return [escapeHtml(d.date), String(d.count), amounts(d.amounts)];
  },
})}
${barChart({
  id: 'rsvps-chart',
  title: 'RSVPs by day',
  days: o.rsvps.days,
  unit: 'RSVPs',
  tableHead: ['Day (UTC)', 'RSVPs'],
  row: (i) => [escapeHtml(o.rsvps.days[i].date), String(o.rsvps.days[i].count)],
})}`;
}

export function overviewPages(r: ConsoleRoutes, deps: ConsoleDeps): void {
  r.get('', async (ctx, _db, req, leader) => {
    const out = await runOperation(
      routes.getLeaderOverview,
      overviewHandlers.getLeaderOverview,
      deps.api,
      leader,
      {},
      req,
    );
    if (!out.ok)
      return consolePage(ctx, leader, {
        section: 'overview',
        title: 'Overview',
        status: out.error.status,
        main: `<h1>Overview</h1>\n${formError(formErrorsOf(out.error, () => null))}`,
      });
    return consolePage(ctx, leader, { section: 'overview', title: 'Overview', main: overviewMain(out.body) });
  });
}
