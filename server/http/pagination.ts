// List responses stay bare JSON arrays (the spec's shape); paging rides in headers.
import type { Request, Response } from 'express';

export interface PageInfo {
  total: number;
  limit: number;
  /** The offset this page started at; null when the request paged by cursor. */
  offset: number | null;
  /** Set by lists that support keyset paging, while there is a next page. */
  nextCursor: string | null;
  hasMore: boolean;
}

/**
 * `Link: rel="next"` continues the way the caller paged: by offset when they sent one, by
 * cursor otherwise (where the list has cursors).
 */
export function setPaginationHeaders(req: Request, res: Response, publicUrl: string, page: PageInfo): void {
  res.setHeader('X-Total-Count', String(page.total));
  if (!page.hasMore) return;
  if (page.nextCursor) res.setHeader('X-Next-Cursor', page.nextCursor);
  const next = new URL(req.originalUrl, publicUrl);
  const byOffset = req.query.offset !== undefined || !page.nextCursor;
  if (byOffset) {
    next.searchParams.set('offset', String((page.offset ?? 0) + page.limit));
  } else {
    next.searchParams.set('cursor', page.nextCursor!);
  }
  res.setHeader('Link', `<${next.toString()}>; rel="next"`);
}
