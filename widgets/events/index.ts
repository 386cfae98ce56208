// <svc-events>: the community's events, upcoming first.
//   limit="6"   page size (1-100, default 10); "Load more" fetches the next page
//   featured    only the featured event
//   past        past events, newest first
//   locale      formatting locale (else the page's lang)
//   event-href  link template for a card ("/events/{slug}", {slug} {id}); default the community's site
// Host page events: svc:events:select {slug, id} (cancelable), svc:events:error {status, code, requestId}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import { EventsList } from './EventsList.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'events',
  styles,
  attributes: ['limit', 'featured', 'past', 'event-href'],
  values: { limit: /^([1-9]\d?|100)$/ },
  render: (props) => h(EventsList, props),
});
