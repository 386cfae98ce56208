import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { Member } from '../../contract/resources.ts';
import { $community, isSettled, siteOrigin } from '../lib/community.ts';
import type { WidgetProps } from '../lib/define-element.ts';
import { plainClick } from '../lib/host-events.ts';
import { formatCount } from '../lib/format.ts';
import { fillTemplate } from '../lib/link-template.ts';
import { resolveHref } from '../lib/links.ts';
import { storeSignal } from '../lib/store-signal.ts';
import { matches } from './directory.ts';
import { MemberCard } from './MemberCard.tsx';
import { MembersFeed, parseLimit, type MembersSeed } from './feed.ts';

export interface SelectDetail {
  usertag: string;
  userId: string;
}

/** What the live region says: how many cards are shown, of how many loaded and in the directory. */
function countText(shown: number, loaded: number, total: number, query: string, locale?: string): string {
  const [n, l, t] = [shown, loaded, total].map((x) => formatCount(x, locale));
  const of = total > loaded ? ` (${l} of ${t} loaded)` : '';
  if (!query.trim()) return `${l} of ${t} members shown`;
  return shown === 0
    ? `No loaded members match “${query.trim()}”${of}`
    : `${n} matching ${shown === 1 ? 'member' : 'members'}${of}`;
}

export function MembersDirectory({ api, config, attrs, locale, emit, state }: WidgetProps) {
  const limit = parseLimit(attrs);
  // The server's first page (hosted `/members`) is where a hydrating widget starts: no fetch.
  const seed = state as MembersSeed | undefined;
  const feed = useMemo(() => new MembersFeed(api, config.community, limit, seed), [api, config.community, limit]);
  useEffect(() => {
    if (feed.status.value !== 'ready') void feed.load();
    return () => feed.dispose();
  }, [feed]);
  // Ids inside one shadow root only need to be unique there, but a stable per-instance one keeps
  // the label bound across re-renders.
  const filterId = `svc-members-filter-${useId()}`;
  const [query, setQuery] = useState('');

  const error = feed.error.value;
  useEffect(() => {
    // The host page may want the request id for a support ticket; the visitor gets plain words.
    if (error)
      emit('error', { status: error.status, code: error.code, requestId: error.requestId, message: error.message });
  }, [error]);

  const listRef = useRef<HTMLUListElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    // After "Load more", focus moves to the first new member the filter shows, instead of
    // staying on a button that may just have gone (last page) and losing the visitor's place.
    const from = focusFrom.current;
    if (from === null || feed.loadingMore.value) return;
    focusFrom.current = null;
    const target = feed.items.value.slice(from).find((m) => matches(m, query));
    const cards = [...(listRef.current?.children ?? [])] as HTMLElement[];
    const link = target && cards.find((li) => li.dataset.usertag === target.usertag)?.querySelector('a');
    if (link) link.focus();
    else if (!feed.hasMore) inputRef.current?.focus();
  });

  const community = storeSignal($community).value;
  const status = feed.status.value;

  // Waiting for the community too: it carries the theme and the site the links point to.
  if (status === 'loading' || !isSettled(community)) {
    // The directory at its final size from the first render (the filter, the count, `limit`
    // cards and the "Load more" row), so nothing on the page moves when the members arrive.
    return (
      <div class="members" aria-busy="true">
        <p class="visually-hidden" part="status" role="status">
          Loading members…
        </p>
        <div aria-hidden="true">
          <div class="filter">
            <label>Filter members</label>
            <input type="search" disabled />
          </div>
          <p class="count">&nbsp;</p>
          <ul class="list">
            {Array.from({ length: limit }, (_, i) => (
              <li key={i} class="item" />
            ))}
          </ul>
          <div class="more-row">
            <button type="button" class="primary ghost" tabIndex={-1}>
              Load more members
            </button>
          </div>
        </div>
      </div>
    );
  }

  if (status === 'error' && error?.code === 'PAGE_MEMBERS_ONLY') {
    // Not a failure to retry: the community keeps its directory to members (the fallback link
    // leads to the hosted page, where members can sign in).
    return (
      <div class="members">
        <p class="status" part="members-only" role="status">
          The member directory is for members only.
        </p>
        <slot />
      </div>
    );
  }

  if (status === 'error') {
    return (
      <div class="members">
        <div class="error" part="error" role="alert">
          <span>We couldn't load members right now.</span>
          <button type="button" class="secondary" part="retry" onClick={() => void feed.load()}>
            Try again
          </button>
          <slot />
        </div>
      </div>
    );
  }

  const loaded = feed.items.value;
  if (loaded.length === 0) {
    return (
      <div class="members">
        <p class="status" part="empty">
          No members yet
        </p>
      </div>
    );
  }

  const site = siteOrigin(config, community.status === 'ready' ? community.community : null, location.origin);
  const shown = loaded.filter((m) => matches(m, query));
  const total = feed.total.value;
  const loadingMore = feed.loadingMore.value;
  const moreError = feed.moreError.value;
  const onSelect = (member: Member, click: MouseEvent) => {
    // Modified clicks open a tab: the visitor is not choosing the member on this page.
    if (!plainClick(click)) return;
    const detail: SelectDetail = { usertag: member.usertag, userId: member.userId };
    if (!emit('select', detail, true)) click.preventDefault();
  };
  const loadMore = () => {
    if (loadingMore || !feed.hasMore) return;
    focusFrom.current = loaded.length;
    void feed.more();
  };

  return (
    <div class="members" aria-busy={loadingMore ? 'true' : undefined}>
      <div class="filter" part="filter">
        <label for={filterId}>Filter members</label>
        <input
          id={filterId}
          ref={inputRef}
          type="search"
          part="filter-input"
          value={query}
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <p class="count" part="count" role="status">
        {/* An English phrase starting with a number: on an RTL page it reads as written. */}
        <bdi>{countText(shown.length, loaded.length, total, query, locale)}</bdi>
      </p>
      <ul class="list" part="list" ref={listRef} aria-label="Members">
        {shown.map((member) => (
          <MemberCard
            key={member.userId}
            member={member}
            href={
              fillTemplate('member-href', attrs['member-href'], { usertag: member.usertag, id: member.userId }) ??
              resolveHref(`/members/${encodeURIComponent(member.usertag)}`, site) ??
              '#'
            }
            locale={locale}
            api={api}
            onSelect={onSelect}
          />
        ))}
      </ul>
      {feed.hasMore && (
        <div class="more-row">
          <button
            type="button"
            class="primary more"
            part="more"
            aria-busy={loadingMore ? 'true' : undefined}
            onClick={loadMore}
          >
            Load more members
          </button>
          {moreError && (
            <span class="more-error" part="error" role="alert">
              Couldn't load more members. Please try again.
            </span>
          )}
        </div>
      )}
    </div>
  );
}
