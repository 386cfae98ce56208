// A complete svc webhook receiver with no dependencies: verifies Svc-Signature, ignores
// duplicates by Svc-Delivery-Id, answers 2xx fast. Copy it, then put your own work in onEvent.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node webhook-receiver.mjs
//
// The signature is Stripe's format, so `stripe.webhooks.constructEvent(rawBody, header, secret)`
// from the stripe package verifies it too.
import crypto from 'node:crypto';
import http from 'node:http';

/** Refuse signatures older than this (seconds): a captured delivery cannot be replayed later. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class SignatureError extends Error {}

/**
 * Checks `header` (the Svc-Signature value) against the raw body exactly as received, and returns
 * the parsed body. Any one `v1=` may match: during a secret rotation deliveries carry two.
 */
export function verifySvcSignature(
  rawBody,
  header,
  secret,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() } = {},
) {
  if (typeof header !== 'string' || header === '') {
    throw new SignatureError(
      'No Svc-Signature header. Is this request from svc, and does your framework pass headers through?',
    );
  }
  const parts = header.split(',').map((p) => p.split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!Number.isInteger(t) || signatures.length === 0) {
    throw new SignatureError(
      'Svc-Signature must look like t=<unix seconds>,v1=<hex>. Pass the header value unchanged.',
    );
  }
  const body = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody;
  if (typeof body !== 'string') {
    throw new SignatureError(
      'Pass the raw request body (a string or Buffer), not parsed JSON: re-serialising changes the bytes that were signed.',
    );
  }
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) {
    throw new SignatureError(
      'No signature matches. Check that you use the raw body exactly as received (no JSON re-serialisation, no trimmed whitespace) ' +
        'and the whsec_ secret of this endpoint, as printed by `svc webhook add` or `svc webhook rotate-secret`.',
    );
  }
  if (Math.abs(now / 1000 - t) > toleranceSeconds) {
    throw new SignatureError(
      `The signature timestamp is more than ${toleranceSeconds} s from this server's clock. Check the clock (NTP), or raise the tolerance.`,
    );
  }
  return JSON.parse(body);
}

/** A (req, res) handler that verifies, deduplicates and hands each event to onEvent(event). */
export function createHandler({ secret, onEvent, seen = new Set() }) {
  return (req, res) => {
    if (req.method !== 'POST') return res.writeHead(405, { Allow: 'POST' }).end();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      let event;
      try {
        event = verifySvcSignature(Buffer.concat(chunks), req.headers['svc-signature'], secret);
      } catch (err) {
        return res.writeHead(400, { 'Content-Type': 'text/plain' }).end(err.message);
      }
      // Delivery is at least once: the same Svc-Delivery-Id can arrive again (retries, replays).
      // Keep this set in your database in real code.
      if (seen.has(event.deliveryId)) return res.writeHead(200).end('duplicate');
      try {
        await onEvent(event);
        seen.add(event.deliveryId);
        res.writeHead(204).end();
      } catch {
        // Any non-2xx makes svc retry later (1 m, 5 m, 30 m, 2 h, 24 h).
        res.writeHead(500).end();
      }
    });
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write('Set WEBHOOK_SECRET to the whsec_ secret printed by `svc webhook add`.\n');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 4000);
  http
    .createServer(createHandler({ secret, onEvent: (e) => console.log(e.event, e.deliveryId, JSON.stringify(e.data)) }))
    .listen(port, () => console.log(`receiving svc webhooks on http://127.0.0.1:${port}/`));
}
