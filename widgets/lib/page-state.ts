// The page-wide state a server-rendered page carries (`<script type="application/json"
// id="svc-state">`: the community, who is signed in; docs/hosted-site.md). Read once, by whichever
// needs it first: define-element for the community, session.ts for the viewer. Module scripts run
// after the document is parsed, so the block (at the end of <body>) is there by then.
import type { Community } from '../../contract/resources.ts';
import type { SessionUser } from './session.ts';

export interface PageState {
  community: Community;
  session: SessionUser | null;
}

let state: PageState | null | undefined;

/** The page's state block, or null on a page the server did not render (a customer's). */
export function pageState(): PageState | null {
  if (state === undefined) {
    const block = typeof document === 'undefined' ? null : document.getElementById('svc-state');
    state = block ? (JSON.parse(block.textContent!) as PageState) : null;
  }
  return state;
}
