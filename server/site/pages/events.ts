// EVENTS: `/events` (upcoming and past) and `/events/<slug>`. The lists use the same domain
// functions as `GET /v1/.../events`, with the viewer's audience: a non-member sees the events that
// are public (their own visibility, else the EVENTS page's, else the community's), an ACCEPTED
// member every event. The detail page judges the event's own visibility (rule 4).
import type { Event, FormField, Tier } from '../../../contract/resources.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import * as events from '../../domain/events.ts';
import { escapeHtml } from '../../shared/html.ts';
import { isMember } from './gate.ts';
import { rsvpBlock, rsvpNotice, type RsvpNotice } from './rsvp.ts';
import { signInHref } from './layout.ts';
import { donationSummary, donationTarget } from '../../domain/donations.ts';
import { isCommunityLeader } from '../../domain/event-attendance.ts';
import type { PageBody, PageContent, SiteContext } from './context.ts';
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

/** Where the event is, as plain text (the calendars' LOCATION); '' when it has no place. */
export function placeText(location: Event['location']): string {
  if (!location) return '';
  const parts = [location.name, location.address, location.city, location.region, location.country].filter(
    (p): p is string => typeof p === 'string' && p.trim() !== '',
  );
  return parts.join(', ');
}

const place = (location: Event['location']): string => escapeHtml(placeText(location));

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
</section>
<p><a href="/events.ics">Subscribe to the calendar (iCalendar)</a></p>`,
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
  // `?rsvp=confirmed` is where a successful RSVP post lands (./rsvp.ts); only a signed-in viewer has one.
  const confirmed = req.query.rsvp === 'confirmed' && ctx.viewer.userId !== null;
  return eventPageFor(ctx, db, event, confirmed ? { kind: 'confirmed' } : null);
}

/** The event page for an event the viewer may see, with the outcome of an RSVP post if any. */
export async function eventPageFor(ctx: SiteContext, db: Db, event: Event, notice: RsvpNotice): Promise<PageContent> {
  const where = place(event.location);
  // The server-rendered <svc-rsvp> when the widget build is there (its no-JS form posts the same
  // two fields as rsvpBlock's), else rsvpBlock's plain forms; either way the post's outcome above.
  // Widget actions act as the public (decision 0014), so an event only members see gets the plain
  // forms, which post as the signed-in member, with JavaScript or without.
  const audience = audienceFor(ctx);
  const membersOnly = audience.member && !(await events.getEvent(db, { ...audience, member: false }, event.slug));
  const rsvp =
    ctx.chrome.widgets && !membersOnly
      ? `<div class="rsvp" id="rsvp" data-event="${escapeHtml(event.slug)}">
${rsvpNotice(notice)}
${rsvpWidget(ctx, event, await rsvpState(db, audience, event.slug), ctx.csrf ?? undefined)}
${event.tiers.some((t) => t.priceCents > 0) ? '<p class="meta nojs">Buying a paid ticket needs JavaScript.</p>' : ''}
</div>`
      : rsvpBlock(ctx, event, notice);
  const donate = ctx.chrome.widgets && event.donationConfig?.enabled ? await donateWidget(ctx, db, event.slug) : '';
  // Leaders get the way to the door and the attendee list; asked only for a signed-in viewer.
  const leads = ctx.viewer.userId !== null && (await isCommunityLeader(db, ctx.community.id, ctx.viewer.userId));
  const manage = leads ? `\n<a href="/events/${encodeURIComponent(event.slug)}/manage">Manage this event</a>` : '';
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
${rsvp}
</section>
${donate}
<p class="actions"><a href="/events">All events</a>
<a href="/events/${encodeURIComponent(event.slug)}.ics">Add to calendar</a>${manage}</p>
</article>`,
  };
}

/**
 * `<svc-rsvp>` server-rendered with the event and its tiers (inactive ones too, as the widget's
 * own request gets them), so the tiers are in the first paint and the widget hydrates without a
 * fetch. Without JavaScript its form posts itself to `/events/<slug>/rsvp` (a free tier): with the
 * viewer's CSRF token when one is given, else the visitor is asked to sign in first.
 */
async function rsvpState(
  db: Db,
  audience: events.EventAudience,
  slug: string,
): Promise<{ tiers: Tier[]; forms: Record<string, FormField[]> }> {
  const tiers = (await events.listEventTiers(db, audience, slug)) ?? [];
  const forms: Record<string, FormField[]> = {};
  for (const tier of tiers.filter((t) => t.isActive && t.hasForm)) {
    const form = await events.getTierForm(db, audience, tier.id);
    if (form) forms[tier.id] = form.schema;
  }
  return { tiers, forms };
}

export function rsvpWidget(
  ctx: SiteContext,
  event: Event,
  { tiers, forms }: { tiers: Tier[]; forms: Record<string, FormField[]> },
  csrfToken?: string,
): string {
  const path = `/events/${encodeURIComponent(event.slug)}`;
  const noscript = csrfToken
    ? `<input type="hidden" name="_csrf" value="${escapeHtml(csrfToken)}"><button type="submit" class="primary submit">RSVP</button>`
    : `<p><a href="${escapeHtml(signInHref(path))}">Sign in to RSVP</a></p>`;
  return ctx.chrome.widgets!.element(
    'rsvp',
    { event: event.slug },
    { event, tiers, forms, ssr: { action: `${path}/rsvp`, noscript } },
  );
}

/**
 * The donate block of an event that takes donations: `<svc-donate>` server-rendered with its
 * target and summary (the same domain functions as the widget's own reads), hydrated in place.
 * A donation is a paid checkout, so it needs JavaScript; without it the form is hidden and a line
 * says so.
 */
async function donateWidget(ctx: SiteContext, db: Db, slug: string): Promise<string> {
  const [target, summary] = await Promise.all([
    donationTarget(db, ctx.community.id, 'EVENT', slug),
    donationSummary(db, ctx.community.id, 'EVENT', slug),
  ]);
  if (!target) return '';
  const seed = { key: slug, target: { name: target.name, config: target.config, currency: target.currency }, summary };
  return `<section aria-labelledby="donate">
<h2 id="donate">Donate</h2>
${ctx.chrome.widgets!.element('donate', { event: slug }, seed, '<p>Donating needs JavaScript.</p>')}
</section>`;
}
