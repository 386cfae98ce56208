// SSRF guard for outgoing webhook deliveries: receiver URLs must be HTTPS to public addresses.
// The URL is checked when a receiver is registered, and every connection is checked again when
// it is opened, because a name that was public at registration can later resolve to an internal
// address (DNS rebinding). SVC_ALLOW_PRIVATE_WEBHOOKS=true (allowPrivate) relaxes both checks
// for local development only. The chrome proxy's upstream fetches use the same guard at connect
// time, with their own wording (ReceiverPolicy.wording).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address (dns.promises.lookup with {all:true, verbatim:true}). Injectable so tests never touch DNS. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupFn = async (hostname) => {
  const rows = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return rows.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
};

export interface ReceiverPolicy {
  allowPrivate: boolean;
  lookup: LookupFn;
  /** How a refused address is named in messages; the webhooks' wording when absent. */
  wording?: RefusalWording;
}

/** The guard also protects other outgoing requests (the chrome proxy's upstreams), whose refusals must name them. */
export interface RefusalWording {
  /** What was refused, e.g. 'webhook receiver'. */
  subject: string;
  /** What is expected instead, e.g. 'Receivers must be reachable on the public internet.' */
  requirement: string;
  /** How to relax the guard for local development. */
  devHint: string;
}

const DEV_HINT = 'For local development only, set SVC_ALLOW_PRIVATE_WEBHOOKS=true to allow private receivers.';

export const WEBHOOK_WORDING: RefusalWording = {
  subject: 'webhook receiver',
  requirement: 'Receivers must be reachable on the public internet.',
  devHint: DEV_HINT,
};

/** Thrown when a receiver URL or the address it resolves to is refused. */
export class UnsafeReceiverError extends Error {
  /** Lets delivery code tell a refusal apart from network errors without instanceof. */
  readonly code = 'UNSAFE_RECEIVER';
  constructor(
    /** Short stable phrase, e.g. 'loopback address', 'not https'. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeReceiverError';
  }
}

// 2000::/3 is the only IPv6 block allocated for global unicast. ipaddr.js calls everything it has
// no name for 'unicast', which would include the deprecated IPv4-compatible ::a.b.c.d form.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function classifyV4(v4: ipaddr.IPv4): string {
  const range = v4.range();
  return range === 'unicast' ? 'public' : range;
}

/** 'public' or the name of the refused range (an IPv6 address embedding an IPv4 one gets that address's range). */
export function classifyAddress(ip: string): 'public' | string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ipaddr.parse also reads inet_aton forms (0177.0.0.1, 2130706433) the way the OS resolver
    // does, so such a string is classified as the address it would actually reach.
    parsed = ipaddr.parse(ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip);
  } catch {
    return 'invalid address';
  }
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4);

  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  // These forms carry an IPv4 destination that a translator or tunnel will deliver to, so the
  // embedded address decides.
  if (range === 'ipv4Mapped') return classifyV4(v6.toIPv4Address());
  if (v6.match(NAT64_WELL_KNOWN)) {
    const [, , , , , , hi, lo] = v6.parts;
    return classifyV4(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
  }
  if (range === '6to4') {
    const [, hi, lo] = v6.parts;
    return classifyV4(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
  }
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isLocalhostName(host: string): boolean {
  // A trailing dot is the same name to the resolver, so 'localhost.' must not slip through.
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function refusedAddress(
  host: string,
  address: string,
  range: string,
  wording: RefusalWording = WEBHOOK_WORDING,
): UnsafeReceiverError {
  const where = host === address ? `${address} is` : `${host} resolves to ${address}, which is`;
  return new UnsafeReceiverError(
    `${range} address`,
    `Refused ${wording.subject}: ${where} a ${range} address. ${wording.requirement} ${wording.devHint}`,
  );
}

/** The first non-public address in a lookup answer, if any: one bad answer is enough to refuse. */
function firstRefused(
  host: string,
  addresses: readonly ResolvedAddress[],
  wording?: RefusalWording,
): UnsafeReceiverError | null {
  for (const { address } of addresses) {
    const range = classifyAddress(address);
    if (range !== 'public') return refusedAddress(host, address, range, wording);
  }
  return null;
}

function hasErrorCode(err: unknown): boolean {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string';
}

/**
 * Registration-time check of a receiver URL. A host name that does not resolve yet is accepted
 * with resolved:false, since the connect-time check is the one that governs.
 */
export async function checkReceiverUrl(raw: string, policy: ReceiverPolicy): Promise<{ url: URL; resolved: boolean }> {
  let url: URL;
  try {
    // WHATWG parsing normalises 2130706433, 0177.0.0.1 and 0x7f.0.0.1 to 127.0.0.1, so the
    // literal checks below see the address the request would really go to.
    url = new URL(raw);
  } catch {
    throw new UnsafeReceiverError(
      'invalid url',
      'The receiver URL is not a valid absolute URL. Use a full URL such as https://example.com/webhooks/svc.',
    );
  }

  const schemeAllowed = url.protocol === 'https:' || (policy.allowPrivate && url.protocol === 'http:');
  if (!schemeAllowed) {
    throw new UnsafeReceiverError(
      'not https',
      `The receiver URL must start with https:// (got ${url.protocol}//). ` +
        'For local development only, SVC_ALLOW_PRIVATE_WEBHOOKS=true also allows http:// receivers.',
    );
  }

  if (url.username !== '' || url.password !== '') {
    throw new UnsafeReceiverError(
      'credentials in url',
      'Remove the user name and password from the receiver URL; verify deliveries with the Svc-Signature header instead.',
    );
  }

  const host = stripBrackets(url.hostname);
  if (net.isIP(host)) {
    if (!policy.allowPrivate) {
      const range = classifyAddress(host);
      if (range !== 'public') throw refusedAddress(host, host, range, policy.wording);
    }
    return { url, resolved: true };
  }

  const wording = policy.wording ?? WEBHOOK_WORDING;
  if (!policy.allowPrivate && isLocalhostName(host)) {
    throw new UnsafeReceiverError(
      'localhost',
      `Refused ${wording.subject}: ${host} always points at this machine. ${wording.requirement} ${wording.devHint}`,
    );
  }

  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.lookup(host);
  } catch (err) {
    // DNS failures (ENOTFOUND, EAI_AGAIN...) carry a code; anything else is a bug, not a verdict.
    if (hasErrorCode(err)) return { url, resolved: false };
    throw err;
  }
  if (addresses.length === 0) return { url, resolved: false };
  if (!policy.allowPrivate) {
    const refusal = firstRefused(host, addresses, policy.wording);
    if (refusal) throw refusal;
  }
  return { url, resolved: true };
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;
type PinnedLookup = NonNullable<net.TcpNetConnectOpts['lookup']>;

/** A net/tls `lookup` option that answers with the already-checked addresses and never asks DNS again. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): PinnedLookup {
  const pinned = (
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
  ): void => {
    const family = options.family === 4 || options.family === 6 ? options.family : null;
    const usable = family === null ? addresses : addresses.filter((a) => a.family === family);
    process.nextTick(() => {
      if (usable.length === 0) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        callback(err, '');
      } else if (options.all) {
        callback(
          null,
          usable.map((a) => ({ address: a.address, family: a.family })),
        );
      } else {
        callback(null, usable[0].address, usable[0].family);
      }
    });
  };
  return pinned as unknown as PinnedLookup;
}

/**
 * Resolves and checks the destination, then hands pinned options to `connect`. Always reports
 * through `callback` exactly once; returns nothing so the Agent waits for the callback.
 */
function guardedConnect(
  policy: ReceiverPolicy,
  options: http.ClientRequestArgs,
  connect: (options: http.ClientRequestArgs) => Duplex | null | undefined,
  callback: ConnectCallback | undefined,
): void {
  let done = false;
  const finish = (err: Error | null, socket?: Duplex | null): void => {
    if (done) return;
    done = true;
    if (callback) callback(err, socket as Duplex);
    else if (socket) socket.destroy(err ?? undefined);
  };
  const open = (opts: http.ClientRequestArgs): void => {
    try {
      const socket = connect(opts);
      if (!socket) throw new Error('createConnection returned no socket');
      finish(null, socket);
    } catch (err) {
      finish(err as Error);
    }
  };

  const wording = policy.wording ?? WEBHOOK_WORDING;
  const socketPath = (options as { socketPath?: string }).socketPath;
  if (socketPath) {
    // A Unix socket is by definition on this machine.
    if (policy.allowPrivate) return open(options);
    return finish(
      new UnsafeReceiverError(
        'unix socket',
        `Refused ${wording.subject}: a Unix socket is always local. ${wording.devHint}`,
      ),
    );
  }

  const host = stripBrackets(options.host ?? options.hostname ?? 'localhost');
  if (net.isIP(host)) {
    // net.connect never resolves an IP literal, so classifying it here covers the connection.
    const range = classifyAddress(host);
    if (range !== 'public' && !policy.allowPrivate) return finish(refusedAddress(host, host, range, wording));
    return open({ ...options, host });
  }
  if (isLocalhostName(host) && !policy.allowPrivate) {
    return finish(
      new UnsafeReceiverError(
        'localhost',
        `Refused ${wording.subject}: ${host} always points at this machine. ${wording.devHint}`,
      ),
    );
  }

  policy.lookup(host).then(
    (addresses) => {
      if (addresses.length === 0) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
        err.code = 'ENOTFOUND';
        return finish(err);
      }
      if (!policy.allowPrivate) {
        const refusal = firstRefused(host, addresses, wording);
        if (refusal) return finish(refusal);
      }
      // host stays the name so TLS sends it as SNI and verifies the certificate against it;
      // only the address lookup is replaced, by the answer that was just checked.
      open({ ...options, host, lookup: pinnedLookup(addresses) });
    },
    (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
  );
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: ReceiverPolicy,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    // net.createConnection would take the callback as a 'connect' listener, so it is never passed on.
    guardedConnect(this.policy, options, (opts) => super.createConnection(opts), callback);
    return undefined;
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: ReceiverPolicy,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    guardedConnect(this.policy, options, (opts) => super.createConnection(opts as https.RequestOptions), callback);
    return undefined;
  }
}

/**
 * Keep-alive agents that re-check the destination on every new connection and pin it to the
 * checked address. A reused keep-alive socket is already connected to a checked address.
 */
export function createGuardedAgents(
  policy: ReceiverPolicy,
  opts: { maxSockets: number },
): { http: http.Agent; https: https.Agent } {
  const agentOptions = { keepAlive: true, maxSockets: opts.maxSockets };
  return {
    http: new GuardedHttpAgent(policy, agentOptions),
    https: new GuardedHttpsAgent(policy, agentOptions),
  };
}
