// $community: the community object, fetched once per page and shared by every widget on it, so
// five widgets cost one request and all of them theme from the same answer.
import { atom } from 'nanostores';
import type { Community } from '../../contract/resources.ts';
import type { ApiClient, ApiError } from './api.ts';
import type { EmbedConfig } from './contract.ts';

export type CommunityState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; community: Community }
  | { status: 'error'; error: ApiError };

export const $community = atom<CommunityState>({ status: 'idle' });

let requestedTag: string | null = null;
let latest = 0;

/**
 * Starts the fetch on first use; later calls for the same tag are free. `reload` fetches again
 * (after sign-in or sign-out, when the nav the server filters for the viewer changes) while the
 * widgets keep showing the current object: no loading flash, and a failed reload keeps it.
 */
export function loadCommunity(api: ApiClient, tag: string, reload = false): void {
  if (requestedTag === tag && !reload) return;
  requestedTag = tag;
  const request = ++latest;
  const keep = reload && $community.get().status === 'ready';
  if (!keep) $community.set({ status: 'loading' });
  api.get<Community>(`/api/communities/${encodeURIComponent(tag)}`, { auth: false, fresh: reload }).then(
    // Only the newest request may answer: an older one may describe the previous viewer.
    ({ data }) => request === latest && $community.set({ status: 'ready', community: data }),
    (error: ApiError) => {
      if (request !== latest || keep) return;
      // A later widget may try again (the first failure may have been a blip).
      requestedTag = null;
      $community.set({ status: 'error', error });
    },
  );
}

/**
 * The community the server rendered the page with (its state block, see define-element): the
 * widgets hydrate from it, and the fetch loadCommunity would start is not needed.
 */
export function seedCommunity(tag: string, community: Community): void {
  requestedTag = tag;
  $community.set({ status: 'ready', community });
}

/** Settled means widgets can stop waiting: a failed community load degrades to default styling. */
export function isSettled(state: CommunityState): boolean {
  return state.status === 'ready' || state.status === 'error';
}

const isDevHost = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * Origin of the community's own site, where links to full pages (an event, the events page)
 * go. Explicit `data-site` wins; on the hosted apex it is this page; else the community's first
 * custom domain; else the platform's `<tag>.<platform host>` address (in development
 * `demo.localhost:3000`, which the platform maps to the community).
 */
export function siteOrigin(config: EmbedConfig, community: Community | null, pageOrigin: string): string {
  if (config.site) return config.site.replace(/\/+$/, '');
  if (config.hosted) return pageOrigin;
  const api = new URL(config.api);
  const domain = community?.domains[0];
  if (domain)
    return isDevHost(domain) ? `${api.protocol}//${domain}${api.port ? `:${api.port}` : ''}` : `https://${domain}`;
  return `${api.protocol}//${config.community}.${api.host}`;
}
