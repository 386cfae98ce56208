// An upstream HTML page as text for the rewriter: Content-Encoding undone, at most MAX_HTML_BYTES
// held in memory, and decoded with the charset a browser would pick. A larger page is handed back
// as a stream (content-decoded) so it can be passed through without the chrome.
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { Parser } from 'htmlparser2';
import { UpstreamError, type UpstreamResponse } from './upstream.ts';

export const MAX_HTML_BYTES = 5 * 1024 * 1024;

/** How far a <meta> declaring the charset may be: the WHATWG prescan looks at the first 1024 bytes. */
const PRESCAN_BYTES = 1024;

function headerValue(headers: UpstreamResponse['headers'], name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** The MIME type's essence, lower-case: everything before the first ';', trimmed. */
function mimeEssence(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Content-Type text/html or application/xhtml+xml (parameters ignored, case-insensitive). */
export function isHtmlResponse(headers: UpstreamResponse['headers']): boolean {
  const essence = mimeEssence(headerValue(headers, 'content-type'));
  return essence === 'text/html' || essence === 'application/xhtml+xml';
}

/** A parameter of a Content-Type value (quoted or not), or null. */
export function contentTypeParameter(contentType: string, wanted: string): string | null {
  let i = contentType.indexOf(';');
  if (i === -1) return null;
  const n = contentType.length;
  while (i < n) {
    i++; // past the ';'
    while (i < n && (contentType[i] === ' ' || contentType[i] === '\t')) i++;
    let name = '';
    while (i < n && contentType[i] !== '=' && contentType[i] !== ';') name += contentType[i++];
    if (i >= n || contentType[i] === ';') continue;
    i++; // past the '='
    let value = '';
    if (contentType[i] === '"') {
      i++;
      while (i < n && contentType[i] !== '"') {
        if (contentType[i] === '\\' && i + 1 < n) i++;
        value += contentType[i++];
      }
      while (i < n && contentType[i] !== ';') i++;
    } else {
      while (i < n && contentType[i] !== ';') value += contentType[i++];
      value = value.trim();
    }
    if (name.trim().toLowerCase() === wanted) return value;
  }
  return null;
}

/** The canonical name of an encoding label (WHATWG Encoding), or null when the label is unknown. */
function encodingFor(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

const ASCII_WHITESPACE = new Set(['\t', '\n', '\f', '\r', ' ']);

/** WHATWG HTML "algorithm for extracting a character encoding from a meta element", on a content attribute. */
export function charsetFromMetaContent(content: string): string | null {
  const lower = content.toLowerCase();
  let position = 0;
  for (;;) {
    const found = lower.indexOf('charset', position);
    if (found === -1) return null;
    let i = found + 'charset'.length;
    while (i < lower.length && ASCII_WHITESPACE.has(lower[i])) i++;
    if (lower[i] !== '=') {
      position = i;
      continue;
    }
    i++;
    while (i < lower.length && ASCII_WHITESPACE.has(lower[i])) i++;
    const quote = content[i];
    if (quote === '"' || quote === "'") {
      const end = content.indexOf(quote, i + 1);
      return end === -1 ? null : content.slice(i + 1, end);
    }
    let end = i;
    while (end < content.length && !ASCII_WHITESPACE.has(content[end]) && content[end] !== ';') end++;
    return end === i ? null : content.slice(i, end);
  }
}

/** The encoding a <meta> element declares, per the prescan's attribute rules, or null. */
function metaDeclaration(attributes: Iterable<[string, string]>): string | null {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | null = null;
  let charset: string | null = null;
  for (const [rawName, value] of attributes) {
    const name = rawName.toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    if (name === 'http-equiv') {
      if (value.toLowerCase() === 'content-type') gotPragma = true;
    } else if (name === 'content') {
      if (charset === null) {
        const extracted = charsetFromMetaContent(value);
        if (extracted !== null) {
          charset = extracted;
          needPragma = true;
        }
      }
    } else if (name === 'charset') {
      charset = value;
      needPragma = false;
    }
  }
  if (needPragma === null || (needPragma && !gotPragma) || charset === null) return null;
  const encoding = encodingFor(charset);
  if (encoding === null) return null;
  // A page cannot declare itself UTF-16 from inside: the bytes that were read were ASCII.
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  if (encoding === 'x-user-defined') return 'windows-1252';
  return encoding;
}

/**
 * The encoding the first <meta charset> / <meta http-equiv="content-type"> in the first 1024 bytes
 * declares. Read with htmlparser2, not a pattern: comments, attribute quoting and a `charset` inside
 * another attribute's value are the parser's business. The bytes are ASCII-compatible for every
 * encoding the web uses, so they are read as Latin-1 (one character per byte).
 */
export async function prescanMetaCharset(head: Uint8Array): Promise<string | null> {
  let declared: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      // Attribute names come lower-cased, the first of two same-named ones kept, as the HTML spec reads them.
      if (declared === null && name === 'meta') declared = metaDeclaration(Object.entries(attributes));
    },
  });
  parser.end(Buffer.from(head.subarray(0, PRESCAN_BYTES)).toString('latin1'));
  return declared;
}

/**
 * The charset as a browser picks it: a BOM first (it overrides the header in the WHATWG decode
 * algorithm, and browsers follow it), then the Content-Type header, then a <meta>, else UTF-8. An
 * unknown label is skipped like a missing one.
 */
async function sniffCharset(contentType: string, bytes: Uint8Array): Promise<string> {
  const bom = bomEncoding(bytes);
  if (bom) return bom;
  const label = contentTypeParameter(contentType, 'charset');
  const fromHeader = label === null ? null : encodingFor(label);
  if (fromHeader) return fromHeader;
  return (await prescanMetaCharset(bytes)) ?? 'utf-8';
}

/** WHATWG index-windows-1252 for 0x80-0x9F, where it differs from ISO-8859-1. */
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

// Node 20.18.3 and later (and 22.13.0 to 22.x) decode windows-1252 as ISO-8859-1, so 0x80 comes
// out as U+0080 instead of '€' (nodejs/node#60888, #56542). windows-1252 is what every
// iso-8859-1 / latin1 / ascii label means on the web, so the common Western pages are affected.
const BROKEN_WINDOWS_1252 = new TextDecoder('windows-1252').decode(Uint8Array.of(0x80)) !== '\u20ac';

function decodeWindows1252(bytes: Buffer): string {
  const units = new Uint16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    units[i] = b >= 0x80 && b < 0xa0 ? WINDOWS_1252_C1[b - 0x80] : b;
  }
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
}

/** The page's bytes as text in its charset (a BOM of that charset dropped, as TextDecoder does). */
function decodeText(bytes: Buffer, charset: string): string {
  if (charset === 'windows-1252' && BROKEN_WINDOWS_1252) return decodeWindows1252(bytes);
  return new TextDecoder(charset).decode(bytes);
}

/** The codings of a Content-Encoding value, in the order they were applied. */
function codingsOf(contentEncoding: string): string[] {
  return contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** A zlib stream (in the usual format) is a CMF byte announcing deflate with a header checksum that divides by 31. */
function looksZlibWrapped(head: Uint8Array): boolean {
  return head.length >= 2 && (head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0;
}

async function* prepended(first: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* first;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Stopping early (an error downstream, a consumer that went away) releases the source.
    await rest.return?.();
  }
}

const NOTHING: AsyncIterator<Buffer> = { next: async () => ({ done: true, value: undefined }) };

/**
 * Undoes one coding. `deflate` is sniffed, because servers send both zlib-wrapped and raw deflate
 * and browsers take both. An empty body stays empty, as in browsers (zlib would call it truncated).
 */
async function undo(coding: string, source: AsyncIterator<Buffer>): Promise<AsyncIterator<Buffer>> {
  if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== 'br' && coding !== 'deflate') {
    await source.return?.();
    throw new UpstreamError('protocol', `the upstream sent an unsupported Content-Encoding: ${coding}`);
  }
  const head: Buffer[] = [];
  let length = 0;
  while (length < 2) {
    const next = await source.next();
    if (next.done) break;
    head.push(next.value);
    length += next.value.length;
  }
  if (length === 0) return NOTHING;
  let decoder: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;
  if (coding === 'br') decoder = zlib.createBrotliDecompress();
  else if (coding === 'deflate')
    decoder = looksZlibWrapped(Buffer.concat(head)) ? zlib.createInflate() : zlib.createInflateRaw();
  else decoder = zlib.createGunzip();
  // pipeline destroys the decoder with the source's error (a timeout stays a timeout) and the
  // source when the decoder fails or is destroyed.
  pipeline(Readable.from(prepended(head, source), { objectMode: false }), decoder, () => {});
  return decoder[Symbol.asyncIterator]();
}

function asUpstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // A corrupt compressed stream, or a body cut off before its end: either way not a page we can use.
  return new UpstreamError('protocol', `the upstream's HTML could not be read: ${message}`, { cause: err });
}

async function* remainder(read: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* read;
    for (;;) {
      const next = await rest.next().catch((err: unknown) => {
        throw asUpstreamError(err);
      });
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.();
  }
}

/**
 * The body of an HTML response as text: Content-Encoding gzip, x-gzip, deflate (zlib-wrapped or raw, as browsers accept) and br undone,
 * at most maxBytes after decoding (the limit guards memory: reading stops as soon as it is passed);
 * the charset from a BOM, else the Content-Type header, else a <meta charset> / <meta http-equiv="content-type"> in the first 1024 bytes,
 * else utf-8; an unknown label is skipped (so in the end reads as utf-8). `charset` is the WHATWG name (iso-8859-1 is windows-1252).
 * Larger than maxBytes: 'too-large' with a stream of the content-decoded bytes (what was read, then the rest), for streaming
 * through without the chrome: the caller drops Content-Encoding and Content-Length when sending it.
 * An unknown Content-Encoding or a corrupt stream: UpstreamError('protocol'); the body's own errors (a timeout) as they are.
 */
export async function readHtmlBody(
  response: UpstreamResponse,
  maxBytes: number = MAX_HTML_BYTES,
): Promise<{ kind: 'html'; text: string; charset: string; bytes: number } | { kind: 'too-large'; body: Readable }> {
  let chunks: AsyncIterator<Buffer> = response.body[Symbol.asyncIterator]();
  const read: Buffer[] = [];
  let bytes = 0;
  try {
    // Applied in order, so undone in reverse.
    for (const coding of codingsOf(headerValue(response.headers, 'content-encoding')).reverse()) {
      chunks = await undo(coding, chunks);
    }
    for (;;) {
      const next = await chunks.next();
      if (next.done) break;
      read.push(next.value);
      bytes += next.value.length;
      if (bytes > maxBytes) {
        return { kind: 'too-large', body: Readable.from(remainder(read, chunks), { objectMode: false }) };
      }
    }
  } catch (err) {
    await chunks.return?.();
    response.body.destroy();
    throw asUpstreamError(err);
  }
  const body = Buffer.concat(read, bytes);
  const charset = await sniffCharset(headerValue(response.headers, 'content-type'), body);
  return { kind: 'html', text: decodeText(body, charset), charset, bytes };
}
