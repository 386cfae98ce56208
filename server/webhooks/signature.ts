// The Svc-Signature header: Stripe's format, `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw
// body>">`, with one v1 per live secret while a rotation overlaps, so a receiver holding either
// secret verifies (stripe.webhooks.constructEvent accepts any matching v1).
import crypto from 'node:crypto';

export function signatureHeader(rawBody: string, secrets: readonly string[], unixSeconds: number): string {
  const signed = `${unixSeconds}.${rawBody}`;
  const v1 = secrets.map((s) => `v1=${crypto.createHmac('sha256', s).update(signed, 'utf8').digest('hex')}`);
  return `t=${unixSeconds},${v1.join(',')}`;
}
