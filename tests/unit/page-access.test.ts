import { describe, expect, it } from 'vitest';
import {
  evaluateAllPages,
  evaluatePageAccess,
  type PageVerdict,
  type Viewer,
} from '../../server/domain/page-access.ts';

const anonymous: Viewer = { userId: null };
const nonMember: Viewer = { userId: 'u', membership: null };
const pending: Viewer = { userId: 'u', membership: 'PENDING' };
const rejected: Viewer = { userId: 'u', membership: 'REJECTED' };
const banned: Viewer = { userId: 'u', membership: 'BANNED' };
const accepted: Viewer = { userId: 'u', membership: 'ACCEPTED' };
const notMembers = { anonymous, nonMember, pending, rejected, banned };

type Setting = 'absent' | 'disabled' | 'inherit' | 'PUBLIC' | 'MEMBERS_ONLY';
const settingFor = (s: Setting) =>
  s === 'absent'
    ? []
    : [
        {
          pageKey: 'EVENTS',
          enabled: s !== 'disabled',
          visibility: s === 'PUBLIC' || s === 'MEMBERS_ONLY' ? s : null,
        },
      ];

const allow = (v: 'PUBLIC' | 'MEMBERS_ONLY'): PageVerdict => ({ allow: true, resolvedVisibility: v });
const deny = (reason: PageVerdict['reason'], v: 'PUBLIC' | 'MEMBERS_ONLY'): PageVerdict => ({
  allow: false,
  reason,
  resolvedVisibility: v,
});

// community visibility x page setting -> [verdict for every non-member viewer, verdict for an ACCEPTED member]
const TABLE: Array<[string, Setting, PageVerdict, PageVerdict]> = [
  ['PUBLIC', 'absent', allow('PUBLIC'), allow('PUBLIC')],
  ['PUBLIC', 'inherit', allow('PUBLIC'), allow('PUBLIC')],
  ['PUBLIC', 'PUBLIC', allow('PUBLIC'), allow('PUBLIC')],
  ['PUBLIC', 'MEMBERS_ONLY', deny('page_members_only', 'MEMBERS_ONLY'), allow('MEMBERS_ONLY')],
  ['PUBLIC', 'disabled', deny('page_disabled', 'PUBLIC'), deny('page_disabled', 'PUBLIC')],
  ['MEMBERS_ONLY', 'absent', deny('community_private', 'MEMBERS_ONLY'), allow('MEMBERS_ONLY')],
  ['MEMBERS_ONLY', 'inherit', deny('community_private', 'MEMBERS_ONLY'), allow('MEMBERS_ONLY')],
  ['MEMBERS_ONLY', 'PUBLIC', allow('PUBLIC'), allow('PUBLIC')],
  ['MEMBERS_ONLY', 'MEMBERS_ONLY', deny('page_members_only', 'MEMBERS_ONLY'), allow('MEMBERS_ONLY')],
  ['MEMBERS_ONLY', 'disabled', deny('page_disabled', 'MEMBERS_ONLY'), deny('page_disabled', 'MEMBERS_ONLY')],
];

describe('page access: every community visibility x page setting x viewer', () => {
  for (const [visibility, setting, forNonMembers, forMember] of TABLE) {
    for (const [name, viewer] of Object.entries(notMembers)) {
      it(`${visibility} community, EVENTS ${setting}: ${name} gets ${forNonMembers.allow ? 'in' : forNonMembers.reason}`, () => {
        expect(evaluatePageAccess({ visibility, pageSettings: settingFor(setting) }, viewer, 'EVENTS')).toEqual(
          forNonMembers,
        );
      });
    }
    it(`${visibility} community, EVENTS ${setting}: an ACCEPTED member gets ${forMember.allow ? 'in' : forMember.reason}`, () => {
      expect(evaluatePageAccess({ visibility, pageSettings: settingFor(setting) }, accepted, 'EVENTS')).toEqual(
        forMember,
      );
    });
  }
});

describe('page access: CHAT always requires membership', () => {
  it('closes CHAT to every non-member even on a public community with a PUBLIC chat setting', () => {
    const config = { visibility: 'PUBLIC', pageSettings: [{ pageKey: 'CHAT', enabled: true, visibility: 'PUBLIC' }] };
    for (const viewer of Object.values(notMembers)) {
      expect(evaluatePageAccess(config, viewer, 'CHAT')).toEqual(deny('page_members_only', 'MEMBERS_ONLY'));
    }
    expect(evaluatePageAccess(config, accepted, 'CHAT')).toEqual(allow('MEMBERS_ONLY'));
  });

  it('names the private community as the reason when CHAT merely inherits it', () => {
    expect(evaluatePageAccess({ visibility: 'MEMBERS_ONLY', pageSettings: [] }, anonymous, 'CHAT')).toEqual(
      deny('community_private', 'MEMBERS_ONLY'),
    );
  });

  it('still reports a disabled CHAT as disabled, for members too', () => {
    const config = { visibility: 'PUBLIC', pageSettings: [{ pageKey: 'CHAT', enabled: false, visibility: null }] };
    expect(evaluatePageAccess(config, accepted, 'CHAT')).toEqual(deny('page_disabled', 'MEMBERS_ONLY'));
  });
});

describe('page access: fails closed', () => {
  it('treats an unknown community visibility as MEMBERS_ONLY', () => {
    expect(evaluatePageAccess({ visibility: 'public', pageSettings: [] }, anonymous, 'HOME')).toEqual(
      deny('community_private', 'MEMBERS_ONLY'),
    );
  });

  it('treats an unknown page visibility as MEMBERS_ONLY', () => {
    const config = { visibility: 'PUBLIC', pageSettings: [{ pageKey: 'BLOG', enabled: true, visibility: 'EVERYONE' }] };
    expect(evaluatePageAccess(config, anonymous, 'BLOG')).toEqual(deny('page_members_only', 'MEMBERS_ONLY'));
  });

  it('treats a page whose enabled flag is not true as disabled', () => {
    const config = { visibility: 'PUBLIC', pageSettings: [{ pageKey: 'BLOG', enabled: 'yes', visibility: null }] };
    expect(evaluatePageAccess(config, accepted, 'BLOG').allow).toBe(false);
  });

  it('closes every page when the page settings are unreadable', () => {
    const verdicts = evaluateAllPages({ visibility: 'PUBLIC', pageSettings: null }, accepted);
    expect(Object.values(verdicts).every((v) => !v.allow && v.reason === 'page_disabled')).toBe(true);
  });

  it('answers every page key, each with a reason whenever it denies', () => {
    const verdicts = evaluateAllPages({ visibility: 'MEMBERS_ONLY', pageSettings: [] }, pending);
    expect(Object.keys(verdicts)).toEqual([
      'HOME',
      'EVENTS',
      'MARKETPLACE',
      'FEED',
      'MEMBERS',
      'ATLAS',
      'BLOG',
      'CHAT',
    ]);
    expect(Object.values(verdicts).every((v) => v.allow || v.reason)).toBe(true);
  });
});
