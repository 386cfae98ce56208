// <svc-footer>: the community's site footer: title, columns of links, social links, copyright.
//   route="/events"   use storefrontConfig.pages[route].footer when the config has one
//   landmarks="none"  a <div> instead of the <footer> contentinfo, inside a page's own <footer>
//   locale            formatting locale (else the page's lang)
//   site-href="{path}" link template for site-relative links ({path}); default the community's site
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import { Footer } from './Footer.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'footer',
  styles,
  attributes: ['route', 'landmarks', 'site-href'],
  values: { landmarks: /^(own|none)$/ },
  render: (props) => h(Footer, props),
});
