// `/unsubscribe?token=...` on a community's host: the page every broadcast message links to
// (List-Unsubscribe and the footer; docs/mail.md, "Unsubscribing").
//
// GET shows what the link would do and a button; it never unsubscribes, because link scanners and
// mail previews fetch every link in a message. POST unsubscribes: the page's own button, or a mail
// provider's RFC 8058 one-click POST (body `List-Unsubscribe=One-Click`), which comes cross-site,
// without cookies, Origin or a CSRF token. So no sign-in, origin or CSRF check applies here: the
// signed token is the only authority, and it names one member of this community and nothing more.
// A token that is not ours, altered, or another community's is 400 and records nothing.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import type { CommunityRow } from '../../db/schema.ts';
import { isUnsubscribed, recordUnsubscribe } from '../../broadcasts/unsubscribe.ts';
import type { UnsubscribeClaims, UnsubscribeTokens } from '../../broadcasts/unsubscribe-token.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { SitePage } from './layout.ts';

type UnsubscribePage = Omit<SitePage, 'cache'>;

const STILL_SENT =
  'You will still get the e-mails about your own account and activity: tickets, receipts and sign-in links.';

function claimsOf(tokens: UnsubscribeTokens, req: Request, community: CommunityRow): UnsubscribeClaims | null {
  const token = typeof req.query.token === 'string' ? req.query.token : '';
  const claims = tokens.verify(token);
  return claims && claims.communityId === community.id ? claims : null;
}

function invalidLink(): UnsubscribePage {
  return {
    title: 'Link not valid',
    main: '<h1>This unsubscribe link is not valid</h1>\n<p>Use the link from the e-mail exactly as it came. Nothing was changed.</p>',
    status: 400,
  };
}

function testLink(community: CommunityRow): UnsubscribePage {
  return {
    title: 'Test e-mail',
    main: `<h1>This was a test e-mail</h1>\n<p>The unsubscribe link of a test copy of ${escapeHtml(community.name)}'s broadcast changes nothing.</p>`,
  };
}

export async function unsubscribePage(
  tokens: UnsubscribeTokens,
  db: Db,
  req: Request,
  community: CommunityRow,
): Promise<UnsubscribePage> {
  const claims = claimsOf(tokens, req, community);
  if (!claims) return invalidLink();
  if (claims.userId === null) return testLink(community);
  const name = escapeHtml(community.name);
  if (await isUnsubscribed(db, community.id, claims.userId))
    return {
      title: 'Unsubscribed',
      main: `<h1>You are unsubscribed</h1>\n<p>You no longer get ${name}'s broadcast e-mails.</p>\n<p>${escapeHtml(STILL_SENT)}</p>`,
    };
  // The form posts to this same URL (the token in its query), as a one-click client would.
  return {
    title: 'Unsubscribe',
    main: `<h1>Unsubscribe from ${name}'s e-mails?</h1>
<p>You will no longer get the broadcast e-mails ${name} sends its members. ${escapeHtml(STILL_SENT)}</p>
<form method="post" action="${escapeHtml(req.originalUrl)}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
  };
}

export async function unsubscribeAction(
  tokens: UnsubscribeTokens,
  db: Db,
  req: Request,
  community: CommunityRow,
): Promise<UnsubscribePage> {
  const claims = claimsOf(tokens, req, community);
  if (!claims) return invalidLink();
  const outcome = await recordUnsubscribe(db, claims);
  if (outcome === 'test') return testLink(community);
  if (outcome === 'unknown') return { ...invalidLink(), status: 404, title: 'Not found' };
  return {
    title: 'Unsubscribed',
    main: `<h1>You are unsubscribed</h1>\n<p>You will get no more broadcast e-mails from ${escapeHtml(community.name)}.</p>\n<p>${escapeHtml(STILL_SENT)}</p>`,
  };
}
