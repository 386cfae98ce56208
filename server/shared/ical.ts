// iCalendar (RFC 5545) for the hosted site's calendars (`/events.ics`, `/events/<slug>.ics`): CRLF
// line ends, content lines folded at 75 octets (never inside a UTF-8 sequence: a fold goes
// between code points), TEXT values escaped (backslash, semicolon, comma, newlines), date-times
// in UTC.

export interface CalendarEvent {
  /** Stable across renders and hosts: a calendar client updates the entry it already has. */
  uid: string;
  summary: string;
  description?: string | null;
  location?: string | null;
  url?: string | null;
  start: Date;
  end?: Date | null;
}

export interface Calendar {
  /** X-WR-CALNAME: the name calendar apps show for a subscription. */
  name: string;
  events: CalendarEvent[];
  /** DTSTAMP: when this calendar object was made. */
  now: Date;
}

const MAX_OCTETS = 75;

/** RFC 5545 §3.3.11: backslash first, then the separators, every newline as `\n`. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * RFC 5545 §3.1: a line longer than 75 octets continues on the next after CRLF and one space
 * (the space counts in the continuation's 75). Split between code points only, so a multi-byte
 * character is never cut.
 */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    const limit = out.length === 0 ? MAX_OCTETS : MAX_OCTETS - 1;
    if (octets + size > limit) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

/** `20260102T030405Z` */
export function utcDateTime(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Control characters other than tab are not allowed in a TEXT value; newlines are escaped first. */
const text = (v: string) => escapeText(v).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');

export function toICalendar(cal: Calendar): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//svc//hosted community site//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(cal.name)}`,
  ];
  for (const e of cal.events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${text(e.uid)}`,
      `DTSTAMP:${utcDateTime(cal.now)}`,
      `DTSTART:${utcDateTime(e.start)}`,
    );
    if (e.end) lines.push(`DTEND:${utcDateTime(e.end)}`);
    lines.push(`SUMMARY:${text(e.summary)}`);
    if (e.description) lines.push(`DESCRIPTION:${text(e.description)}`);
    if (e.location) lines.push(`LOCATION:${text(e.location)}`);
    // A URI value, not TEXT: not escaped (our URLs are percent-encoded), only folded.
    if (e.url) lines.push(`URL:${e.url}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.map((l) => `${foldLine(l)}\r\n`).join('');
}
