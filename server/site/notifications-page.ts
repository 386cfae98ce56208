// The hosted notifications page, where the header's bell leads, on a community's domain and on
// the platform host:
//   GET /notifications              signed out: 302 to /sign-in?next=/notifications
//                                   signed in: the visitor's notifications, newest first, 20 a page
//   GET /notifications?offset=20    the next page (what "Load more" fetches and appends)
// Rendered on the server, so every piece of notification data reaches the page through one escaping
// function; the page's only script (under the nonce CSP of the sign-in pages) marks everything read
// with `PATCH /api/users/me/notifications/mark-read` and appends the next page in place.
import type { Request, Response, Router } from 'express';
import { findCommunityByTag } from '../domain/communities.ts';
import * as notifications from '../domain/notifications.ts';
import type { NotificationView } from '../domain/notifications.ts';
import { signedInVisitor, requestSiteTag } from '../http/session.ts';
import type { RouteDeps } from '../http/routes.ts';
import { escapeHtml } from '../shared/html.ts';
import { sendHostedPage, siteFor, type ChromeFor, type PageSite } from './sign-in-page.ts';

export const NOTIFICATIONS_PAGE_SIZE = 20;
/** Deeper than anyone scrolls; keeps a crafted offset from asking the database for a huge skip. */
const MAX_OFFSET = 10_000;

const STYLE = `
body { display: block; }
main { width: min(40em, calc(100vw - 2em)); margin: 0 auto; padding: 1.5em 0 3em; }
.top { display: flex; align-items: center; justify-content: space-between; gap: 1em; min-height: 2.6em; margin-bottom: 0.5em; }
.top h1 { margin: 0; }
.top button { width: auto; margin: 0; padding: 0.45em 0.9em; }
ol { list-style: none; margin: 0; padding: 0; }
li { display: grid; grid-template-columns: 0.75em 1fr; gap: 0 0.6em; padding: 0.85em 0.2em; border-bottom: 1px solid color-mix(in srgb, GrayText 35%, transparent); }
li .dot { width: 0.55em; height: 0.55em; margin-top: 0.45em; border-radius: 50%; }
li.unread .dot { background: var(--brand); }
li.unread .text { font-weight: 600; }
li time { grid-column: 2; font-size: 0.85em; color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.empty { color: var(--muted); }
#more { margin-top: 1.2em; }
`;

const SCRIPT = `
const status = document.getElementById('status');
function say(text, error) { status.textContent = text; status.className = error ? 'error' : ''; }
const list = document.getElementById('list');
const markAll = document.getElementById('mark-all');
function localTimes(root) {
  for (const t of root.querySelectorAll('time[datetime]')) {
    const d = new Date(t.dateTime);
    if (!isNaN(d)) t.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
}
localTimes(document);
if (markAll) markAll.addEventListener('click', async () => {
  markAll.disabled = true;
  say('');
  try {
    const res = await fetch('/api/users/me/notifications/mark-read', { method: 'PATCH', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ all: true }) });
    // Read to the end, so leaving the page right after does not cut the answer off.
    await res.text();
    if (!res.ok) { say(res.status === 401 ? 'You are signed out. Sign in again to continue.' : 'Could not mark them as read. Try again.', true); markAll.disabled = false; return; }
    for (const li of list.querySelectorAll('li.unread')) { li.classList.remove('unread'); const flag = li.querySelector('.sr-only'); if (flag) flag.remove(); }
    // Later pages were rendered before this: what they bring in is read now, too.
    document.body.dataset.allRead = 'true';
    say('All notifications are marked as read.');
  } catch (e) { say('Could not reach the server. Check your connection and try again.', true); markAll.disabled = false; }
});
const more = document.getElementById('more');
if (more) more.addEventListener('click', async (event) => {
  // The link works without the script (a page of its own); with it, the next page is appended here.
  event.preventDefault();
  more.setAttribute('aria-disabled', 'true');
  try {
    const res = await fetch(more.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
    if (!res.ok) throw new Error(String(res.status));
    const next = new DOMParser().parseFromString(await res.text(), 'text/html');
    const seen = new Set([...list.children].map((li) => li.dataset.id));
    const added = [...next.querySelectorAll('#list > li')].filter((li) => !seen.has(li.dataset.id));
    for (const li of added) {
      if (document.body.dataset.allRead) { li.classList.remove('unread'); const flag = li.querySelector('.sr-only'); if (flag) flag.remove(); }
      list.append(document.adoptNode(li));
    }
    localTimes(list);
    const nextMore = next.getElementById('more');
    if (nextMore) { more.href = nextMore.href; more.removeAttribute('aria-disabled'); } else { more.remove(); }
    if (added[0]) { added[0].tabIndex = -1; added[0].focus(); }
    say(added.length === 1 ? '1 more notification.' : added.length + ' more notifications.');
  } catch (e) { more.removeAttribute('aria-disabled'); say('Could not load more. Try again.', true); }
});
`;

/** What each kind says, with its data; the words come from us, every value is escaped here. */
function describe(n: NotificationView, communityNames: Map<string, string>, hereTag: string | null): string {
  const who = n.actor ? `<strong>${escapeHtml(n.actor.name)}</strong> (@${escapeHtml(n.actor.usertag)})` : 'Someone';
  const community = n.communityTag ? escapeHtml(communityNames.get(n.communityTag) ?? n.communityTag) : 'the community';
  const text = (key: string) => (typeof n.data[key] === 'string' ? (n.data[key] as string) : null);
  switch (n.kind) {
    case 'friend.requested':
      return `${who} sent you a friend request.`;
    case 'friend.accepted':
      return `${who} accepted your friend request.`;
    case 'membership.approved':
      return `Your membership of <strong>${community}</strong> was approved. Welcome!`;
    case 'rsvp.confirmed': {
      const eventName = escapeHtml(text('eventName') ?? 'an event');
      const slug = text('eventSlug');
      // A link only on the event's own community site, where `/events/<slug>` is its page.
      const event =
        slug && n.communityTag && n.communityTag === hereTag
          ? `<a href="/events/${encodeURIComponent(slug)}">${eventName}</a>`
          : `<strong>${eventName}</strong>`;
      const tier = text('tierName');
      return `Your place at ${event} is confirmed${tier ? ` (${escapeHtml(tier)})` : ''}${hereTag === n.communityTag ? '' : ` in ${community}`}.`;
    }
    default:
      return 'You have a new notification.';
  }
}

const utc = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

function item(n: NotificationView, communityNames: Map<string, string>, hereTag: string | null): string {
  const unread = n.readAt === null;
  return (
    `<li data-id="${escapeHtml(n.id)}"${unread ? ' class="unread"' : ''}><span class="dot" aria-hidden="true"></span>` +
    `<span class="text">${unread ? '<span class="sr-only">Unread: </span>' : ''}${describe(n, communityNames, hereTag)}</span>` +
    `<time datetime="${escapeHtml(n.createdAt)}">${escapeHtml(`${utc.format(new Date(n.createdAt))} UTC`)}</time></li>`
  );
}

function offsetOf(req: Request): number {
  const raw = typeof req.query.offset === 'string' ? req.query.offset : '';
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : 0;
  return Math.min(n, MAX_OFFSET);
}

async function render(
  res: Response,
  deps: RouteDeps,
  site: PageSite,
  hereTag: string | null,
  userId: string,
  offset: number,
  chrome: Awaited<ReturnType<ChromeFor>> | undefined,
): Promise<void> {
  const page = await notifications.listNotifications(deps.db, userId, { limit: NOTIFICATIONS_PAGE_SIZE, offset });
  const tags = [...new Set(page.items.flatMap((n) => (n.communityTag ? [n.communityTag] : [])))];
  const communityNames = new Map<string, string>();
  for (const tag of tags) {
    const row = await findCommunityByTag(deps.db, tag);
    if (row) communityNames.set(tag, row.name);
  }
  const unread = await notifications.unreadNotificationCount(deps.db, userId);
  const hasMore = offset + page.items.length < page.total;
  res.setHeader('Vary', 'Cookie');
  const list =
    page.items.length > 0
      ? `<ol id="list">\n${page.items.map((n) => item(n, communityNames, hereTag)).join('\n')}\n</ol>`
      : `<ol id="list"></ol>\n<p class="empty">${offset === 0 ? 'No notifications yet. Friend requests, approvals and RSVPs will show up here.' : 'No more notifications.'}</p>`;
  sendHostedPage(
    res,
    site,
    {
      title: 'Notifications',
      style: STYLE,
      main: `<p><a href="/">← ${escapeHtml(site.name)}</a></p>
<div class="top"><h1>Notifications</h1>${unread > 0 ? '<button id="mark-all" type="button">Mark all as read</button>' : ''}</div>
${list}
${hasMore ? `<a id="more" href="/notifications?offset=${offset + page.items.length}">Load more</a>` : ''}
<p id="status" role="status" aria-live="polite"></p>`,
      script: SCRIPT,
    },
    chrome,
  );
}

export function mountNotificationsPage(router: Router, deps: RouteDeps, chromeFor?: ChromeFor): void {
  router.get('/notifications', async (req, res) => {
    const hereTag = await requestSiteTag();
    const visitor = await signedInVisitor(deps.db, deps.sessions, req, hereTag);
    if (!visitor) {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, '/sign-in?next=/notifications');
      return;
    }
    await render(
      res,
      deps,
      await siteFor(deps.db, req),
      hereTag,
      visitor.userId,
      offsetOf(req),
      await chromeFor?.(req),
    );
  });
}
