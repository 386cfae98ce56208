// <svc-rsvp>'s widget actions: `POST {site_base}/api/actions/{tag}/events/{slug}/rsvp|checkout`,
// sent as every widget form sends (widgets/lib/forms/actions.ts).
export { ActionError, postAction, type ActionExtras } from '../lib/forms/actions.ts';

export function actionPath(community: string, slug: string, action: 'rsvp' | 'checkout'): string {
  return `/api/actions/${encodeURIComponent(community)}/events/${encodeURIComponent(slug)}/${action}`;
}
