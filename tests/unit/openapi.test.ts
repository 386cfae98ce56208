// The OpenAPI document and the /docs page, generated from the route table.
import crypto from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SCOPES } from '../../contract/enums.ts';
import { ERROR_STATUS, ErrorEnvelope } from '../../contract/errors.ts';
import { DonationConfig, Event } from '../../contract/resources.ts';
import { route, type RouteDef } from '../../contract/route.ts';
import { ROUTES } from '../../contract/routes/index.ts';
import { DOCS_PAGE_CSP, getDocsPage, renderDocsPage } from '../../server/openapi/docs-page.ts';
import {
  buildOpenApiDocument,
  getOpenApiDocument,
  SPEC_COMPONENTS,
  type OpenApiDocument,
} from '../../server/openapi/document.ts';
import type { JsonSchema, OperationObject, ResponseObject } from '../../server/openapi/types.ts';

const SERVER = 'http://localhost:3000';
const SPEC_TAGS = [
  'Events',
  'Articles',
  'Products',
  'Members',
  'Atlas',
  'Segments',
  'Applications',
  'Broadcasts',
  'Rules',
];

const doc = buildOpenApiDocument({ serverUrl: SERVER });

async function expectValidOpenApi(document: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(JSON.parse(JSON.stringify(document)));
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
}

function operationOf(document: OpenApiDocument, def: Pick<RouteDef, 'path' | 'method'>): OperationObject {
  const op = document.paths[def.path]?.[def.method];
  if (!op) throw new Error(`${def.method} ${def.path} is not in the document`);
  return op;
}

/** Every `$ref` string anywhere in a JSON value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, found));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

function resolvePointer(document: unknown, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, raw) => {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }, document);
}

function headerNames(response: ResponseObject): string[] {
  return Object.keys(response.headers ?? {});
}

function errorExamples(op: OperationObject): unknown[] {
  return Object.entries(op.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, r]) => Object.values(r.content?.['application/json']?.examples ?? {}).map((e) => e.value));
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: 'svc community API', version: '1.0.0' });
    expect(doc.servers).toEqual([{ url: SERVER, description: 'API host' }]);
    await expectValidOpenApi(doc);
  });

  it("declares the spec's nine tags, each described", () => {
    const names = doc.tags.map((t) => t.name);
    for (const tag of SPEC_TAGS) expect(names).toContain(tag);
    for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(10);
  });

  it("has the spec's eleven components, whether or not a route uses them yet", () => {
    expect(SPEC_COMPONENTS).toHaveLength(11);
    for (const id of SPEC_COMPONENTS) expect(doc.components.schemas[id], id).toBeTypeOf('object');
    expect(doc.components.schemas.Event.properties).toHaveProperty('tiers');
  });

  it('lists every error code with its status on the Error component', () => {
    expect(doc.components.schemas.Error['x-error-codes']).toEqual(ERROR_STATUS);
  });

  it('has the two API-key security schemes on X-API-Key', () => {
    const { publishableKey, secretKey } = doc.components.securitySchemes;
    for (const scheme of [publishableKey, secretKey]) {
      expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    }
    expect(publishableKey.description).toContain('pk_live_');
    expect(secretKey.description).toContain('sk_live_');
  });

  it('documents every route of the table with its method, path, tag and auth', () => {
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(ROUTES.length);
    for (const def of ROUTES) {
      const op = operationOf(doc, def);
      expect(op.operationId).toBe(def.operationId);
      expect(op.tags).toEqual([def.tag]);
      expect(op.summary).toBe(def.summary);
      if (def.auth.kind === 'none' || def.auth.kind === 'sameOrigin') {
        expect(op.security).toEqual([]);
        expect(op['x-required-scope']).toBeUndefined();
      } else if (def.auth.kind === 'session' || def.auth.kind === 'leader') {
        expect(op.security).toEqual([{ signInCookie: [] }, { signInBearer: [] }]);
        expect(op['x-required-scope']).toBeUndefined();
      } else if (def.auth.kind === 'widget') {
        expect(op.security).toEqual([{ publishableKey: [] }, { signInCookie: [] }, {}]);
        expect(op['x-widget-action']).toBe(true);
      } else {
        expect(op['x-required-scope']).toBe(def.auth.scope);
        const expected =
          def.auth.scope === 'READ_PUBLIC' ? [{ publishableKey: [] }, { secretKey: [] }] : [{ secretKey: [] }];
        expect(op.security).toEqual(expected);
      }
    }
  });

  it('declares every path template parameter as a required path parameter', () => {
    for (const def of ROUTES) {
      const op = operationOf(doc, def);
      const templated = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const pathParams = op.parameters.filter((p) => p.in === 'path');
      expect(pathParams.map((p) => p.name).sort()).toEqual([...templated].sort());
      for (const p of pathParams) expect(p.required).toBe(true);
    }
  });

  it('documents query parameters on the input side: defaults optional, descriptions kept, booleans as booleans', () => {
    const listEvents = ROUTES.find((r) => r.operationId === 'listEvents')!;
    const params = Object.fromEntries(operationOf(doc, listEvents).parameters.map((p) => [p.name, p]));
    expect(params.limit).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', default: 20, maximum: 100 },
    });
    expect(params.cursor.description).toBe('opaque, from X-Next-Cursor');
    // Generated clients then take `upcoming: true`; the server still reads the string forms.
    for (const name of ['featured', 'upcoming', 'past']) expect(params[name].schema).toEqual({ type: 'boolean' });
  });

  it('answers every operation with its own error statuses and 500, all in the Error envelope', () => {
    for (const def of ROUTES) {
      const op = operationOf(doc, def);
      expect(op.responses[def.response.status]).toBeDefined();
      for (const status of [...def.errors, 500]) {
        const response = op.responses[status];
        expect(response, `${def.operationId} ${status}`).toBeDefined();
        expect(response.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      for (const [status, response] of Object.entries(op.responses)) {
        expect(headerNames(response), `${def.operationId} ${status}`).toContain('X-Request-Id');
      }
      const tooMany = op.responses[429];
      expect(headerNames(tooMany)).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Reset']));
    }
  });

  it('gives paginated lists their paging headers', () => {
    for (const def of ROUTES.filter((r) => r.response.paginated)) {
      const names = headerNames(operationOf(doc, def).responses[def.response.status]);
      expect(names).toEqual(expect.arrayContaining(['X-Total-Count', 'Link']));
    }
    const listEvents = ROUTES.find((r) => r.operationId === 'listEvents')!;
    expect(headerNames(operationOf(doc, listEvents).responses[200])).toContain('X-Next-Cursor');
  });

  it('refers to components for named schemas, and every $ref resolves', () => {
    const listEvents = ROUTES.find((r) => r.operationId === 'listEvents')!;
    expect(operationOf(doc, listEvents).responses[200].content?.['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Event' },
    });
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolvePointer(doc, ref), ref).toBeTypeOf('object');
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
  });

  it('leaves response objects open to added fields (v1 grows additively)', () => {
    expect(doc.components.schemas.Event.additionalProperties).toBeUndefined();
    expect(doc.components.schemas.Location.additionalProperties).toBeUndefined();
  });

  it('shows error examples that are valid error envelopes', () => {
    for (const def of ROUTES) {
      const examples = errorExamples(operationOf(doc, def));
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples)
        expect(ErrorEnvelope.safeParse(example).success, JSON.stringify(example)).toBe(true);
    }
  });

  it('is built once per server URL and frozen', () => {
    const a = getOpenApiDocument(SERVER);
    expect(getOpenApiDocument(SERVER)).toBe(a);
    expect(Object.isFrozen(a.paths)).toBe(true);
    expect(getOpenApiDocument('https://api.example.org').servers[0].url).toBe('https://api.example.org');
  });
});

describe('OpenAPI document of routes to come', () => {
  // Test-only declarations, not in the route table: they exercise shapes the document must handle.
  const donate = route({
    operationId: 'testDonate',
    method: 'post',
    path: '/v1/communities/{communityTag}/things/{sku}/donate',
    tag: 'Products',
    summary: 'Donate <script>alert(1)</script>',
    description: 'Escaping check: <b>not bold</b> & "quotes".',
    auth: { kind: 'apiKey', scope: 'WRITE_SALES' },
    params: z.object({ communityTag: z.string(), sku: z.string().describe('the product SKU') }),
    body: z.object({ amount: z.int().min(1), config: DonationConfig, note: z.string().default('') }).strict(),
    response: {
      status: 200,
      schema: z.object({ checkoutUrl: z.string(), event: Event.optional() }),
      description: 'Checkout',
    },
    errors: [404],
  });
  const patch = route({
    operationId: 'testPatch',
    method: 'patch',
    path: '/v1/communities/{communityTag}/things/{sku}',
    tag: 'Products',
    summary: 'Edit a thing',
    auth: { kind: 'apiKey', scope: 'ADMIN' },
    params: z.object({ communityTag: z.string(), sku: z.string() }),
    body: z.object({ name: z.string().optional() }),
    response: { status: 204, schema: z.undefined(), description: 'Edited' },
    errors: [],
  });
  const keyless = route({
    operationId: 'testKeyless',
    method: 'post',
    path: '/api/things',
    tag: 'Community site',
    summary: 'Keyless write',
    auth: { kind: 'none' },
    body: z.object({ x: z.string() }),
    response: { status: 201, schema: z.object({ ok: z.literal(true) }), description: 'Made' },
    errors: [],
  });
  const rsvp = route({
    operationId: 'testWidgetRsvp',
    method: 'post',
    path: '/api/actions/{communityTag}/things/{slug}/reserve',
    tag: 'Community site',
    summary: 'RSVP from a widget',
    description: 'Reserves a free seat.',
    auth: { kind: 'widget' },
    params: z.object({ communityTag: z.string(), slug: z.string() }),
    body: z.object({ email: z.email() }).strict(),
    response: { status: 200, schema: z.object({ ok: z.literal(true) }), description: 'Reserved' },
    errors: [404],
  });
  const routes = [...ROUTES, donate, patch, keyless, rsvp] as RouteDef[];
  const extended = buildOpenApiDocument({ serverUrl: SERVER, routes });

  it('stays valid with request bodies, 204s and keyless writes', async () => {
    await expectValidOpenApi(extended);
  });

  it('documents bodies on the input side, with input variants of components that differ', () => {
    const op = operationOf(extended, donate);
    expect(op.requestBody?.required).toBe(true);
    const body = op.requestBody!.content['application/json'].schema;
    expect(body.required).toEqual(['amount', 'config']);
    expect(body.additionalProperties).toBe(false);
    expect((body.properties as Record<string, JsonSchema>).config).toEqual({
      $ref: '#/components/schemas/DonationConfigInput',
    });
    // Currency is a transform: the output side cannot say more than "any", the input side has the pattern.
    const input = extended.components.schemas.DonationConfigInput.properties as Record<string, JsonSchema>;
    expect(input.currency.pattern).toBe('^[A-Za-z]{3}$');
    // Responses keep the plain component.
    expect(JSON.stringify(op.responses[200])).toContain('#/components/schemas/Event');
  });

  it('takes parameter descriptions from .describe()', () => {
    const sku = operationOf(extended, donate).parameters.find((p) => p.name === 'sku');
    expect(sku).toMatchObject({ in: 'path', required: true, description: 'the product SKU' });
  });

  it('puts Idempotency-Key and the idempotency errors on keyed writes only', () => {
    for (const def of [donate, patch]) {
      const op = operationOf(extended, def);
      const header = op.parameters.find((p) => p.name === 'Idempotency-Key');
      expect(header).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
      expect(header?.description).toMatch(/24 h/);
      for (const status of ['400', '409', '413', '415', '422', '429', '500'])
        expect(Object.keys(op.responses)).toContain(status);
      expect(headerNames(op.responses[def.response.status])).toContain('Idempotent-Replayed');
    }
    const keylessOp = operationOf(extended, keyless);
    expect(keylessOp.parameters.find((p) => p.name === 'Idempotency-Key')).toBeUndefined();
    expect(keylessOp.security).toEqual([]);
    for (const def of ROUTES.filter((r) => r.method === 'get')) {
      expect(operationOf(extended, def).parameters.find((p) => p.name === 'Idempotency-Key')).toBeUndefined();
    }
  });

  it('documents a widget action: the publishable key or the hosted site, the origin rule, its refusals', () => {
    const op = operationOf(extended, rsvp);
    expect(op.security).toEqual([{ publishableKey: [] }, { signInCookie: [] }, {}]);
    expect(op['x-widget-action']).toBe(true);
    expect(op['x-required-scope']).toBeUndefined();
    expect(op.description).toMatch(/^Reserves a free seat\.\n\n\*\*Widget action\.\*\*/);
    expect(op.description).toContain('embed origins');
    expect(op.description).toContain('ORIGIN_NOT_ALLOWED');
    for (const status of ['400', '401', '403', '404', '409', '413', '415', '422', '429', '500'])
      expect(Object.keys(op.responses)).toContain(status);
    expect(op.responses[403].content?.['application/json']?.examples?.ORIGIN_NOT_ALLOWED?.value).toMatchObject({
      code: 'ORIGIN_NOT_ALLOWED',
    });
    expect(op.responses[403].description).toContain('SECRET_KEY_NOT_ALLOWED');
    expect(op.parameters.find((p) => p.name === 'Idempotency-Key')?.description).toMatch(/client IP/);
    expect(headerNames(op.responses[200])).toContain('Idempotent-Replayed');
  });

  it('marks an all-optional body as optional and gives a 204 no content', () => {
    const op = operationOf(extended, patch);
    expect(op.requestBody?.required).toBe(false);
    expect(op.responses[204].content).toBeUndefined();
    expect(op.security).toEqual([{ secretKey: [] }]);
    expect(op['x-required-scope']).toBe('ADMIN');
  });

  it('refuses a route table it cannot document truthfully', () => {
    expect(() => buildOpenApiDocument({ serverUrl: SERVER, routes: [donate, donate] as RouteDef[] })).toThrow(
      /duplicate operationId/,
    );
    const stray = {
      ...patch,
      operationId: 'stray',
      params: z.object({ communityTag: z.string(), sku: z.string(), nope: z.string() }),
    };
    expect(() => buildOpenApiDocument({ serverUrl: SERVER, routes: [stray] as RouteDef[] })).toThrow(
      /nope is not in the path/,
    );
  });

  it('escapes route text in the docs page', () => {
    const html = renderDocsPage(extended);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('Donate &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;not bold&lt;/b&gt; &amp; &quot;quotes&quot;');
  });
});

describe('/docs page', () => {
  const html = renderDocsPage(doc);

  it('is a complete HTML document that links the JSON specification', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('href="/openapi.json"');
  });

  it('shows every operation with its id and path, and every tag and component', () => {
    for (const def of ROUTES) {
      expect(html).toContain(def.operationId);
      expect(html).toContain(def.path);
      expect(html).toContain(`id="op-${def.operationId}"`);
    }
    for (const tag of doc.tags) expect(html).toContain(`>${tag.name}</h2>`);
    for (const id of SPEC_COMPONENTS) expect(html).toContain(`id="schema-${id}"`);
    for (const code of Object.keys(ERROR_STATUS)) expect(html).toContain(code);
    for (const scope of SCOPES) expect(html).toContain(`<code>${scope}</code>`);
  });

  it('loads nothing from anywhere: no scripts, no external links, no remote CSS', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/\b(?:src|href|action)\s*=\s*["']?\s*(?:[a-z]+:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
  });

  it('publishes a CSP whose style hash matches the inline stylesheet', () => {
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    const hash = crypto.createHash('sha256').update(css).digest('base64');
    expect(DOCS_PAGE_CSP).toContain(`'sha256-${hash}'`);
    expect(DOCS_PAGE_CSP).toContain("default-src 'none'");
  });

  it('is rendered once per server URL', () => {
    expect(getDocsPage(SERVER)).toBe(getDocsPage(SERVER));
  });
});
