// List responses stay bare JSON arrays (the spec's shape); paging rides in headers.
import type { Request } from 'express';
import type { CountAccuracy } from '../domain/list-counts.ts';

export interface PageInfo {
  total: number;
  limit: number;
  /** The offset this page started at; null when the request paged by cursor. */
  offset: number | null;
  /** Set by lists that support keyset paging, while there is a next page. */
  nextCursor: string | null;
  hasMore: boolean;
  /** How `total` was counted; exact unless a list says otherwise (docs/api.md, Lists and pagination). */
  accuracy?: CountAccuracy;
}

/** The PageInfo of a list paged by offset only: `count` items of `total` from `offset`. */
export function offsetPage(count: number, total: number, limit: number, offset: number): PageInfo {
  return { total, limit, offset, nextCursor: null, hasMore: offset + count < total };
}

/**
 * `Link: rel="next"` continues the way the caller paged: by offset when they sent one, by
 * cursor otherwise (where the list has cursors).
 */
export function paginationHeaders(req: Request, publicUrl: string, page: PageInfo): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Total-Count': String(page.total),
    'X-Total-Count-Accuracy': page.accuracy ?? 'exact',
  };
  if (!page.hasMore) return headers;
  if (page.nextCursor) headers['X-Next-Cursor'] = page.nextCursor;
  // Appended, not resolved, so a path prefix in SVC_PUBLIC_URL (behind a proxy) is kept.
  const next = new URL(publicUrl.replace(/\/$/, '') + req.originalUrl);
  const byOffset = req.query.offset !== undefined || !page.nextCursor;
  if (byOffset) {
    next.searchParams.set('offset', String((page.offset ?? 0) + page.limit));
  } else {
    next.searchParams.set('cursor', page.nextCursor!);
  }
  headers.Link = `<${next.toString()}>; rel="next"`;
  return headers;
}
