// The publishable key: no auth, provisioned on first request.
import type { getPublishableKey } from '../../contract/routes/communities.ts';
import { provisionPublishableKey } from '../domain/api-keys.ts';
import { findCommunityByTag } from '../domain/communities.ts';
import { notFound } from '../http/api-error.ts';
import { messages } from '../shared/messages.ts';
import type { Handlers } from '../http/handlers.ts';

export const keyHandlers = {
  getPublishableKey: async ({ params }, { db }) => {
    const community = await findCommunityByTag(db, params.communityTag);
    if (!community) throw notFound(messages.communityNotFound);
    const key = await provisionPublishableKey(db, community.id);
    return { body: { communityTag: community.tag, publishableKey: key, scopes: ['READ_PUBLIC'] } };
  },
} satisfies Handlers<typeof getPublishableKey>;
