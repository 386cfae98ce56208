// CHAT (docs/hosted-site.md): `/conversations`, the signed-in member's conversations (most recent
// activity first), and `/conversations/<id>`, one thread with a plain send form posting `body` and
// `_csrf` back to the same address (303 to the thread). The gate already requires an ACCEPTED
// member (CHAT is always members-only); the messaging domain (server/domain/conversations.ts)
// answers null for a conversation the viewer does not take part in, which is the not-found page
// here, as in the API, so ids cannot be probed. Reading a thread changes nothing (a GET is safe);
// posting marks it read for the poster, as the API does.
import { PostMessage } from '../../../contract/routes/visitor.ts';
import { refusedText } from '../../../contract/common.ts';
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import { transaction } from '../../db/index.ts';
import * as conversations from '../../domain/conversations.ts';
import type { PublicProfile } from '../../domain/users.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { FormHandler, PageBody, SiteContext } from './context.ts';
import { when } from './events.ts';
import { csrfInput } from './forms.ts';
import { offsetOf } from './urls.ts';

export const CONVERSATIONS_LIMIT = 50;
export const MESSAGES_LIMIT = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function others(participants: PublicProfile[], viewerId: string): string {
  const names = participants.filter((p) => p.id !== viewerId).map((p) => p.name);
  return names.length ? names.join(', ') : 'Only you';
}

/** GET /conversations */
export async function conversationsPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  if (ctx.viewer.userId === null) return 'gate';
  const viewerId = ctx.viewer.userId;
  // By offset, as the messaging API pages them (`?offset=`).
  const offset = offsetOf(req);
  const page = await conversations.listConversations(db, viewerId, { limit: CONVERSATIONS_LIMIT, offset });
  const items = page.items.map((c) => {
    const last = c.lastMessage
      ? `<div class="meta">${escapeHtml(c.lastMessage.sender?.name ?? 'Someone')}: ${escapeHtml(
          c.lastMessage.body.length > 140 ? `${c.lastMessage.body.slice(0, 140)}…` : c.lastMessage.body,
        )}</div>`
      : '<div class="meta">No messages yet</div>';
    const unread = c.unreadCount > 0 ? ` <strong>(${c.unreadCount} unread)</strong>` : '';
    return `<li><a href="/conversations/${encodeURIComponent(c.id)}">${escapeHtml(others(c.participants, viewerId))}</a>${unread}
${last}<div class="meta">${when(c.lastActivityAt)}</div></li>`;
  });
  return {
    title: 'Conversations',
    main: `<h1>Conversations</h1>
${items.length ? `<ul class="conversations">\n${items.join('\n')}\n</ul>` : `<p class="empty">${offset ? 'No older conversations.' : 'No conversations yet.'}</p>`}
${page.total > offset + page.items.length ? `<p><a href="/conversations?offset=${offset + CONVERSATIONS_LIMIT}">Older conversations</a></p>` : ''}`,
  };
}

async function renderThread(
  ctx: SiteContext,
  db: Db,
  conversationId: string,
  notice: { message: string; draft: string } | null,
  offset = 0,
): Promise<{ title: string; main: string } | 'not-found'> {
  if (ctx.viewer.userId === null || !UUID.test(conversationId)) return 'not-found';
  const viewerId = ctx.viewer.userId;
  // `?offset=` counts back from the newest message, as the messaging API pages them.
  const page = await conversations.listMessages(db, viewerId, conversationId, { limit: MESSAGES_LIMIT, offset });
  if (!page) return 'not-found';
  const view = await conversations.getConversation(db, viewerId, conversationId);
  const title = view ? others(view.participants, viewerId) : 'Conversation';
  // Newest first from the domain; a thread reads oldest to newest.
  const messages = [...page.items].reverse().map(
    (
      m,
    ) => `<li><div class="meta"><strong>${escapeHtml(m.sender?.name ?? 'Someone')}</strong> · ${when(m.createdAt)}</div>
<div class="description">${escapeHtml(m.body)}</div></li>`,
  );
  const path = `/conversations/${encodeURIComponent(conversationId)}`;
  return {
    title,
    main: `<h1>${escapeHtml(title)}</h1>
${page.total > offset + page.items.length ? `<p><a href="${escapeHtml(`${path}?offset=${offset + MESSAGES_LIMIT}`)}">Earlier messages</a></p>` : ''}
${offset > 0 ? `<p><a href="${escapeHtml(path)}">Latest messages</a></p>` : ''}
${messages.length ? `<ol class="messages">\n${messages.join('\n')}\n</ol>` : '<p class="empty">No messages yet.</p>'}
${notice ? `<p class="notice error" role="alert">${escapeHtml(notice.message)}</p>` : ''}
<form method="post" action="${escapeHtml(path)}" class="message-form">
<label for="message-body">Message</label>
<textarea id="message-body" name="body" rows="3" maxlength="4000" required>${escapeHtml(notice?.draft ?? '')}</textarea>
${ctx.csrf ? csrfInput(ctx.csrf) : ''}
<button type="submit">Send</button>
</form>
<p><a href="/conversations">All conversations</a></p>`,
  };
}

/** GET /conversations/<id> */
export async function threadPage(ctx: SiteContext, db: Db, req: Request): Promise<PageBody> {
  return renderThread(ctx, db, String(req.params.id), null, offsetOf(req));
}

/** POST /conversations/<id> with `body` and `_csrf`. */
export const sendMessage: FormHandler = async (ctx, db, req, form) => {
  const conversationId = String(req.params.id);
  if (ctx.viewer.userId === null || !UUID.test(conversationId)) return 'not-found';
  const userId = ctx.viewer.userId;
  const draft = form.body ?? '';
  // The API's own rules: no control characters (line breaks allowed), 1 to 4000 characters trimmed.
  const parsed = PostMessage.safeParse({ body: draft });
  const bad = refusedText(draft, 'text') ?? (parsed.success ? null : 'length');
  if (bad !== null || !parsed.success) {
    const message =
      bad === 'length' ? 'Write a message of 1 to 4000 characters.' : `The message holds a ${bad} and was not sent.`;
    const page = await renderThread(ctx, db, conversationId, { message, draft: bad === 'length' ? draft : '' });
    return page === 'not-found' ? page : { ...page, status: 400 };
  }
  const sent = await transaction(db, (trx) => conversations.postMessage(trx, userId, conversationId, parsed.data.body));
  if (!sent) return 'not-found';
  return { redirect: `/conversations/${encodeURIComponent(conversationId)}` };
};
