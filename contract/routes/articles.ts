// Articles: the public reads (published only) and the ADMIN writes with the publishing state
// machine of the spec (DRAFT <-> PUBLISHED).
import { z } from 'zod';
import { CommunityTag, HttpUrl, Limit, Line, OptionalOffset, pageVisibilityNote, Uuid } from '../common.ts';
import { ArticleStatus } from '../enums.ts';
import { Article } from '../resources.ts';
import { route } from '../route.ts';

const base = '/v1/communities/{communityTag}';
const InCommunity = z.object({ communityTag: CommunityTag });

const ARTICLE_READ_NOTE =
  "`readTimeMinutes` is the words of the content's text (tags count as breaks) / 225 per minute, rounded up, at least " +
  "1, computed when read. `author` is the community's founder; a community without one is credited to itself " +
  '(`{name: <community name>, usertag: <community tag>, profileImage: null}`). `title`, `excerpt` and `category` are ' +
  'plain text: render them escaped.';

/** The publishing state machine (the spec's table), shared by PATCH, publish and unpublish. */
const PUBLISHING_NOTE =
  "Each move to PUBLISHED is one conditional update in the request's transaction, and `article.published` " +
  '(`{articleId, slug, title, publishedAt}`) is emitted only when it changed the row: concurrent publishes of one draft ' +
  'publish it once and emit one event, and a replay with the same `Idempotency-Key` emits nothing. There is no ' +
  '`article.unpublished`. `publishedAt` is set by the first publish and kept by unpublish and by publishing again ' +
  '(docs/decisions/0009-published-at-is-kept.md).';

const ArticleParams = InCommunity.extend({ articleId: Uuid });

/** Limits of the spec (excerpt 500, category 100) and ours (title 200, content 200 000). */
export const ARTICLE_LIMITS = { title: 200, excerpt: 500, category: 100, content: 200_000 } as const;

const Title = Line(ARTICLE_LIMITS.title).min(1, 'must not be empty');
const Content = z
  .string()
  .max(ARTICLE_LIMITS.content)
  .describe('HTML; sanitized on write with an allow-list (docs/api.md, "Articles: sanitized content")');
const Excerpt = z
  .string()
  .max(ARTICLE_LIMITS.excerpt)
  .describe('plain text (render it escaped); null on PATCH stores ""');
const Category = Line(ARTICLE_LIMITS.category).describe('free-form plain-text label, trimmed; blank is stored as null');

export const CreateArticle = z
  .object({
    title: Title,
    content: Content.optional().describe('HTML, sanitized on write; default ""'),
    excerpt: Excerpt.nullish(),
    category: Category.nullish(),
    bannerUrl: HttpUrl.nullish(),
  })
  .strict()
  .meta({ id: 'CreateArticle' });

export const UpdateArticle = z
  .object({
    title: Title,
    content: Content,
    excerpt: Excerpt.nullable(),
    category: Category.nullable(),
    bannerUrl: HttpUrl.nullable(),
    status: ArticleStatus,
  })
  .partial()
  .strict()
  .meta({ id: 'UpdateArticle' });

export const listArticles = route({
  operationId: 'listArticles',
  method: 'get',
  path: `${base}/articles`,
  tag: 'Articles',
  summary: 'List published articles',
  description:
    'Published articles, newest first by `publishedAt`. Page with `limit` and `offset`; `X-Total-Count` is the number ' +
    'of published articles and `Link: <...>; rel="next"` points at the next page while there is one. Ties are ordered by ' +
    `id. ${ARTICLE_READ_NOTE} ${pageVisibilityNote('BLOG')}`,
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity,
  query: z.object({ limit: Limit, offset: OptionalOffset.describe('default 0') }).strict(),
  response: { status: 200, schema: z.array(Article), description: 'A page of published articles', paginated: true },
  errors: [400, 401, 403, 404, 429],
});

export const getArticleBySlug = route({
  operationId: 'getArticleBySlug',
  method: 'get',
  path: `${base}/articles/slug/{slug}`,
  tag: 'Articles',
  summary: 'Get one published article by slug',
  description:
    `Drafts answer 404 "Article not found in this community" like unknown slugs: there is no public read of drafts. ${ARTICLE_READ_NOTE} ` +
    pageVisibilityNote('BLOG'),
  auth: { kind: 'apiKey', scope: 'READ_PUBLIC' },
  params: InCommunity.extend({ slug: z.string().min(1).max(120) }),
  response: { status: 200, schema: Article, description: 'The article' },
  errors: [401, 403, 404, 429],
});

export const createArticle = route({
  operationId: 'createArticle',
  method: 'post',
  path: `${base}/articles`,
  tag: 'Articles',
  summary: 'Create a draft article',
  description:
    'Always a DRAFT (201). `title` is required, trimmed, 1-200 characters; `bannerUrl` an absolute http(s) URL or null; ' +
    '`content` HTML, sanitized on write and stored sanitized. Unknown fields are a 400. Accepts `Idempotency-Key`.\n\n' +
    'The slug is made once from the title and never changes (title edits keep it), by the same rule the import uses: ' +
    'Unicode NFKD with combining marks removed ("Ça déménage à Zürich" is `ca-demenage-a-zurich`), lowercase, every run ' +
    'of characters outside `a-z0-9` one `-`, no leading or trailing `-`, at most 120 characters; a title with no letter ' +
    'or digit left gets `article`. A clash in the community gets `-2`, `-3`, ... (the base cut so the suffix fits); ' +
    'concurrent creates with one title all succeed with distinct slugs.',
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: InCommunity,
  body: CreateArticle,
  response: { status: 201, schema: Article, description: 'The new draft' },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429],
});

export const updateArticle = route({
  operationId: 'updateArticle',
  method: 'patch',
  path: `${base}/articles/{articleId}`,
  tag: 'Articles',
  summary: 'Change an article',
  description:
    'Fields left out stay as they are; `excerpt`, `category` and `bannerUrl` take null. `status: PUBLISHED` publishes a ' +
    'draft without the banner check and fires `article.published` (once per publish); `status: DRAFT` unpublishes ' +
    '(`publishedAt` kept). Fields and `status` together: the fields apply first, then the transition, in one ' +
    'transaction. The slug does not follow title edits; `content` is sanitized again. An article of another community ' +
    `is a 404. Accepts \`Idempotency-Key\`. ${PUBLISHING_NOTE}`,
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: ArticleParams,
  body: UpdateArticle,
  response: { status: 200, schema: Article, description: 'The article' },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429],
});

export const publishArticle = route({
  operationId: 'publishArticle',
  method: 'post',
  path: `${base}/articles/{articleId}/publish`,
  tag: 'Articles',
  summary: 'Publish an article',
  description:
    'A draft with a `bannerUrl` becomes PUBLISHED and `article.published` fires; without a banner the answer is ' +
    '`409 INVALID_STATE` "Article must have a bannerUrl before it can be published" (`extras.field` = `bannerUrl`) and ' +
    'nothing changes. An article that is already published is answered 200, unchanged, with no second event. Takes no ' +
    `body (none or \`{}\`). Accepts \`Idempotency-Key\`. ${PUBLISHING_NOTE}`,
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: ArticleParams,
  response: { status: 200, schema: Article, description: 'The published article' },
  errors: [400, 401, 403, 404, 409, 422, 429],
});

export const unpublishArticle = route({
  operationId: 'unpublishArticle',
  method: 'post',
  path: `${base}/articles/{articleId}/unpublish`,
  tag: 'Articles',
  summary: 'Unpublish an article',
  description:
    'The article becomes a DRAFT again and leaves the public list; `publishedAt` is kept and no event fires. A draft is ' +
    'answered 200 unchanged. Takes no body (none or `{}`). Accepts `Idempotency-Key`.',
  auth: { kind: 'apiKey', scope: 'ADMIN' },
  params: ArticleParams,
  response: { status: 200, schema: Article, description: 'The article, now a draft' },
  errors: [400, 401, 403, 404, 422, 429],
});

export const ARTICLE_ROUTES = [
  listArticles,
  getArticleBySlug,
  createArticle,
  updateArticle,
  publishArticle,
  unpublishArticle,
];
