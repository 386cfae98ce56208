// What a member card says and how the filter box matches: pure functions of a Member.
import type { Member } from '../../contract/resources.ts';

/** "Maya Okafor" -> "MO", "Léa" -> "L", "  " -> "?": letters for the avatar when there is no picture. */
export function initials(name: string, locale?: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const picked = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  // Array.from splits by code point, so an emoji or astral letter is not cut in half.
  const letters = picked.map((w) => Array.from(w)[0]).join('');
  return letters ? letters.toLocaleUpperCase(locale) : '?';
}

/** Case- and accent-insensitive, so "lea" finds "Léa". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Every word of the query appears in the name, the usertag (with or without its @) or the bio. */
export function matches(member: Pick<Member, 'name' | 'usertag' | 'bio'>, query: string): boolean {
  const words = fold(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fold(`${member.name} @${member.usertag} ${member.bio ?? ''}`);
  return words.every((w) => haystack.includes(w));
}

/** The bio cut at a word boundary near `max` characters, with an ellipsis when cut. */
export function excerpt(bio: string | null, max = 140): string | null {
  const text = bio?.replace(/\s+/g, ' ').trim();
  if (!text) return null;
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** "June 2024" in the viewer's locale and time zone: when someone joined, not to the minute. */
export function formatJoined(iso: string, locale: string | undefined): string {
  const key = locale ?? '';
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long' })));
  return f.format(new Date(iso));
}
