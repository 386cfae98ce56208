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
  /** The `_csrf` value this viewer's forms carry (./forms.ts); null for an anonymous viewer. */
  csrf: string | null;
}

/**
 * What a page renders to (an HTML page, with a status other than 200 when it answers a refused
 * form, and its head metadata and CSP additions; or a file: CSV, iCalendar), or the outcome its
 * own entity's visibility decides (rule 4), or 'forbidden' for a page the viewer may never see
 * whatever their membership (leaders' pages).
 */
export type PageContent = Omit<SitePage, 'status' | 'cache'> & {
  status?: number;
  /** Never kept by any cache, whoever asks (a page whose URL is a credential: `/join/<code>`). */
  noStore?: boolean;
};
export type PageBody =
  | PageContent
  // `csp` replaces the file's default policy (the console's broadcast preview is a framed document).
  | { file: { contentType: string; body: string; filename?: string; csp?: string } }
  | 'not-found'
  | 'gate'
  | 'forbidden';
export type PageRenderer = (ctx: SiteContext, db: Db, req: Request) => Promise<PageBody>;

/** What a form post answers: a page (a refusal, re-rendered) or a 303 to where the result shows. */
export type FormOutcome = PageBody | { redirect: string };
export type FormHandler = (
  ctx: SiteContext,
  db: Db,
  req: Request,
  form: Record<string, string>,
) => Promise<FormOutcome>;

/** The join link, where the community takes applications or sign-ups at all. */
export const applyLink = (community: CommunityRow, label: string): string =>
  community.accessibility === 'INVITE_ONLY' ? '' : `<a class="button" href="/apply">${escapeHtml(label)}</a>`;
