// Page visibility on the v1 reads of articles, products, the member directory and the atlas.
// The publishable key reads as the anonymous public: it is in every visitor's browser, so a page
// the community keeps MEMBERS_ONLY answers it 403 PAGE_MEMBERS_ONLY. A secret key lives on the
// community's own server, which decides itself who sees what: page visibility does not apply to
// it, whatever its scopes (docs/api.md, "Page visibility and the v1 reads").
import type { Db } from '../db/index.ts';
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { PageKey } from '../domain/page-access.ts';
import { pageContent, type PageReader, type PublicCommunity } from '../domain/public-pages.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';

export const readerOf = (key: Pick<ApiKeyIdentity, 'kind'>): PageReader => (key.kind === 'secret' ? 'community' : 'public');

/** The refusal of a page's content to a reader it is hidden from; `what` names it ("blog"). */
export const pageMembersOnly = (what: string) => new ApiError('PAGE_MEMBERS_ONLY', messages.pageMembersOnly(what));

/** The community whose `page` content `reader` may read: 404 when it is gone, 403 when the page hides it. */
export async function readablePage(db: Db, communityId: string, page: PageKey, reader: PageReader, what: string): Promise<PublicCommunity> {
  const check = await pageContent(db, communityId, page, reader);
  if (check.kind === 'missing') throw notFound(messages.communityNotFound);
  if (check.kind === 'members-only') throw pageMembersOnly(what);
  return check.community;
}
