// WGS-84 ranges wherever coordinates come in: hotspots in an import file, and the atlas's bbox
// query parameter (including the antimeridian-crossing form).
import { describe, expect, it } from 'vitest';
import { parseFixture } from '../../contract/fixture.ts';
import { parseBbox } from '../../contract/routes/atlas.ts';

const NOW = new Date('2025-06-15T10:20:30.456Z');

function withHotspot(latitude: unknown, longitude: unknown) {
  return parseFixture(
    {
      communities: [
        {
          tag: 'acme',
          name: 'Acme',
          visibility: 'PUBLIC',
          accessibility: 'OPEN',
          founder: 'founder',
          users: [{ email: 'founder@example.com', name: 'Founder', usertag: 'founder' }],
          atlas: {
            categories: [{ key: 'peak', name: 'Peaks' }],
            hotspots: [{ name: 'H', latitude, longitude, category: 'peak' }],
          },
        },
      ],
    },
    { now: NOW },
  );
}

const issuePaths = (r: ReturnType<typeof withHotspot>) => (r.success ? [] : r.issues.map((i) => i.path));

describe('import file: hotspot coordinates', () => {
  it.each([
    [90, 180],
    [-90, -180],
    [0, 0],
    [47.4351, -121.7683],
  ])('accepts latitude %s, longitude %s', (lat, lon) => {
    expect(withHotspot(lat, lon).success).toBe(true);
  });

  it.each([
    [90.0001, 0, 'latitude'],
    [-91, 0, 'latitude'],
    [0, 180.5, 'longitude'],
    [0, -181, 'longitude'],
    [Infinity, 0, 'latitude'],
    [0, -Infinity, 'longitude'],
    [Number.NaN, 0, 'latitude'],
    ['47.1', 0, 'latitude'],
  ])('refuses latitude %s, longitude %s, naming the %s', (lat, lon, field) => {
    expect(issuePaths(withHotspot(lat, lon))).toEqual([`communities[0].atlas.hotspots[0].${field}`]);
  });
});

describe('parseBbox', () => {
  it('reads four decimal numbers, spaces around them allowed', () => {
    expect(parseBbox('-122.5,46,-121, 47.5')).toEqual({ minLon: -122.5, minLat: 46, maxLon: -121, maxLat: 47.5 });
    expect(parseBbox('+.5,-.5,1.,2')).toEqual({ minLon: 0.5, minLat: -0.5, maxLon: 1, maxLat: 2 });
  });

  it('keeps minLon > maxLon as a box across the antimeridian', () => {
    expect(parseBbox('170,-20,-170,20')).toEqual({ minLon: 170, minLat: -20, maxLon: -170, maxLat: 20 });
  });

  it.each([
    '',
    '1,2,3',
    '1,2,3,4,5',
    '1,2,,4',
    'a,1,2,3',
    'Infinity,0,1,1',
    'NaN,0,1,1',
    '0x1,0,1,1',
    '1e1,0,20,1',
    '-180.01,0,1,1',
    '0,0,181,1',
    '0,-90.5,1,1',
    '0,0,1,91',
    '0,5,1,4',
  ])('refuses %j', (value) => {
    expect(typeof parseBbox(value)).toBe('string');
  });
});
