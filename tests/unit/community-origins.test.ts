// The one origin rule (server/domain/community-origins.ts): which origins belong to a community,
// and where a visitor may be sent after signing in. One table of spellings, each as an attacker
// (or a browser) would write it, with what the server must hand to the browser.
import { describe, expect, it } from 'vitest';
import { ReturnUrl } from '../../contract/common.ts';
import {
  communitySites,
  foreignReturnUrls,
  normalizeOrigin,
  ownOrigins,
  safeReturnTarget,
  type CommunityOrigins,
} from '../../server/domain/community-origins.ts';

const SITE = 'https://club.example';
const PLATFORM = 'https://svc.example';
const club: CommunityOrigins = {
  id: 'c1',
  tag: 'club',
  embeds: new Set(['https://shop.example', 'https://xn--bcher-kva.example', 'http://localhost:8080']),
  landing: 'https://www.club.example',
  domains: ['club.example'],
};
const allowed = ownOrigins(club, PLATFORM, SITE);

// [spelling, what `next` becomes on https://club.example]
const NEXT_TABLE: Array<[string, string]> = [
  // Paths on this site stay paths.
  ['/events', '/events'],
  ['/events?past=true#top', '/events?past=true#top'],
  ['events', '/events'],
  ['?tab=1', '/?tab=1'],
  ['#section', '/#section'],
  ['/a/../b/./c', '/b/c'],
  ['/%0a/evil', '/%0a/evil'],
  ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ['/%5C%5Cevil.example', '/%5C%5Cevil.example'],
  ['/\uff0f\uff0fevil.example', '/%EF%BC%8F%EF%BC%8Fevil.example'],
  // Dot segments and encoded dots that leave a path starting with `//`: another host to a browser.
  ['/.//evil.example/phish', '/'],
  ['/..//evil.example', '/'],
  ['/%2e//evil.example', '/'],
  ['/%2E%2E//evil.example', '/'],
  ['..//evil.example', '/'],
  ['/././/evil.example', '/'],
  // Scheme-relative, backslashes, tabs and newlines: the parser reads them as another host.
  ['//evil.example/phish', '/'],
  ['///evil.example', '/'],
  ['/\\evil.example', '/'],
  ['\\\\evil.example', '/'],
  ['\\/evil.example', '/'],
  ['/\t/evil.example', '/'],
  ['/\n/evil.example', '/'],
  ['\t//evil.example', '/'],
  [' //evil.example', '/'],
  ['\u0001//evil.example', '/'],
  // Other origins, whatever the spelling.
  ['https://evil.example', '/'],
  ['https:\\\\evil.example', '/'],
  ['https://shop.example.evil.example/', '/'],
  ['https://shop.example@evil.example/', '/'],
  ['https://club.example:443@evil.example/', '/'],
  ['http://shop.example/', '/'],
  ['https://shop.example:8443/', '/'],
  ['https://shop.example./', '/'],
  ['https://\u0455hop.example/', '/'],
  ['https://[::1]/', '/'],
  // Not http(s), however cased or disguised.
  ['javascript:alert(1)', '/'],
  ['JavaScript:alert(1)', '/'],
  ['java\tscript:alert(1)', '/'],
  ['java\nscript:alert(1)', '/'],
  ['\u0001javascript:alert(1)', '/'],
  ['javascript://%0aalert(1)', '/'],
  ['data:text/html,<script>alert(1)</script>', '/'],
  ['vbscript:msgbox(1)', '/'],
  ['file:///etc/passwd', '/'],
  ['blob:https://club.example/0a1b', '/'],
  ['mailto:a@evil.example', '/'],
  // Credentials, even on an allowed origin, are never handed on.
  ['https://user:pw@shop.example/', '/'],
  ['https://user@club.example/', '/'],
  // The community's own origins, normalised.
  ['https://shop.example/events?x=1&y=2#top', 'https://shop.example/events?x=1&y=2#top'],
  ['HTTPS://SHOP.EXAMPLE:443/a', 'https://shop.example/a'],
  ['https://shop.example\\@evil.example/', 'https://shop.example/@evil.example/'],
  ['https://shop\u3002example/', 'https://shop.example/'],
  ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
  ['http://localhost:8080/page', 'http://localhost:8080/page'],
  ['//shop.example/x', 'https://shop.example/x'],
  ['https://www.club.example/', 'https://www.club.example/'],
  ['https://club.example/here', 'https://club.example/here'],
  ['https://club.example//evil.example', 'https://club.example//evil.example'],
  // Same scheme without slashes is relative to this site, as the browser reads it.
  ['https:evil.example', 'https://club.example/evil.example'],
  ['https:/evil.example', 'https://club.example/evil.example'],
  ['http:/here', '/'],
];

describe('safeReturnTarget: next after sign-in', () => {
  it.each(NEXT_TABLE)('%j -> %j', (spelling, expected) => {
    expect(safeReturnTarget(spelling, SITE, allowed)).toBe(expected);
  });

  it('has at least 30 hostile spellings, and none of its answers leads off the community', () => {
    const hostile = NEXT_TABLE.filter(([, out]) => out === '/');
    expect(hostile.length).toBeGreaterThanOrEqual(30);
    for (const [spelling] of NEXT_TABLE) {
      const out = safeReturnTarget(spelling, SITE, allowed);
      // What a browser on the site does with the answer: it must stay on one of the community's origins.
      expect(allowed.has(new URL(out, SITE).origin), spelling).toBe(true);
      expect(out.startsWith('//'), spelling).toBe(false);
    }
  });

  it('refuses what is not a usable string', () => {
    for (const value of [undefined, null, '', ['/a', '/b'], { toString: () => '/x' }, 42, `/${'a'.repeat(2000)}`]) {
      expect(safeReturnTarget(value, SITE, allowed)).toBe('/');
    }
  });

  it('on the platform host, only the platform itself', () => {
    const platformOnly = ownOrigins(null, PLATFORM, PLATFORM);
    expect(safeReturnTarget('https://shop.example/', PLATFORM, platformOnly)).toBe('/');
    expect(safeReturnTarget('/settings', PLATFORM, platformOnly)).toBe('/settings');
    expect(safeReturnTarget(`${PLATFORM}/docs`, PLATFORM, platformOnly)).toBe(`${PLATFORM}/docs`);
  });

  it('pathOnly: a provider sign-in comes back to a path on this site, never to another origin', () => {
    const only = (v: string) => safeReturnTarget(v, SITE, allowed, { pathOnly: true });
    expect(only('/events?past=true')).toBe('/events?past=true');
    expect(only('https://club.example/events')).toBe('/events');
    expect(only('https://shop.example/events')).toBe('/');
    for (const [spelling, out] of NEXT_TABLE) {
      if (out === '/') expect(only(spelling), spelling).toBe('/');
    }
  });

  it('resolves relative targets against the site given, not a fixed one', () => {
    expect(
      safeReturnTarget(
        'http:here',
        'http://club.localhost:3000',
        ownOrigins(null, PLATFORM, 'http://club.localhost:3000'),
      ),
    ).toBe('http://club.localhost:3000/here');
  });
});

describe('the origins of a community', () => {
  it("are its embed origins, landing site and hosted sites (on the platform's scheme and port)", () => {
    expect(communitySites(club, PLATFORM)).toEqual([
      'https://www.club.example',
      'https://club.example',
      'https://club.localhost',
    ]);
    expect(communitySites(club, 'http://127.0.0.1:3000')).toEqual([
      'https://www.club.example',
      'http://club.example:3000',
      'http://club.localhost:3000',
    ]);
    expect([...ownOrigins(club, PLATFORM)].sort()).toEqual([
      'http://localhost:8080',
      'https://club.example',
      'https://club.localhost',
      'https://shop.example',
      'https://www.club.example',
      'https://xn--bcher-kva.example',
    ]);
  });

  it('without a landing site or domains, the default site is <tag>.localhost', () => {
    expect(communitySites({ ...club, landing: null, domains: [] }, PLATFORM)).toEqual(['https://club.localhost']);
  });

  it('no community owns nothing but the site named', () => {
    expect([...ownOrigins(null, PLATFORM)]).toEqual([]);
    expect([...ownOrigins(null, PLATFORM, null, 'https://svc.example')]).toEqual(['https://svc.example']);
  });
});

// [stored or sent text, normalised origin or null]
const ORIGIN_TABLE: Array<[string, string | null]> = [
  ['https://shop.example', 'https://shop.example'],
  ['HTTPS://Shop.Example:443/', 'https://shop.example'],
  ['http://localhost:8080', 'http://localhost:8080'],
  ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ['  https://shop.example  ', 'https://shop.example'],
  ['*', null],
  ['null', null],
  ['https://shop.example/path', null],
  ['https://shop.example?', null],
  ['https://shop.example#x', null],
  ['https://user@shop.example', null],
  ['ftp://shop.example', null],
  ['shop.example', null],
  ['', null],
];

describe('normalizeOrigin', () => {
  it.each(ORIGIN_TABLE)('%j -> %j', (text, expected) => {
    expect(normalizeOrigin(text)).toBe(expected);
  });
});

describe('return URLs of checkouts', () => {
  const parse = (text: string) => ReturnUrl.safeParse(text);

  it('are stored normalised: the host every later reader sees is the one judged', () => {
    expect(parse('http://127.0.0.1:3290\\@evil.example/').data).toBe('http://127.0.0.1:3290/@evil.example/');
    expect(parse('HTTPS://Shop.Example:443/a/../thanks').data).toBe('https://shop.example/thanks');
    expect(parse('https://shop.example/ok\t?x=1').data).toBe('https://shop.example/ok?x=1');
    expect(parse('https://shop.example').data).toBe('https://shop.example/');
  });

  it('keep the {CHECKOUT_SESSION_ID} placeholder wherever it is', () => {
    expect(parse('https://shop.example/thanks?s={CHECKOUT_SESSION_ID}').data).toBe(
      'https://shop.example/thanks?s={CHECKOUT_SESSION_ID}',
    );
    expect(parse('https://shop.example/thanks/{CHECKOUT_SESSION_ID}').data).toBe(
      'https://shop.example/thanks/{CHECKOUT_SESSION_ID}',
    );
  });

  it('refuse credentials, other schemes and relative URLs', () => {
    for (const bad of [
      'https://user:pw@shop.example/',
      'https://user@shop.example/',
      'javascript:alert(1)',
      'data:text/html,x',
      '/thanks',
      '//shop.example/',
    ]) {
      expect(parse(bad).success, bad).toBe(false);
    }
    expect(parse('https://user@shop.example/').error?.issues[0].message).toBe(
      'must not contain a user name or password',
    );
  });

  it('are judged by origin after normalisation', () => {
    const normalised = (text: string) => parse(text).data as string;
    expect(
      foreignReturnUrls(allowed, [
        ['successUrl', normalised('https://shop.example\\@evil.example/')],
        ['cancelUrl', normalised('https://evil.example/')],
      ]),
    ).toEqual(['cancelUrl']);
    expect(
      foreignReturnUrls(allowed, [
        ['successUrl', undefined],
        ['cancelUrl', 'https://club.example/x'],
      ]),
    ).toEqual([]);
  });
});
