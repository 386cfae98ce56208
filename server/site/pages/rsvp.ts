// RSVP without JavaScript on `/events/<slug>` (docs/hosted-site.md, "Form posts"). Per free active
// tier, a plain form posting to `/events/<slug>/rsvp` with exactly two fields:
//   tierId  the tier's id
//   _csrf   the viewer's form token (./forms.ts)
// The server-rendered <svc-rsvp> posts the same two fields, so the two stay interchangeable. The
// post books for the signed-in viewer (their account's name and address) through the same
// use-case as /v1 and the widget (server/use-cases/tickets.ts), whose domain function holds the
// capacity invariant; it answers a 303 to `/events/<slug>?rsvp=confirmed`, or re-renders the event
// page with the refusal's message and its 4xx status.
import type { Event } from '../../../contract/resources.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import { transaction } from '../../db/index.ts';
import { saleCommunity } from '../../domain/communities.ts';
import * as events from '../../domain/events.ts';
import { Refusal } from '../../domain/refusal.ts';
import { accountContact } from '../../domain/users.ts';
import { refusalError } from '../../http/refusals.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { SaleDeps } from '../../use-cases/checkout.ts';
import { rsvp } from '../../use-cases/tickets.ts';
import type { FormHandler, SiteContext } from './context.ts';
import { audienceFor, eventPageFor } from './events.ts';
import { csrfInput } from './forms.ts';
import { signInHref } from './layout.ts';

/** What the RSVP block says above the forms: the outcome of the last post, if any. */
export type RsvpNotice = { kind: 'confirmed' } | { kind: 'refused'; message: string } | null;

/** The outcome of the last RSVP post, said above the forms (or the widget). */
export function rsvpNotice(notice: RsvpNotice): string {
  return notice?.kind === 'confirmed'
    ? '<p class="notice" role="status">You are registered. Your ticket is on its way to your e-mail address.</p>'
    : notice?.kind === 'refused'
      ? `<p class="notice error" role="alert">${escapeHtml(notice.message)}</p>`
      : '';
}

/**
 * The RSVP block without the widget build (server/site/widgets-ssr.ts): a form per free tier, or
 * what the viewer must do first.
 */
export function rsvpBlock(ctx: SiteContext, event: Event, notice: RsvpNotice): string {
  const path = `/events/${encodeURIComponent(event.slug)}`;
  const note = rsvpNotice(notice);
  if (event.tiers.length === 0) return note;
  const free = event.tiers.filter((t) => t.priceCents === 0);
  const paid = event.tiers.filter((t) => t.priceCents > 0);
  const parts: string[] = [];
  if (free.length > 0) {
    if (ctx.csrf === null) {
      parts.push(`<p><a class="button" href="${escapeHtml(signInHref(ctx.here))}">Sign in to register</a></p>`);
    } else {
      for (const tier of free)
        parts.push(`<form method="post" action="${escapeHtml(`${path}/rsvp`)}" class="rsvp-form">
<input type="hidden" name="tierId" value="${escapeHtml(tier.id)}">
${csrfInput(ctx.csrf)}
<button type="submit">Register: ${escapeHtml(tier.name)}</button>
</form>`);
    }
  }
  // The checkout opens the processor's page from the widget's script: no form post reaches it.
  if (paid.length > 0) parts.push('<p class="meta">Buying a paid ticket needs JavaScript.</p>');
  return `<div class="rsvp" id="rsvp" data-event="${escapeHtml(event.slug)}">
${note}
${parts.join('\n')}
</div>`;
}

/** POST /events/<slug>/rsvp: the signed-in viewer's RSVP to one free tier. */
export function rsvpAction(sales: SaleDeps): FormHandler {
  return async (ctx: SiteContext, db: Db, req: Request, form) => {
    const slug = String(req.params.slug);
    // The viewer books only what they may see: a members-only event needs a member.
    const audience = audienceFor(ctx);
    const event = await events.getEvent(db, audience, slug);
    // As the event page answers: the gate for an event only members see, else not found.
    if (!event)
      return !audience.member && (await events.getEvent(db, { ...audience, member: true }, slug))
        ? 'gate'
        : 'not-found';
    const refused = (message: string, status: number) =>
      eventPageFor(ctx, db, event, { kind: 'refused', message }).then((page) => ({ ...page, status }));
    const contact = ctx.viewer.userId === null ? null : await accountContact(db, ctx.viewer.userId);
    if (!contact) return 'gate';
    const tierId = form.tierId ?? '';
    if (!event.tiers.some((t) => t.id === tierId)) return refused('Choose one of the tickets on this page.', 400);
    try {
      const result = await rsvp(
        sales,
        (fn) => transaction(db, fn),
        // The holder names the member, so a repeat only re-sends the ticket to their own address.
        { community: await saleCommunity(db, { id: ctx.community.id }), holder: `user:${ctx.viewer.userId}` },
        slug,
        { tierId, email: contact.email, name: contact.name },
      );
      if ('status' in result && result.status === 409)
        return refused('You are already registered for this ticket; it has been sent to your e-mail again.', 409);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      const answer = refusalError(err);
      return refused(answer.message, answer.status);
    }
    return { redirect: `/events/${encodeURIComponent(event.slug)}?rsvp=confirmed` };
  };
}
