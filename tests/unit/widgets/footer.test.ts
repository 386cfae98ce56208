import { describe, expect, it } from 'vitest';
import { footerModel, networkName, routeKeys, selectFooter } from '../../../widgets/footer/select.ts';

const DEFAULT = { title: 'Demo Hikers', copyright: '© Demo Hikers' };
const EVENTS = { title: 'Events footer' };

describe('selectFooter (which footer a page gets)', () => {
  const storefront = {
    footer: DEFAULT,
    pages: { '/events': { footer: EVENTS }, blog: { footer: false }, shop: { hero: {} } },
  };

  it('uses the default footer without a route, or for a route without its own', () => {
    expect(selectFooter(storefront, null)).toBe(DEFAULT);
    expect(selectFooter(storefront, '/members')).toBe(DEFAULT);
    expect(selectFooter(storefront, '/shop')).toBe(DEFAULT);
  });

  it('uses pages.<route>.footer for a matching route, with or without the slashes', () => {
    for (const route of ['/events', 'events', '/events/', ' /events '])
      expect(selectFooter(storefront, route), route).toBe(EVENTS);
  });

  it('shows no footer on a route whose footer is false or null', () => {
    expect(selectFooter(storefront, '/blog')).toBeNull();
  });

  it('survives a config without footer or pages, or one that is not an object', () => {
    expect(selectFooter({}, '/events')).toBeNull();
    expect(selectFooter({ footer: 'x', pages: [] }, '/events')).toBeNull();
    expect(selectFooter(null, null)).toBeNull();
  });

  it('lists the keys a route may be stored under', () => {
    expect(routeKeys('/events/')).toEqual(['/events/', 'events', '/events']);
    expect(routeKeys('events')).toEqual(['events', '/events']);
  });
});

describe('footerModel (what the footer renders)', () => {
  const site = 'http://demo.localhost:3000';

  it('renders title, columns of links resolved against the site, social links and the copyright', () => {
    const model = footerModel(
      {
        title: 'Demo Hikers',
        columns: [
          {
            title: 'Hike with us',
            links: [
              { label: 'Events', href: '/events' },
              { label: 'LNT', href: 'https://lnt.example', external: true },
            ],
          },
          { title: 'Empty', links: [] },
          {
            links: [
              { label: 'Bad', href: 'javascript:alert(1)' },
              { label: 'Shop', href: '/marketplace' },
            ],
          },
        ],
        social: [
          { network: 'instagram', href: 'https://instagram.com/x' },
          { network: 'YouTube', href: 'https://youtube.com/x' },
          { network: 'x', href: 'javascript:1' },
        ],
        copyright: '© Demo Hikers',
      },
      site,
    );
    expect(model.title).toBe('Demo Hikers');
    expect(model.columns).toEqual([
      {
        title: 'Hike with us',
        links: [
          { label: 'Events', href: 'http://demo.localhost:3000/events', external: false },
          { label: 'LNT', href: 'https://lnt.example/', external: true },
        ],
      },
      { title: null, links: [{ label: 'Shop', href: 'http://demo.localhost:3000/marketplace', external: false }] },
    ]);
    expect(model.social).toEqual([
      { network: 'instagram', label: 'Instagram', href: 'https://instagram.com/x', external: true },
      { network: 'youtube', label: 'YouTube', href: 'https://youtube.com/x', external: true },
    ]);
    expect(model.copyright).toBe('© Demo Hikers');
  });

  it('accepts socialLinks and url, and a label over the network name', () => {
    const model = footerModel(
      { socialLinks: [{ network: 'mastodon', url: 'https://m.example/@x', label: 'Our Mastodon' }] },
      site,
    );
    expect(model.social).toEqual([
      { network: 'mastodon', label: 'Our Mastodon', href: 'https://m.example/@x', external: true },
    ]);
    expect(model).toMatchObject({ title: null, columns: [], copyright: null });
  });

  it('names networks as they write themselves', () => {
    expect(networkName('github')).toBe('GitHub');
    expect(networkName('bluesky')).toBe('Bluesky');
  });
});
