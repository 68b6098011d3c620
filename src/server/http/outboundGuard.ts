// The SSRF guard for requests the server sends to addresses a user typed (a rule's webhook,
// a browser's push endpoint). A URL is vetted before anything is sent: https only, its host
// resolved once, and every address it resolves to checked against the ranges a public
// deployment must never reach from outside (loopback, private, link-local, unique-local,
// CGNAT, "this network", multicast, broadcast and reserved, and those same IPv4 ranges in
// IPv4-mapped or NAT64 IPv6 form). The connection is then made to the vetted address itself:
// the request's `lookup` answers with it, so a DNS answer that changes between the check and
// the connect (DNS rebinding) cannot move the request elsewhere. TLS still verifies the
// certificate against the host name (SNI and checks use the URL's host).
//
// A loopback deployment (config.publicDeployment === false: a developer's laptop, tests) sets
// `allowPrivateTargets`: then http:// and private or loopback targets are allowed, because the
// receiver there is usually on the same machine.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';
import { DomainError } from '../errors/domain.ts';

/** A URL refused by the guard: never retried, shown to the user as it is. */
export class OutboundBlockedError extends DomainError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'OutboundBlockedError';
  }
}

export interface OutboundOptions {
  /** Loopback deployment: allow http:// and private, loopback and link-local targets. */
  allowPrivateTargets: boolean;
  /** How the URL is named in error texts: 'Webhook URL', 'Push endpoint'. */
  label?: string;
}

export interface VettedTarget {
  url: URL;
  /** The address the connection goes to (pinned). */
  address: string;
  family: 4 | 6;
}

type Range = [base: number[], prefix: number, kind: 'private' | 'reserved'];

// IPv4 ranges as [octets, prefix length]. 'private': loopback, RFC 1918, link-local, CGNAT,
// "this network"; 'reserved': multicast, the old class E and the broadcast address.
const V4_BLOCKED: Range[] = [
  [[0, 0, 0, 0], 8, 'private'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'private'],
  [[127, 0, 0, 0], 8, 'private'],
  [[169, 254, 0, 0], 16, 'private'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[224, 0, 0, 0], 4, 'reserved'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

// IPv6 ranges over the 16 bytes. IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96) and
// NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address they carry, below.
const V6_BLOCKED: Range[] = [
  [[0xfe, 0x80], 10, 'private'], // link-local fe80::/10
  [[0xfe, 0xc0], 10, 'private'], // old site-local fec0::/10
  [[0xfc, 0x00], 7, 'private'], // unique-local fc00::/7
  [[0xff, 0x00], 8, 'reserved'], // multicast ff00::/8
];

function inRange(bytes: number[], base: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const index = bit / 8;
    const bits = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (with a possible trailing dotted IPv4 part). */
function v6Bytes(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const tail: number[] = [];
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    tail.push(...v4Bytes(dotted[1]));
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const headGroups = groups(head);
  const restGroups = rest === null ? [] : groups(rest);
  const missing = 8 - tail.length / 2 - headGroups.length - restGroups.length;
  const all = [...headGroups, ...Array<number>(rest === null ? 0 : missing).fill(0), ...restGroups];
  const bytes = all.flatMap((group) => [group >> 8, group & 0xff]);
  return [...bytes, ...tail];
}

/**
 * Why an address may not be reached from a public deployment: 'private' (loopback, private,
 * link-local, unique-local, CGNAT, 0.0.0.0/8, or the IPv6 forms of those), 'reserved'
 * (multicast, broadcast, reserved), or null for an ordinary public address.
 */
export function classifyAddress(address: string): 'private' | 'reserved' | null {
  if (isIPv4(address)) {
    const bytes = v4Bytes(address);
    for (const [base, prefix, kind] of V4_BLOCKED) if (inRange(bytes, base, prefix)) return kind;
    return null;
  }
  if (!isIPv6(address)) return 'reserved';
  const bytes = v6Bytes(address);
  if (bytes.length !== 16) return 'reserved';
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  // :: (unspecified) and ::1 (loopback).
  if (zeros(0, 15) && (bytes[15] === 0 || bytes[15] === 1)) return 'private';
  const embedded =
    (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) || // ::ffff:a.b.c.d (mapped)
    zeros(0, 12) || // ::a.b.c.d (compatible)
    inRange(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96); // 64:ff9b::a.b.c.d (NAT64)
  if (embedded) return classifyAddress(bytes.slice(12).join('.'));
  for (const [base, prefix, kind] of V6_BLOCKED) if (inRange(bytes, base, prefix)) return kind;
  return null;
}

function blockedMessage(label: string, address: string, kind: 'private' | 'reserved'): string {
  return kind === 'private'
    ? `${label} points to a private or loopback address (${address})`
    : `${label} points to a multicast, broadcast or reserved address (${address})`;
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/** A DNS failure (no such host, resolver down): not the user's fault alone, worth a retry. */
export class OutboundLookupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundLookupError';
  }
}

/**
 * Checks a URL and resolves its host: throws OutboundBlockedError for a URL the guard refuses
 * (wrong scheme, private address) and OutboundLookupError when the host does not resolve.
 * Every address the host resolves to must pass; the first one is pinned.
 */
export async function vetUrl(input: string | URL, options: OutboundOptions): Promise<VettedTarget> {
  const label = options.label ?? 'URL';
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundBlockedError(`${label} is not a valid URL`);
  }
  const allowed = options.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) throw new OutboundBlockedError(`${label} must start with https://`);
  if (url.username !== '' || url.password !== '')
    throw new OutboundBlockedError(`${label} must not contain a user name or password`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new OutboundBlockedError(`${label} has no host`);

  let addresses: LookupAddress[];
  if (isIPv4(host)) addresses = [{ address: host, family: 4 }];
  else if (isIPv6(host)) addresses = [{ address: host, family: 6 }];
  else {
    try {
      addresses = await resolveAll(host);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'lookup failed';
      throw new OutboundLookupError(`${label} host ${host} could not be resolved (${code})`, { cause: error });
    }
    if (addresses.length === 0) throw new OutboundLookupError(`${label} host ${host} has no address`);
  }
  if (!options.allowPrivateTargets) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (kind) throw new OutboundBlockedError(blockedMessage(label, address, kind));
    }
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for http(s).request that answers every query with the vetted address. */
export function pinnedLookup(target: VettedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** The whole exchange (connect, send, response head and the capped body) must end within this. */
  timeoutMs: number;
  /** The most response body bytes kept (the rest is dropped); default 4 KB. */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The response body, cut at maxResponseBytes. */
  body: string;
  latencyMs: number;
}

/** A request that did not get a response: timeout, refused connection, TLS failure, reset. */
export class OutboundNetworkError extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OutboundNetworkError';
  }
}

/**
 * Sends one request to a vetted target, connecting to the pinned address. Redirects are not
 * followed (a 3xx comes back as it is). Throws OutboundNetworkError when no response came.
 */
export function sendPinned(target: VettedTarget, request: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const maxBytes = request.maxResponseBytes ?? 4096;
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response as OutboundResponse);
    };
    const outgoing = client.request(
      target.url,
      {
        method: request.method ?? 'POST',
        headers: request.headers,
        lookup: pinnedLookup(target),
        // Never reuse a socket opened for another (possibly differently resolved) request.
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () =>
          finish(null, {
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            latencyMs: Math.round(performance.now() - started),
          });
        incoming.on('data', (chunk: Buffer) => {
          if (kept >= maxBytes) return;
          const part = chunk.subarray(0, maxBytes - kept);
          chunks.push(part);
          kept += part.length;
          // Enough read for an error text: stop the transfer rather than drain a huge body.
          if (kept >= maxBytes) {
            done();
            incoming.destroy();
          }
        });
        incoming.on('end', done);
        incoming.on('error', (error) => finish(new OutboundNetworkError(networkText(error), false, { cause: error })));
      },
    );
    const timer = setTimeout(() => {
      finish(new OutboundNetworkError(`No answer within ${request.timeoutMs} ms`, true));
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error) => finish(new OutboundNetworkError(networkText(error), false, { cause: error })));
    outgoing.end(request.body);
  });
}

function networkText(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** vetUrl, then sendPinned: the guarded request in one call. */
export async function guardedRequest(
  url: string | URL,
  options: OutboundOptions,
  request: OutboundRequest,
): Promise<OutboundResponse> {
  return sendPinned(await vetUrl(url, options), request);
}
