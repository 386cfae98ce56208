// CSV for spreadsheets (server/shared/csv.ts): RFC 4180 quoting and the guard against formula
// injection, as the hosted site's attendee export uses them.
import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '../../server/shared/csv.ts';

describe('csv: happy path', () => {
  it('leaves plain cells alone and ends every record with CRLF', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['1', 'x y'],
          [null, undefined],
        ],
      ),
    ).toBe('a,b\r\n1,x y\r\n,\r\n');
  });

  it('quotes a cell holding a quote, comma, CR or LF, doubling its quotes', () => {
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });
});

describe('csv: security (formula injection)', () => {
  it.each(['=1+2', '+1', '-1', '@SUM(A1)', '\tTAB', '\rCR'])('defuses %j with a leading apostrophe', (cell) => {
    const out = csvCell(cell);
    const unquoted = out.startsWith('"') ? out.slice(1, -1) : out;
    expect(unquoted).toBe(`'${cell}`);
  });

  it('does not touch those characters elsewhere in a cell', () => {
    expect(csvCell('a=b+c-d@e')).toBe('a=b+c-d@e');
  });
});
