// Articles: public reads of published articles, ADMIN writes and the publishing state machine.
import type { Router } from 'express';
import {
  createArticle, getArticleBySlug, listArticles, publishArticle, unpublishArticle, updateArticle,
} from '../../contract/routes/articles.ts';
import * as articles from '../domain/articles.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { Db, Trx } from '../db/index.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import { mountRoute, type RouteDeps } from '../http/routes.ts';
import { readablePage, readerOf } from './page-visibility.ts';

export function mountArticles(router: Router, deps: RouteDeps): void {
  const { db } = deps;
  const readable = (key: ApiKeyIdentity) => readablePage(db, key.communityId, 'BLOG', readerOf(key), 'blog');
  const writable = async (trx: Db | Trx, communityId: string) => {
    const community = await articles.communityForWrite(trx, communityId);
    if (!community) throw notFound(messages.communityNotFound);
    return community;
  };

  mountRoute(router, listArticles, async ({ query, key }) => {
    const offset = query.offset ?? 0;
    const page = await articles.listPublished(db, await readable(key!), { limit: query.limit, offset });
    return { body: page.items, page: { total: page.total, limit: query.limit, offset, nextCursor: null, hasMore: page.hasMore } };
  }, deps, { cache: true });

  mountRoute(router, getArticleBySlug, async ({ params, key }) => {
    const article = await articles.getPublishedBySlug(db, await readable(key!), params.slug);
    if (!article) throw notFound(messages.articleNotFound);
    return { body: article };
  }, deps, { cache: true });

  mountRoute(router, createArticle, async ({ body, key, transaction }) =>
    transaction(async (trx) => {
      const article = await articles.createDraft(trx, await writable(trx, key!.communityId), body);
      return { status: 201, body: article };
    }), deps);

  mountRoute(router, updateArticle, async ({ params, body, key, transaction }) =>
    transaction(async (trx) => {
      const article = await articles.update(trx, await writable(trx, key!.communityId), params.articleId, body);
      if (!article) throw notFound(messages.articleNotFound);
      return { body: article };
    }), deps);

  mountRoute(router, publishArticle, async ({ params, key, transaction }) =>
    transaction(async (trx) => {
      const outcome = await articles.publish(trx, await writable(trx, key!.communityId), params.articleId);
      if (outcome.kind === 'not-found') throw notFound(messages.articleNotFound);
      if (outcome.kind === 'needs-banner') throw new ApiError('INVALID_STATE', messages.articleNeedsBanner, { field: 'bannerUrl' });
      return { body: outcome.article };
    }), deps);

  mountRoute(router, unpublishArticle, async ({ params, key, transaction }) =>
    transaction(async (trx) => {
      const article = await articles.unpublish(trx, await writable(trx, key!.communityId), params.articleId);
      if (!article) throw notFound(messages.articleNotFound);
      return { body: article };
    }), deps);
}
