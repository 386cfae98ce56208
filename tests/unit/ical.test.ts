// The iCalendar serializer behind the hosted site's calendars (RFC 5545): escaping, folding at 75
// octets without cutting a multi-byte character, CRLF line ends, UTC date-times.
import { describe, expect, it } from 'vitest';
import { escapeText, foldLine, toICalendar, utcDateTime } from '../../server/shared/ical.ts';

const unfold = (s: string) => s.replace(/\r\n /g, '');

describe('iCalendar: happy path', () => {
  it('escapes backslash, semicolon, comma and every newline in TEXT', () => {
    expect(escapeText('a\\b;c,d\ne\r\nf\rg')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng');
  });

  it('leaves a line of 75 octets alone and folds the 76th onto a continuation line', () => {
    const l75 = 'x'.repeat(75);
    expect(foldLine(l75)).toBe(l75);
    expect(foldLine(`${l75}y`)).toBe(`${l75}\r\n y`);
    const long = 'SUMMARY:' + 'abcdefghij'.repeat(30);
    const folded = foldLine(long);
    for (const line of folded.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(unfold(folded)).toBe(long);
  });

  it('folds multi-byte text between characters, never inside one', () => {
    const long = `SUMMARY:${'é'.repeat(40)}${'😀'.repeat(30)}日本語のテキスト`.repeat(2);
    const folded = foldLine(long);
    const lines = folded.split('\r\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const [i, line] of lines.entries()) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      if (i > 0) expect(line.startsWith(' ')).toBe(true);
      // Every piece is whole characters: a cut surrogate pair would not survive UTF-8 encoding.
      expect(Buffer.from(line, 'utf8').toString('utf8')).toBe(line);
    }
    expect(unfold(folded)).toBe(long);
  });

  it('writes a calendar with CRLF line ends, UTC times, a UID, DTSTAMP and URL', () => {
    const ics = toICalendar({
      name: 'Club, "the" best; ever',
      now: new Date('2026-01-02T03:04:05.678Z'),
      events: [
        {
          uid: 'e1@svc',
          summary: 'Walk; talk, eat',
          description: 'Line one\nLine two \\ done',
          location: 'Hall, Lisbon',
          url: 'https://club.example/events/walk',
          start: new Date('2026-02-03T10:00:00+01:00'),
          end: new Date('2026-02-03T12:30:00Z'),
        },
        { uid: 'e2@svc', summary: 'Open end', start: new Date('2026-03-01T00:00:00Z') },
      ],
    });
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const lines = unfold(ics).split('\r\n');
    expect(lines.slice(0, 6)).toEqual([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//svc//hosted community site//EN',
      'CALSCALE:GREGORIAN',
      'METHOD:PUBLISH',
      'X-WR-CALNAME:Club\\, "the" best\\; ever',
    ]);
    expect(lines).toContain('UID:e1@svc');
    expect(lines).toContain('DTSTAMP:20260102T030405Z');
    expect(lines).toContain('DTSTART:20260203T090000Z');
    expect(lines).toContain('DTEND:20260203T123000Z');
    expect(lines).toContain('SUMMARY:Walk\\; talk\\, eat');
    expect(lines).toContain('DESCRIPTION:Line one\\nLine two \\\\ done');
    expect(lines).toContain('LOCATION:Hall\\, Lisbon');
    expect(lines).toContain('URL:https://club.example/events/walk');
    expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(2);
    // No end date: no DTEND is invented.
    expect(lines.filter((l) => l.startsWith('DTEND:'))).toHaveLength(1);
  });
});

describe('iCalendar: errors and hostile text', () => {
  it('a hostile summary cannot start a property or a component of its own', () => {
    const ics = toICalendar({
      name: 'x',
      now: new Date(0),
      events: [{ uid: 'u', summary: 'a\r\nEND:VEVENT\r\nBEGIN:VEVENT\u0000', start: new Date(0) }],
    });
    const lines = unfold(ics).split('\r\n');
    expect(lines.filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(1);
    expect(lines).toContain('SUMMARY:a\\nEND:VEVENT\\nBEGIN:VEVENT');
  });

  it('formats date-times in UTC with no fraction', () => {
    expect(utcDateTime(new Date('2026-12-31T23:59:59.999-02:00'))).toBe('20270101T015959Z');
  });
});
