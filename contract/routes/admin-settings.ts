// The leader console's settings (docs/leader-console.md, "Settings"): a community's configuration
// as its founder and admins read and change it. The body is the import file's settings schema
// (contract/fixture.ts CommunitySettingsUpdate), the one `svc community update` reads, so the
// console, the CLI and the import accept exactly the same values.
import { CommunitySettingsUpdate, CommunitySettingsValues } from '../fixture.ts';
import { route } from '../route.ts';
import { ADMIN_BASE, InAdminCommunity } from './admin.ts';

export const CommunitySettings = CommunitySettingsValues.meta({
  id: 'CommunitySettings',
  description:
    "The community's configuration as the import file writes it: visibility, accessibility, domains, landingUrl, " +
    'embedOrigins, pageSettings, storefrontConfig (header, nav with visibleWhen and children, footer, modules, pages, ' +
    'chromeProxy, externalPages, rules) and themeConfig.',
});

export const CommunitySettingsPatch = CommunitySettingsUpdate.meta({
  id: 'CommunitySettingsPatch',
  description:
    'Any of the settings; a field sent replaces the stored value whole (`storefrontConfig` included: send all of it), a ' +
    'field left out stays. Unknown fields are refused.',
});

const LEADER_NOTE =
  "For the community's founder and admins only, signed in on the community's own site (its sign-in cookie; writes " +
  "only from the site's own origin): anyone else, a leader of another community included, gets `403 NOT_A_LEADER`.";

export const getCommunitySettings = route({
  operationId: 'getCommunitySettings',
  method: 'get',
  path: `${ADMIN_BASE}/settings`,
  tag: 'Leader console',
  summary: "The community's settings",
  description: `Every setting as stored, unfiltered (the public community object filters the nav per viewer). ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  response: { status: 200, schema: CommunitySettings, description: 'The settings' },
  errors: [401, 403],
});

export const updateCommunitySettings = route({
  operationId: 'updateCommunitySettings',
  method: 'patch',
  path: `${ADMIN_BASE}/settings`,
  tag: 'Leader console',
  summary: "Change the community's settings",
  description:
    "Validated by the import file's schema: a failure is `400 INVALID_INPUT` with `extras.field` the path of the first " +
    'problem (`pageSettings.2.visibility`, `storefrontConfig.externalPages.0`, `domains.1`); an unknown field (`tag`, ' +
    '`features`, `id`, ...) is a 400 naming it. Hostnames are lowercased. A domain another community serves is ' +
    "`409 DOMAIN_TAKEN` naming it (`domains.<i>`); one of the platform's own hosts (`*.localhost`, the site domain) is a " +
    '400. The changed fields are written with one audit entry (`settings.update`, before and after of those fields) ' +
    'in one transaction; a patch that changes nothing writes nothing. The change is seen at once by the public ' +
    'community object, the hosted site and the API, on every instance (docs/leader-console.md, "Settings"). Accepts ' +
    `\`Idempotency-Key\`. Answers the settings as they now are. ${LEADER_NOTE}`,
  auth: { kind: 'leader' },
  params: InAdminCommunity,
  body: CommunitySettingsPatch,
  response: { status: 200, schema: CommunitySettings, description: 'The settings after the change' },
  errors: [400, 401, 403, 409],
});

export const ADMIN_SETTINGS_ROUTES = [getCommunitySettings, updateCommunitySettings];
