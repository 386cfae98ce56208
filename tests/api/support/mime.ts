// A small MIME reader for `.eml` files: mailparser is not installed, and the point is to read the
// file as text, as a mail client would.

export interface MimePart {
  headers: Map<string, string>;
  body: string;
  parts: MimePart[];
}

export function parseMime(raw: string): MimePart {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  if (!boundary) return { headers, body, parts: [] };
  // Between the preamble and the closing `--boundary--`, each part ends with the CRLF before the next delimiter.
  const parts = body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((p) => parseMime(p.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  return { headers, body, parts };
}

const leaves = (p: MimePart): MimePart[] => (p.parts.length === 0 ? [p] : p.parts.flatMap(leaves));

export function decoded(p: MimePart): Buffer {
  const encoding = p.headers.get('content-transfer-encoding') ?? '7bit';
  if (encoding === 'base64') return Buffer.from(p.body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    return Buffer.from(
      p.body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
  }
  return Buffer.from(p.body, 'utf8');
}

export const partOfType = (message: MimePart, type: string) =>
  leaves(message).find((p) => (p.headers.get('content-type') ?? '').startsWith(type));
