// The widget bundle under /widgets/. Any origin may load it. `loader.js` keeps a fixed name so
// customers can paste it, so it is cached briefly; every other file is content-hashed and
// cached for a year.
import path from 'node:path';
import express, { type RequestHandler } from 'express';

export function widgetsStatic(distDir: string): RequestHandler[] {
  const cors: RequestHandler = (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    next();
  };
  const files = express.static(path.join(distDir, 'widgets'), {
    fallthrough: true,
    index: false,
    setHeaders(res, file) {
      res.setHeader(
        'Cache-Control',
        path.basename(file) === 'loader.js' ? 'public, max-age=300' : 'public, max-age=31536000, immutable',
      );
    },
  });
  return [cors, files];
}
