import { describe, expect, it } from 'vitest';
import { locationLabel, priceSummary } from '../../../widgets/events/summary.ts';
import { event, tier } from './fixtures.ts';

describe('priceSummary', () => {
  it('says nothing when no tier is on sale', () => {
    expect(priceSummary([], 'en-US')).toBeNull();
    expect(priceSummary([tier({ priceCents: 1200, isActive: false })], 'en-US')).toBeNull();
  });

  it('says Free when every tier on sale costs nothing', () => {
    expect(priceSummary([tier(), tier({ name: 'Carpool seat' })], 'en-US')).toBe('Free');
  });

  it('quotes the cheapest paid tier in its currency', () => {
    const tiers = [tier({ priceCents: 2500 }), tier({ priceCents: 1200 }), tier({ priceCents: 0 })];
    expect(priceSummary(tiers, 'en-US')).toBe('From $12.00');
  });

  it('ignores a cheaper tier that is no longer on sale', () => {
    const tiers = [tier({ priceCents: 500, isActive: false }), tier({ priceCents: 1500 })];
    expect(priceSummary(tiers, 'en-US')).toBe('From $15.00');
  });

  it('formats in the viewer locale and the currency minor units', () => {
    expect(priceSummary([tier({ priceCents: 1250, currency: 'EUR' })], 'de-DE')).toBe('From 12,50\u00a0€');
    expect(priceSummary([tier({ priceCents: 1200, currency: 'JPY' })], 'en-US')).toBe('From ¥1,200');
  });
});

describe('locationLabel', () => {
  it('names the venue, falling back to the city', () => {
    expect(locationLabel(event({ location: { name: 'Trailhead car park', city: 'Boulder' } }))).toBe(
      'Trailhead car park',
    );
    expect(locationLabel(event({ location: { city: 'Boulder' } }))).toBe('Boulder');
  });

  it('adds nothing to the Online badge for an online event without a venue', () => {
    expect(locationLabel(event({ format: 'online', location: null }))).toBeNull();
    expect(locationLabel(event({ format: 'online', location: { url: 'https://meet.example/x' } }))).toBeNull();
  });

  it('says the place is to be announced for an in-person or hybrid event without one', () => {
    expect(locationLabel(event({ format: 'in_person', location: null }))).toBe('Location to be announced');
    expect(locationLabel(event({ format: 'hybrid', location: {} }))).toBe('Location to be announced');
  });
});
