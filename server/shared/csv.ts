// CSV for spreadsheets (RFC 4180): CRLF between records, a field quoted when it holds a quote,
// comma, CR or LF, and quotes doubled inside. A cell a spreadsheet would read as a formula (one
// starting with = + - @, a tab or a CR) is prefixed with an apostrophe, so what a visitor typed as
// their name cannot run in the organiser's spreadsheet (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header row and the records, each line ended by CRLF. */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  return [header, ...rows].map((r) => `${r.map(csvCell).join(',')}\r\n`).join('');
}
