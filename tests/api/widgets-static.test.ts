// The widget bundle as the server sends it (server/site/widgets-static.ts): the build's brotli and
// gzip copies chosen by Accept-Encoding, the cache headers, ETags and 304s, HEAD, and nothing but
// the bundle's own files reachable under /widgets/.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WidgetManifest } from '../../vite.config.ts';
import { chooseCoding } from '../../server/site/widgets-static.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

const DIST = path.resolve(import.meta.dirname, '../../dist');
/** Chromium's Accept-Encoding: brotli is listed after gzip. */
const CHROMIUM = 'gzip, deflate, br, zstd';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Raw HTTP: the path exactly as given (no normalising of `..`), the body as the bytes sent. */
function get(server: TestServer, urlPath: string, headers: Record<string, string> = {}, method = 'GET') {
  const { port } = new URL(server.url);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let real: TestServer;
let planted: TestServer;
let plantedDir: string;
let chunk: string;
const file = (name: string) => fs.readFileSync(path.join(DIST, 'widgets', name));

beforeAll(async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST, 'widgets.manifest.json'), 'utf8')) as WidgetManifest;
  chunk = manifest.widgets.events.file;
  real = await startTestServer();

  // A dist/ of our own, with what a careless deployment or an attacker might leave around it.
  plantedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-widgets-static-'));
  const published = path.join(plantedDir, 'widgets');
  const compressed = path.join(plantedDir, 'widgets-compressed');
  fs.mkdirSync(path.join(published, 'nested.js'), { recursive: true });
  fs.mkdirSync(path.join(published, 'sub'));
  fs.mkdirSync(compressed);
  const code = Buffer.from(`export const answer = ${JSON.stringify('x'.repeat(2000))};\n`);
  fs.writeFileSync(path.join(published, 'fresh.js'), code);
  fs.writeFileSync(path.join(compressed, 'fresh.js.br'), brotliCompressSync(code));
  fs.writeFileSync(path.join(compressed, 'fresh.js.gz'), gzipSync(code));
  // A copy older than its file (a rebuild that did not make copies): never sent.
  fs.writeFileSync(path.join(compressed, 'stale.js.br'), brotliCompressSync(Buffer.from('old')));
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(compressed, 'stale.js.br'), past, past);
  fs.writeFileSync(path.join(published, 'stale.js'), code);
  // Only a gzip copy.
  fs.writeFileSync(path.join(published, 'gzonly.js'), code);
  fs.writeFileSync(path.join(compressed, 'gzonly.js.gz'), gzipSync(code));
  // Files that are not the bundle's.
  fs.writeFileSync(path.join(published, 'fresh.js.br'), 'LEAK-planted-brotli');
  fs.writeFileSync(path.join(published, '.hidden.js'), 'LEAK-hidden');
  fs.writeFileSync(path.join(published, 'notes.txt'), 'LEAK-notes');
  fs.writeFileSync(path.join(published, 'sub', 'deep.js'), 'LEAK-deep');
  fs.writeFileSync(path.join(plantedDir, 'widgets.manifest.json'), '{"LEAK":"manifest"}');
  fs.writeFileSync(path.join(plantedDir, 'outside.js'), 'LEAK-outside');
  planted = await startTestServer({ distDir: plantedDir });
});

afterAll(async () => {
  await real?.close();
  await planted?.close();
  if (plantedDir) fs.rmSync(plantedDir, { recursive: true, force: true });
});

describe('widget bundle: happy path', () => {
  it('sends Chromium the brotli copy, which decodes to the built file', async () => {
    const r = await get(real, `/widgets/${chunk}`, { 'Accept-Encoding': CHROMIUM });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['vary']).toBe('Accept-Encoding');
    expect(r.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(file(chunk).length / 2);
    expect(brotliDecompressSync(r.body).equals(file(chunk))).toBe(true);
  });

  it('sends gzip to a client without brotli, and the file itself to one that accepts neither', async () => {
    const gz = await get(real, `/widgets/${chunk}`, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gunzipSync(gz.body).equals(file(chunk))).toBe(true);

    for (const accept of [undefined, 'identity', 'deflate']) {
      const plain = await get(real, `/widgets/${chunk}`, accept ? { 'Accept-Encoding': accept } : {});
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['vary']).toBe('Accept-Encoding');
      expect(Number(plain.headers['content-length'])).toBe(file(chunk).length);
      expect(plain.body.equals(file(chunk))).toBe(true);
    }
  });

  it('follows q-values, brotli first on a tie', () => {
    const both = ['br', 'gzip'] as const;
    expect(chooseCoding(CHROMIUM, both)).toBe('br');
    expect(chooseCoding('br;q=0, gzip', both)).toBe('gzip');
    expect(chooseCoding('gzip;q=1, br;q=0.5', both)).toBe('gzip');
    expect(chooseCoding('gzip;q=0.8, br;q=0.8', both)).toBe('br');
    expect(chooseCoding('*', both)).toBe('br');
    expect(chooseCoding('*;q=0.5, br;q=0', both)).toBe('gzip');
    expect(chooseCoding('identity, br;q=0.5', both)).toBe('identity');
    expect(chooseCoding('GZIP', both)).toBe('gzip');
    expect(chooseCoding(' br ; q=0.9 , gzip;q=0.5', both)).toBe('br');
    expect(chooseCoding('br', ['gzip'])).toBe('identity');
    expect(chooseCoding('', both)).toBe('identity');
    expect(chooseCoding(undefined, both)).toBe('identity');
  });

  it('caches hashed chunks for a year, immutable, and loader.js for five minutes', async () => {
    const hashed = await get(real, `/widgets/${chunk}`, { 'Accept-Encoding': CHROMIUM });
    expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const loader = await get(real, '/widgets/loader.js', { 'Accept-Encoding': CHROMIUM });
    expect(loader.status).toBe(200);
    expect(loader.headers['cache-control']).toBe('public, max-age=300');
  });

  it("gives loader.js an ETag per coding and answers 304 to that coding's own", async () => {
    const tags = new Map<string, string>();
    for (const accept of ['br', 'gzip', 'identity']) {
      const r = await get(real, '/widgets/loader.js', { 'Accept-Encoding': accept });
      expect(r.headers.etag).toMatch(/^"[\w-]+"$/);
      tags.set(accept, r.headers.etag!);
    }
    expect(new Set(tags.values()).size).toBe(3);

    const again = await get(real, '/widgets/loader.js', { 'Accept-Encoding': 'br', 'If-None-Match': tags.get('br')! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(tags.get('br'));
    expect(again.headers['vary']).toBe('Accept-Encoding');
    expect(again.headers['cache-control']).toBe('public, max-age=300');
    expect(again.headers['access-control-allow-origin']).toBe('*');

    // Weak comparison, lists and `*`, as RFC 9110 asks of If-None-Match.
    for (const inm of [`W/${tags.get('br')}`, `"other", ${tags.get('br')}`, '*']) {
      const r = await get(real, '/widgets/loader.js', { 'Accept-Encoding': 'br', 'If-None-Match': inm });
      expect(r.status, inm).toBe(304);
    }
    // The gzip body's validator does not revalidate a brotli answer.
    const other = await get(real, '/widgets/loader.js', {
      'Accept-Encoding': 'br',
      'If-None-Match': tags.get('gzip')!,
    });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('br');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const getAnswer = await get(real, '/widgets/loader.js', { 'Accept-Encoding': CHROMIUM });
    const head = await get(real, '/widgets/loader.js', { 'Accept-Encoding': CHROMIUM }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-encoding', 'content-length', 'content-type', 'etag', 'vary', 'cache-control'])
      expect(head.headers[name], name).toBe(getAnswer.headers[name]);
  });

  it('lets any origin load and embed the bundle', async () => {
    const r = await get(real, `/widgets/${chunk}`, { 'Accept-Encoding': CHROMIUM, Origin: 'https://customer.example' });
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});

describe('widget bundle: errors', () => {
  it('answers 404 for a file the build did not make', async () => {
    expect((await get(real, '/widgets/nope-123.js')).status).toBe(404);
  });

  it('serves only GET and HEAD', async () => {
    const r = await get(real, '/widgets/loader.js', {}, 'POST');
    expect(r.status).not.toBe(200);
    expect(r.headers['cache-control']).not.toBe('public, max-age=300');
  });

  it('sends the file itself when its compressed copy is older than it, or missing', async () => {
    const stale = await get(planted, '/widgets/stale.js', { 'Accept-Encoding': CHROMIUM });
    expect(stale.status).toBe(200);
    expect(stale.headers['content-encoding']).toBeUndefined();
    expect(stale.body.toString()).toContain('export const answer');

    const gzOnly = await get(planted, '/widgets/gzonly.js', { 'Accept-Encoding': CHROMIUM });
    expect(gzOnly.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzOnly.body).toString()).toContain('export const answer');
  });

  it('still answers a malformed Accept-Encoding', async () => {
    for (const accept of ['br;q=abc', ';;,,', 'br;q=', `${'x'.repeat(4000)}, gzip`]) {
      const r = await get(planted, '/widgets/fresh.js', { 'Accept-Encoding': accept });
      expect(r.status, accept).toBe(200);
    }
  });
});

describe('widget bundle: security', () => {
  it('never publishes the compressed copies as URLs of their own', async () => {
    for (const url of [
      '/widgets/fresh.js.br',
      '/widgets/fresh.js.gz',
      `/widgets/${chunk}.br`,
      `/widgets/${chunk}.gz`,
    ]) {
      const server = url.includes('fresh') ? planted : real;
      const r = await get(server, url, { 'Accept-Encoding': CHROMIUM });
      expect(r.status, url).toBe(404);
      expect(r.headers['content-encoding'], url).toBeUndefined();
      expect(r.body.toString(), url).not.toContain('LEAK');
    }
  });

  it('reaches nothing outside the bundle: no traversal, dotfiles, subfolders or other file types', async () => {
    const attempts = [
      '/widgets/../outside.js',
      '/widgets/..%2foutside.js',
      '/widgets/%2e%2e/outside.js',
      '/widgets/..%5coutside.js',
      '/widgets/../widgets-compressed/fresh.js.br',
      '/widgets/..%2fwidgets-compressed%2ffresh.js.br',
      '/widgets/../widgets.manifest.json',
      '/widgets/.hidden.js',
      '/widgets/sub/deep.js',
      '/widgets/sub%2fdeep.js',
      '/widgets/nested.js',
      '/widgets/notes.txt',
      '/widgets/fresh.js%00.br',
      '/widgets/fresh.js/',
    ];
    for (const url of attempts) {
      const r = await get(planted, url, { 'Accept-Encoding': CHROMIUM });
      // 404, or 400 where the router itself refuses the path (a NUL byte).
      expect([400, 404], url).toContain(r.status);
      // What every planted file holds (the 404's message may quote the path).
      expect(r.body.toString(), url).not.toContain('LEAK');
    }
  });

  it('does not let a client choose the file through Accept-Encoding', async () => {
    const r = await get(planted, '/widgets/fresh.js', { 'Accept-Encoding': '../../outside.js, br' });
    expect(r.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(r.body).toString()).toContain('export const answer');
  });
});
