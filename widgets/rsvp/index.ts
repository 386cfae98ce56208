// <svc-rsvp event="slug">: book a ticket for one event. A free tier is an RSVP in place (the QR
// ticket is shown and e-mailed); a paid tier goes to the hosted checkout and back.
//   event     the event's slug (required)
//   locale    formatting locale for prices (else the page's lang)
// Host page events: svc:rsvp:confirmed {rsvpId, tierId, event}, svc:rsvp:checkout {sessionId,
// checkoutUrl} (cancelable: keeps the widget from navigating), svc:rsvp:error {action, status,
// code, requestId, message}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import fieldsCss from '../lib/forms/fields.css?inline';
import { RsvpWidget } from './RsvpWidget.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'rsvp',
  styles: fieldsCss + styles,
  attributes: ['event'],
  render: (props) => h(RsvpWidget, props),
});
