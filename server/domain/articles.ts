// Articles: public reads of published articles, and the ADMIN writes with the spec's publishing
// state machine. Every transition to PUBLISHED is one conditional UPDATE (`... AND status <>
// 'PUBLISHED'`), and `article.published` is emitted only when that UPDATE changed a row, in the
// same transaction: two concurrent publishes of one draft change it once and emit once.
import { sql, type Selectable } from 'kysely';
import type { Article } from '../../contract/resources.ts';
import { slugify } from '../../contract/fixture.ts';
import { isUniqueViolation, type Db, type Trx } from '../db/index.ts';
import { newId, nowIso } from '../db/ids.ts';
import type { ArticlesTable } from '../db/schema.ts';
import { emit } from '../webhooks/emit.ts';
import { readTimeMinutes, sanitizeArticleHtml } from './article-html.ts';
import { listCount } from './list-counts.ts';

type ArticleRow = Selectable<ArticlesTable>;

export interface ArticleCommunity {
  id: string;
  tag: string;
  name: string;
  founderUserId: string | null;
}

export interface Author {
  name: string;
  usertag: string;
  profileImage: string | null;
}

/**
 * The community's founder. A community without one (possible only for rows made outside the
 * importer) is credited to itself, so `author` is always an object as the spec says.
 */
export async function authorOf(db: Db | Trx, community: ArticleCommunity): Promise<Author> {
  if (community.founderUserId) {
    const u = await db
      .selectFrom('users')
      .select(['name', 'usertag', 'profile_image'])
      .where('id', '=', community.founderUserId)
      .executeTakeFirst();
    if (u) return { name: u.name, usertag: u.usertag, profileImage: u.profile_image };
  }
  return { name: community.name, usertag: community.tag, profileImage: null };
}

export async function communityForWrite(db: Db | Trx, communityId: string): Promise<ArticleCommunity | null> {
  const row = await db
    .selectFrom('communities')
    .select(['id', 'tag', 'name', 'founder_user_id'])
    .where('id', '=', communityId)
    .executeTakeFirst();
  return row ? { id: row.id, tag: row.tag, name: row.name, founderUserId: row.founder_user_id } : null;
}

export function toArticle(row: ArticleRow, author: Author): Article {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    excerpt: row.excerpt,
    publishedAt: row.published_at,
    bannerUrl: row.banner_url,
    author,
    readTimeMinutes: readTimeMinutes(row.content),
    content: row.content,
    category: row.category,
    status: row.status,
  };
}

export interface ArticlePage {
  items: Article[];
  total: number;
  hasMore: boolean;
}

export async function listPublished(
  db: Db,
  community: ArticleCommunity,
  q: { limit: number; offset: number },
): Promise<ArticlePage> {
  const base = db.selectFrom('articles').where('community_id', '=', community.id).where('status', '=', 'PUBLISHED');
  // PUBLISHED articles, counted by trigger (list-counts.ts); the page is a range of articles_published.
  const total = await listCount(db, community.id, 'articles');
  // id breaks ties between articles published in the same millisecond (imports stamp one time).
  const rows = await base
    .selectAll()
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .offset(q.offset)
    .execute();
  const author = await authorOf(db, community);
  return {
    items: rows.slice(0, q.limit).map((r) => toArticle(r, author)),
    total,
    hasMore: rows.length > q.limit,
  };
}

export async function getPublishedBySlug(db: Db, community: ArticleCommunity, slug: string): Promise<Article | null> {
  const row = await db
    .selectFrom('articles')
    .selectAll()
    .where('community_id', '=', community.id)
    .where('slug', '=', slug)
    .where('status', '=', 'PUBLISHED')
    .executeTakeFirst();
  return row ? toArticle(row, await authorOf(db, community)) : null;
}

// ---------------------------------------------------------------------------------------------
// Writes

export interface NewArticle {
  title: string;
  content?: string;
  excerpt?: string | null;
  category?: string | null;
  bannerUrl?: string | null;
}

/** Titles without a letter or digit to slug (emoji, CJK after folding) still get a usable slug. */
const FALLBACK_SLUG = 'article';
const SLUG_MAX = 120;
const SLUG_ATTEMPTS = 20;

export function baseSlug(title: string): string {
  return slugify(title) || FALLBACK_SLUG;
}

/** `base`, `base-2`, `base-3`, ... each cut so the suffix fits in the 120 characters. */
export function slugCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
}

const blankToNull = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim();

/**
 * Inserts a draft under the first free slug. The unique (community, slug) constraint is the
 * judge: a concurrent create that takes the same slug makes this insert fail, and the next
 * number is tried inside a savepoint so the surrounding transaction survives.
 */
export async function createDraft(trx: Trx, community: ArticleCommunity, input: NewArticle): Promise<Article> {
  const base = baseSlug(input.title);
  const taken = new Set(
    (
      await trx
        .selectFrom('articles')
        .select('slug')
        .where('community_id', '=', community.id)
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base.slice(0, SLUG_MAX - 4)}%-%`)]))
        .execute()
    ).map((r) => r.slug),
  );
  const now = nowIso();
  const row: ArticleRow = {
    id: newId(),
    community_id: community.id,
    slug: base,
    title: input.title.trim(),
    excerpt: input.excerpt ?? '',
    content: sanitizeArticleHtml(input.content ?? ''),
    category: blankToNull(input.category) ?? null,
    banner_url: input.bannerUrl ?? null,
    status: 'DRAFT',
    published_at: null,
    created_at: now,
    updated_at: now,
  };
  let n = 1;
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    while (taken.has(slugCandidate(base, n))) n++;
    row.slug = slugCandidate(base, n);
    // Plain SQL savepoints: the handler's transaction is not a Kysely controlled transaction.
    await sql`savepoint article_slug`.execute(trx);
    try {
      await trx.insertInto('articles').values(row).execute();
      await sql`release savepoint article_slug`.execute(trx);
      return toArticle(row, await authorOf(trx, community));
    } catch (err) {
      await sql`rollback to savepoint article_slug`.execute(trx);
      if (!isUniqueViolation(err)) throw err;
      taken.add(row.slug);
    }
  }
  throw new Error(`no free slug for "${base}" after ${SLUG_ATTEMPTS} attempts`);
}

export interface ArticleChange {
  title?: string;
  content?: string;
  excerpt?: string | null;
  category?: string | null;
  bannerUrl?: string | null;
  status?: 'DRAFT' | 'PUBLISHED';
}

export type PublishOutcome = { kind: 'not-found' } | { kind: 'needs-banner' } | { kind: 'ok'; article: Article };

async function findRow(trx: Trx, communityId: string, articleId: string) {
  return trx
    .selectFrom('articles')
    .selectAll()
    .where('community_id', '=', communityId)
    .where('id', '=', articleId)
    .executeTakeFirst();
}

/**
 * DRAFT -> PUBLISHED, once. `requireBanner` is the POST /publish rule; PATCH status=PUBLISHED
 * skips it. A republished article keeps its first publication time (unpublish preserves it).
 * Emits `article.published` only if this call made the change.
 */
async function transitionToPublished(
  trx: Trx,
  community: ArticleCommunity,
  articleId: string,
  requireBanner: boolean,
): Promise<boolean> {
  const now = nowIso();
  let update = trx
    .updateTable('articles')
    .set((eb) => ({ status: 'PUBLISHED', published_at: eb.fn.coalesce('published_at', eb.val(now)), updated_at: now }))
    .where('community_id', '=', community.id)
    .where('id', '=', articleId)
    .where('status', '<>', 'PUBLISHED');
  if (requireBanner) update = update.where('banner_url', 'is not', null);
  const changed = await update.returning(['id', 'slug', 'title', 'published_at']).executeTakeFirst();
  if (!changed) return false;
  await emit(trx, community, 'article.published', {
    articleId: changed.id,
    slug: changed.slug,
    title: changed.title,
    publishedAt: changed.published_at!,
  });
  return true;
}

export async function publish(trx: Trx, community: ArticleCommunity, articleId: string): Promise<PublishOutcome> {
  await transitionToPublished(trx, community, articleId, true);
  const row = await findRow(trx, community.id, articleId);
  if (!row) return { kind: 'not-found' };
  // Not published after the conditional update: it was a draft without a banner.
  if (row.status !== 'PUBLISHED') return { kind: 'needs-banner' };
  return { kind: 'ok', article: toArticle(row, await authorOf(trx, community)) };
}

/** PUBLISHED -> DRAFT; publishedAt stays, nothing is emitted; a draft is left as it is. */
export async function unpublish(trx: Trx, community: ArticleCommunity, articleId: string): Promise<Article | null> {
  await trx
    .updateTable('articles')
    .set({ status: 'DRAFT', updated_at: nowIso() })
    .where('community_id', '=', community.id)
    .where('id', '=', articleId)
    .where('status', '=', 'PUBLISHED')
    .execute();
  const row = await findRow(trx, community.id, articleId);
  return row ? toArticle(row, await authorOf(trx, community)) : null;
}

/** Field edits, then the status change if one was asked for. The slug never follows the title. */
export async function update(
  trx: Trx,
  community: ArticleCommunity,
  articleId: string,
  change: ArticleChange,
): Promise<Article | null> {
  const fields: Partial<ArticleRow> = {};
  if (change.title !== undefined) fields.title = change.title.trim();
  if (change.content !== undefined) fields.content = sanitizeArticleHtml(change.content);
  if (change.excerpt !== undefined) fields.excerpt = change.excerpt ?? '';
  if (change.category !== undefined) fields.category = blankToNull(change.category) ?? null;
  if (change.bannerUrl !== undefined) fields.banner_url = change.bannerUrl;
  if (Object.keys(fields).length > 0) {
    const r = await trx
      .updateTable('articles')
      .set({ ...fields, updated_at: nowIso() })
      .where('community_id', '=', community.id)
      .where('id', '=', articleId)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return null;
  }
  if (change.status === 'PUBLISHED') {
    await transitionToPublished(trx, community, articleId, false);
  } else if (change.status === 'DRAFT') {
    return unpublish(trx, community, articleId);
  }
  const row = await findRow(trx, community.id, articleId);
  return row ? toArticle(row, await authorOf(trx, community)) : null;
}
