// Tests for the webhook SSRF guard. DNS is always a stub, and every test that could reach a
// non-loopback address replaces net.Socket#connect first, so nothing here leaves the machine.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkReceiverUrl,
  classifyAddress,
  createGuardedAgents,
  UnsafeReceiverError,
  type LookupFn,
  type ResolvedAddress,
} from '../../../server/webhooks/ssrf.ts';

const PUBLIC_V4: ResolvedAddress = { address: '93.184.216.34', family: 4 };
const PUBLIC_V6: ResolvedAddress = { address: '2606:4700::1111', family: 6 };

function answers(...addresses: ResolvedAddress[]) {
  return vi.fn<LookupFn>(async () => addresses);
}

/** For IP literals and refusals that must happen before DNS is consulted. */
function noDns() {
  return vi.fn<LookupFn>(async (host) => {
    throw new Error(`lookup(${host}) must not be called`);
  });
}

function dnsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} nowhere.invalid`), { code });
}

async function refusal(promise: Promise<unknown>): Promise<UnsafeReceiverError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnsafeReceiverError);
  return err as UnsafeReceiverError;
}

interface ConnectCall {
  options: net.TcpNetConnectOpts & { servername?: string };
}

/**
 * Replaces Socket#connect so no packet is sent: each attempt is recorded and the socket is
 * destroyed on the next tick, which surfaces as an error on the request.
 */
function blockConnects() {
  const calls: ConnectCall[] = [];
  const spy = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
    this: net.Socket,
    ...args: unknown[]
  ) {
    // net.connect passes its normalised [options, cb] array; tls.connect passes options directly.
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as ConnectCall['options'];
    calls.push({ options });
    process.nextTick(() => this.destroy(new Error('test: outgoing connection blocked')));
    return this;
  } as typeof net.Socket.prototype.connect);
  return { spy, calls };
}

/** Where a recorded connect would really have gone: the literal host, or what its lookup option answers. */
async function destinations(call: ConnectCall): Promise<{ address: string; port: number }[]> {
  const { host, port, lookup } = call.options;
  if (host && net.isIP(host)) return [{ address: host, port: Number(port) }];
  expect(lookup, 'a host name must come with a pinned lookup').toBeTypeOf('function');
  const all = await new Promise<{ address: string }[]>((resolve, reject) => {
    const cb = (err: Error | null, addresses: { address: string }[]) => (err ? reject(err) : resolve(addresses));
    (lookup as unknown as (h: string, o: object, cb: unknown) => void)(host ?? '', { all: true }, cb);
  });
  return all.map((a) => ({ address: a.address, port: Number(port) }));
}

function post(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? https.request : http.request;
    const req = request(url, { agent, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{"event":"test"}');
  });
}

const agentsToClose: http.Agent[] = [];
function agents(...args: Parameters<typeof createGuardedAgents>) {
  const made = createGuardedAgents(...args);
  agentsToClose.push(made.http, made.https);
  return made;
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const agent of agentsToClose.splice(0)) agent.destroy();
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2001:0:4136:e378::1', 'teredo'],
  ])('refuses %s as %s', (ip, range) => {
    expect(classifyAddress(ip)).toBe(range);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'treats %s as public',
    (ip) => {
      expect(classifyAddress(ip)).toBe('public');
    },
  );

  it('refuses IPv6 outside global unicast, such as the IPv4-compatible form ::127.0.0.1', () => {
    expect(classifyAddress('::7f00:1')).not.toBe('public');
  });

  it('does not call something that is not an IP address public', () => {
    expect(classifyAddress('example.com')).toBe('invalid address');
  });
});

describe('checkReceiverUrl', () => {
  const strict = (lookup: LookupFn = noDns()) => ({ allowPrivate: false, lookup });

  it.each([
    ['http://hooks.example.com/svc', 'not https'],
    ['ftp://hooks.example.com/svc', 'not https'],
    ['https://user:secret@hooks.example.com/svc', 'credentials in url'],
    ['https://user@hooks.example.com/svc', 'credentials in url'],
    ['not a url', 'invalid url'],
    ['https://127.0.0.1/hook', 'loopback address'],
    ['https://[::1]/hook', 'loopback address'],
    ['https://2130706433/', 'loopback address'],
    ['https://0177.0.0.1/', 'loopback address'],
    ['https://0x7f.0.0.1/', 'loopback address'],
    ['https://10.0.0.1/hook', 'private address'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal address'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback address'],
    ['https://localhost/hook', 'localhost'],
    ['https://a.localhost/hook', 'localhost'],
    ['https://localhost./hook', 'localhost'],
  ])('refuses %s (%s) without resolving it', async (raw, reason) => {
    const lookup = noDns();
    const err = await refusal(checkReceiverUrl(raw, strict(lookup)));
    expect(err.reason).toBe(reason);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('tells the admin how to allow private receivers in development', async () => {
    const err = await refusal(checkReceiverUrl('https://127.0.0.1/hook', strict()));
    expect(err.message).toContain('SVC_ALLOW_PRIVATE_WEBHOOKS=true');
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const lookup = answers(PUBLIC_V4, { address: '10.0.0.7', family: 4 });
    const err = await refusal(checkReceiverUrl('https://mixed.example/hook', strict(lookup)));
    expect(err.reason).toBe('private address');
    expect(err.message).toContain('mixed.example resolves to 10.0.0.7');
    expect(lookup).toHaveBeenCalledWith('mixed.example');
  });

  it('refuses a name that resolves to a private IPv6 address', async () => {
    const lookup = answers(PUBLIC_V6, { address: 'fd12::1', family: 6 });
    const err = await refusal(checkReceiverUrl('https://v6.example/hook', strict(lookup)));
    expect(err.reason).toBe('uniqueLocal address');
  });

  it('accepts a name that resolves only to public addresses', async () => {
    const result = await checkReceiverUrl('https://hooks.example.com/svc?x=1', strict(answers(PUBLIC_V4, PUBLIC_V6)));
    expect(result.resolved).toBe(true);
    expect(result.url.href).toBe('https://hooks.example.com/svc?x=1');
  });

  it('accepts a public IP literal without resolving it', async () => {
    const lookup = noDns();
    await expect(checkReceiverUrl('https://[2606:4700::1111]/hook', strict(lookup))).resolves.toMatchObject({
      resolved: true,
    });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('accepts a name that does not resolve yet, reporting resolved:false, since the connect-time check governs', async () => {
    const lookup = vi.fn<LookupFn>().mockRejectedValue(dnsError('ENOTFOUND'));
    const result = await checkReceiverUrl('https://not-yet.example/hook', strict(lookup));
    expect(result).toMatchObject({ resolved: false });
    expect(result.url.hostname).toBe('not-yet.example');
  });

  it('passes on a lookup failure that is not a DNS error', async () => {
    const lookup = vi.fn<LookupFn>().mockRejectedValue(new TypeError('bug in lookup'));
    await expect(checkReceiverUrl('https://hooks.example.com/', strict(lookup))).rejects.toThrow('bug in lookup');
  });

  describe('with allowPrivate', () => {
    const dev = (lookup: LookupFn = noDns()) => ({ allowPrivate: true, lookup });

    it('accepts http://127.0.0.1:1234/hook', async () => {
      const result = await checkReceiverUrl('http://127.0.0.1:1234/hook', dev());
      expect(result).toMatchObject({ resolved: true });
      expect(result.url.port).toBe('1234');
    });

    it('accepts localhost and names that resolve to private addresses', async () => {
      await expect(
        checkReceiverUrl('http://localhost:3000/hook', dev(answers({ address: '127.0.0.1', family: 4 }))),
      ).resolves.toBeTruthy();
      await expect(
        checkReceiverUrl('https://intranet.example/', dev(answers({ address: '10.0.0.1', family: 4 }))),
      ).resolves.toBeTruthy();
    });

    it('still refuses other schemes and credentials', async () => {
      expect((await refusal(checkReceiverUrl('ftp://127.0.0.1/', dev()))).reason).toBe('not https');
      expect((await refusal(checkReceiverUrl('http://a:b@127.0.0.1/', dev()))).reason).toBe('credentials in url');
    });
  });
});

describe('createGuardedAgents at connect time', () => {
  it('creates keep-alive agents with the given socket limit', () => {
    const made = agents({ allowPrivate: false, lookup: noDns() }, { maxSockets: 7 });
    for (const agent of [made.http, made.https]) {
      expect(agent.maxSockets).toBe(7);
      expect((agent as unknown as { keepAlive: boolean }).keepAlive).toBe(true);
    }
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback address'],
    ['https://10.0.0.1/hook', 'private address'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal address'],
    ['https://[::1]/hook', 'loopback address'],
    ['https://[::ffff:7f00:1]/hook', 'loopback address'],
  ])('refuses the IP literal in %s before opening any socket or resolving', async (url, reason) => {
    const { spy } = blockConnects();
    const lookup = noDns();
    const made = agents({ allowPrivate: false, lookup }, { maxSockets: 2 });
    const err = await refusal(post(url, url.startsWith('https:') ? made.https : made.http));
    expect(err.reason).toBe(reason);
    expect(spy).not.toHaveBeenCalled();
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([
    ['loopback', [{ address: '127.0.0.1', family: 4 }], 'loopback address'],
    ['cloud metadata', [{ address: '169.254.169.254', family: 4 }], 'linkLocal address'],
    ['IPv6 loopback', [{ address: '::1', family: 6 }], 'loopback address'],
    ['public then private', [PUBLIC_V4, { address: '192.168.0.10', family: 4 }], 'private address'],
  ] as [string, ResolvedAddress[], string][])(
    'refuses a name resolving to %s before opening any socket',
    async (_label, resolved, reason) => {
      const { spy } = blockConnects();
      const lookup = answers(...resolved);
      const made = agents({ allowPrivate: false, lookup }, { maxSockets: 2 });
      const err = await refusal(post('https://internal.example/hook', made.https));
      expect(err.reason).toBe(reason);
      expect(lookup).toHaveBeenCalledWith('internal.example');
      expect(spy).not.toHaveBeenCalled();
    },
  );

  it('refuses a DNS-rebound name: public at registration, 10.0.0.1 at connect, and never connects', async () => {
    const { spy } = blockConnects();
    const lookup = vi
      .fn<LookupFn>()
      .mockResolvedValueOnce([PUBLIC_V4])
      .mockResolvedValueOnce([{ address: '10.0.0.1', family: 4 }]);
    const policy = { allowPrivate: false, lookup };

    const registered = await checkReceiverUrl('https://rebind.example/hook', policy);
    expect(registered.resolved).toBe(true);

    const made = agents(policy, { maxSockets: 2 });
    const err = await refusal(post(registered.url.href, made.https));
    expect(err.reason).toBe('private address');
    expect(err.message).toContain('rebind.example resolves to 10.0.0.1');
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(spy).not.toHaveBeenCalled();
  });

  it('refuses localhost names without resolving them', async () => {
    const { spy } = blockConnects();
    const lookup = noDns();
    const made = agents({ allowPrivate: false, lookup }, { maxSockets: 2 });
    const err = await refusal(post('http://api.localhost/hook', made.http));
    expect(err.reason).toBe('localhost');
    expect(lookup).not.toHaveBeenCalled();
    expect(spy).not.toHaveBeenCalled();
  });

  it('reports a name that fails to resolve as that DNS error, without connecting', async () => {
    const { spy } = blockConnects();
    const made = agents(
      { allowPrivate: false, lookup: vi.fn<LookupFn>().mockRejectedValue(dnsError('ENOTFOUND')) },
      { maxSockets: 2 },
    );
    await expect(post('https://gone.example/hook', made.https)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(spy).not.toHaveBeenCalled();
  });

  it('connects an https receiver to exactly the checked address and port, keeping the name for SNI', async () => {
    const { spy, calls } = blockConnects();
    const lookup = answers(PUBLIC_V4);
    const made = agents({ allowPrivate: false, lookup }, { maxSockets: 2 });

    await expect(post('https://hooks.example.com:8443/svc', made.https)).rejects.toThrow(
      'test: outgoing connection blocked',
    );

    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('hooks.example.com');
    expect(spy).toHaveBeenCalledTimes(1);
    expect(calls[0].options.host).toBe('hooks.example.com');
    expect(calls[0].options.servername).toBe('hooks.example.com');
    expect(await destinations(calls[0])).toEqual([{ address: '93.184.216.34', port: 8443 }]);
  });

  it('connects an http receiver to the checked address on the default port when allowed', async () => {
    const { calls } = blockConnects();
    const made = agents({ allowPrivate: false, lookup: answers(PUBLIC_V6) }, { maxSockets: 2 });
    await expect(post('http://hooks.example.com/svc', made.http)).rejects.toThrow('test: outgoing connection blocked');
    expect(calls).toHaveLength(1);
    expect(await destinations(calls[0])).toEqual([{ address: '2606:4700::1111', port: 80 }]);
  });

  it('connects a public IP literal directly without resolving it', async () => {
    const { calls } = blockConnects();
    const lookup = noDns();
    const made = agents({ allowPrivate: false, lookup }, { maxSockets: 2 });
    await expect(post('https://[2606:4700::1111]/svc', made.https)).rejects.toThrow(
      'test: outgoing connection blocked',
    );
    expect(lookup).not.toHaveBeenCalled();
    expect(await destinations(calls[0])).toEqual([{ address: '2606:4700::1111', port: 443 }]);
  });

  describe('with allowPrivate', () => {
    async function withServer(
      run: (port: number, seen: { method?: string; host?: string; body: string }) => Promise<void>,
    ) {
      const seen: { method?: string; host?: string; body: string } = { body: '' };
      const server = http.createServer((req, res) => {
        seen.method = req.method;
        seen.host = req.headers.host;
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (seen.body += chunk));
        req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('received'));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        await run((server.address() as AddressInfo).port, seen);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }

    it('delivers a real request to an http receiver on 127.0.0.1', async () => {
      await withServer(async (port, seen) => {
        const made = agents({ allowPrivate: true, lookup: noDns() }, { maxSockets: 2 });
        const res = await post(`http://127.0.0.1:${port}/hook`, made.http);
        expect(res).toEqual({ status: 200, body: 'received' });
        expect(seen).toMatchObject({ method: 'POST', body: '{"event":"test"}' });
      });
    });

    it('delivers to a name through the address its lookup returned, not through system DNS', async () => {
      await withServer(async (port, seen) => {
        const lookup = answers({ address: '127.0.0.1', family: 4 });
        const made = agents({ allowPrivate: true, lookup }, { maxSockets: 2 });
        const res = await post(`http://receiver.invalid:${port}/hook`, made.http);
        expect(res).toEqual({ status: 200, body: 'received' });
        expect(seen.host).toBe(`receiver.invalid:${port}`);
        expect(lookup).toHaveBeenCalledWith('receiver.invalid');
      });
    });
  });
});
