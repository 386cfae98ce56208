// HTTPS as the deployment declares it. TLS is usually ended by a proxy in front of svc, so the
// request in hand often says `http` even when the browser used https; what the operator set in
// SVC_PUBLIC_URL is the truth. When it is https:
// - every cookie we set is `Secure`, on the platform host and on every community's domain alike
//   (one deployment serves them all through the same front, and a cookie without it would travel
//   in clear, and could be overwritten, on any plain-http request);
// - every answer carries Strict-Transport-Security, so browsers stop trying plain http at all.
// When it is http (development), a cookie is Secure only if the request itself came over https.
// See docs/sign-in.md, "The cookie".
import type { Express, Request, RequestHandler } from 'express';

/** One year, and no `includeSubDomains`: subdomains of the platform's or a community's domain may be services we do not run. */
export const HSTS_VALUE = 'max-age=31536000';

const HTTPS_SETTING = 'svc https';

/** Records on the app whether the public URL is https, and sends HSTS from then on when it is. */
export function transportSecurity(app: Express, publicUrl: string): RequestHandler {
  const https = new URL(publicUrl).protocol === 'https:';
  app.set(HTTPS_SETTING, https);
  return (_req, res, next) => {
    if (https) res.setHeader('Strict-Transport-Security', HSTS_VALUE);
    next();
  };
}

/** `; Secure` for a Set-Cookie of this request's answer, or nothing on a plain-http deployment's plain-http request. */
export function secureAttribute(req: Request): string {
  return req.app.get(HTTPS_SETTING) === true || req.protocol === 'https' ? '; Secure' : '';
}
