// Plain form posts on the hosted site (docs/hosted-site.md, "Form posts"): the RSVP, check-in,
// chat and apply forms work without JavaScript, so they are `application/x-www-form-urlencoded`
// posts authenticated by the sign-in cookie, which the browser sends whoever made the page. A
// post is accepted only when it passes the checks cookie writes pass (assertOwnOrigin in
// server/http/session.ts: Fetch Metadata same-origin where the browser sends it, and an Origin
// equal to this site's) and carries the synchronizer token: `_csrf`, an HMAC of the visitor's
// session id under a key derived from the session secret, compared in constant time.
//
// The token is bound to the session id (the `sid` claim), not to the token string itself: a
// session's token is re-issued under the same sid when the API refreshes the cookie (after a
// day), and a form rendered before that refresh must still post. Signing out revokes the sid,
// and with it every token embedded in its forms.
import crypto from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { SessionTokens } from '../../domain/sessions.ts';

/** The hidden field every form post carries. */
export const CSRF_FIELD = '_csrf';

/** The key form tokens are made with: derived from the session secret, for this use only. */
export function csrfKey(sessions: SessionTokens): Buffer {
  return sessions.deriveKey('hosted site form tokens v1');
}

/** What a page embeds as `<input type="hidden" name="_csrf">` in every form for this session. */
export function csrfTokenFor(key: Buffer, sessionId: string): string {
  return crypto.createHmac('sha256', key).update(`form:${sessionId}`).digest('base64url');
}

/** Whether `given` is this session's token, compared in constant time. */
export function csrfTokenMatches(key: Buffer, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const expected = Buffer.from(csrfTokenFor(key, sessionId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/**
 * Why a form post is refused before its body is read, or null: the same origin checks as a
 * cookie write (a cross-site form, or a page on another origin, cannot pass them), and the one
 * content type a plain form sends.
 */
export function formOriginRefusal(req: Request): string | null {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return 'not a form post';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'posted from another site';
  const origin = req.headers.origin;
  // As in assertOwnOrigin: req.host is the site the cookie and the community come from.
  if (!origin || origin !== `${req.protocol}://${req.host}`) return 'posted from another site';
  return null;
}

/** A flat form: one string per field (the first of a repeated one); nothing nested. */
export type FormFields = Record<string, string>;

// Room for the longest form: an application's long answers (up to 10,000 characters each) or a
// 4,000-character message, percent-encoded (up to 9 bytes a character).
const urlencoded = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 500 });

/** Reads the form body; null when it cannot be read (too large, malformed). */
export function readFormFields(req: Request, res: Response): Promise<FormFields | null> {
  return new Promise((resolve) => {
    urlencoded(req, res, (err?: unknown) => {
      if (err) return resolve(null);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const fields: FormFields = {};
      for (const [name, value] of Object.entries(body)) {
        const first = Array.isArray(value) ? value[0] : value;
        if (typeof first === 'string') fields[name] = first;
      }
      resolve(fields);
    });
  });
}

/** The hidden field, for a page's form. */
export const csrfInput = (token: string): string =>
  `<input type="hidden" name="${CSRF_FIELD}" value="${token.replace(/[^A-Za-z0-9_-]/g, '')}">`;
