// The SSRF guard for requests the server sends to addresses a user typed (a rule's webhook,
// a browser's push endpoint). A URL is vetted before anything is sent: https only, its host
// resolved once, and every address it resolves to classified by ipaddr.js: only ordinary
// public unicast passes on a public deployment, never loopback, private, link-local,
// unique-local, CGNAT, multicast, broadcast or any other IANA special-purpose range, nor an
// IPv6 address that translates or tunnels to IPv4 (NAT64, SIIT, 6to4, Teredo) unless it is
// the well-known NAT64 prefix carrying a public IPv4 address. The connection is then made to the vetted address itself:
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
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
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
  /** The longest wait for DNS; default 5 s. */
  lookupTimeoutMs?: number;
}

export interface VettedTarget {
  url: URL;
  /** The address the connection goes to (pinned). */
  address: string;
  family: 4 | 6;
}

type Blocked = 'private' | 'reserved' | 'translated';

// ipaddr.js's names (its IANA-derived SpecialRanges) of addresses inside one host or site.
// 'unicast' is its name for everything else; every other name is refused as reserved.
const INSIDE_RANGES = new Set([
  'unspecified',
  'loopback',
  'private',
  'linkLocal',
  'carrierGradeNat',
  'uniqueLocal',
  'deprecatedSiteLocal',
]);

// IPv6 addresses that carry an IPv4 address or tunnel to one: a NAT64/SIIT translator or a
// 6to4/Teredo relay near the server would forward them to whatever IPv4 address they name,
// so they are refused whatever they carry. The one exception, 64:ff9b::/96, is below. The
// offset says where the IPv4 address sits, to name a private one in the error.
const TRANSLATION_RANGES = new Map<string, number | null>([
  ['rfc6145', 12], // ::ffff:0:a.b.c.d, SIIT's IPv4-translated form
  ['rfc6052', null], // 64:ff9b:1::/48, local-use NAT64: the IPv4 address's place depends on the prefix length
  ['ipv4Compatible', 12], // ::a.b.c.d, deprecated by RFC 4291
  ['6to4', 2], // 2002:aabb:ccdd::/48, the relay's IPv4 address
  ['teredo', null], // 2001::/32, the client's IPv4 address is obfuscated
]);

// The only ranges ipaddr.js 2.5 does not name, checked against the IANA IPv4 and IPv6
// Special-Purpose Address Registries (2025): IPv4 has none; IPv6 lacks ::/96 (IPv4-compatible,
// not in the registry but still routed by old tunnel set-ups) and 100:0:0:1::/64 (RFC 9780's
// dummy prefix). The second, and any later assignment outside it, is covered by the IPv6
// Address Space registry: IANA allocates global unicast only from 2000::/3, the rest is
// reserved by the IETF.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
// The well-known NAT64 prefix (RFC 6052): a DNS64 resolver on an IPv6-only host answers with
// it for every IPv4-only name, so it is judged by the IPv4 address it carries (its last 32 bits).
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/** The address as the socket will read it, IPv4-mapped IPv6 as the IPv4 address it maps. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address);
  if (family !== 6) return null;
  // ipaddr.js reads '::a.b.c.d' as IPv4-mapped, but the socket connects to the IPv4-compatible
  // ::a.b.c.d (as the resolver writes it); the URL parser spells IPv6 as the socket reads it.
  const canonical = new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
  const parsed = ipaddr.IPv6.parse(canonical);
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
}

function classifyIPv4(address: ipaddr.IPv4): Blocked | null {
  const range: string = address.range();
  if (range === 'unicast') return null;
  return INSIDE_RANGES.has(range) ? 'private' : 'reserved';
}

function rangeOfIPv6(address: ipaddr.IPv6): string {
  const range: string = address.range();
  if (range !== 'unicast') return range;
  if (address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return address.match(GLOBAL_UNICAST) ? 'unicast' : 'reserved';
}

function carriedIPv4(address: ipaddr.IPv6, offset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(address.toByteArray().slice(offset, offset + 4));
}

/**
 * Why an address may not be reached from a public deployment: 'private' (loopback, private,
 * link-local, unique-local, CGNAT, "this network", or an IPv6 form carrying one of those),
 * 'reserved' (multicast, broadcast, documentation, benchmarking and every other IANA
 * special-purpose range), 'translated' (an IPv6 translation or tunnel address), or null for an
 * ordinary public address.
 */
export function classifyAddress(address: string): Blocked | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 | null;
  try {
    parsed = parseAddress(address);
  } catch {
    parsed = null;
  }
  if (parsed === null) return 'reserved';
  if (parsed instanceof ipaddr.IPv4) return classifyIPv4(parsed);
  if (parsed.match(NAT64_WELL_KNOWN)) return classifyIPv4(carriedIPv4(parsed, 12));
  const range = rangeOfIPv6(parsed);
  if (TRANSLATION_RANGES.has(range)) {
    const offset = TRANSLATION_RANGES.get(range);
    if (offset != null && classifyIPv4(carriedIPv4(parsed, offset)) === 'private') return 'private';
    return 'translated';
  }
  if (range === 'unicast') return null;
  return INSIDE_RANGES.has(range) ? 'private' : 'reserved';
}

function blockedMessage(label: string, address: string, kind: Blocked): string {
  if (kind === 'private') return `${label} points to a private or loopback address (${address})`;
  if (kind === 'translated') return `${label} points to an IPv6 translation or tunnel address (${address})`;
  return `${label} points to a multicast, broadcast or reserved address (${address})`;
}

function resolveAll(host: string, timeoutMs: number): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' })),
      timeoutMs,
    );
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
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
      addresses = await resolveAll(host, options.lookupTimeoutMs ?? 5000);
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
  // Never empty: an address literal, or a lookup that answered one (checked above).
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for http(s).request that answers every query with the vetted address. */
function pinnedLookup(target: VettedTarget): LookupFunction {
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
