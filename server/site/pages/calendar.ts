// The calendars (docs/hosted-site.md): `/events.ics`, the community calendar (the events this
// viewer can see on `/events`: upcoming and the recent past), and `/events/<slug>.ics`, one event.
// Gated exactly like the pages they mirror: `/events.ics` is the EVENTS page's gate, an event's
// `.ics` judges the event's own visibility (rule 4), so a members-only event's calendar entry is
// never given to a non-member. The serializer is server/shared/ical.ts.
import type { Event } from '../../../contract/resources.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import * as events from '../../domain/events.ts';
import { toICalendar, type CalendarEvent } from '../../shared/ical.ts';
import type { PageBody, SiteContext } from './context.ts';
import { audienceFor, PAST_LIMIT, placeText, UPCOMING_LIMIT } from './events.ts';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';

/** One event as a calendar entry; the UID is the event's id, the same on every host and render. */
function entry(req: Request, e: Event): CalendarEvent {
  const origin = `${req.protocol}://${req.host}`;
  return {
    uid: `${e.id}@svc`,
    summary: e.name,
    description: e.description,
    location: placeText(e.location) || null,
    url: `${origin}/events/${encodeURIComponent(e.slug)}`,
    start: new Date(e.startDate),
    end: e.endDate ? new Date(e.endDate) : null,
  };
}

/** GET /events.ics */
export async function communityCalendar(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const audience = audienceFor(ctx);
  const [upcoming, past] = await Promise.all([
    events.listEvents(db, audience, { limit: UPCOMING_LIMIT, upcoming: true }),
    events.listEvents(db, audience, { limit: PAST_LIMIT, past: true }),
  ]);
  const all = [...past.items.reverse(), ...upcoming.items];
  return {
    file: {
      contentType: CALENDAR_TYPE,
      body: toICalendar({ name: ctx.community.name, now: new Date(), events: all.map((e) => entry(req, e)) }),
    },
  };
}

/** GET /events/<slug>.ics: as `/events/<slug>` answers, the gate for an event only members see. */
export async function eventCalendar(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const slug = String(req.params.slug);
  const audience = audienceFor(ctx);
  const event = await events.getEvent(db, audience, slug);
  if (!event) {
    if (audience.member) return 'not-found';
    return (await events.getEvent(db, { ...audience, member: true }, slug)) ? 'gate' : 'not-found';
  }
  return {
    file: {
      contentType: CALENDAR_TYPE,
      body: toICalendar({ name: `${ctx.community.name}: ${event.name}`, now: new Date(), events: [entry(req, event)] }),
    },
  };
}
