// The donate widget action, `POST {site_base}/api/actions/{tag}/{products/{sku}|events/{slug}}/donate`,
// sent like <svc-rsvp>'s: on a customer's site to the platform with the publishable key and no
// cookies (the server checks the page's Origin against the embed origins); on the hosted site
// same-origin and keyless, so a signed-in visitor's cookie names the donor. Its failures are
// mapped back onto the form here.
import { ApiError } from '../lib/api.ts';
import type { EmbedConfig } from '../lib/contract.ts';
import { formatAmount } from './money.ts';
import type { DonateBody } from './rules.ts';

export type TargetKind = 'product' | 'event';

export interface DonateExtras {
  /** `donation.amount`, `customer.email`, `donation` (donations switched off). */
  field?: string;
  minimum?: number;
  amounts?: number[];
}

export class DonateError extends ApiError {
  constructor(
    message: string,
    status: number,
    code: string | undefined,
    requestId: string | undefined,
    readonly extras: DonateExtras = {},
    /** Seconds, from `Retry-After` on a 429. */
    readonly retryAfter: number | null = null,
  ) {
    super(message, status, code, requestId);
  }
}

export const targetPath = (kind: TargetKind, key: string) =>
  `/${kind === 'product' ? 'products' : 'events'}/${encodeURIComponent(key)}`;

export const donatePath = (community: string, kind: TargetKind, key: string) =>
  `/api/actions/${encodeURIComponent(community)}${targetPath(kind, key)}/donate`;

export async function postDonation(
  config: EmbedConfig,
  path: string,
  body: DonateBody,
  fetchImpl: typeof fetch = (...a) => fetch(...a),
): Promise<{ checkoutUrl: string; sessionId: string }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  // Never on the hosted site: with a key the server takes the embed path and wants a listed Origin.
  if (!config.hosted && config.key) headers['X-API-Key'] = config.key;
  let res: Response;
  try {
    res = await fetchImpl((config.hosted ? '' : config.api) + path, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      credentials: config.hosted ? 'same-origin' : 'omit',
    });
  } catch {
    throw new DonateError('Network error', 0, undefined, undefined);
  }
  const json = (await res.json().catch(() => ({}))) as {
    error?: string;
    code?: string;
    requestId?: string;
    extras?: DonateExtras;
  };
  if (res.ok) return json as unknown as { checkoutUrl: string; sessionId: string };
  if (json.code === 'ORIGIN_NOT_ALLOWED') config.diagnose?.({ kind: 'origin-not-allowed' });
  const retry = Number(res.headers.get('Retry-After'));
  throw new DonateError(
    json.error ?? `HTTP ${res.status}`,
    res.status,
    json.code,
    json.requestId ?? res.headers.get('X-Request-Id') ?? undefined,
    // Our own envelope (contract/errors.ts); a proxy's error page has none and leaves it empty.
    json.extras ?? {},
    retry > 0 ? retry : null,
  );
}

/** This page's origin is not one of the community's embed origins (the console says which to add). */
export const NOT_SET_UP = "This site isn't set up for donations yet, so nothing was sent.";

/** Where a refusal is shown: next to the amount, next to the e-mail, or under the form. */
export interface Problem {
  field: 'amount' | 'email' | null;
  message: string;
}

export function problemFrom(
  error: DonateError,
  currency: string,
  locale: string | undefined,
  emailShown: boolean,
): Problem {
  const { status, code, extras } = error;
  const money = (minor: number) => formatAmount(minor, currency, locale);
  if (status === 0)
    return { field: null, message: "We couldn't reach the server. Check your connection and try again." };
  if (code === 'ORIGIN_NOT_ALLOWED') return { field: null, message: NOT_SET_UP };
  if (status === 429) {
    const wait = error.retryAfter ?? 60;
    const when = wait < 60 ? `${wait} seconds` : wait < 120 ? 'a minute' : `${Math.ceil(wait / 60)} minutes`;
    return { field: null, message: `Too many attempts. Please try again in ${when}.` };
  }
  if (code === 'INVALID_DONATION_AMOUNT' && extras.minimum !== undefined)
    return { field: 'amount', message: `Give at least ${money(extras.minimum)}.` };
  if (code === 'INVALID_DONATION_AMOUNT') {
    const listed = extras.amounts?.length ? `: ${extras.amounts.map(money).join(', ')}` : '';
    return { field: 'amount', message: `Choose one of the amounts${listed}.` };
  }
  if (emailShown && (code === 'INVALID_EMAIL' || extras.field?.startsWith('customer'))) {
    return { field: 'email', message: 'Enter an e-mail address like name@example.com.' };
  }
  if (extras.field === 'donation') return { field: null, message: 'Donations are closed here.' };
  if (status >= 500) return { field: null, message: 'Something went wrong on our side. Please try again.' };
  return { field: null, message: error.message };
}
