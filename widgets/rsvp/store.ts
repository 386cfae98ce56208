// What <svc-rsvp> reads: the event (its name and dates), every tier of it (inactive ones too, so
// a closed tier is shown as closed rather than vanishing), and each tier's form, fetched the
// first time that tier is chosen.
import { batch, signal, type Signal } from '../lib/signals.ts';
import type { Event, FormField, Tier } from '../../contract/resources.ts';
import { ApiError, type ApiClient } from '../lib/api.ts';

export type LoadStatus = 'loading' | 'ready' | 'error';
export type FormState = { status: 'loading' } | { status: 'ready'; schema: FormField[] } | { status: 'error' };

const toApiError = (e: unknown) =>
  e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : 'Unexpected error', 0);

/**
 * What the server rendered the widget from (its JSON block): the event and its tiers, and, only
 * in the server's own render, the no-JavaScript parts of the booking form (RsvpSsr, below).
 */
export interface RsvpSeed {
  event: Event;
  tiers: Tier[];
  /**
   * The open tiers' forms. On the hosted site the widget has no publishable key for the /v1 reads,
   * so what it reads comes with the page: choosing a tier needs no request.
   */
  forms?: Record<string, FormField[]>;
  ssr?: RsvpSsr;
}

/**
 * Server only. Without JavaScript the form posts itself to `action` (a free tier; `tierId` is the
 * tier radio), and `noscript` is what it shows then: the CSRF field and a submit button, or a
 * sign-in link (HTML the server built, escaped there), in a `.nojs` box that only
 * `@media (scripting: none)` shows (widgets/ssr.tsx). Hydration keeps the form's attributes and
 * drops the box, which the client render does not have.
 */
export interface RsvpSsr {
  action: string;
  noscript: string;
}

export class RsvpStore {
  readonly status: Signal<LoadStatus>;
  readonly error = signal<ApiError | null>(null);
  readonly event: Signal<Event | null>;
  readonly tiers: Signal<Tier[]>;
  readonly forms: Signal<Record<string, FormState>>;
  private abort = new AbortController();
  private readonly base: string;

  constructor(
    private readonly api: ApiClient,
    community: string,
    readonly slug: string,
    readonly seed?: RsvpSeed,
  ) {
    this.status = signal(seed ? 'ready' : 'loading');
    this.event = signal(seed?.event ?? null);
    this.tiers = signal(seed?.tiers ?? []);
    const forms: Record<string, FormState> = {};
    for (const id in seed?.forms) forms[id] = { status: 'ready', schema: seed.forms[id] };
    this.forms = signal(forms);
    this.base = `/v1/communities/${encodeURIComponent(community)}`;
  }

  /** The event and its tiers; also the retry after an error. */
  async load(): Promise<void> {
    batch(() => {
      this.status.value = 'loading';
      this.error.value = null;
    });
    try {
      const path = `${this.base}/events/${encodeURIComponent(this.slug)}`;
      const [event, tiers] = await Promise.all([
        this.api.get<Event>(path, { signal: this.abort.signal }),
        this.api.get<Tier[]>(`${path}/tiers`, { signal: this.abort.signal }),
      ]);
      batch(() => {
        this.event.value = event.data;
        this.tiers.value = Array.isArray(tiers.data) ? tiers.data : [];
        this.status.value = 'ready';
      });
    } catch (e) {
      if (this.abort.signal.aborted) return;
      batch(() => {
        this.error.value = toApiError(e);
        this.status.value = 'error';
      });
    }
  }

  /** Seats after a sale or a "sold out": the list again, fresh from the server. */
  async refreshTiers(): Promise<void> {
    try {
      const { data } = await this.api.get<Tier[]>(`${this.base}/events/${encodeURIComponent(this.slug)}/tiers`, {
        signal: this.abort.signal,
        fresh: true,
      });
      if (Array.isArray(data)) this.tiers.value = data;
    } catch {
      // The list shown stays; the server still refuses what it cannot sell.
    }
  }

  /** A tier's form: none to fetch when the tier has no form; once fetched, kept. */
  async loadForm(tier: Tier): Promise<void> {
    const known = this.forms.value[tier.id];
    if (known && known.status !== 'error') return;
    const set = (state: FormState) => {
      this.forms.value = { ...this.forms.value, [tier.id]: state };
    };
    if (!tier.hasForm) return set({ status: 'ready', schema: [] });
    set({ status: 'loading' });
    try {
      const { data } = await this.api.get<{ tierId: string; schema: FormField[] }>(
        `${this.base}/tiers/${encodeURIComponent(tier.id)}/form`,
        { signal: this.abort.signal },
      );
      set({ status: 'ready', schema: Array.isArray(data.schema) ? data.schema : [] });
    } catch {
      if (!this.abort.signal.aborted) set({ status: 'error' });
    }
  }

  dispose(): void {
    this.abort.abort();
  }
}
