// EVENTS: `/events` (upcoming and past) and `/events/<slug>`. The lists use the same domain
// functions as `GET /v1/.../events`, with the viewer's audience: a non-member sees the events that
// are public (their own visibility, else the EVENTS page's, else the community's), an ACCEPTED
// member every event. The detail page judges the event's own visibility (rule 4).
import type { Event, Tier } from '../../../contract/resources.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import * as events from '../../domain/events.ts';
import { escapeHtml } from '../../shared/html.ts';
import { isMember } from './gate.ts';
import type { PageBody, SiteContext } from './context.ts';
import { imageUrl } from './urls.ts';
import { minorDigits, money } from './money.ts';
import type { PageHead } from './layout.ts';

export const UPCOMING_LIMIT = 50;
export const PAST_LIMIT = 20;

export function audienceFor(ctx: SiteContext): events.EventAudience {
  return { ...events.audienceOf(ctx.community.id, ctx.community), member: isMember(ctx.viewer) };
}

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

export function when(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `<time datetime="${escapeHtml(d.toISOString())}">${escapeHtml(dateFormat.format(d))} UTC</time>`;
}

function place(location: Event['location']): string {
  if (!location) return '';
  const parts = [location.name, location.address, location.city, location.region, location.country].filter(
    (p): p is string => typeof p === 'string' && p.trim() !== '',
  );
  return parts.map(escapeHtml).join(', ');
}

export function eventItem(e: Event): string {
  const where = place(e.location);
  return `<li><a href="/events/${encodeURIComponent(e.slug)}">${escapeHtml(e.name)}</a>
<div class="meta">${when(e.startDate)}${where ? ` · ${where}` : ''}</div></li>`;
}

export function eventList(items: Event[], empty: string): string {
  if (items.length === 0) return `<p class="empty">${escapeHtml(empty)}</p>`;
  return `<ul class="events">\n${items.map(eventItem).join('\n')}\n</ul>`;
}

export async function eventsPage(ctx: SiteContext, db: Db): Promise<PageBody> {
  const audience = audienceFor(ctx);
  const [upcoming, past] = await Promise.all([
    events.listEvents(db, audience, { limit: UPCOMING_LIMIT, upcoming: true }),
    events.listEvents(db, audience, { limit: PAST_LIMIT, past: true }),
  ]);
  return {
    title: 'Events',
    head: { description: `Upcoming and past events of ${ctx.community.name}.` },
    main: `<h1>Events</h1>
<section aria-labelledby="upcoming">
<h2 id="upcoming">Upcoming</h2>
${eventList(upcoming.items, 'No upcoming events yet.')}
</section>
<section aria-labelledby="past">
<h2 id="past">Past</h2>
${eventList(past.items, 'No past events.')}
</section>`,
  };
}

export function price(tier: Tier): string {
  return tier.priceCents === 0 ? 'Free' : money(tier.priceCents, tier.currency);
}

/** A tier's price as schema.org wants it: a decimal string in major units. */
function offerPrice(tier: Tier): string {
  const digits = minorDigits(tier.currency);
  return (tier.priceCents / 10 ** digits).toFixed(digits);
}

/** Search and link previews: the banner as the card image, JSON-LD `Event` with an `Offer` per active tier. */
function eventHead(ctx: SiteContext, event: Event): PageHead {
  const origin = ctx.chrome.origin ?? '';
  const url = `${origin}/events/${encodeURIComponent(event.slug)}`;
  const banner = imageUrl(event.bannerUrl);
  const location = event.location;
  return {
    description: event.description ?? `${event.name}, an event of ${ctx.community.name}.`,
    image: banner,
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'Event',
      name: event.name,
      url,
      ...(event.startDate ? { startDate: event.startDate } : {}),
      ...(event.endDate ? { endDate: event.endDate } : {}),
      ...(event.description ? { description: event.description } : {}),
      ...(banner ? { image: [banner] } : {}),
      ...(location
        ? {
            location: {
              '@type': 'Place',
              ...(location.name ? { name: location.name } : {}),
              address: [location.address, location.city, location.region, location.country]
                .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
                .join(', '),
            },
          }
        : {}),
      organizer: { '@type': 'Organization', name: ctx.community.name, url: `${origin}/` },
      offers: event.tiers.map((t) => ({
        '@type': 'Offer',
        name: t.name,
        price: offerPrice(t),
        priceCurrency: t.currency,
        availability:
          t.capacity !== null && t.sold >= t.capacity ? 'https://schema.org/SoldOut' : 'https://schema.org/InStock',
        url,
      })),
    },
  };
}

/**
 * Rule 4: the event's own visibility decides, not the EVENTS page's. An event a non-member may
 * not see exists for the gate (403), one that does not exist is not found.
 */
export async function eventPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const slug = String(req.params.slug);
  const audience = audienceFor(ctx);
  const event = await events.getEvent(db, audience, slug);
  if (!event) {
    if (audience.member) return 'not-found';
    return (await events.getEvent(db, { ...audience, member: true }, slug)) ? 'gate' : 'not-found';
  }
  const where = place(event.location);
  const tiers = event.tiers.length
    ? `<ul class="tiers">\n${event.tiers
        .map((t) => `<li>${escapeHtml(t.name)} · <strong>${escapeHtml(price(t))}</strong></li>`)
        .join('\n')}\n</ul>`
    : '<p class="empty">No tickets on sale.</p>';
  return {
    title: event.name,
    head: eventHead(ctx, event),
    main: `<article>
<h1>${escapeHtml(event.name)}</h1>
<p class="meta">${when(event.startDate)}${event.endDate ? ` – ${when(event.endDate)}` : ''}</p>
${where ? `<p class="meta">${where}</p>` : ''}
${event.description ? `<div class="description">${escapeHtml(event.description)}</div>` : ''}
<section aria-labelledby="tickets">
<h2 id="tickets">Tickets</h2>
${tiers}
<div class="rsvp" id="rsvp" data-event="${escapeHtml(event.slug)}">
<p>Registration for this event opens here soon.</p>
</div>
</section>
<p><a href="/events">All events</a></p>
</article>`,
  };
}
