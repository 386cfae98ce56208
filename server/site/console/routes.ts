// How a console section declares its pages: `get` for a page, `post` for a form that changes
// something. Both go through the hosted site's one path for pages and forms (server/site/pages/
// index.ts: the viewer, the origin checks and `_csrf` of every form post), then through the
// console's gate (consoleLeader): only an ACCEPTED founder or admin of this community gets past it.
import type { Request } from 'express';
import type { Db } from '../../db/index.ts';
import type { Leader } from '../../http/leader.ts';
import type { RouteDeps } from '../../http/routes.ts';
import type { FormHandler, FormOutcome, PageBody, PageRenderer, SiteContext } from '../pages/context.ts';
import { consoleLeader } from './page.ts';

export type ConsoleRenderer = (ctx: SiteContext, db: Db, req: Request, leader: Leader) => Promise<PageBody>;
export type ConsoleFormHandler = (
  ctx: SiteContext,
  db: Db,
  req: Request,
  leader: Leader,
  form: Record<string, string>,
) => Promise<FormOutcome>;

/** What a section's pages are given: the API's services, which the operations run with. */
export interface ConsoleDeps {
  api: RouteDeps;
  /** Where the widget build is (dist/): the settings preview renders the header with it. */
  distDir: string;
}

export interface ConsoleRoutes {
  /** A page at `/admin<path>`. */
  get(path: string, render: ConsoleRenderer): void;
  /** A form post to `/admin<path>`. */
  post(path: string, handle: ConsoleFormHandler): void;
}

/** The renderer of a page that only a leader may see: the gate first, then the page. */
export function leaderPage(render: ConsoleRenderer): PageRenderer {
  return async (ctx, db, req) => {
    const leader = await consoleLeader(ctx, db);
    return typeof leader === 'string' ? leader : render(ctx, db, req, leader);
  };
}

/** The handler of a form that only a leader may send. */
export function leaderForm(handle: ConsoleFormHandler): FormHandler {
  return async (ctx, db, req, form) => {
    const leader = await consoleLeader(ctx, db);
    return typeof leader === 'string' ? leader : handle(ctx, db, req, leader, form);
  };
}
