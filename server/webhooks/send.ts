// One HTTP attempt of one delivery. Success is a 2xx status within the timeout; anything else is
// a failure with a reason: a non-2xx status, a 3xx (redirects are never followed: the receiver
// URL was checked, a Location header was not), a timeout, a refused address, a network error.
// The response body is read up to RESPONSE_EXCERPT_BYTES for the attempt log and the connection
// is dropped beyond that, so an endless body costs nothing.
import http from 'node:http';
import https from 'node:https';

export const RESPONSE_EXCERPT_BYTES = 4096;
export const USER_AGENT = 'Svc-Webhooks/1.0';

export interface OutgoingDelivery {
  url: string;
  deliveryId: string;
  event: string;
  body: string;
  signature: string;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** The first 4 KiB of the response body, as text. */
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  startedAt: string;
}

export interface SendOptions {
  agents: { http: http.Agent; https: https.Agent };
  timeoutMs: number;
  /** Refuse anything but https:// (the SSRF guard is on): an endpoint registered while it was off is not sent in clear. */
  requireHttps: boolean;
}

export function sendAttempt(delivery: OutgoingDelivery, opts: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const url = new URL(delivery.url);
  const secure = url.protocol === 'https:';
  const body = Buffer.from(delivery.body, 'utf8');
  if (opts.requireHttps && !secure) {
    return Promise.resolve({
      ok: false,
      statusCode: null,
      responseBody: null,
      durationMs: 0,
      startedAt,
      error: 'refused: the receiver URL is not https:// (set SVC_ALLOW_PRIVATE_WEBHOOKS=true only for development)',
    });
  }

  return new Promise<AttemptResult>((resolve) => {
    let statusCode: number | null = null;
    let settled = false;
    // Streaming mode holds back a multi-byte character cut at the 4 KiB edge instead of mangling it.
    const decoder = new TextDecoder('utf-8', { fatal: false });
    let excerpt = '';
    let received = 0;

    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = error === null && statusCode !== null && statusCode >= 200 && statusCode < 300;
      resolve({
        ok,
        statusCode,
        responseBody: statusCode === null ? null : excerpt,
        error: error ?? (ok ? null : describeStatus(statusCode, location)),
        durationMs: Math.round(performance.now() - started),
        startedAt,
      });
    };
    let location: string | undefined;

    const req = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? opts.agents.https : opts.agents.http,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'User-Agent': USER_AGENT,
        'Svc-Signature': delivery.signature,
        'Svc-Delivery-Id': delivery.deliveryId,
        'Svc-Event': delivery.event,
      },
    });

    // The deadline covers everything up to the status line. A 2xx that arrived in time stays a
    // success even if its body is still trickling when the deadline passes; the read just stops.
    const timer = setTimeout(() => {
      req.destroy();
      finish(statusCode === null ? `timed out after ${opts.timeoutMs} ms without a response` : null);
    }, opts.timeoutMs);

    req.on('response', (res) => {
      statusCode = res.statusCode ?? null;
      location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
      res.on('data', (chunk: Buffer) => {
        const room = RESPONSE_EXCERPT_BYTES - received;
        if (room > 0) excerpt += decoder.decode(chunk.subarray(0, room), { stream: true });
        received += chunk.length;
        if (received > RESPONSE_EXCERPT_BYTES) {
          // Beyond the excerpt nothing is kept: drop the connection rather than drain it.
          res.destroy();
          finish(null);
        }
      });
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(describeError(err)));
    req.end(body);
  });
}

function describeStatus(status: number | null, location: string | undefined): string | null {
  if (status === null) return null;
  if (status >= 300 && status < 400)
    return `redirect to ${location ?? '(no Location)'} not followed; the receiver URL must answer 2xx itself`;
  return `receiver answered ${status}`;
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'UNSAFE_RECEIVER') return `refused: ${err.message}`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
