// The generated client in docs/examples/client, as integrators use the document: the committed
// openapi-typescript output is what the live /openapi.json gives, the example program compiles in
// strict mode against it with openapi-fetch, and it works against a running server.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypesFor } from '../../scripts/client-types.ts';
import { runExample } from '../../docs/examples/client/example.ts';
import { makeCommunity, makeEvent, makeKey } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';

const EXAMPLES = path.resolve(import.meta.dirname, '../../docs/examples');

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  const db = s.database.db;
  const c = await makeCommunity(db, 'hikers', { name: 'Hikers' });
  await db
    .updateTable('communities')
    .set({
      page_settings: JSON.stringify([
        { pageKey: 'EVENTS', enabled: true, visibility: null },
        { pageKey: 'BLOG', enabled: true, visibility: null },
      ]),
    })
    .where('id', '=', c.id)
    .execute();
  const hour = 3600_000;
  await makeEvent(db, c.id, {
    slug: 'last-week',
    name: 'Last week',
    startDate: new Date(Date.now() - 7 * 24 * hour).toISOString(),
  });
  for (const i of [1, 2, 3, 4, 5, 6]) {
    await makeEvent(db, c.id, {
      slug: `walk-${i}`,
      name: `Walk ${i}`,
      startDate: new Date(Date.now() + i * 24 * hour).toISOString(),
    });
  }
  admin = await makeKey(db, c.id, ['ADMIN']);
});
afterAll(async () => {
  await s?.close();
});

describe('generated client: happy path', () => {
  it('keeps docs/examples/client/svc-api.d.ts equal to what openapi-typescript makes of the live /openapi.json', async () => {
    const document = await (await fetch(`${s.url}/openapi.json`)).json();
    const generated = await clientTypesFor(document);
    // Compared as text: a difference means the API changed and the example's types did not.
    expect(
      fs.readFileSync(CLIENT_TYPES_FILE, 'utf8') === generated,
      'docs/examples/client/svc-api.d.ts is stale: run `npm run client:types`',
    ).toBe(true);
    expect(generated).toMatch(/upcoming\?: boolean;/);
  });

  it('compiles the example against the generated types in strict mode (docs/examples/tsconfig.json)', () => {
    const configFile = path.join(EXAMPLES, 'tsconfig.json');
    const read = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
    expect(read.error).toBeUndefined();
    const config = ts.parseJsonConfigFileContent(read.config, ts.sys, EXAMPLES, undefined, configFile);
    expect(config.options.strict).toBe(true);
    expect(config.fileNames.map((f) => path.basename(f)).sort()).toEqual(['example.ts', 'svc-api.d.ts']);
    const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
      ts.formatDiagnostic(d, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => EXAMPLES,
        getNewLine: () => '\n',
      }),
    );
    expect(diagnostics).toEqual([]);
  }, 120_000);

  it('runs the example against the server: upcoming events, an article drafted, published and read, a typed error', async () => {
    const lines: string[] = [];
    const result = await runExample({
      baseUrl: s.url,
      communityTag: 'hikers',
      secretKey: admin,
      log: (l) => lines.push(l),
    });
    expect(result.upcoming.map((e) => e.slug)).toEqual(['walk-1', 'walk-2', 'walk-3', 'walk-4', 'walk-5']);
    expect(result.upcomingTotal).toBe(6);
    expect(result.article).toMatchObject({ slug: 'trail-report-the-north-ridge', status: 'PUBLISHED' });
    expect(result.missingEventCode).toBe('NOT_FOUND');
    expect(lines).toContain('5 of 6 upcoming events');
  });
});
