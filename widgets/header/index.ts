// <svc-header>: the community's site header: logo or name, the nav (filtered by the server for
// the viewer), dropdowns, sign-in or the signed-in user, the notification bell, a mobile menu.
//   current="/events"   the page the visitor is on, for aria-current (default: this page's URL)
//   landmarks="none"    a <div> instead of the <header> banner, for a page that wraps it in its own
//   locale              formatting locale (else the page's lang)
//   site-href="{path}"   link template for site-relative links and the home link; default the community's site
// Host page events: svc:header:navigate {href, label, external} (cancelable),
// svc:header:sign-in {url} (cancelable), svc:header:sign-out {}, svc:header:error {action, status, code, requestId, message}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import { Header } from './Header.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'header',
  styles,
  attributes: ['current', 'landmarks', 'site-href'],
  values: { landmarks: /^(own|none)$/ },
  render: (props) => h(Header, props),
});
