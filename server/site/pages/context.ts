// What every hosted page is given: the community, who is looking and the chrome, built once per
// request by the gate (./index.ts), and the join link the pages share.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import type { CommunityRow } from '../../db/schema.ts';
import type { AccessConfig, Viewer } from '../../domain/page-access.ts';
import { escapeHtml } from '../../shared/html.ts';
import type { SiteChrome, SitePage } from './layout.ts';

/** One request on a community's site: the community, who is looking (one membership lookup), the chrome. */
export interface SiteContext {
  community: CommunityRow;
  access: AccessConfig;
  viewer: Viewer;
  chrome: SiteChrome;
  /** The path and query asked for, where sign-in returns to. */
  here: string;
}

/** What a page renders to, or the outcome its own entity's visibility decides (rule 4). */
export type PageBody = Omit<SitePage, 'status' | 'cache'> | 'not-found' | 'gate';
export type PageRenderer = (ctx: SiteContext, db: Db, req: Request) => Promise<PageBody>;

/** The join link, where the community takes applications or sign-ups at all. */
export const applyLink = (community: CommunityRow, label: string): string =>
  community.accessibility === 'INVITE_ONLY' ? '' : `<a class="button" href="/apply">${escapeHtml(label)}</a>`;
