// `/events/<slug>/manage` (docs/hosted-site.md): the event's attendees with tier and check-in
// state, their CSV export, and the door check-in form, for the community's leaders only (an
// ACCEPTED founder or admin). Anyone else signed in, member or not, gets the 403 page; an
// anonymous viewer the sign-in gate. Everything here is rendered for a signed-in viewer, so it is
// `private, no-store`.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import {
  checkInTicket,
  attendanceCounts,
  eventAttendees,
  eventAttendeesPage,
  type AttendeeCursor,
  isCommunityLeader,
  managedEvent,
  type Attendee,
  type CheckInResult,
  type ManagedEvent,
} from '../../domain/event-attendance.ts';
import { toCsv } from '../../shared/csv.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { SaleDeps } from '../../use-cases/checkout.ts';
import type { FormHandler, PageBody, SiteContext } from './context.ts';
import { when } from './events.ts';
import { csrfInput } from './forms.ts';

/** The event, when the viewer leads the community; otherwise what they get instead. */
async function leadersEvent(ctx: SiteContext, db: Db, req: Request): Promise<ManagedEvent | PageBody> {
  if (ctx.viewer.userId === null) return 'gate';
  // Judged before the event is looked up: a non-leader learns nothing about which events exist.
  if (!(await isCommunityLeader(db, ctx.community.id, ctx.viewer.userId))) return 'forbidden';
  return (await managedEvent(db, ctx.community.id, String(req.params.slug))) ?? 'not-found';
}

const isEvent = (x: ManagedEvent | PageBody): x is ManagedEvent => typeof x === 'object' && 'slug' in x;

function attendeeRow(a: Attendee): string {
  const state = a.refundedAt
    ? 'Refunded'
    : a.checkedInAt
      ? `Checked in ${when(a.checkedInAt)}`
      : '<span class="meta">Not yet</span>';
  return `<tr><td>${escapeHtml(a.name)}</td><td>${escapeHtml(a.email)}</td><td>${escapeHtml(a.tierName)}</td><td>${a.kind === 'PAID' ? 'Paid' : 'RSVP'}</td><td>${state}</td></tr>`;
}

type Notice = { ok: boolean; html: string } | null;

/** Attendees per page of the manage list; the CSV has them all. */
export const MANAGE_PAGE_SIZE = 100;

/** `?after=<issued at>~<ticket id>`: where the previous page ended; anything else is no cursor. */
function cursorOf(req: Request | null): AttendeeCursor | undefined | 'bad' {
  const raw = req?.query.after;
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~([\w-]{1,64})$/.exec(raw) : null;
  return m ? { issuedAt: m[1], ticketId: m[2] } : 'bad';
}

async function renderManage(ctx: SiteContext, db: Db, event: ManagedEvent, notice: Notice, after?: AttendeeCursor) {
  const [page, { valid, checkedIn }] = await Promise.all([
    eventAttendeesPage(db, event.id, { limit: MANAGE_PAGE_SIZE, after }),
    attendanceCounts(db, event.id),
  ]);
  const attendees = page.items;
  const base = `/events/${encodeURIComponent(event.slug)}`;
  const next = page.next
    ? `<p><a href="${escapeHtml(`${base}/manage?after=${encodeURIComponent(`${page.next.issuedAt}~${page.next.ticketId}`)}`)}">More attendees</a></p>`
    : '';
  const table = attendees.length
    ? `<table class="attendees">
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Tier</th><th scope="col">Ticket</th><th scope="col">Check-in</th></tr></thead>
<tbody>
${attendees.map(attendeeRow).join('\n')}
</tbody>
</table>`
    : `<p class="empty">${after ? 'No more attendees.' : 'No one has a ticket yet.'}</p>`;
  return {
    title: `Manage: ${event.name}`,
    main: `<h1>Manage: ${escapeHtml(event.name)}</h1>
<p class="meta">${when(event.startDate)} · ${checkedIn} of ${valid} checked in</p>
<section aria-labelledby="door">
<h2 id="door">Door check-in</h2>
${notice ? `<p class="notice${notice.ok ? '' : ' error'}" role="status">${notice.html}</p>` : ''}
<form method="post" action="${escapeHtml(`${base}/manage/check-in`)}" class="check-in-form">
<label for="ticket-code">Ticket code</label>
<input id="ticket-code" name="code" autocomplete="off" required>
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<button type="submit">Check in</button>
</form>
</section>
<section aria-labelledby="attendees">
<h2 id="attendees">Attendees</h2>
<p><a href="${escapeHtml(`${base}/manage/attendees.csv`)}">Download as CSV</a></p>
${table}
${next}
</section>
<p><a href="${escapeHtml(base)}">Event page</a></p>`,
  };
}

/** GET /events/<slug>/manage */
export async function managePage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const event = await leadersEvent(ctx, db, req);
  if (!isEvent(event)) return event;
  const after = cursorOf(req);
  // A cursor that is not one is not a page of this list.
  return after === 'bad' ? 'not-found' : renderManage(ctx, db, event, null, after);
}

/** GET /events/<slug>/manage/attendees.csv */
export async function attendeesCsv(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const event = await leadersEvent(ctx, db, req);
  if (!isEvent(event)) return event;
  const rows = (await eventAttendees(db, event.id)).map((a) => [
    a.name,
    a.email,
    a.tierName,
    a.kind,
    a.issuedAt,
    a.checkedInAt ?? '',
    a.refundedAt ?? '',
    a.ticketId,
  ]);
  return {
    file: {
      contentType: 'text/csv; charset=utf-8',
      filename: `${event.slug}-attendees.csv`,
      body: toCsv(['name', 'email', 'tier', 'ticket', 'issued_at', 'checked_in_at', 'refunded_at', 'ticket_id'], rows),
    },
  };
}

function checkInNotice(result: CheckInResult): { notice: Notice; status: number } {
  switch (result.outcome) {
    case 'checked-in':
      return {
        notice: {
          ok: true,
          html: `Checked in: ${escapeHtml(result.attendee.name)} (${escapeHtml(result.attendee.tierName)}).`,
        },
        status: 200,
      };
    case 'already-checked-in':
      return {
        notice: {
          ok: false,
          html: `${escapeHtml(result.attendee.name)} is already checked in at ${when(result.at)}.`,
        },
        status: 409,
      };
    case 'refunded':
      return {
        notice: { ok: false, html: `This ticket was refunded: ${escapeHtml(result.attendee.name)}.` },
        status: 422,
      };
    case 'invalid':
      return { notice: { ok: false, html: 'This is not a ticket for this event.' }, status: 422 };
  }
}

/** POST /events/<slug>/manage/check-in with `code` (what the ticket's QR code holds) and `_csrf`. */
export function checkInAction(sales: SaleDeps): FormHandler {
  return async (ctx, db, req, form) => {
    const event = await leadersEvent(ctx, db, req);
    if (!isEvent(event)) return event;
    const { notice, status } = checkInNotice(await checkInTicket(db, sales.ticketCodes, event.id, form.code ?? ''));
    return { ...(await renderManage(ctx, db, event, notice)), status };
  };
}
