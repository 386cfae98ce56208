// `/join/<code>` (docs/hosted-site.md): an invite link of an INVITE_ONLY community
// (server/domain/invites.ts). No page key and no gate, like /apply: it is how outsiders get in.
//   GET   an anonymous visitor is sent to create an account or sign in, and comes back here; a
//         signed-in one gets a "Join" form (a plain form post, no JavaScript needed); a member is
//         told they are one, a banned user that they cannot join; an unknown, expired, revoked or
//         used-up link says so and offers nothing.
//   POST  `_csrf` (./forms.ts): the join itself, then a 303 to `?joined=1`.
// The code is a credential: these pages are never kept by any cache (`noStore`).
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import { transaction } from '../../db/index.ts';
import { inviteByCode, joinByInvite, joinPath, type InviteState } from '../../domain/invites.ts';
import { escapeHtml } from '../../shared/html.ts';
import { type FormHandler, type PageBody, type PageContent, type SiteContext } from './context.ts';
import { csrfInput } from './forms.ts';
import { signInHref } from './layout.ts';

const codeOf = (req: Request): string => String(req.params.code ?? '');

function page(status: number, heading: string, paragraphs: string[]): PageContent {
  return {
    title: heading,
    status,
    noStore: true,
    head: { canonicalPath: '/join' },
    main: `<h1>${escapeHtml(heading)}</h1>\n${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}`,
  };
}

const home = '<a href="/">Go to the home page</a>';
const askAgain = 'Ask the person who sent it to you for a new one.';

function notValid(ctx: SiteContext): PageBody {
  return page(404, 'This invite link is not valid', [
    `It is not a link of ${escapeHtml(ctx.community.name)}; check that it was copied whole. ${askAgain}`,
    home,
  ]);
}

const CLOSED: Record<Exclude<InviteState, 'ACTIVE'>, string> = {
  EXPIRED: 'This invite link has expired',
  REVOKED: 'This invite link was withdrawn',
  USED_UP: 'This invite link has been used up',
};

function closed(ctx: SiteContext, state: Exclude<InviteState, 'ACTIVE'>): PageBody {
  return page(410, CLOSED[state], [
    `No one can join ${escapeHtml(ctx.community.name)} with it any more. ${askAgain}`,
    home,
  ]);
}

function notInviteOnly(ctx: SiteContext): PageBody {
  // The community stopped being invite-only: its links rest, and /apply is the way in.
  return page(410, 'Invite links are not used here any more', [
    `${escapeHtml(ctx.community.name)} now takes members without an invitation.`,
    // Not applyLink: the row this request was served from may predate the change the domain saw.
    `<a class="button" href="/apply">Join ${escapeHtml(ctx.community.name)}</a>`,
  ]);
}

const alreadyMember = (ctx: SiteContext, welcome: boolean): PageBody =>
  page(200, welcome ? `Welcome to ${ctx.community.name}` : `You are already a member`, [
    welcome
      ? `You are now a member of ${escapeHtml(ctx.community.name)}.`
      : `The account you are signed in with is already a member of ${escapeHtml(ctx.community.name)}.`,
    home,
  ]);

const banned = (ctx: SiteContext): PageBody =>
  page(403, 'You cannot join', [
    `The account you are signed in with cannot join ${escapeHtml(ctx.community.name)}.`,
    home,
  ]);

/** GET /join/:code */
export async function joinPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  const code = codeOf(req);
  const found = await inviteByCode(db, ctx.community.id, code);
  if (!found) return notValid(ctx);
  const name = escapeHtml(ctx.community.name);
  if (ctx.viewer.userId !== null) {
    if (ctx.viewer.membership === 'ACCEPTED') return alreadyMember(ctx, req.query.joined === '1');
    if (ctx.viewer.membership === 'BANNED') return banned(ctx);
  }
  if (ctx.community.accessibility !== 'INVITE_ONLY') return notInviteOnly(ctx);
  if (found.state !== 'ACTIVE') return closed(ctx, found.state);
  const here = joinPath(code);
  if (ctx.viewer.userId === null || ctx.csrf === null) {
    const signUp = `/sign-in?mode=sign-up&next=${encodeURIComponent(here)}`;
    return page(200, `You are invited to join ${ctx.community.name}`, [
      `Create an account, or sign in if you have one; you come back here to join.`,
      `<a class="button" href="${escapeHtml(signUp)}">Create an account</a> <a href="${escapeHtml(signInHref(here))}">Sign in</a>`,
    ]);
  }
  return {
    ...page(200, `You are invited to join ${ctx.community.name}`, []),
    main: `<h1>You are invited to join ${name}</h1>
<form method="post" action="${escapeHtml(here)}" class="join-form">
${csrfInput(ctx.csrf)}
<button type="submit">Join ${name}</button>
</form>`,
  };
}

/** POST /join/:code */
export const joinAction: FormHandler = async (ctx, db, req) => {
  const code = codeOf(req);
  const outcome = await joinByInvite((fn) => transaction(db, fn), ctx.community.id, ctx.viewer.userId!, code);
  switch (outcome.kind) {
    case 'joined':
      return { redirect: `${joinPath(code)}?joined=1` };
    case 'unknown':
      return notValid(ctx);
    case 'closed':
      return closed(ctx, outcome.state);
    case 'not-invite-only':
      return notInviteOnly(ctx);
    case 'already-member':
      return alreadyMember(ctx, false);
    case 'banned':
      return banned(ctx);
  }
};
