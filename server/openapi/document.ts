// The OpenAPI 3.1 document, generated from the route table in contract/. Nothing here is written
// per route: adding a declaration to contract/routes/ adds its operation, parameters, schemas
// and responses. What is written here is what holds for every operation (auth, idempotency,
// rate limits, request ids, the error envelope), taken from DESIGN.md §4 and the spec.
import { z } from 'zod';
import * as contract from '../../contract/index.ts';
import { ERROR_STATUS, type ErrorCode } from '../../contract/errors.ts';
import { API_TAGS, type ApiTag, type RouteDef } from '../../contract/route.ts';
import { ROUTES } from '../../contract/routes/index.ts';
import { SCOPES, type Scope } from '../../contract/enums.ts';
import { messages } from '../shared/messages.ts';
import { SchemaCollector } from './schemas.ts';
import type {
  HeaderObject,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  RefObject,
  RequestBodyObject,
  ResponseObject,
  SecurityRequirement,
  SecuritySchemeObject,
  TagObject,
} from './types.ts';

export type { OpenApiDocument } from './types.ts';

export interface OpenApiOptions {
  /** The public origin of the API host (`config.publicUrl`); paths already carry `/v1` or `/api`. */
  serverUrl: string;
  /** The operations to document; the whole route table unless a test passes its own. */
  routes?: readonly RouteDef[];
}

/** The spec's components (Versioning): present even while no route references them. */
export const SPEC_COMPONENTS = [
  'Event',
  'Tier',
  'Article',
  'Product',
  'Member',
  'AtlasHotspot',
  'AtlasCategory',
  'Segment',
  'Membership',
  'Error',
  'Pagination',
] as const;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

// ---------------------------------------------------------------------------------------------
// Texts that hold for the whole API
// ---------------------------------------------------------------------------------------------

/** Typed by ApiTag, so a new tag in contract/route.ts cannot ship undocumented. */
const TAG_DESCRIPTIONS: Record<ApiTag, string> = {
  Events: 'Events with ticket tiers, RSVPs, checkout and event donations.',
  Articles: 'Blog articles: public reads of published articles, drafting and publishing with an ADMIN key.',
  Products: 'Marketplace products, product donations and donation summaries.',
  Members: 'The public member directory and member moderation (kick, ban).',
  Atlas: 'Map hotspots and their categories, for communities with the Atlas feature.',
  Segments: 'Member tiers (segments): prices, sign-up forms, submissions and the paid-tier checkout.',
  Applications: 'Review of membership applications: approve or reject.',
  Broadcasts: 'One-shot broadcast e-mails to members, 5 sends per 24 h per community.',
  Rules: "Acceptance of the community's rules.",
  Keys: 'The publishable key of a community, provisioned on first request.',
  'Community site': 'The unversioned site API on `{site_base}` used by widgets and hosted pages: the community object.',
  'Leader console':
    "The admin app's API on `{site_base}/api/admin/{communityTag}`: for the community's founder and admins, signed in " +
    "on the community's own site (docs/leader-console.md).",
};

const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  READ_PUBLIC: 'Read public data. The only scope a publishable key ever has.',
  WRITE_MEMBERS: 'Membership workflow: segment submissions, applications, kicks and bans, rules acceptance.',
  WRITE_SALES: 'Sales: RSVPs, checkouts and donations.',
  WRITE_BROADCASTS: 'Send broadcast e-mails.',
  ADMIN: 'Content management (articles, segments); satisfies every other scope.',
};

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`extras.field` names the offending value) or a rejected business rule.',
  401: '`X-API-Key` is missing, empty or unknown.',
  403: "The key belongs to another community, lacks the required scope (`extras.grantedScopes` lists what it has), or the feature is not enabled for this community. On widget actions also: the `Origin` is not one of the community's embed origins, or a secret key was sent.",
  404: 'The community or the resource does not exist.',
  405: 'The path exists but not with this method; `Allow` lists the methods it has.',
  409: 'Invalid state transition, or a request with the same Idempotency-Key is still being processed.',
  413: 'The request body is larger than the server accepts.',
  415: 'The request body is not `application/json`.',
  422: 'Semantically invalid, or the Idempotency-Key was already used with a different request.',
  429: 'Rate limit exceeded. Retry after `Retry-After` seconds (also in `extras.retryAfter`).',
  500: 'Server error. Quote `requestId` when reporting it; retrying with backoff is safe (send the same Idempotency-Key on writes).',
  502: 'An upstream service (payment processor) failed.',
  503: 'The service or its database is temporarily unavailable; retry with backoff.',
  504: 'The request took longer than the edge timeout.',
};

/** The code an example error of each status shows; the first code of that status otherwise. */
const EXAMPLE_CODE: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_INPUT',
  401: 'API_KEY_REQUIRED',
  403: 'INSUFFICIENT_SCOPE',
  404: 'NOT_FOUND',
  409: 'INVALID_STATE',
  422: 'UNPROCESSABLE',
  500: 'INTERNAL',
};

/** Example messages come from server/shared/messages.ts so the docs quote what the server says. */
const EXAMPLE_MESSAGE: Partial<Record<ErrorCode, string>> = {
  API_KEY_REQUIRED: messages.apiKeyRequired,
  INVALID_API_KEY: messages.invalidApiKey,
  SIGN_IN_REQUIRED: messages.signInRequired,
  CROSS_SITE_REQUEST: messages.crossSiteRequest,
  COMMUNITY_MISMATCH: messages.keyOtherCommunity,
  NOT_FOUND: messages.communityNotFound,
  METHOD_NOT_ALLOWED: messages.methodNotAllowed('PUT', ['GET']),
  MALFORMED_JSON: messages.malformedJson,
  PAYLOAD_TOO_LARGE: messages.payloadTooLarge('1mb'),
  UNSUPPORTED_MEDIA_TYPE: messages.unsupportedMediaType,
  IDEMPOTENCY_KEY_MISMATCH: messages.idempotencyMismatch,
  IDEMPOTENCY_IN_PROGRESS: messages.idempotencyInProgress,
  RATE_LIMITED: messages.rateLimited,
  FEATURE_NOT_ENABLED: messages.featureNotEnabled('Atlas'),
  ORIGIN_NOT_ALLOWED: messages.originNotAllowed,
  SECRET_KEY_NOT_ALLOWED: messages.secretKeyNotAllowed,
  INVALID_STATE: 'This change is not allowed in the current state',
  UNPROCESSABLE: 'The request is valid but cannot be carried out',
  INTERNAL: messages.internal,
  SERVICE_UNAVAILABLE: messages.unavailable,
};

const EXAMPLE_REQUEST_ID = 'req_0b7e4c1a9f3d4e2b8c6a5d4f3e2b1a09';

const HEADERS = {
  'X-Request-Id': {
    description:
      'Trace id of this request, on every response. A safe `X-Request-Id` sent by the caller is echoed back.',
    required: true,
    schema: { type: 'string' },
  },
  'X-Total-Count': {
    description: 'Number of items matching the filters, across all pages.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Total-Count-Accuracy': {
    description:
      'How `X-Total-Count` was counted: `exact` (every list, except as follows), or `lower-bound` when counting stopped at a cap and there are at least that many matches (an atlas `bbox` with more than 1,000 matches).',
    required: true,
    schema: { type: 'string', enum: ['exact', 'lower-bound'] },
  },
  Link: {
    description:
      'RFC 8288 link to the next page, `<url>; rel="next"`, while there is one. It continues by offset when the request paged by offset, by cursor otherwise.',
    schema: { type: 'string' },
  },
  'X-Next-Cursor': {
    description: 'Opaque cursor of the next page, while there is one; pass it as `cursor`.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window for this key (or client IP when no key is sent).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the window resets.', schema: { type: 'integer' } },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this response is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', const: 'true' },
  },
} satisfies Record<string, HeaderObject>;

const headerRef = (name: keyof typeof HEADERS): RefObject => ({ $ref: `#/components/headers/${name}` });

const INFO_DESCRIPTION = [
  'The svc community platform: events, articles, marketplace, members, atlas, segments, applications, broadcasts and rules of a community, addressed by its community tag.',
  '',
  '- **Base URL**: `{base_url}` = `<server>/v1`; every community path begins with `/v1/communities/{communityTag}`. The unversioned `/api/...` paths belong to the community site (`{site_base}`).',
  '- **Authentication**: `X-API-Key` with a publishable key (`pk_live_`, browser-safe, READ_PUBLIC only) or a secret key (`sk_live_`, server-only, scoped). ADMIN satisfies every scope. The scope an operation needs is in `x-required-scope`.',
  '- **Lists** are bare JSON arrays; paging rides in the `X-Total-Count`, `Link` and `X-Next-Cursor` headers.',
  '- **Idempotency**: writes accept `Idempotency-Key`; the same key and request within 24 h replays the first answer without a second state change.',
  '- **Errors** share one envelope, `{error, code?, requestId?, extras?}` (schema `Error`, codes in its `x-error-codes`). Match on `code`, never on `error`.',
  "- **Widget actions** (`/api/actions/{communityTag}/...`, operations marked `x-widget-action`): writes widgets make, with the publishable key from one of the community's embed origins, or same-origin on its hosted site with no key. Rate limited per client IP.",
  '- **Rate limits**: publishable keys 100 requests/s, secret keys 50 requests/s; a 429 carries `Retry-After`.',
  '- **Versioning**: v1 only grows (new fields, endpoints, scopes); breaking changes go to /v2. Ignore unknown response fields.',
].join('\n');

// ---------------------------------------------------------------------------------------------
// Document
// ---------------------------------------------------------------------------------------------

/**
 * Builds the OpenAPI 3.1 document of every route in `ROUTES`. Pure but not cheap (it converts
 * every schema): call it once per process, e.g. through `getOpenApiDocument`.
 */
export function buildOpenApiDocument(opts: OpenApiOptions): OpenApiDocument {
  const schemas = new SchemaCollector();
  // Every named schema of the contract becomes a component, referenced or not yet.
  for (const [name, schema] of namedContractSchemas()) schemas.convert(schema, 'output', `contract ${name}`);
  const paths = buildPaths(opts.routes ?? ROUTES, schemas);
  return {
    openapi: '3.1.0',
    info: { title: 'svc community API', version: '1.0.0', description: INFO_DESCRIPTION },
    servers: [{ url: opts.serverUrl, description: 'API host' }],
    tags: API_TAGS.map((name): TagObject => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    components: {
      schemas: buildComponentSchemas(schemas),
      headers: structuredClone(HEADERS) as Record<string, HeaderObject>,
      securitySchemes: securitySchemes(),
    },
  };
}

function buildPaths(routes: readonly RouteDef[], schemas: SchemaCollector): OpenApiDocument['paths'] {
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const def of routes) {
    // Both would make a document that tools reject or silently merge; fail the build instead.
    if (operationIds.has(def.operationId)) throw new Error(`duplicate operationId ${def.operationId}`);
    operationIds.add(def.operationId);
    const item = (paths[def.path] ??= {});
    if (item[def.method]) throw new Error(`${def.method.toUpperCase()} ${def.path} is declared twice`);
    item[def.method] = buildOperation(def, schemas);
  }
  return paths;
}

/** Must run after every operation is built: naming components needs every conversion. */
function buildComponentSchemas(schemas: SchemaCollector): Record<string, JsonSchema> {
  const components = schemas.finalize();
  for (const id of SPEC_COMPONENTS) {
    if (!components[id]) throw new Error(`the spec's component ${id} is missing from contract/`);
  }
  // The closed code list, with the status each code always answers with.
  components.Error['x-error-codes'] = { ...ERROR_STATUS };
  return components;
}

const cache = new Map<string, OpenApiDocument>();

/**
 * The document for `serverUrl`, built on first use and frozen: later calls return the same
 * object, so serving it costs a JSON serialisation and nothing more.
 */
export function getOpenApiDocument(serverUrl: string): OpenApiDocument {
  let doc = cache.get(serverUrl);
  if (!doc) {
    doc = deepFreeze(buildOpenApiDocument({ serverUrl }));
    cache.set(serverUrl, doc);
  }
  return doc;
}

/** Exported zod schemas of contract/ that carry `.meta({ id })`, by export name. */
function namedContractSchemas(): [string, z.ZodType][] {
  const named: [string, z.ZodType][] = [];
  for (const [name, value] of Object.entries(contract as Record<string, unknown>)) {
    if (value instanceof z.ZodType && z.globalRegistry.get(value)?.id) named.push([name, value]);
  }
  return named;
}

function securitySchemes(): Record<string, SecuritySchemeObject> {
  return {
    publishableKey: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description:
        'Publishable key `pk_live_...`: browser-safe, one per community, never more than READ_PUBLIC. ' +
        'Fetch it from `GET /v1/communities/{communityTag}/publishable-key` (no authentication).',
      'x-scopes': { READ_PUBLIC: SCOPE_DESCRIPTIONS.READ_PUBLIC },
    },
    secretKey: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description:
        'Secret key `sk_live_...`: server-only, carries the scopes it was created with; ADMIN satisfies every scope. ' +
        "Shown once at creation and stored hashed. A key used on another community's path is refused with 403.",
      'x-scopes': Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
    },
    signInCookie: {
      type: 'apiKey',
      in: 'cookie',
      name: 'svc_auth_<communityTag>',
      description:
        'The visitor sign-in token (an HS256 JWT) as an HttpOnly cookie: `svc_auth_<communityTag>`, else `svc_auth`, else ' +
        "`svc_auth_<hostname>`. Writes authenticated by the cookie must come from the site's own origin with " +
        '`Content-Type: application/json`.',
    },
    signInBearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The same sign-in token as `Authorization: Bearer <token>` (what the chrome proxy forwards).',
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

function buildOperation(def: RouteDef, schemas: SchemaCollector): OperationObject {
  const parameters = [
    ...pathParameters(def, schemas),
    ...objectParameters(def.query, 'query', def, schemas),
    ...(acceptsIdempotencyKey(def) ? [idempotencyKeyParameter()] : []),
  ];
  const requestBody = def.body ? buildRequestBody(def, schemas) : undefined;
  const auth = def.auth;
  return {
    operationId: def.operationId,
    tags: [def.tag],
    summary: def.summary,
    ...(def.description || auth.kind === 'widget'
      ? {
          description: [def.description, auth.kind === 'widget' ? WIDGET_ACTION_NOTE : ''].filter(Boolean).join('\n\n'),
        }
      : {}),
    security: securityFor(def),
    ...(auth.kind === 'apiKey' ? { 'x-required-scope': auth.scope } : {}),
    ...(auth.kind === 'widget' ? { 'x-widget-action': true } : {}),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: buildResponses(def, schemas, {
      hasCursor: parameters.some((p) => p.in === 'query' && p.name === 'cursor'),
      sampleField: sampleField(parameters, requestBody, schemas),
    }),
  };
}

/** What every widget action's description says about its auth (server/http/widget-actions.ts). */
const WIDGET_ACTION_NOTE =
  '**Widget action.** Either `X-API-Key: pk_live_...` of this community from a page whose `Origin` is exactly one of the ' +
  "community's embed origins (CORS without credentials; any other or no Origin is `403 ORIGIN_NOT_ALLOWED`, which a browser " +
  'page on another origin can read: its preflight is granted so that the request itself is refused), ' +
  "or no key, same-origin on the community's hosted site (JSON body, `Origin` equal to the site's; the sign-in cookie, when " +
  'present, identifies the visitor, else the caller is anonymous). Secret keys are refused (`403 SECRET_KEY_NOT_ALLOWED`): ' +
  'servers call `/v1`. Rate limited per client IP and community; `Idempotency-Key` records belong to the signed-in visitor, ' +
  'else the client IP.';

/** READ_PUBLIC is the one scope a publishable key has; everything else needs a secret key. */
function securityFor(def: RouteDef): SecurityRequirement[] {
  if (def.auth.kind === 'none' || def.auth.kind === 'sameOrigin') return [];
  if (def.auth.kind === 'session' || def.auth.kind === 'leader') return [{ signInCookie: [] }, { signInBearer: [] }];
  // The key from an embed origin; or, on the hosted site, the optional cookie (`{}`: anonymous).
  if (def.auth.kind === 'widget') return [{ publishableKey: [] }, { signInCookie: [] }, {}];
  if (def.auth.scope === 'READ_PUBLIC') return [{ publishableKey: [] }, { secretKey: [] }];
  return [{ secretKey: [] }];
}

/**
 * The server keeps idempotency records per API key (server/http/routes.ts), so the header means
 * something on keyed writes only; on a keyless write it would promise a replay that never comes.
 */
function acceptsIdempotencyKey(def: RouteDef): boolean {
  return (
    def.method !== 'get' &&
    (def.auth.kind === 'apiKey' ||
      def.auth.kind === 'session' ||
      def.auth.kind === 'leader' ||
      def.auth.kind === 'widget')
  );
}

function idempotencyKeyParameter(): ParameterObject {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the write safe to retry (a UUID is recommended; `X-Idempotency-Key` is accepted too). ' +
      'Scoped to the caller (the API key; the signed-in user; on widget actions the visitor, else the client IP): ' +
      'the same key with the same request within 24 h replays the first status and body ' +
      '(with `Idempotent-Replayed: true`) and changes nothing; with a different request it is a 422; while the ' +
      'first is still running a duplicate waits for it, or gets a 409 to retry. Failed validation, auth and ' +
      'rate-limit answers are not stored.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  };
}

/**
 * Path parameters: every `{name}` of the path, described by the params schema where it has the
 * name (OpenAPI requires each to be declared and required).
 */
function pathParameters(def: RouteDef, schemas: SchemaCollector): ParameterObject[] {
  const templated = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const declared = objectParameters(def.params, 'path', def, schemas);
  for (const p of declared) {
    if (!templated.includes(p.name))
      throw new Error(`${def.operationId}: params.${p.name} is not in the path ${def.path}`);
  }
  return templated.map(
    (name) => declared.find((p) => p.name === name) ?? { name, in: 'path', required: true, schema: { type: 'string' } },
  );
}

/** One parameter per property of an object schema, on the input side of the wire. */
function objectParameters(
  schema: z.ZodType | undefined,
  location: 'path' | 'query',
  def: RouteDef,
  schemas: SchemaCollector,
): ParameterObject[] {
  if (!schema) return [];
  const where = `${def.operationId} ${location === 'path' ? 'params' : 'query'}`;
  const root = schemas.deref(schemas.convert(schema, 'input', where), 'input');
  const properties = root.properties as Record<string, JsonSchema> | undefined;
  if (root.type !== 'object' || !properties) throw new Error(`${where} must be a z.object`);
  const required = new Set((root.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    schemas.track(rest, 'input');
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function buildRequestBody(def: RouteDef, schemas: SchemaCollector): RequestBodyObject {
  const body = def.body!;
  return {
    // The server parses a missing body as `{}` (server/http/routes.ts), so a body whose fields
    // are all optional need not be sent at all.
    required: !acceptsEmptyObject(body),
    content: { 'application/json': { schema: schemas.convert(body, 'input', `${def.operationId} body`) } },
  };
}

function acceptsEmptyObject(schema: z.ZodType): boolean {
  try {
    return schema.safeParse({}).success;
  } catch {
    return false; // async refinements cannot run synchronously; assume a body is needed
  }
}

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

interface ResponseHints {
  /** The list pages by cursor too, so it sends X-Next-Cursor. */
  hasCursor: boolean;
  /** A field of this route for the example 400 to name. */
  sampleField: string | undefined;
}

function buildResponses(def: RouteDef, schemas: SchemaCollector, hints: ResponseHints): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = { [def.response.status]: successResponse(def, schemas, hints) };
  for (const status of errorStatuses(def)) responses[status] = errorResponse(status, def, hints.sampleField);
  return responses;
}

function successResponse(def: RouteDef, schemas: SchemaCollector, hints: ResponseHints): ResponseObject {
  const headers: Record<string, RefObject> = {
    'X-Request-Id': headerRef('X-Request-Id'),
    'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
    'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
    'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
  };
  if (def.response.paginated) {
    headers['X-Total-Count'] = headerRef('X-Total-Count');
    headers['X-Total-Count-Accuracy'] = headerRef('X-Total-Count-Accuracy');
    headers.Link = headerRef('Link');
    if (hints.hasCursor) headers['X-Next-Cursor'] = headerRef('X-Next-Cursor');
  }
  if (acceptsIdempotencyKey(def)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  const response: ResponseObject = { description: def.response.description, headers };
  if (def.response.status !== 204) {
    const schema = schemas.convert(def.response.schema, 'output', `${def.operationId} response`);
    response.content = { [def.response.contentType ?? 'application/json']: { schema } };
  }
  return response;
}

/**
 * The route's own statuses, plus those its shape implies in this server: any input can fail
 * validation (400); keys are judged (401, 403) and every request is rate limited (429); bodies
 * can be too large or not JSON (413, 415); keyed writes are idempotent (409 in progress, 422
 * mismatch); and anything can fail unexpectedly (500).
 */
function errorStatuses(def: RouteDef): number[] {
  const statuses = new Set(def.errors);
  if (def.params || def.query || def.body) statuses.add(400);
  if (def.auth.kind === 'apiKey') [401, 403].forEach((s) => statuses.add(s));
  if (def.auth.kind === 'session') statuses.add(401);
  // Not signed in (401); not a leader of this community on its own site (403).
  if (def.auth.kind === 'leader') [401, 403].forEach((s) => statuses.add(s));
  if (
    (def.auth.kind === 'session' || def.auth.kind === 'leader' || def.auth.kind === 'sameOrigin') &&
    def.method !== 'get'
  )
    [403, 415].forEach((s) => statuses.add(s));
  // Widget actions: a bad key (401), origin, secret key, other community or cross-site (403), not JSON (415).
  if (def.auth.kind === 'widget') [401, 403, 415].forEach((s) => statuses.add(s));
  if (def.body) [400, 413, 415].forEach((s) => statuses.add(s));
  if (acceptsIdempotencyKey(def)) [400, 409, 422].forEach((s) => statuses.add(s));
  statuses.add(429);
  statuses.add(500);
  statuses.delete(def.response.status);
  return [...statuses].sort((a, b) => a - b);
}

function errorResponse(status: number, def: RouteDef, field: string | undefined): ResponseObject {
  const codes = codesOf(status);
  const description = [
    STATUS_DESCRIPTIONS[status] ?? 'Error.',
    codes.length ? `Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const headers: Record<string, RefObject> = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (status === 429) {
    headers['Retry-After'] = headerRef('Retry-After');
    headers['X-RateLimit-Limit'] = headerRef('X-RateLimit-Limit');
    headers['X-RateLimit-Remaining'] = headerRef('X-RateLimit-Remaining');
    headers['X-RateLimit-Reset'] = headerRef('X-RateLimit-Reset');
  }
  const example = exampleError(status, def, field);
  return {
    description,
    headers,
    content: {
      'application/json': {
        schema: { ...ERROR_REF },
        ...(example ? { examples: { [example.code ?? 'error']: { summary: example.error, value: example } } } : {}),
      },
    },
  };
}

function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
}

interface ExampleEnvelope {
  error: string;
  code?: ErrorCode;
  requestId: string;
  extras?: Record<string, unknown>;
}

/** A realistic error body for `status` on this route; shapes follow server/http/*. */
function exampleError(status: number, def: RouteDef, field: string | undefined): ExampleEnvelope | undefined {
  const code = exampleCode(status, def);
  if (!code) return undefined;
  const envelope = (error: string, extras?: Record<string, unknown>): ExampleEnvelope => ({
    error,
    code,
    requestId: EXAMPLE_REQUEST_ID,
    ...(extras ? { extras } : {}),
  });
  switch (code) {
    case 'INVALID_INPUT': {
      const f = field ?? 'body';
      return envelope(`${f}: Invalid input`, { field: f });
    }
    case 'INSUFFICIENT_SCOPE': {
      const scope = def.auth.kind === 'apiKey' ? def.auth.scope : 'READ_PUBLIC';
      const granted = scope === 'READ_PUBLIC' ? ['WRITE_SALES'] : ['READ_PUBLIC'];
      return envelope(messages.insufficientScope(scope), { grantedScopes: granted });
    }
    case 'RATE_LIMITED':
    case 'IDEMPOTENCY_IN_PROGRESS':
      return envelope(EXAMPLE_MESSAGE[code]!, { retryAfter: 1 });
    default:
      return envelope(EXAMPLE_MESSAGE[code] ?? code.toLowerCase().replace(/_/g, ' '));
  }
}

function exampleCode(status: number, def: RouteDef): ErrorCode | undefined {
  // Without a key there is no scope to lack; a keyless 403 is a feature switched off.
  if (status === 403 && def.auth.kind === 'none') return 'FEATURE_NOT_ENABLED';
  if (status === 403 && def.auth.kind === 'widget') return 'ORIGIN_NOT_ALLOWED';
  if (status === 403 && def.auth.kind === 'leader') return 'NOT_A_LEADER';
  return EXAMPLE_CODE[status] ?? codesOf(status)[0];
}

/** A field the 400 example can name: the first query parameter, body property or path parameter. */
function sampleField(
  parameters: ParameterObject[],
  body: RequestBodyObject | undefined,
  schemas: SchemaCollector,
): string | undefined {
  const query = parameters.find((p) => p.in === 'query');
  if (query) return query.name;
  const bodySchema = body && schemas.deref(body.content['application/json'].schema, 'input');
  const bodyProps = bodySchema?.properties;
  if (bodyProps && typeof bodyProps === 'object') {
    const first = Object.keys(bodyProps)[0];
    if (first) return first;
  }
  return parameters.find((p) => p.in === 'path' && p.name !== 'communityTag')?.name;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
