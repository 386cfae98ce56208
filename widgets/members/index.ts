// <svc-members>: the community's member directory, in the order members joined.
//   limit="12"  page size (1-100, default 12); "Load more" fetches the next page
//   locale      formatting locale (else the page's lang)
//   member-href link template for a card ("/people/{usertag}", {usertag} {id}); default the community's site
// The filter box narrows the members already loaded (name, @usertag, bio); it does not search
// the server. Host page events: svc:members:select {usertag, userId} (cancelable),
// svc:members:error {status, code, requestId, message}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import { MembersDirectory } from './MembersDirectory.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'members',
  styles,
  attributes: ['limit', 'member-href'],
  values: { limit: /^([1-9]\d?|100)$/ },
  render: (props) => h(MembersDirectory, props),
});
