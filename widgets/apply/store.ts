// What <svc-apply> reads, all on /v1 (with the publishable key; keyless on the community's own
// hosted site, docs/decisions/0027-own-site-reads-need-no-key.md): the segments open to new members,
// each segment's form (fetched the first time it is chosen), and check-email for the address
// being typed. The community (its name, accessibility and rules) is the page-wide $community.
import { batch, signal, type Signal } from '../lib/signals.ts';
import type { FormField, Segment } from '../../contract/resources.ts';
import { ApiError, type ApiClient } from '../lib/api.ts';
import type { EmailStatus } from './form.ts';

export type LoadStatus = 'loading' | 'ready' | 'error';
export type FormState = { status: 'loading' } | { status: 'ready'; schema: FormField[] } | { status: 'error' };

const toApiError = (e: unknown) =>
  e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : 'Unexpected error', 0);

/**
 * What the hosted site's `/apply` rendered the widget from (its JSON block): the public segments
 * and the forms of those that have one, so it hydrates, and a segment is chosen, with no request.
 */
export interface ApplySeed {
  segments: Segment[];
  forms: Record<string, FormField[]>;
}

export class ApplyStore {
  readonly status: Signal<LoadStatus>;
  readonly error = signal<ApiError | null>(null);
  readonly segments: Signal<Segment[]>;
  readonly forms: Signal<Record<string, FormState>>;
  private abort = new AbortController();
  private readonly base: string;

  constructor(
    private readonly api: ApiClient,
    community: string,
    readonly seed?: ApplySeed,
  ) {
    this.base = `/v1/communities/${encodeURIComponent(community)}/segments`;
    this.status = signal(seed ? 'ready' : 'loading');
    this.segments = signal(seed?.segments ?? []);
    const forms: Record<string, FormState> = {};
    for (const id in seed?.forms) forms[id] = { status: 'ready', schema: seed.forms[id] };
    this.forms = signal(forms);
  }

  /** The public segments; also the retry after an error, and the refresh after a refusal (`fresh`). */
  async load(fresh = false): Promise<void> {
    if (!fresh) {
      batch(() => {
        this.status.value = 'loading';
        this.error.value = null;
      });
    }
    try {
      const { data } = await this.api.get<Segment[]>(`${this.base}/public`, { signal: this.abort.signal, fresh });
      batch(() => {
        this.segments.value = Array.isArray(data) ? data : [];
        this.status.value = 'ready';
      });
    } catch (e) {
      if (this.abort.signal.aborted || fresh) return;
      batch(() => {
        this.error.value = toApiError(e);
        this.status.value = 'error';
      });
    }
  }

  /** A segment's form: nothing to fetch without one; once fetched, kept. */
  async loadForm(segment: Segment): Promise<void> {
    const known = this.forms.value[segment.id];
    if (known && known.status !== 'error') return;
    const set = (state: FormState) => {
      this.forms.value = { ...this.forms.value, [segment.id]: state };
    };
    if (!segment.hasForm) return set({ status: 'ready', schema: [] });
    set({ status: 'loading' });
    try {
      const { data } = await this.api.get<{ segmentId: string; schema: FormField[] }>(
        `${this.base}/${encodeURIComponent(segment.id)}/form`,
        { signal: this.abort.signal },
      );
      set({ status: 'ready', schema: Array.isArray(data.schema) ? data.schema : [] });
    } catch {
      if (!this.abort.signal.aborted) set({ status: 'error' });
    }
  }

  /**
   * check-email for `email`; null when it could not be asked (the check only informs: the submit
   * is what the server judges). `signal` drops an answer for an address typed over since.
   */
  async checkEmail(segmentId: string, email: string, signal: AbortSignal): Promise<EmailStatus | null> {
    try {
      const { data } = await this.api.get<{ exists: boolean; status: EmailStatus }>(
        `${this.base}/${encodeURIComponent(segmentId)}/check-email`,
        { query: { email }, signal, fresh: true },
      );
      return typeof data.status === 'string' ? data.status : null;
    } catch {
      return null;
    }
  }

  dispose(): void {
    this.abort.abort();
  }
}
