// Page visibility on the v1 reads of articles, products, the member directory and the atlas.
// The publishable key reads as the anonymous public: it is in every visitor's browser, so a page
// the community keeps MEMBERS_ONLY answers it 403 PAGE_MEMBERS_ONLY. A secret key lives on the
// community's own server, which decides itself who sees what: page visibility does not apply to
// it, whatever its scopes (docs/api.md, "Page visibility and the v1 reads"). The check itself is
// the domain's (readablePage in server/domain/public-pages.ts).
import type { ApiKeyIdentity } from '../domain/api-keys.ts';
import type { PageReader } from '../domain/public-pages.ts';

export { readablePage } from '../domain/public-pages.ts';

export const readerOf = (key: Pick<ApiKeyIdentity, 'kind'>): PageReader =>
  key.kind === 'secret' ? 'community' : 'public';
