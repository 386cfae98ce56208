// Property-based fuzzing of every operation in the route table: generated path parameters, query
// strings and bodies (from the operation's own schemas in the OpenAPI document, mostly valid so
// they reach the handlers and the database, with NUL and other control characters, lone
// surrogates, broken percent-encodings, huge numbers, wrong types and unknown fields mixed in).
// Whatever comes in, the answer is never a 5xx, and every 4xx is the error envelope. Runs on
// SQLite and, in CI, on PostgreSQL, which refuses NUL and unpaired surrogates where SQLite does not.
//
// Bounded and repeatable: a fixed seed (FUZZ_SEED overrides it to explore) and FUZZ_RUNS requests
// in all, shared out over the operations.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../contract/errors.ts';
import type { RouteDef } from '../../contract/route.ts';
import { ROUTES } from '../../contract/routes/index.ts';
import { seedDemo } from '../../server/domain/seed.ts';
import { getOpenApiDocument } from '../../server/openapi/document.ts';
import type { JsonSchema, OperationObject, ParameterObject } from '../../server/openapi/types.ts';
import { makeKey } from './support/factory.ts';
import {
  fromSchema,
  queryText,
  RawJson,
  toJsonText,
  urlComponent,
  withHostileLeaf,
  type SchemaContext,
} from './support/arbitraries.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1313);
const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const HOSTED = 'demo.localhost';

let s: TestServer;
let port: string;
let secretKey: string;
let visitorId: string;
/** The demo community's founder: the leader console's routes are fuzzed as a leader would call them. */
let founderId: string;
let ctx: SchemaContext;
/** Real values for each path parameter name, so most requests address something that exists. */
const known: Record<string, string[]> = {};

beforeAll(async () => {
  s = await startTestServer({
    // Per-IP and per-account budgets would otherwise turn most of the run into 429s.
    rateLimits: {
      widgetActionsPerMin: 1e6,
      friendRequestsPerHour: 1e6,
      donationsPerIpPerHour: 1e6,
      signIn: {
        failuresPerAccount: 1e6,
        failuresPerIp: 1e6,
        accountWritesPerIp: 1e6,
        emailsPerAddress: 1e6,
        smsStartsPerPhone: 1e6,
        smsStartsPerIp: 1e6,
      },
    },
  });
  port = new URL(s.url).port;
  const db = s.database.db;
  await seedDemo(db, { baseUrl: 'http://localhost:3000' });
  const community = await db.selectFrom('communities').select('id').where('tag', '=', 'demo').executeTakeFirstOrThrow();
  secretKey = await makeKey(db, community.id, ['ADMIN']);
  // Broadcasts on, so their handlers (not only the feature refusal) see the generated input.
  const { features } = await db
    .selectFrom('communities')
    .select('features')
    .where('id', '=', community.id)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('communities')
    .set({ features: JSON.stringify([...new Set([...(JSON.parse(features) as string[]), 'broadcasts'])]) })
    .where('id', '=', community.id)
    .execute();
  const scheduled = await s.request('/v1/communities/demo/broadcasts', {
    method: 'POST',
    key: secretKey,
    json: { subject: 'Fuzz', text: 'T', sendAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  if (scheduled.status !== 202) throw new Error(`broadcast setup: ${scheduled.status} ${scheduled.text}`);
  const member = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.usertag'])
    .where('memberships.community_id', '=', community.id)
    .where('memberships.status', '=', 'ACCEPTED')
    .executeTakeFirstOrThrow();
  visitorId = member.id;
  founderId = (
    await db
      .selectFrom('memberships')
      .select('user_id')
      .where('community_id', '=', community.id)
      .where('role', '=', 'founder')
      .where('status', '=', 'ACCEPTED')
      .executeTakeFirstOrThrow()
  ).user_id;
  const column = async <T extends string>(rows: Promise<Record<T, string>[]>, name: T) =>
    (await rows).map((r) => r[name]);
  const inDemo = community.id;
  Object.assign(known, {
    communityTag: ['demo'],
    slug: [
      ...(await column(db.selectFrom('events').select('slug').where('community_id', '=', inDemo).execute(), 'slug')),
      ...(await column(db.selectFrom('articles').select('slug').where('community_id', '=', inDemo).execute(), 'slug')),
    ],
    tierId: await column(db.selectFrom('tiers').select('id').where('community_id', '=', inDemo).execute(), 'id'),
    sku: await column(db.selectFrom('products').select('sku').where('community_id', '=', inDemo).execute(), 'sku'),
    articleId: await column(db.selectFrom('articles').select('id').where('community_id', '=', inDemo).execute(), 'id'),
    hotspotId: await column(
      db.selectFrom('atlas_hotspots').select('id').where('community_id', '=', inDemo).execute(),
      'id',
    ),
    segmentId: await column(db.selectFrom('segments').select('id').where('community_id', '=', inDemo).execute(), 'id'),
    requestId: await column(
      db.selectFrom('membership_requests').select('id').where('community_id', '=', inDemo).execute(),
      'id',
    ),
    userId: await column(
      db.selectFrom('memberships').select('user_id').where('community_id', '=', inDemo).execute(),
      'user_id',
    ),
    usertag: await column(db.selectFrom('users').select('usertag').execute(), 'usertag'),
    conversationId: await column(db.selectFrom('conversations').select('id').execute(), 'id'),
    broadcastId: [scheduled.body.id as string],
    hostname: [HOSTED],
    provider: ['google', 'slack', 'discord'],
  });
  const doc = getOpenApiDocument(s.config.publicUrl);
  ctx = { components: doc.components.schemas };
});
afterAll(async () => {
  await s?.close();
});

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function operationOf(def: RouteDef): OperationObject {
  const op = getOpenApiDocument(s.config.publicUrl).paths[def.path]?.[def.method];
  if (!op) throw new Error(`${def.operationId} is missing from the OpenAPI document`);
  return op;
}

/** Path segments: a real value most of the time, else anything. */
function pathArbitrary(def: RouteDef, params: ParameterObject[]): fc.Arbitrary<string> {
  const segments = params.map((p) => {
    const real = known[p.name]?.length ? fc.constantFrom(...known[p.name]) : null;
    const generated = urlComponent(queryText(p.schema, ctx));
    return real
      ? fc.oneof({ arbitrary: real.map(encodeURIComponent), weight: 2 }, { arbitrary: generated, weight: 1 })
      : generated;
  });
  return fc.tuple(...segments).map((values) => {
    let path = def.path;
    params.forEach((p, i) => {
      path = path.replace(`{${p.name}}`, values[i] || 'x');
    });
    return path;
  });
}

/** The declared query parameters (each present or not) and sometimes an undeclared one. */
function queryArbitrary(params: ParameterObject[]): fc.Arbitrary<string> {
  const pairs = params.map((p) =>
    fc.option(
      urlComponent(queryText(p.schema, ctx)).map((v) => `${p.name}=${v}`),
      { freq: 2 },
    ),
  );
  const stray = fc.option(
    fc
      .tuple(urlComponent(fc.constantFrom('x', '__proto__', 'limit', 'constructor')), urlComponent(fc.string()))
      .map(([k, v]) => `${k}=${v}`),
    { freq: 4 },
  );
  return fc.tuple(fc.tuple(...pairs), stray).map(([declared, extra]) => {
    const all = [...declared, extra].filter((x): x is string => x !== null);
    return all.length ? `?${all.join('&')}` : '';
  });
}

function bodyArbitrary(op: OperationObject): fc.Arbitrary<string | undefined> {
  const schema = op.requestBody?.content['application/json']?.schema as JsonSchema | undefined;
  const valid = schema ? withHostileLeaf(fromSchema(schema, ctx)).map(toJsonText) : fc.constant(undefined);
  // Malformed JSON and JSON that is not an object must be refused as cleanly as wrong fields.
  const junk = fc.constantFrom(
    '{',
    '[]',
    'null',
    '"\u0000"',
    '{"a":1}',
    '{"__proto__":{"x":1}}',
    toJsonText({ x: new RawJson('1e400') }),
  );
  return fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: junk, weight: 1 });
}

/** Who calls: the ADMIN key for keyed routes, the founder for the leader console, else the hosted site as its own pages would. */
async function callerHeaders(def: RouteDef): Promise<Record<string, string>> {
  if (def.auth.kind === 'apiKey') return { Host: `127.0.0.1:${port}`, 'X-API-Key': secretKey };
  const site = { Host: `${HOSTED}:${port}`, Origin: `http://${HOSTED}:${port}` };
  if (def.auth.kind === 'session' || def.auth.kind === 'leader') {
    const who = def.auth.kind === 'leader' ? founderId : visitorId;
    const { token } = await s.sessions.issue(who, Date.now(), undefined, 'demo');
    return { ...site, Authorization: `Bearer ${token}` };
  }
  return site;
}

function requestArbitrary(def: RouteDef): fc.Arbitrary<Omit<FuzzRequest, 'headers'>> {
  const op = operationOf(def);
  const parameters = op.parameters ?? [];
  const inPath = parameters.filter((p) => p.in === 'path');
  const inQuery = parameters.filter((p) => p.in === 'query');
  return fc.record({
    method: fc.constant(def.method.toUpperCase()),
    path: fc.tuple(pathArbitrary(def, inPath), queryArbitrary(inQuery)).map(([p, q]) => p + q),
    body: def.method === 'get' ? fc.constant(undefined) : bodyArbitrary(op),
  });
}

async function send(req: FuzzRequest): Promise<RawResponse> {
  // Content-Length always: Node's client sends a DELETE body without it, which is not HTTP.
  const headers = {
    ...req.headers,
    ...(req.body !== undefined
      ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(req.body)) }
      : {}),
  };
  return rawRequest(port, req.method, req.path, headers, req.body);
}

/** Never a 5xx; every 4xx the envelope, with the request id the response header carries. */
function assertAnswered(req: FuzzRequest, res: RawResponse): void {
  const shown = () => `${req.method} ${req.path}\n${req.body ?? ''}\n-> ${res.status} ${res.text.slice(0, 500)}`;
  if (res.status >= 500) throw new Error(`server error\n${shown()}`);
  if (res.status < 400) return;
  const envelope = res.body as Record<string, unknown> | undefined;
  const ok =
    /^application\/json/.test(String(res.headers['content-type'])) &&
    typeof envelope?.error === 'string' &&
    ERROR_CODES.includes(envelope.code as never) &&
    envelope.requestId === res.headers['x-request-id'];
  if (!ok) throw new Error(`a ${res.status} without the error envelope\n${shown()}`);
}

const runsPerOperation = Math.max(
  1,
  Math.round(TOTAL_RUNS / (ROUTES.length + ROUTES.filter((r) => r.auth.kind === 'widget').length)),
);

describe('input fuzzing: error', () => {
  for (const def of ROUTES) {
    it(`${def.operationId}: no 5xx and an envelope on every 4xx`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(def), async (generated) => {
          const req = { ...generated, headers: await callerHeaders(def) };
          assertAnswered(req, await send(req));
        }),
        { seed: SEED, numRuns: runsPerOperation },
      );
    });
  }

  // The CORS preflight of a widget action reads the community before any route is matched.
  for (const def of ROUTES.filter((r) => r.auth.kind === 'widget')) {
    it(`${def.operationId} preflight: no 5xx and an envelope on every 4xx`, async () => {
      const op = operationOf(def);
      await fc.assert(
        fc.asyncProperty(
          pathArbitrary(
            def,
            (op.parameters ?? []).filter((p) => p.in === 'path'),
          ),
          async (path) => {
            const req = {
              method: 'OPTIONS',
              path,
              headers: {
                Host: `127.0.0.1:${port}`,
                Origin: 'http://127.0.0.1:3000',
                'Access-Control-Request-Method': def.method.toUpperCase(),
                'Access-Control-Request-Headers': 'content-type,x-api-key',
              },
            };
            assertAnswered(req, await send(req));
          },
        ),
        { seed: SEED, numRuns: runsPerOperation },
      );
    });
  }

  it('walks every operation of the route table', () => {
    expect(ROUTES.length).toBeGreaterThan(70);
  });
});
