// <svc-apply segment="id">: apply to a membership segment. Free segments answer at once (welcome,
// or "we'll review"); paid ones go to the hosted checkout and back.
//   segment   a segment id: that segment only; without it the visitor picks among the public ones
//   source    free-form attribution sent with the application (`member.requested`'s source)
//   locale    formatting locale for prices (else the page's lang)
// Host page events: svc:apply:submitted {requestId, segmentId, status}, svc:apply:checkout
// {requestId, sessionId, checkoutUrl} (cancelable: keeps the widget from navigating),
// svc:apply:error {action, status, code, requestId, message}.
import { h } from 'preact';
import { defineWidget } from '../lib/define-element.ts';
import fieldsCss from '../lib/forms/fields.css?inline';
import { ApplyWidget } from './ApplyWidget.tsx';
import styles from './styles.css?inline';

export default defineWidget({
  name: 'apply',
  styles: fieldsCss + styles,
  attributes: ['segment', 'source'],
  render: (props) => h(ApplyWidget, props),
});
