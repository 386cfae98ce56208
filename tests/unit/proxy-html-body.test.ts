// Reading an upstream HTML page as text: content codings undone, the charset a browser would
// pick, the memory limit. Pages come from a real local server through fetchUpstream.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  charsetFromMetaContent,
  contentTypeParameter,
  isHtmlResponse,
  prescanMetaCharset,
  readHtmlBody,
} from '../../server/site/proxy/html-body.ts';
import {
  createUpstreamClient,
  fetchUpstream,
  type UpstreamClient,
  type UpstreamResponse,
} from '../../server/site/proxy/upstream.ts';
import { failure } from './support/upstream-failure.ts';

interface Fixture {
  headers: Record<string, string>;
  body: Buffer;
  /** Send this many bytes of the body, then stall. */
  stallAfter?: number;
}

const fixtures = new Map<string, Fixture>();
let server: http.Server;
let base: string;
let client: UpstreamClient;
let impatient: UpstreamClient;
let counter = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const fixture = fixtures.get(req.url ?? '');
    if (!fixture) {
      res.statusCode = 404;
      return void res.end();
    }
    res.writeHead(200, { ...fixture.headers, 'Content-Length': String(fixture.body.length) });
    if (fixture.stallAfter === undefined) res.end(fixture.body);
    else res.write(fixture.body.subarray(0, fixture.stallAfter));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createUpstreamClient({ allowPrivate: true });
  impatient = createUpstreamClient({ allowPrivate: true, responseTimeoutMs: 300 });
});

afterAll(async () => {
  client.close();
  impatient.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function served(fixture: Fixture, via: UpstreamClient = client): Promise<UpstreamResponse> {
  const path = `/page-${++counter}`;
  fixtures.set(path, fixture);
  return fetchUpstream(via, { url: new URL(base + path), method: 'GET', headers: {} });
}

async function html(headers: Record<string, string>, body: Buffer, maxBytes?: number) {
  const result = await readHtmlBody(
    await served({ headers: { 'Content-Type': 'text/html', ...headers }, body }),
    maxBytes,
  );
  if (result.kind !== 'html') throw new Error(`expected html, got ${result.kind}`);
  return result;
}

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const PAGE = '<!doctype html><html><head><title>Blog</title></head><body><h1>Grüße, café ✓</h1></body></html>';
const UTF8 = Buffer.from(PAGE, 'utf8');
const latin1 = (text: string) => Buffer.from(text, 'latin1');

describe('isHtmlResponse', () => {
  it('takes text/html and application/xhtml+xml, whatever the case and parameters', () => {
    expect(isHtmlResponse({ 'content-type': 'text/html' })).toBe(true);
    expect(isHtmlResponse({ 'content-type': 'Text/HTML; charset=UTF-8' })).toBe(true);
    expect(isHtmlResponse({ 'content-type': ' application/xhtml+xml ;q=1' })).toBe(true);
  });

  it('leaves everything else alone', () => {
    expect(isHtmlResponse({})).toBe(false);
    expect(isHtmlResponse({ 'content-type': 'text/css' })).toBe(false);
    expect(isHtmlResponse({ 'content-type': 'text/plain; x=text/html' })).toBe(false);
    expect(isHtmlResponse({ 'content-type': 'application/json' })).toBe(false);
  });
});

describe('readHtmlBody: content codings', () => {
  it('reads an uncompressed page', async () => {
    const result = await html({}, UTF8);
    expect(result).toEqual({ kind: 'html', text: PAGE, charset: 'utf-8', bytes: UTF8.length });
  });

  it.each([
    ['gzip', zlib.gzipSync(UTF8)],
    ['x-gzip', zlib.gzipSync(UTF8)],
    ['GZIP', zlib.gzipSync(UTF8)],
    ['br', zlib.brotliCompressSync(UTF8)],
    ['deflate', zlib.deflateSync(UTF8)],
    ['deflate', zlib.deflateRawSync(UTF8)],
  ])('undoes Content-Encoding %s', async (encoding, body) => {
    const result = await html({ 'Content-Encoding': encoding }, body);
    expect(result.text).toBe(PAGE);
    expect(result.bytes).toBe(UTF8.length);
  });

  it('undoes two codings in the reverse of the order they were applied', async () => {
    const result = await html({ 'Content-Encoding': 'deflate, gzip' }, zlib.gzipSync(zlib.deflateSync(UTF8)));
    expect(result.text).toBe(PAGE);
  });

  it('reads an empty compressed body as an empty page', async () => {
    const result = await html({ 'Content-Encoding': 'gzip' }, Buffer.alloc(0));
    expect(result.text).toBe('');
  });

  it('calls an unknown coding a protocol failure', async () => {
    const err = await failure(readHtmlBody(await served({ headers: { 'Content-Encoding': 'compress' }, body: UTF8 })));
    expect(err.failure).toBe('protocol');
    expect(err.message).toContain('compress');
  });

  it('calls a corrupt gzip stream a protocol failure', async () => {
    const gz = zlib.gzipSync(UTF8);
    gz.fill(0x41, 12, 30);
    const err = await failure(readHtmlBody(await served({ headers: { 'Content-Encoding': 'gzip' }, body: gz })));
    expect(err.failure).toBe('protocol');
  });

  it('calls a truncated gzip stream a protocol failure', async () => {
    const gz = zlib.gzipSync(UTF8);
    const err = await failure(
      readHtmlBody(await served({ headers: { 'Content-Encoding': 'gzip' }, body: gz.subarray(0, gz.length - 10) })),
    );
    expect(err.failure).toBe('protocol');
  });

  it('passes a body timeout on as a timeout', async () => {
    const gz = zlib.gzipSync(Buffer.from(PAGE.repeat(2000)));
    const response = await served(
      { headers: { 'Content-Encoding': 'gzip' }, body: gz, stallAfter: Math.floor(gz.length / 2) },
      impatient,
    );
    const err = await failure(readHtmlBody(response));
    expect(err.failure).toBe('timeout');
  });
});

describe('readHtmlBody: the size limit', () => {
  const big = Buffer.from(`<!doctype html><p>${'x'.repeat(200_000)}</p><p>the end ✓</p>`, 'utf8');

  it('hands back a page over the limit as a stream of the whole decoded body', async () => {
    const result = await readHtmlBody(
      await served({ headers: { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(big) }),
      10_000,
    );
    expect(result.kind).toBe('too-large');
    if (result.kind !== 'too-large') return;
    expect((await bytesOf(result.body)).equals(big)).toBe(true);
  });

  it('does the same for an uncompressed page', async () => {
    const result = await readHtmlBody(await served({ headers: {}, body: big }), 10_000);
    expect(result.kind).toBe('too-large');
    if (result.kind !== 'too-large') return;
    expect((await bytesOf(result.body)).equals(big)).toBe(true);
  });

  it('stops reading a compression bomb soon after the limit', async () => {
    // 1,000 gzip members of 1 MB of spaces each: a 1 GB page in about 1 MB.
    const bomb = Buffer.concat(Array(1000).fill(zlib.gzipSync(Buffer.alloc(1024 * 1024, 0x20))));
    const response = await served({ headers: { 'Content-Encoding': 'gzip' }, body: bomb });
    const result = await readHtmlBody(response, 100_000);
    expect(result.kind).toBe('too-large');
    // Not even the compressed body has been read to its end: nothing near 1 GB was inflated.
    expect(response.body.readableEnded).toBe(false);
    if (result.kind === 'too-large') result.body.destroy();
  });

  it('takes a page exactly at the limit', async () => {
    const result = await html({}, UTF8, UTF8.length);
    expect(result.text).toBe(PAGE);
  });
});

describe('readHtmlBody: the charset', () => {
  const CAFE = latin1('<!doctype html><html><head><title>x</title></head><body><p>caf\xe9 \x80</p></body></html>');

  it('takes the charset from the Content-Type header', async () => {
    const result = await html({ 'Content-Type': 'text/html; charset=ISO-8859-1' }, latin1('<p>caf\xe9</p>'));
    expect(result.text).toBe('<p>café</p>');
    // The WHATWG Encoding standard reads the ISO-8859-1 label as windows-1252, as browsers do.
    expect(result.charset).toBe('windows-1252');
  });

  it('takes a quoted charset parameter', async () => {
    const result = await html({ 'Content-Type': 'text/html;charset="iso-8859-1"' }, latin1('<p>caf\xe9</p>'));
    expect(result.text).toBe('<p>café</p>');
  });

  it('takes <meta charset> when the header has none', async () => {
    const body = latin1('<!doctype html><html><head><meta charset="iso-8859-1"><title>x</title></head><p>caf\xe9</p>');
    const result = await html({}, body);
    expect(result.text).toContain('<p>café</p>');
    expect(result.charset).toBe('windows-1252');
  });

  it('takes <meta http-equiv="content-type"> with a windows-1252 charset', async () => {
    const body = Buffer.concat([
      latin1('<html><head><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1252"></head>'),
      CAFE,
    ]);
    const result = await html({}, body);
    expect(result.text).toContain('<p>café €</p>');
  });

  it("decodes windows-1252's 0x80-0x9F as browsers do, not as ISO-8859-1", async () => {
    const result = await html(
      { 'Content-Type': 'text/html; charset=windows-1252' },
      Buffer.from([0x80, 0x92, 0x9f, 0x81, 0xe9, 0xff]),
    );
    expect(result.text).toBe('\u20ac\u2019\u0178\u0081\u00e9\u00ff');
  });

  it('takes a Shift_JIS page by its header', async () => {
    const body = Buffer.concat([latin1('<p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), latin1('</p>')]);
    const result = await html({ 'Content-Type': 'text/html; charset=Shift_JIS' }, body);
    expect(result.text).toBe('<p>日本</p>');
    expect(result.charset).toBe('shift_jis');
  });

  it('follows a UTF-8 BOM over the header, as browsers do, and drops the BOM', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), UTF8]);
    const result = await html({ 'Content-Type': 'text/html; charset=iso-8859-1' }, body);
    expect(result.text).toBe(PAGE);
    expect(result.charset).toBe('utf-8');
  });

  it('reads a UTF-16LE page by its BOM', async () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(PAGE, 'utf16le')]);
    const result = await html({}, body);
    expect(result.text).toBe(PAGE);
    expect(result.charset).toBe('utf-16le');
  });

  it('skips an unknown header label and goes on to the <meta>', async () => {
    const body = latin1('<meta charset="latin1"><p>caf\xe9</p>');
    const result = await html({ 'Content-Type': 'text/html; charset=no-such-charset' }, body);
    expect(result.text).toContain('café');
  });

  it('reads UTF-8 when nothing is declared, or only an unknown label', async () => {
    expect((await html({}, UTF8)).charset).toBe('utf-8');
    const result = await html({}, Buffer.from('<meta charset="klingon"><p>café</p>'));
    expect(result.charset).toBe('utf-8');
    expect(result.text).toBe('<meta charset="klingon"><p>café</p>');
  });

  it('ignores a <meta> in a comment and one past the first 1024 bytes', async () => {
    const body = latin1(
      `<!-- <meta charset="iso-8859-1"> --><title>${'x'.repeat(1100)}</title><meta charset="iso-8859-1"><p>caf\xe9</p>`,
    );
    const result = await html({}, body);
    expect(result.charset).toBe('utf-8');
    expect(result.text).toContain('caf\ufffd');
  });
});

describe('the <meta> prescan', () => {
  it('takes the first declaring <meta>', async () => {
    const head = Buffer.from('<meta name="x" content="charset=koi8-r"><meta charset="koi8-r"><meta charset="big5">');
    expect(await prescanMetaCharset(head)).toBe('koi8-r');
  });

  it('needs http-equiv="content-type" for a charset in content', async () => {
    expect(await prescanMetaCharset(Buffer.from('<meta content="text/html; charset=koi8-r">'))).toBeNull();
    expect(
      await prescanMetaCharset(Buffer.from('<meta content="text/html; charset=koi8-r" http-equiv="content-type">')),
    ).toBe('koi8-r');
  });

  it('reads a page that declares UTF-16 from inside as UTF-8', async () => {
    expect(await prescanMetaCharset(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
  });

  it('extracts the charset from a content attribute as the HTML standard says', () => {
    expect(charsetFromMetaContent('text/html; charset=utf-8')).toBe('utf-8');
    expect(charsetFromMetaContent('text/html;charset = "windows-1252" ')).toBe('windows-1252');
    expect(charsetFromMetaContent("text/html; CHARSET='koi8-r'")).toBe('koi8-r');
    expect(charsetFromMetaContent('text/html; charset="unterminated')).toBeNull();
    expect(charsetFromMetaContent('text/html; charsetx; charset=big5')).toBe('big5');
    expect(charsetFromMetaContent('text/html')).toBeNull();
  });

  it('reads Content-Type parameters, quoted or not', () => {
    expect(contentTypeParameter('text/html; charset=UTF-8', 'charset')).toBe('UTF-8');
    expect(contentTypeParameter('text/html; a="b;c"; charset="x\\"y"', 'charset')).toBe('x"y');
    expect(contentTypeParameter('text/html', 'charset')).toBeNull();
  });
});
