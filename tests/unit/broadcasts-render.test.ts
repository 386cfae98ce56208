// One recipient's copy of a broadcast: merge fields, footer and the unsubscribe headers.
import { describe, expect, it } from 'vitest';
import { renderBroadcastMail, renderSubject, unsubscribeMailto } from '../../server/mail/broadcast-render.ts';

const url = 'https://club.example/unsubscribe?token=abc.def';
const body = {
  subject: 'Hi {{name}}',
  html: '<p>Dear {{ name }}, {{name}}!</p>',
  text: 'Dear {{name}}\n',
  communityName: 'Chess <&> Co',
  test: false,
};

describe('broadcast rendering', () => {
  it('replaces {{name}} escaped in the html and as it is in the text', () => {
    const mail = renderBroadcastMail(body, { name: '<b>Ann</b> & "Co"', unsubscribeUrl: url }, 'no-reply@club.example');
    expect(mail.html).toContain(
      '<p>Dear &lt;b&gt;Ann&lt;/b&gt; &amp; &quot;Co&quot;, &lt;b&gt;Ann&lt;/b&gt; &amp; &quot;Co&quot;!</p>',
    );
    expect(mail.text.startsWith('Dear <b>Ann</b> & "Co"\n\n-- \n')).toBe(true);
  });

  it('keeps replacement patterns in a name literal', () => {
    const mail = renderBroadcastMail(body, { name: "$& $' $1", unsubscribeUrl: url }, 'a@b.example');
    expect(mail.text).toContain("Dear $& $' $1");
    expect(renderSubject('Hi {{name}}', '$&', false)).toBe('Hi $&');
  });

  it('adds the footer with the unsubscribe link to both parts, the community name escaped in the html', () => {
    const mail = renderBroadcastMail(body, { name: 'Ann', unsubscribeUrl: url }, 'a@b.example');
    expect(mail.text).toContain(
      `You receive this as a member of Chess <&> Co.\nUnsubscribe from these e-mails: ${url}\n`,
    );
    expect(mail.html).toContain('You receive this as a member of Chess &lt;&amp;&gt; Co.');
    expect(mail.html).toContain(
      `<a href="https://club.example/unsubscribe?token=abc.def">Unsubscribe from these e-mails</a>`,
    );
  });

  it('carries List-Unsubscribe with the URL and a mailto, and the RFC 8058 one-click header', () => {
    const mail = renderBroadcastMail(body, { name: 'Ann', unsubscribeUrl: url }, 'no-reply@club.example');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': `<${url}>, <mailto:no-reply@club.example?subject=unsubscribe%20abc.def>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribeMailto('x@y.example', url)).toBe('mailto:x@y.example?subject=unsubscribe%20abc.def');
  });

  it('a text-only broadcast has no html part', () => {
    expect(
      renderBroadcastMail({ ...body, html: null }, { name: 'Ann', unsubscribeUrl: url }, 'a@b.example').html,
    ).toBeNull();
  });

  it('puts the subject on one line, "[TEST] " in front of a test', () => {
    expect(renderSubject('News for {{name}}', 'Ann\r\nBcc: x@y', false)).toBe('News for Ann Bcc: x@y');
    expect(renderSubject('Line\none', 'Ann', true)).toBe('[TEST] Line one');
  });

  it('says in a test copy’s footer that its link changes nothing', () => {
    const mail = renderBroadcastMail({ ...body, test: true }, { name: 'Ann', unsubscribeUrl: url }, 'a@b.example');
    expect(mail.text).toContain('This is a test copy of a broadcast; its unsubscribe link changes nothing.');
  });
});
