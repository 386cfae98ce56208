// The community feed (the hosted FEED page): its posts in time order, newest first, merged from
// several sources. Each source is one kind of post with its own time: a published article at its
// publication, an event when it was created (announced), a broadcast when it was sent (its web
// version, for its audience only).
//
// A post's id is `<kind>-<row id>` (`article-<uuid>`, `event-<uuid>`), so one URL names one post
// whatever its kind. Order is (time desc, post id desc), a total order across sources, and the
// cursor is the last post's (time, post id): each source reads only what sorts after it, so a page
// neither skips nor repeats a post while new ones are added at the top.
import { Refusal } from './refusal.ts';
import type { Db } from '../db/index.ts';
import { visibleTo, type EventAudience } from './events.ts';
import { escapeHtml } from '../shared/html.ts';
import { mergeHtml, mergeText } from '../mail/broadcast-render.ts';

export interface FeedPost {
  /** `<kind>-<row id>`. */
  id: string;
  kind: string;
  /** ISO time the post sorts by. */
  at: string;
  title: string;
  /** The post's own page (the article, the event). */
  href: string;
  summary: string | null;
  bannerUrl: string | null;
  /** The event's start, for event posts. */
  startDate: string | null;
  /** Article HTML as stored (sanitized on write), for article posts; the page sanitizes it again. */
  html: string | null;
}

/** Where a source resumes: after the post (at, id) in the feed's order. */
export interface FeedPosition {
  at: string;
  id: string;
}

export interface FeedSource {
  kind: string;
  /** Up to `limit` posts that sort after `after` (all from the top when null), newest first. */
  list(db: Db, after: FeedPosition | null, limit: number): Promise<FeedPost[]>;
  /** One post by its row id, or null when it does not exist or this viewer may not see it. */
  get(db: Db, rowId: string): Promise<FeedPost | null>;
}

/**
 * The rows of `kind` with time `at` that sort after the position: those sorting after it at the same
 * time are the ones whose post id is smaller (all of them when the position's kind sorts above ours).
 */
function sameTime(kind: string, after: FeedPosition): 'all' | 'none' | { below: string } {
  const dash = after.id.indexOf('-');
  const afterKind = after.id.slice(0, dash);
  if (afterKind === kind) return { below: after.id.slice(dash + 1) };
  return `${kind}-` < `${afterKind}-` ? 'all' : 'none';
}

export function articleSource(communityId: string): FeedSource {
  const toPost = (r: {
    id: string;
    slug: string;
    title: string;
    excerpt: string;
    banner_url: string | null;
    content: string;
    published_at: string | null;
  }): FeedPost => ({
    id: `article-${r.id}`,
    kind: 'article',
    at: r.published_at ?? '',
    title: r.title,
    href: `/blog/${encodeURIComponent(r.slug)}`,
    summary: r.excerpt || null,
    bannerUrl: r.banner_url,
    startDate: null,
    html: r.content,
  });
  const columns = ['id', 'slug', 'title', 'excerpt', 'banner_url', 'content', 'published_at'] as const;
  const published = (db: Db) =>
    db
      .selectFrom('articles')
      .where('community_id', '=', communityId)
      .where('status', '=', 'PUBLISHED')
      .where('published_at', 'is not', null);
  return {
    kind: 'article',
    async list(db, after, limit) {
      let q = published(db).select(columns);
      if (after) {
        const same = sameTime('article', after);
        q = q.where((eb) =>
          eb.or([
            eb('published_at', '<', after.at),
            ...(same === 'none'
              ? []
              : [
                  same === 'all'
                    ? eb('published_at', '=', after.at)
                    : eb.and([eb('published_at', '=', after.at), eb('id', '<', same.below)]),
                ]),
          ]),
        );
      }
      const rows = await q.orderBy('published_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toPost);
    },
    async get(db, rowId) {
      const row = await published(db).select(columns).where('id', '=', rowId).executeTakeFirst();
      return row ? toPost(row) : null;
    },
  };
}

export function eventSource(audience: EventAudience): FeedSource {
  const columns = ['id', 'slug', 'name', 'description', 'banner_url', 'start_date', 'created_at'] as const;
  const toPost = (r: {
    id: string;
    slug: string;
    name: string;
    description: string | null;
    banner_url: string | null;
    start_date: string | null;
    created_at: string;
  }): FeedPost => ({
    id: `event-${r.id}`,
    kind: 'event',
    at: r.created_at,
    title: r.name,
    href: `/events/${encodeURIComponent(r.slug)}`,
    summary: r.description,
    bannerUrl: r.banner_url,
    startDate: r.start_date,
    html: null,
  });
  return {
    kind: 'event',
    async list(db, after, limit) {
      let q = visibleTo(db.selectFrom('events'), audience).select(columns);
      if (after) {
        const same = sameTime('event', after);
        q = q.where((eb) =>
          eb.or([
            eb('events.created_at', '<', after.at),
            ...(same === 'none'
              ? []
              : [
                  same === 'all'
                    ? eb('events.created_at', '=', after.at)
                    : eb.and([eb('events.created_at', '=', after.at), eb('events.id', '<', same.below)]),
                ]),
          ]),
        );
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toPost);
    },
    async get(db, rowId) {
      const row = await visibleTo(db.selectFrom('events'), audience)
        .select(columns)
        .where('events.id', '=', rowId)
        .executeTakeFirst();
      return row ? toPost(row) : null;
    },
  };
}

/**
 * SENT broadcasts (never a test) as their web version, for their audience: the viewer's ACCEPTED
 * membership, in one of the broadcast's segments when it lists some (founders and admins see every
 * one). Anyone else gets nothing, as if none existed. `{{name}}` is the viewer's name. A broadcast
 * sorts at its send_at.
 */
export function broadcastSource(communityId: string, userId: string | null): FeedSource {
  let reader: Promise<{ name: string; segmentId: string | null; leader: boolean } | null> | null = null;
  const viewer = (db: Db) =>
    (reader ??=
      userId === null
        ? Promise.resolve(null)
        : db
            .selectFrom('memberships as m')
            .innerJoin('users as u', 'u.id', 'm.user_id')
            .select(['u.name', 'm.segment_id', 'm.role'])
            .where('m.community_id', '=', communityId)
            .where('m.user_id', '=', userId)
            .where('m.status', '=', 'ACCEPTED')
            .executeTakeFirst()
            .then((m) => (m ? { name: m.name, segmentId: m.segment_id, leader: m.role !== 'member' } : null)));
  const columns = ['id', 'subject', 'html', 'text', 'send_at', 'audience_segment_ids'] as const;
  type Row = { id: string; subject: string; html: string | null; text: string; send_at: string };
  const toPost = (r: Row, name: string): FeedPost => ({
    id: `broadcast-${r.id}`,
    kind: 'broadcast',
    at: r.send_at,
    title: mergeText(r.subject, name),
    href: `/feed/post/broadcast-${r.id}`,
    summary: null,
    bannerUrl: null,
    startDate: null,
    // A text-only broadcast is shown as its text, escaped, line breaks kept.
    html:
      r.html !== null
        ? mergeHtml(r.html, name)
        : `<p>${escapeHtml(mergeText(r.text, name))
            .replace(/\n{2,}/g, '</p><p>')
            .replace(/\n/g, '<br>')}</p>`,
  });
  const sent = (db: Db, v: { segmentId: string | null; leader: boolean }) => {
    let q = db
      .selectFrom('broadcasts')
      .where('community_id', '=', communityId)
      .where('status', '=', 'SENT')
      .where('test_to', 'is', null);
    if (!v.leader)
      q = q.where((eb) =>
        eb.or([
          eb('audience_segment_ids', 'is', null),
          // The list is a JSON array of ids (uuids, no LIKE wildcards in them).
          ...(v.segmentId === null ? [] : [eb('audience_segment_ids', 'like', `%"${v.segmentId}"%`)]),
        ]),
      );
    return q;
  };
  return {
    kind: 'broadcast',
    async list(db, after, limit) {
      const v = await viewer(db);
      if (!v) return [];
      let q = sent(db, v).select(columns);
      if (after) {
        const same = sameTime('broadcast', after);
        q = q.where((eb) =>
          eb.or([
            eb('send_at', '<', after.at),
            ...(same === 'none'
              ? []
              : [
                  same === 'all'
                    ? eb('send_at', '=', after.at)
                    : eb.and([eb('send_at', '=', after.at), eb('id', '<', same.below)]),
                ]),
          ]),
        );
      }
      const rows = await q.orderBy('send_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((r) => toPost(r, v.name));
    },
    async get(db, rowId) {
      const v = await viewer(db);
      if (!v) return null;
      const row = await sent(db, v).select(columns).where('id', '=', rowId).executeTakeFirst();
      return row ? toPost(row, v.name) : null;
    },
  };
}

const byFeedOrder = (a: FeedPost, b: FeedPost): number =>
  a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

export function encodeFeedCursor(p: FeedPosition): string {
  return Buffer.from(JSON.stringify({ a: p.at, i: p.id })).toString('base64url');
}

export function decodeFeedCursor(cursor: string): FeedPosition {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown; i?: unknown };
    if (typeof v.a === 'string' && typeof v.i === 'string' && /^[a-z]+-./.test(v.i)) return { at: v.a, id: v.i };
  } catch {
    // fall through: refused below
  }
  throw new Refusal('invalid_cursor');
}

export interface FeedPage {
  items: FeedPost[];
  nextCursor: string | null;
}

/** A page of the feed: each source reads `limit + 1` after the cursor, the merge keeps the newest `limit`. */
export async function listFeed(db: Db, sources: FeedSource[], q: { limit: number; after?: string }): Promise<FeedPage> {
  const after = q.after ? decodeFeedCursor(q.after) : null;
  const lists = await Promise.all(sources.map((s) => s.list(db, after, q.limit + 1)));
  const merged = lists.flat().sort(byFeedOrder);
  const items = merged.slice(0, q.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: merged.length > q.limit && last ? encodeFeedCursor(last) : null };
}

/** One post by its feed id (`article-<id>`, `event-<id>`), from the source of its kind; null for anything else. */
export async function getFeedPost(db: Db, sources: FeedSource[], postId: string): Promise<FeedPost | null> {
  const dash = postId.indexOf('-');
  if (dash < 1) return null;
  const source = sources.find((s) => s.kind === postId.slice(0, dash));
  return source ? source.get(db, postId.slice(dash + 1)) : null;
}
