// <svc-donate sku="..." | event="...">: give to a product or an event through the hosted
// checkout. Amount chips (fixed amounts, or suggestions plus a custom amount in
// pay-what-you-want), the donor's e-mail when nobody is signed in, and "N supporters raised X".
//   sku | event   the product's SKU or the event's slug (one of them; `sku` wins if both)
//   mode          `button`: a compact "Donate" button that opens the form in a popover
//   locale        formatting locale for amounts (else the page's lang)
// Host page events: svc:donate:checkout {sessionId, checkoutUrl, amount, currency} (cancelable:
// keeps the widget from navigating), svc:donate:error {action, status, code, requestId, message}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import { DonateWidget } from './DonateWidget.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'donate',
  styles,
  attributes: ['sku', 'event', 'mode'],
  values: { mode: /^(inline|button)$/ },
  render: (props) => h(DonateWidget, props),
});
