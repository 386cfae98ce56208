// /demo/hosted, the stand-in for the hosted site before it existed: on a community's host it now
// sends old links to the real site's home page for good; elsewhere it is not found, as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCommunity } from './support/factory.ts';
import { startTestServer, type TestServer } from './support/harness.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';

let server: TestServer;
let port: string;

const get = (path: string, host: string): Promise<RawResponse> =>
  rawRequest(port, 'GET', path, { Host: `${host}:${port}` });

beforeAll(async () => {
  server = await startTestServer();
  port = new URL(server.url).port;
  await makeCommunity(server.database.db, 'club', { name: 'The Club', domains: ['club.example'] });
});
afterAll(async () => {
  await server.close();
});

describe('/demo/hosted: happy path', () => {
  it("on a community's host it is a permanent redirect to the site's home page", async () => {
    for (const host of ['club.localhost', 'club.example']) {
      const res = await get('/demo/hosted', host);
      expect(res.status).toBe(301);
      expect(res.headers.location).toBe('/');
      const home = await get(res.headers.location as string, host);
      expect(home.status).toBe(200);
      expect(home.text).toContain('The Club');
    }
  });

  it('a query does not stop the redirect, and is not carried to the home page', async () => {
    const res = await get('/demo/hosted?svc_donate=success', 'club.localhost');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/');
  });
});

describe('/demo/hosted: errors', () => {
  it("on the platform host it keeps the JSON not-found answer: there is no community's site there", async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const res = await get('/demo/hosted', host);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('on a host that is no site it is the plain HTML not-found page', async () => {
    for (const host of ['nowhere.example', 'nosuch.localhost']) {
      const res = await get('/demo/hosted', host);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('No site is served at this address.');
    }
  });
});
