// MEMBERS: `/members` (the directory) and `/members/<usertag>` (one member's public profile). Both
// read through the member directory's domain functions (server/domain/members.ts), whose explicit
// column list is the API's: name, usertag, picture, bio and when they joined, never an e-mail or a
// phone. Only ACCEPTED members are in it: a PENDING, REJECTED or BANNED user's profile, and a user
// of another community, are not found. Who may open the pages is the MEMBERS page's gate.
import type { Request } from 'express';
import type { Member } from '../../../contract/resources.ts';
import type { Db } from '../../db/index.ts';
import * as members from '../../domain/members.ts';
import { escapeHtml } from '../../shared/html.ts';
import { imageUrl, offsetOf } from './urls.ts';
import { when } from './events.ts';
import type { PageBody, SiteContext } from './context.ts';

/** As the directory API pages it: oldest members first, by offset (`?offset=`). */
export const MEMBERS_PAGE_SIZE = 48;

const profileHref = (m: Pick<Member, 'usertag'>): string => `/members/${encodeURIComponent(m.usertag)}`;

function avatar(m: Member, size: number): string {
  const src = imageUrl(m.profileImage);
  return src ? `<img class="avatar" src="${escapeHtml(src)}" alt="" width="${size}" height="${size}"> ` : '';
}

export async function membersPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const offset = offsetOf(req);
  const page = await members.listAccepted(db, ctx.community.id, { limit: MEMBERS_PAGE_SIZE, offset });
  const items = page.items.map(
    (m) =>
      `<li>${avatar(m, 40)}<a href="${profileHref(m)}">${escapeHtml(m.name)}</a> <span class="meta">@${escapeHtml(m.usertag)}</span></li>`,
  );
  const list = `<p class="meta">${page.total} ${page.total === 1 ? 'member' : 'members'}</p>
${items.length ? `<ul class="members">\n${items.join('\n')}\n</ul>` : `<p class="empty">${offset ? 'No more members.' : 'No members yet.'}</p>`}
${page.hasMore ? `<p><a href="/members?offset=${offset + MEMBERS_PAGE_SIZE}">More members</a></p>` : ''}`;
  // The first page is <svc-members> server-rendered from the same rows (its filter and "Load more"
  // come with hydration); the plain list is what a visitor without JavaScript gets, and every
  // later page (`?offset=`), which the widget reaches by "Load more" instead.
  const widget =
    ctx.chrome.widgets && offset === 0
      ? ctx.chrome.widgets.element(
          'members',
          { limit: String(MEMBERS_PAGE_SIZE) },
          { members: page.items, total: page.total },
        )
      : '';
  return {
    title: 'Members',
    main: `<h1>Members</h1>
${widget ? `${widget}\n<div class="nojs">\n${list}\n</div>` : list}`,
    csp: { 'img-src': ['https:', 'http:'] },
  };
}

export async function memberPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const member = await members.getAcceptedMember(db, ctx.community.id, String(req.params.usertag));
  if (!member) return 'not-found';
  return {
    title: member.name,
    main: `<article class="profile">
${avatar(member, 96)}
<h1>${escapeHtml(member.name)}</h1>
<p class="meta">@${escapeHtml(member.usertag)} · member since ${when(member.joinedAt)}</p>
${member.bio ? `<div class="description">${escapeHtml(member.bio)}</div>` : ''}
<p><a href="/members">All members</a></p>
</article>`,
    csp: { 'img-src': ['https:', 'http:'] },
  };
}
