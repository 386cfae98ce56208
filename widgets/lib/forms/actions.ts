// Widget actions: the writes a widget with a form makes, `POST {site_base}/api/actions/{tag}/...`.
// On a customer's site they go to the platform with the publishable key (the server also checks
// the page's Origin against the community's embed origins) and never carry cookies; on the hosted
// site they are same-origin, keyless, so the visitor's sign-in cookie rides along. A key must not
// be sent there: with a key the server takes the embed path and wants a listed Origin.
import { ApiError } from '../api.ts';
import type { EmbedConfig } from '../contract.ts';

/** What the API's error envelope says about the failure beyond its message. */
export interface ActionExtras {
  /** The input at fault: `email`, `name`, `quantity`, `formAnswers.<fieldId>`, `answers.<fieldId>`. */
  field?: string;
  /** Required form fields left empty. */
  fields?: string[];
  /** Seats left when the request asked for more (422). */
  remaining?: number;
  /** The billing cycles a segment offers, when the one asked is not. */
  offered?: string[];
}

export class ActionError extends ApiError {
  constructor(
    message: string,
    status: number,
    code: string | undefined,
    requestId: string | undefined,
    readonly extras: ActionExtras,
  ) {
    super(message, status, code, requestId);
  }
}

const strings = (v: unknown) => (Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : undefined);

function extrasOf(value: unknown): ActionExtras {
  const e = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return {
    field: typeof e.field === 'string' ? e.field : undefined,
    fields: strings(e.fields),
    remaining: typeof e.remaining === 'number' ? e.remaining : undefined,
    offered: strings(e.offered),
  };
}

export async function postAction<T>(
  config: EmbedConfig,
  path: string,
  body: unknown,
  fetchImpl: typeof fetch = (...a) => fetch(...a),
): Promise<T> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
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
    throw new ActionError('Network error', 0, undefined, undefined, {});
  }
  let json: Record<string, unknown> = {};
  try {
    json = await res.json();
  } catch {
    // Not our envelope (a proxy's error page): the status says enough.
  }
  if (!res.ok) {
    if (json.code === 'ORIGIN_NOT_ALLOWED') config.diagnose?.({ kind: 'origin-not-allowed' });
    throw new ActionError(
      typeof json.error === 'string' ? json.error : `HTTP ${res.status}`,
      res.status,
      typeof json.code === 'string' ? json.code : undefined,
      typeof json.requestId === 'string' ? json.requestId : (res.headers.get('X-Request-Id') ?? undefined),
      extrasOf(json.extras),
    );
  }
  return json as T;
}
