// Articles: public reads of published articles, ADMIN writes and the publishing state machine.
import * as routes from '../../contract/routes/articles.ts';
import * as articles from '../domain/articles.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { Db, Trx } from '../db/index.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { HandlerContext, RouteDeps } from '../http/routes.ts';
import type { Handlers, RoutesOf } from '../http/handlers.ts';
import { readablePage, readerOf } from './page-visibility.ts';

const readable = (db: Db, key: ApiKeyIdentity) => readablePage(db, key.communityId, 'BLOG', readerOf(key), 'blog');

async function writable(trx: Db | Trx, communityId: string) {
  const community = await articles.communityForWrite(trx, communityId);
  if (!community) throw notFound(messages.communityNotFound);
  return community;
}

async function listArticles({ query, key }: HandlerContext<typeof routes.listArticles>, { db }: RouteDeps) {
  const offset = query.offset ?? 0;
  const page = await articles.listPublished(db, await readable(db, key), { limit: query.limit, offset });
  return {
    body: page.items,
    page: { total: page.total, limit: query.limit, offset, nextCursor: null, hasMore: page.hasMore },
  };
}

async function getArticleBySlug({ params, key }: HandlerContext<typeof routes.getArticleBySlug>, { db }: RouteDeps) {
  const article = await articles.getPublishedBySlug(db, await readable(db, key), params.slug);
  if (!article) throw notFound(messages.articleNotFound);
  return { body: article };
}

async function createArticle({ body, key, transaction }: HandlerContext<typeof routes.createArticle>) {
  return transaction(async (trx) => {
    const article = await articles.createDraft(trx, await writable(trx, key.communityId), body);
    return { status: 201, body: article };
  });
}

async function updateArticle({ params, body, key, transaction }: HandlerContext<typeof routes.updateArticle>) {
  return transaction(async (trx) => {
    const article = await articles.update(trx, await writable(trx, key.communityId), params.articleId, body);
    if (!article) throw notFound(messages.articleNotFound);
    return { body: article };
  });
}

async function publishArticle({ params, key, transaction }: HandlerContext<typeof routes.publishArticle>) {
  return transaction(async (trx) => {
    const outcome = await articles.publish(trx, await writable(trx, key.communityId), params.articleId);
    if (outcome.kind === 'not-found') throw notFound(messages.articleNotFound);
    if (outcome.kind === 'needs-banner')
      throw new ApiError('INVALID_STATE', messages.articleNeedsBanner, { field: 'bannerUrl' });
    return { body: outcome.article };
  });
}

async function unpublishArticle({ params, key, transaction }: HandlerContext<typeof routes.unpublishArticle>) {
  return transaction(async (trx) => {
    const article = await articles.unpublish(trx, await writable(trx, key.communityId), params.articleId);
    if (!article) throw notFound(messages.articleNotFound);
    return { body: article };
  });
}

export const articleHandlers = {
  listArticles: { cache: true, handler: listArticles },
  getArticleBySlug: { cache: true, handler: getArticleBySlug },
  createArticle,
  updateArticle,
  publishArticle,
  unpublishArticle,
} satisfies Handlers<RoutesOf<typeof routes>>;
