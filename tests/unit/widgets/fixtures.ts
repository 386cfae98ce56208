// Builders for wire-format objects in widget unit tests. Shapes follow contract/resources.ts.
import type { Event, Tier } from '../../../contract/resources.ts';

let seq = 0;
const uuid = () => `00000000-0000-7000-8000-${String(++seq).padStart(12, '0')}`;

export function tier(overrides: Partial<Tier> = {}): Tier {
  return {
    id: uuid(),
    name: 'General',
    priceCents: 0,
    currency: 'USD',
    capacity: null,
    sold: 0,
    isActive: true,
    hasForm: false,
    ...overrides,
  };
}

export function event(overrides: Partial<Event> = {}): Event {
  const id = uuid();
  return {
    id,
    slug: `event-${id.slice(-4)}`,
    name: 'Ridge walk',
    description: null,
    startDate: '2031-06-14T07:30:00.000Z',
    endDate: null,
    location: null,
    bannerUrl: null,
    format: 'in_person',
    tiers: [],
    featured: false,
    ...overrides,
  };
}
