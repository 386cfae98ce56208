import { describe, expect, it } from 'vitest';
import type { Member } from '../../../contract/resources.ts';
import type { ApiClient, GetOptions } from '../../../widgets/lib/api.ts';
import { excerpt, formatJoined, initials, matches } from '../../../widgets/members/directory.ts';
import { MembersFeed, parseLimit } from '../../../widgets/members/feed.ts';

let seq = 0;
function member(overrides: Partial<Member> = {}): Member {
  seq += 1;
  return {
    userId: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    name: `Member ${seq}`,
    usertag: `m${seq}`,
    profileImage: null,
    bio: null,
    joinedAt: '2024-06-14T07:30:00.000Z',
    ...overrides,
  };
}

/** A directory of `all` members served by offset, as the API does, with X-Total-Count. */
function directoryApi(all: () => Member[]) {
  const calls: GetOptions[] = [];
  const api: ApiClient = {
    resolve: (p) => p,
    async get<T>(_path: string, options: GetOptions = {}) {
      calls.push(options);
      const offset = Number(options.query?.offset ?? 0);
      const limit = Number(options.query?.limit);
      const list = all();
      return {
        data: list.slice(offset, offset + limit) as T,
        headers: new Headers({ 'X-Total-Count': String(list.length) }),
      };
    },
  };
  return { api, calls };
}

describe('initials', () => {
  it('takes the first letters of the first and last words', () => {
    expect(initials('Maya Okafor')).toBe('MO');
    expect(initials('Ana María de la Cruz')).toBe('AC');
    expect(initials('Léa')).toBe('L');
    expect(initials('ömer  yıldız')).toBe('ÖY');
  });

  it('keeps astral characters whole and never returns nothing', () => {
    expect(initials('𝒜da Lovelace')).toBe('𝒜L');
    expect(initials('   ')).toBe('?');
  });
});

describe('matches', () => {
  const m = member({ name: 'Léa Moreau', usertag: 'lea', bio: 'Trail runner, Seattle' });
  it('finds a member by name, @usertag or bio, ignoring case and accents', () => {
    expect(matches(m, 'lea')).toBe(true);
    expect(matches(m, '@LEA')).toBe(true);
    expect(matches(m, 'MOREAU')).toBe(true);
    expect(matches(m, 'runner')).toBe(true);
  });
  it('needs every word of the query', () => {
    expect(matches(m, 'trail seattle')).toBe(true);
    expect(matches(m, 'trail tokyo')).toBe(false);
  });
  it('matches everyone for an empty query and nobody for a stranger', () => {
    expect(matches(m, '   ')).toBe(true);
    expect(matches(m, 'zzz')).toBe(false);
  });
});

describe('excerpt', () => {
  it('leaves a short bio alone and drops an empty one', () => {
    expect(excerpt('Hi there.')).toBe('Hi there.');
    expect(excerpt('  ')).toBeNull();
    expect(excerpt(null)).toBeNull();
  });
  it('cuts a long bio at a word boundary with an ellipsis', () => {
    const cut = excerpt('word '.repeat(60), 40)!;
    expect(cut.endsWith('word…')).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(41);
  });
});

describe('formatJoined', () => {
  it('says the month and year in the locale', () => {
    expect(formatJoined('2024-06-14T07:30:00.000Z', 'en-US')).toBe('June 2024');
    expect(formatJoined('2024-06-14T07:30:00.000Z', 'de-DE')).toBe('Juni 2024');
  });
});

describe('parseLimit', () => {
  it('defaults to 12 and clamps to 1..100', () => {
    expect(parseLimit({})).toBe(12);
    expect(parseLimit({ limit: '0' })).toBe(1);
    expect(parseLimit({ limit: '500' })).toBe(100);
    expect(parseLimit({ limit: 'six' })).toBe(12);
  });
});

describe('MembersFeed', () => {
  it('loads pages by offset until X-Total-Count is reached', async () => {
    const all = Array.from({ length: 5 }, () => member());
    const { api, calls } = directoryApi(() => all);
    const feed = new MembersFeed(api, 'demo', 2);
    await feed.load();
    expect(feed.items.value).toEqual(all.slice(0, 2));
    expect(feed.hasMore).toBe(true);
    await feed.more();
    await feed.more();
    expect(feed.items.value).toEqual(all);
    expect(feed.hasMore).toBe(false);
    expect(calls.map((c) => c.query?.offset)).toEqual([undefined, 2, 4]);
    expect(await feed.more()).toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it('never shows a member twice when the directory shifts between pages', async () => {
    let all = Array.from({ length: 4 }, () => member());
    const { api } = directoryApi(() => all);
    const feed = new MembersFeed(api, 'demo', 2);
    await feed.load();
    // Someone imported with an earlier join date: the next page starts one earlier.
    all = [member(), ...all];
    const added = await feed.more();
    expect(added.map((m) => m.userId)).toEqual([all[3].userId]);
    expect(new Set(feed.items.value.map((m) => m.userId)).size).toBe(feed.items.value.length);
  });

  it('stops offering more when a page comes back empty', async () => {
    let all = Array.from({ length: 4 }, () => member());
    const { api } = directoryApi(() => all);
    const feed = new MembersFeed(api, 'demo', 2);
    await feed.load();
    all = all.slice(0, 2);
    expect(await feed.more()).toEqual([]);
    expect(feed.hasMore).toBe(false);
  });
});
