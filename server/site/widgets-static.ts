// The widget bundle under /widgets/. Any origin may load it. `loader.js` keeps a fixed name so
// customers can paste it, so it is cached briefly and revalidated by ETag; every other file is
// content-hashed and cached for a year.
//
// Each file goes out brotli- or gzip-compressed when the request's Accept-Encoding allows, from
// the copies the build made at the highest levels (vite.config.ts, COMPRESSED_DIR): compressing
// per request would cost CPU on every page view for a worse result. The copies are never URLs of
// their own (they are outside the published directory), so a cache can only ever hold a
// compressed answer under `Vary: Accept-Encoding` (docs/widgets.md, "How the bundle is served").
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';

/** What is served: a flat file name ending in `.js`, so no path can leave the directory. */
const FILE_NAME = /^[\w-][\w.-]*\.js$/;

/** The codings the build makes, in the server's order of preference (smallest first). */
const CODINGS = [
  { name: 'br', ext: '.br' },
  { name: 'gzip', ext: '.gz' },
] as const;
type Coding = (typeof CODINGS)[number]['name'] | 'identity';

/**
 * The coding to send: the one the request accepts with the highest q-value (RFC 9110 §12.5.3),
 * the server's order (brotli, gzip, then none) breaking ties, so Chromium's `gzip, deflate, br,
 * zstd` gets brotli. Identity is acceptable unless refused, but preferred only when the request
 * ranks it above the others; it is also what is sent when nothing else is acceptable (there is
 * nothing else to send).
 */
export function chooseCoding(acceptEncoding: string | undefined, available: readonly Coding[]): Coding {
  const q = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.toLowerCase().split(';');
    const token = name.trim();
    if (!token) continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = weight ? Number(weight.slice(2)) : 1;
    q.set(token, Number.isFinite(value) ? value : 0);
  }
  const qOf = (coding: string, unlisted: number) => q.get(coding) ?? q.get('*') ?? unlisted;
  let best: Coding = 'identity';
  let bestQ = 0;
  for (const coding of CODINGS.map((c) => c.name).filter((c) => available.includes(c))) {
    const value = qOf(coding, 0);
    if (value > bestQ) [best, bestQ] = [coding, value];
  }
  return qOf('identity', Number.MIN_VALUE) > bestQ ? 'identity' : best;
}

interface Variant {
  body: Buffer;
  etag: string;
  /** Of the file it was read from, to notice a rebuild. */
  mtimeMs: number;
  size: number;
}

export function widgetsStatic(distDir: string): RequestHandler[] {
  const published = path.join(distDir, 'widgets');
  const compressed = path.join(distDir, 'widgets-compressed');
  // Small files, a few dozen per build: kept in memory, an entry replaced when its file changes
  // (new mtime or size); the names of an earlier build stay until a restart.
  const cache = new Map<string, Variant>();

  async function read(file: string): Promise<Variant | null> {
    let stat;
    try {
      stat = await fs.stat(file);
    } catch {
      return null;
    }
    if (!stat.isFile()) return null;
    const known = cache.get(file);
    if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known;
    const body = await fs.readFile(file);
    // Of the bytes sent, so each coding of a file has its own (a cache must not answer a
    // brotli request's revalidation with the gzip body's validator).
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const variant = { body, etag, mtimeMs: stat.mtimeMs, size: stat.size };
    cache.set(file, variant);
    return variant;
  }

  /** The compressed copies of `name` that exist and are not older than the file itself. */
  async function variants(name: string): Promise<{ identity: Variant; coded: Map<Coding, Variant> } | null> {
    const identity = await read(path.join(published, name));
    if (!identity) return null;
    const coded = new Map<Coding, Variant>();
    for (const { name: coding, ext } of CODINGS) {
      const copy = await read(path.join(compressed, name + ext));
      if (copy && copy.mtimeMs >= identity.mtimeMs) coded.set(coding, copy);
    }
    return { identity, coded };
  }

  const serve: RequestHandler = (req: Request, res: Response, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (!FILE_NAME.test(name)) return next();
    variants(name).then((found) => {
      if (!found) return next();
      const coding = chooseCoding(req.get('Accept-Encoding'), [...found.coded.keys()]);
      const variant = coding === 'identity' ? found.identity : found.coded.get(coding)!;
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader(
        'Cache-Control',
        name === 'loader.js' ? 'public, max-age=300' : 'public, max-age=31536000, immutable',
      );
      res.setHeader('ETag', variant.etag);
      if (matches(req.get('If-None-Match'), variant.etag)) return void res.status(304).end();
      res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
      res.setHeader('Content-Length', String(variant.body.length));
      if (req.method === 'HEAD') return void res.end();
      res.end(variant.body);
    }, next);
  };
  return [serve];
}

/** If-None-Match against our (strong) ETag, with the weak comparison RFC 9110 §13.1.2 asks for. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
