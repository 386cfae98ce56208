// What <svc-donate> reads: the product or event (its name and donationConfig), the currency the
// server will charge in, and the public summary of its donations.
import { batch, signal, type Signal } from '../lib/signals.ts';
import type { DonationConfig, Event, Product, Tier } from '../../contract/resources.ts';
import { ApiError, type ApiClient } from '../lib/api.ts';
import { targetPath, type TargetKind } from './action.ts';

export interface DonateTarget {
  name: string;
  config: DonationConfig | null;
  /** The currency of the donation: the parent's pricing currency, as the server decides it. */
  currency: string;
}

export interface Summary {
  total: number;
  count: number;
  currency: string | null;
}

/**
 * The server's donationTarget(): a product's own currency; for an event, its first tier's
 * (active tiers first, in their order), else the one its donation settings name, else USD.
 */
export function eventCurrency(
  event: Pick<Event, 'tiers' | 'donationConfig'>,
  allTiers: readonly Pick<Tier, 'currency'>[] = [],
): string {
  return (event.tiers[0]?.currency ?? allTiers[0]?.currency ?? event.donationConfig?.currency ?? 'USD').toUpperCase();
}

/**
 * What the server rendered the widget from (its JSON block, docs/hosted-site.md): the target and
 * its summary, so the hosted site's widget needs no keyless /v1 read before its first render.
 */
export interface DonateSeed {
  key: string;
  target: DonateTarget;
  summary: Summary | null;
}

export class DonateStore {
  readonly status: Signal<'loading' | 'ready' | 'error'>;
  readonly error = signal<ApiError | null>(null);
  readonly target: Signal<DonateTarget | null>;
  readonly summary: Signal<Summary | null>;
  private abort = new AbortController();
  private readonly path: string;

  constructor(
    private readonly api: ApiClient,
    community: string,
    readonly kind: TargetKind,
    readonly key: string,
    readonly seed?: DonateSeed,
  ) {
    this.status = signal(seed ? 'ready' : 'loading');
    this.target = signal(seed?.target ?? null);
    this.summary = signal(seed?.summary ?? null);
    this.path = `/v1/communities/${encodeURIComponent(community)}${targetPath(kind, key)}`;
  }

  async load(): Promise<void> {
    batch(() => {
      this.status.value = 'loading';
      this.error.value = null;
    });
    const signal = this.abort.signal;
    try {
      const [target] = await Promise.all([this.readTarget(signal), this.refreshSummary()]);
      batch(() => {
        this.target.value = target;
        this.status.value = 'ready';
      });
    } catch (e) {
      if (signal.aborted) return;
      batch(() => {
        this.error.value = e instanceof ApiError ? e : new ApiError(String(e), 0);
        this.status.value = 'error';
      });
    }
  }

  private async readTarget(signal: AbortSignal): Promise<DonateTarget> {
    if (this.kind === 'product') {
      const { data } = await this.api.get<Product>(this.path, { signal });
      return { name: data.name, config: data.donationConfig ?? null, currency: data.currency.toUpperCase() };
    }
    const { data } = await this.api.get<Event>(this.path, { signal });
    // Only an event with no tier on sale needs the full list (inactive ones) to know its currency.
    const all =
      data.tiers.length || !data.donationConfig?.enabled
        ? []
        : (await this.api.get<Tier[]>(`${this.path}/tiers`, { signal })).data;
    return { name: data.name, config: data.donationConfig ?? null, currency: eventCurrency(data, all) };
  }

  /** The summary, never from a cache (the server says `no-store` too); a failure keeps the last one. */
  async refreshSummary(): Promise<void> {
    try {
      const { data } = await this.api.get<Summary>(`${this.path}/donations/summary`, {
        signal: this.abort.signal,
        fresh: true,
      });
      this.summary.value = data;
    } catch {
      // The line is a nicety: without it the donor can still give.
    }
  }

  dispose(): void {
    this.abort.abort();
  }
}
