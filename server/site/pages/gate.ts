// The gate every hosted page passes, in the spec's order ("Page-access rules"): (1) a disabled page
// is not found; (2) a MEMBERS_ONLY page (the page's own visibility, else the community's; CHAT
// always) needs an ACCEPTED member, anyone else gets the gate page; (3) the page renders, its
// entities filtered by their own visibility. A detail page of an entity with a visibility of its
// own (`/events/<slug>`) skips step 2 and judges the entity instead. The verdict is the API's own
// (evaluatePageAccess), so the hosted pages and `GET /api/communities/<tag>/page-access` agree.
import { evaluatePageAccess, type AccessConfig, type PageKey, type Viewer } from '../../domain/page-access.ts';

export type GateOutcome = 'render' | 'not-found' | 'gate';

export function gateFor(
  community: AccessConfig,
  viewer: Viewer,
  pageKey: PageKey,
  step2: 'page' | 'entity' = 'page',
): GateOutcome {
  const verdict = evaluatePageAccess(community, viewer, pageKey);
  if (verdict.allow) return 'render';
  if (verdict.reason === 'page_disabled') return 'not-found';
  return step2 === 'entity' ? 'render' : 'gate';
}

export const isMember = (viewer: Viewer): boolean => viewer.userId !== null && viewer.membership === 'ACCEPTED';
