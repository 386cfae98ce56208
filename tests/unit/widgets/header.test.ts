import { describe, expect, it } from 'vitest';
import { badgeText, bellLabel, unreadCount } from '../../../widgets/header/bell.ts';
import { headerLook } from '../../../widgets/header/look.ts';
import { navEntries } from '../../../widgets/header/nav.ts';

const SITE = 'https://hikers.example';
const HERE = 'https://blog.example/post';

describe('navEntries (what the header renders from storefrontConfig.nav)', () => {
  it('resolves site-relative links against the community site and keeps absolute ones', () => {
    const entries = navEntries(
      [
        { href: '/events', label: 'Events', iconKey: 'calendar' },
        { href: 'https://shop.example/', label: 'Shop' },
        { href: 'events/past', label: 'Archive' },
      ],
      SITE,
      HERE,
    );
    expect(entries).toEqual([
      {
        kind: 'link',
        label: 'Events',
        href: 'https://hikers.example/events',
        external: false,
        current: false,
        icon: 'calendar',
      },
      { kind: 'link', label: 'Shop', href: 'https://shop.example/', external: false, current: false, icon: null },
      {
        kind: 'link',
        label: 'Archive',
        href: 'https://hikers.example/events/past',
        external: false,
        current: false,
        icon: null,
      },
    ]);
  });

  it('makes a dropdown of an item with children, its own link first, one level deep', () => {
    const [about] = navEntries(
      [
        {
          href: '/about',
          label: 'About',
          children: [
            { href: '/blog/who', label: 'Who we are' },
            { href: 'https://lnt.example', label: 'Leave No Trace', external: true },
            { label: 'Deeper', href: '/deeper', children: [{ href: '/x', label: 'Grandchild' }] },
          ],
        },
      ],
      SITE,
      HERE,
    );
    expect(about.kind).toBe('group');
    if (about.kind !== 'group') return;
    expect(about.label).toBe('About');
    expect(about.children.map((c) => [c.label, c.href, c.external])).toEqual([
      ['About', 'https://hikers.example/about', false],
      ['Who we are', 'https://hikers.example/blog/who', false],
      ['Leave No Trace', 'https://lnt.example/', true],
      ['Deeper', 'https://hikers.example/deeper', false],
    ]);
  });

  it('drops unsafe or unusable items instead of rendering them', () => {
    const entries = navEntries(
      [
        { href: 'javascript:alert(1)', label: 'XSS' },
        { href: ' JaVaScRiPt:alert(1)', label: 'XSS 2' },
        { href: 'data:text/html,hi', label: 'Data' },
        { href: '/ok', label: '   ' },
        { label: 'No link' },
        { label: 'Empty dropdown', children: [{ href: 'javascript:x', label: 'Bad' }] },
        'not an item',
        null,
        { href: 'mailto:hi@hikers.example', label: 'Mail' },
      ],
      SITE,
      HERE,
    );
    expect(entries.map((e) => e.label)).toEqual(['Mail']);
    expect(navEntries(undefined, SITE, HERE)).toEqual([]);
  });

  it('marks the current page, and the dropdown that holds it', () => {
    const nav = [
      { href: '/', label: 'Home' },
      { href: '/events', label: 'Events' },
      { label: 'More', children: [{ href: '/blog', label: 'Journal' }] },
    ];
    const onEvent = navEntries(nav, SITE, 'https://hikers.example/events/ridge-walk');
    expect(onEvent.map((e) => [e.label, e.current])).toEqual([
      ['Home', false],
      ['Events', true],
      ['More', false],
    ]);
    const onBlog = navEntries(nav, SITE, 'https://hikers.example/blog/');
    expect(onBlog.map((e) => e.current)).toEqual([false, false, true]);
    // Another origin (a customer's page) is never the community's page.
    expect(navEntries(nav, SITE, 'https://blog.example/events').some((e) => e.current)).toBe(false);
  });
});

describe('headerLook (storefrontConfig.header -> classes and custom properties)', () => {
  it('uses the defaults for an empty or missing config', () => {
    const look = headerLook(undefined);
    expect(look.classes.split(' ')).toEqual([
      'style-solid',
      'density-comfortable',
      'logo-lockup-logo-text',
      'nav-link-style-plain',
      'nav-position-right',
      'nav-active-indicator-underline',
      'icon-chrome-none',
      'sign-in-style-button',
    ]);
    expect(look.vars).toEqual({});
    expect(look.showBell).toBe(false);
  });

  it('turns design keys into classes and value keys into --svc-theme-header-* properties', () => {
    const look = headerLook({
      style: 'transparent',
      density: 'compact',
      navPosition: 'center',
      signInStyle: 'outline',
      logoLockup: 'logoText',
      bgColor: '#1f3d2f',
      textColor: ' #f6f3ec ',
      navFontSize: 15,
      navFontWeight: 600,
      navSpacing: '1.5em',
      navTextTransform: 'uppercase',
      navActiveColor: '#f2b45a',
      showBell: true,
      borderBottom: true,
    });
    expect(look.classes).toContain('style-transparent');
    expect(look.classes).toContain('density-compact');
    expect(look.classes).toContain('nav-position-center');
    expect(look.classes).toContain('logo-lockup-logo-text');
    expect(look.classes).toContain('border-bottom');
    expect(look.variants.signInStyle).toBe('outline');
    expect(look.vars).toEqual({
      '--svc-theme-header-bg-color': '#1f3d2f',
      '--svc-theme-header-text-color': '#f6f3ec',
      '--svc-theme-header-nav-font-size': '15px',
      '--svc-theme-header-nav-font-weight': '600',
      '--svc-theme-header-nav-spacing': '1.5em',
      '--svc-theme-header-nav-text-transform': 'uppercase',
      '--svc-theme-header-nav-active-color': '#f2b45a',
    });
    expect(look.showBell).toBe(true);
  });

  it('never lets a value become a class name or a rule', () => {
    const look = headerLook({
      style: 'x" onclick="alert(1)',
      density: 'a b',
      bgColor: 'red;} * {display:none',
      navFont: { evil: 1 },
    });
    expect(look.classes).toContain('style-solid');
    expect(look.classes).toContain('density-comfortable');
    expect(look.vars).not.toHaveProperty('--svc-theme-header-bg-color');
    expect(look.vars).not.toHaveProperty('--svc-theme-header-nav-font');
  });

  it('takes colours, lengths, keywords and plain font names in the keys that use them', () => {
    const look = headerLook({
      bgColor: 'rgba(31, 61, 47, 0.9)',
      textColor: 'white',
      navActiveColor: 'hsl(36deg 85% 65% / 50%)',
      navFont: 'Inter, system-ui, sans-serif',
      navFontSize: '0.95rem',
      navFontWeight: 'bold',
      navSpacing: '-2px',
      navLetterSpacing: 'normal',
      navTextTransform: 'capitalize',
      navLinkPadding: '6px 12px',
      borderBottom: '#ccc',
    });
    expect(look.vars).toEqual({
      '--svc-theme-header-bg-color': 'rgba(31, 61, 47, 0.9)',
      '--svc-theme-header-text-color': 'white',
      '--svc-theme-header-nav-active-color': 'hsl(36deg 85% 65% / 50%)',
      '--svc-theme-header-nav-font': 'Inter, system-ui, sans-serif',
      '--svc-theme-header-nav-font-size': '0.95rem',
      '--svc-theme-header-nav-font-weight': 'bold',
      '--svc-theme-header-nav-spacing': '-2px',
      '--svc-theme-header-nav-letter-spacing': 'normal',
      '--svc-theme-header-nav-text-transform': 'capitalize',
      '--svc-theme-header-nav-link-padding': '6px 12px',
      '--svc-theme-header-border-color': '#ccc',
    });
  });

  it('drops url(), expression(), var(), @import, quotes, escapes, braces and semicolons from every value key', () => {
    const hostile = [
      'url(https://evil.example/track.png)',
      'URL( "//evil.example/x" )',
      'expression(alert(1))',
      'var(--host-secret)',
      'red; background: url(x)',
      '@import "https://evil.example/x.css"',
      '"Inter"',
      "'Inter'",
      '\\75 rl(x)',
      'red}body{display:none',
      '{}',
      'calc(var(--x) * 2)',
      'image-set("x.png" 1x)',
      'rgb(var(--x))',
      'blue !important',
      '/* x */',
    ];
    const keys = [
      'bgColor',
      'textColor',
      'navActiveColor',
      'navFont',
      'navFontSize',
      'navFontWeight',
      'navSpacing',
      'navLetterSpacing',
      'navTextTransform',
      'navLinkPadding',
    ];
    for (const value of hostile) {
      const look = headerLook(Object.fromEntries([...keys.map((k) => [k, value]), ['borderBottom', value]]));
      expect(look.vars, value).toEqual({});
      // The line is still drawn when asked for, in its default colour.
      expect(look.classes, value).toContain('border-bottom');
    }
  });

  it('keeps each kind of value to its keys: no colour as a length, no length as a colour', () => {
    const look = headerLook({
      bgColor: '12px',
      navFontSize: '#fff',
      navTextTransform: 'red',
      navFontWeight: '15px',
      navFont: 'a;b',
      navLinkPadding: '1px 2px 3px 4px 5px',
    });
    expect(look.vars).toEqual({});
  });

  it('reads borderBottom as on/off, or as the colour of the line', () => {
    expect(headerLook({ borderBottom: false }).classes).not.toContain('border-bottom');
    const coloured = headerLook({ borderBottom: '#cccccc' });
    expect(coloured.classes).toContain('border-bottom');
    expect(coloured.vars['--svc-theme-header-border-color']).toBe('#cccccc');
  });
});

describe('the bell', () => {
  it('reads {count} and nothing else', () => {
    expect(unreadCount({ count: 3 })).toBe(3);
    expect(unreadCount({ count: 0 })).toBe(0);
    for (const bad of [null, 3, { count: -1 }, { count: 1.5 }, { count: '3' }, { unread: 2 }])
      expect(unreadCount(bad)).toBeNull();
  });

  it('shows nothing at zero and caps the badge at 99+, and says the count in words', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(7)).toBe('7');
    expect(badgeText(100)).toBe('99+');
    expect(bellLabel(0)).toBe('Notifications');
    expect(bellLabel(4)).toBe('Notifications, 4 unread');
  });
});
