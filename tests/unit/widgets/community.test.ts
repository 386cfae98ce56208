import { describe, expect, it } from 'vitest';
import type { Community } from '../../../contract/resources.ts';
import { siteOrigin } from '../../../widgets/lib/community.ts';
import type { EmbedConfig } from '../../../widgets/lib/contract.ts';

const embed: EmbedConfig = { community: 'demo', key: 'pk_live_abc', api: 'http://localhost:3000', hosted: false, site: null };
const community = (domains: string[]) => ({ domains }) as Community;

describe('siteOrigin (where event links go)', () => {
  it('prefers an explicit data-site', () => {
    expect(siteOrigin({ ...embed, site: 'https://hike.acme.example/' }, community(['x.example']), 'https://page.example')).toBe('https://hike.acme.example');
  });

  it('is the page itself on the hosted apex', () => {
    expect(siteOrigin({ ...embed, hosted: true }, community(['x.example']), 'https://hikers.example')).toBe('https://hikers.example');
  });

  it("uses the community's custom domain over https", () => {
    expect(siteOrigin(embed, community(['hikers.example', 'www.hikers.example']), 'https://blog.example')).toBe('https://hikers.example');
  });

  it('keeps the development scheme and port for .localhost domains', () => {
    expect(siteOrigin(embed, community(['demo.localhost']), 'http://127.0.0.1:3000')).toBe('http://demo.localhost:3000');
  });

  it('falls back to <tag>.<platform host> without a domain or community', () => {
    expect(siteOrigin(embed, community([]), 'http://127.0.0.1:3000')).toBe('http://demo.localhost:3000');
    expect(siteOrigin({ ...embed, api: 'https://svc.example' }, null, 'https://blog.example')).toBe('https://demo.svc.example');
  });
});
