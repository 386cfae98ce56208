// Page access: may this viewer see this page of this community, and if not, why. One pure
// function holds the rules so the site API, the hosted pages and the widgets all agree; the
// database wrapper does one membership lookup for a whole batch of pages.
//
// Order (spec, "Page-access rules"): (1) a disabled page is not found; (2) the effective
// visibility is the page's own, else the community's, and MEMBERS_ONLY needs an ACCEPTED member;
// CHAT always needs one. Every step fails closed: a malformed setting counts as MEMBERS_ONLY.
import { PAGE_KEYS } from '../../contract/enums.ts';
import type { Db } from '../db/index.ts';
import { parseJson } from '../db/ids.ts';

export type PageKey = (typeof PAGE_KEYS)[number];
export type Visibility = 'PUBLIC' | 'MEMBERS_ONLY';
export type DenyReason = 'community_private' | 'page_members_only' | 'page_disabled';
export type MembershipState = 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'BANNED';

export interface PageVerdict {
  allow: boolean;
  reason?: DenyReason;
  /** What the page would be with the gate lifted. */
  resolvedVisibility: Visibility;
}

/** Who is looking: nobody signed in, or a user and their membership of this community (if any). */
export type Viewer = { userId: null } | { userId: string; membership: MembershipState | null };

export interface AccessConfig {
  visibility: unknown;
  pageSettings: unknown;
}

const asVisibility = (v: unknown): Visibility | null | undefined =>
  v === 'PUBLIC' || v === 'MEMBERS_ONLY' ? v : v === null || v === undefined ? null : undefined;

export function evaluatePageAccess(community: AccessConfig, viewer: Viewer, pageKey: PageKey): PageVerdict {
  // Anything but an explicit PUBLIC community is private.
  const communityVisibility: Visibility = community.visibility === 'PUBLIC' ? 'PUBLIC' : 'MEMBERS_ONLY';
  const settings = Array.isArray(community.pageSettings)
    ? (community.pageSettings as Array<Record<string, unknown>>)
    : null;
  const setting = settings?.find((s) => s && s.pageKey === pageKey);
  // A page without a setting is on and inherits; unreadable settings close every page.
  const enabled = settings === null ? false : setting === undefined ? true : setting.enabled === true;
  const own = setting === undefined ? null : asVisibility(setting.visibility);
  const pageVisibility: Visibility | null = own === undefined ? 'MEMBERS_ONLY' : own;
  const effective: Visibility = pageKey === 'CHAT' ? 'MEMBERS_ONLY' : (pageVisibility ?? communityVisibility);

  if (!enabled) return { allow: false, reason: 'page_disabled', resolvedVisibility: effective };
  if (effective === 'PUBLIC') return { allow: true, resolvedVisibility: effective };
  const isMember = viewer.userId !== null && viewer.membership === 'ACCEPTED';
  if (isMember) return { allow: true, resolvedVisibility: effective };
  // The gate comes from the community when the page merely inherits its privacy.
  const reason: DenyReason =
    pageVisibility === null && communityVisibility === 'MEMBERS_ONLY' ? 'community_private' : 'page_members_only';
  return { allow: false, reason, resolvedVisibility: effective };
}

export function evaluateAllPages(community: AccessConfig, viewer: Viewer): Record<PageKey, PageVerdict> {
  return Object.fromEntries(PAGE_KEYS.map((key) => [key, evaluatePageAccess(community, viewer, key)])) as Record<
    PageKey,
    PageVerdict
  >;
}

/** The viewer for a community: one membership lookup, whatever the number of pages asked about. */
export async function viewerOf(db: Db, communityId: string, userId: string | null): Promise<Viewer> {
  if (userId === null) return { userId: null };
  const row = await db
    .selectFrom('memberships')
    .select('status')
    .where('community_id', '=', communityId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return { userId, membership: row?.status ?? null };
}

/**
 * Every page's verdict for a community row. If the membership cannot be read, the viewer counts
 * as anonymous: members-only pages close, public pages stay public (they never depended on it).
 */
export async function pageAccessFor(
  db: Db,
  community: { id: string; visibility: string; page_settings: string },
  userId: string | null,
): Promise<Record<PageKey, PageVerdict>> {
  const config = { visibility: community.visibility, pageSettings: parseJson<unknown>(community.page_settings, null) };
  let viewer: Viewer = { userId: null };
  try {
    viewer = await viewerOf(db, community.id, userId);
  } catch {
    // fall through as anonymous
  }
  return evaluateAllPages(config, viewer);
}
