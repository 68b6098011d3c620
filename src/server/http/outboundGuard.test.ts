// The SSRF guard: which addresses a public deployment refuses, that a loopback deployment may
// reach them, and that the connection goes to the vetted address whatever DNS says later.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyAddress,
  guardedRequest,
  OutboundBlockedError,
  OutboundNetworkError,
  sendPinned,
  vetUrl,
} from './outboundGuard.ts';

const publicOnly = { allowPrivateTargets: false, label: 'Webhook URL' };
const loopback = { allowPrivateTargets: true, label: 'Webhook URL' };

describe('classifyAddress', () => {
  // One address from every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries
  // (and the multicast, site-local and translation ranges beside them), with the registry's name.
  it.each([
    ['0.0.0.0/8 "this network"', '0.0.0.0', 'private'],
    ['0.0.0.0/8 "this network"', '0.1.2.3', 'private'],
    ['10.0.0.0/8 private-use', '10.0.0.5', 'private'],
    ['100.64.0.0/10 shared address space', '100.64.0.1', 'private'],
    ['100.64.0.0/10 shared address space', '100.127.255.254', 'private'],
    ['127.0.0.0/8 loopback', '127.0.0.1', 'private'],
    ['127.0.0.0/8 loopback', '127.255.0.9', 'private'],
    ['169.254.0.0/16 link local', '169.254.169.254', 'private'],
    ['172.16.0.0/12 private-use', '172.16.3.4', 'private'],
    ['172.16.0.0/12 private-use', '172.31.255.255', 'private'],
    ['192.0.0.0/24 IETF protocol assignments', '192.0.0.9', 'reserved'],
    ['192.0.0.0/24 IETF protocol assignments (NAT64 discovery)', '192.0.0.170', 'reserved'],
    ['192.0.2.0/24 documentation (TEST-NET-1)', '192.0.2.1', 'reserved'],
    ['192.31.196.0/24 AS112-v4', '192.31.196.1', 'reserved'],
    ['192.52.193.0/24 AMT', '192.52.193.1', 'reserved'],
    ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.1', 'reserved'],
    ['192.168.0.0/16 private-use', '192.168.1.1', 'private'],
    ['192.175.48.0/24 direct delegation AS112', '192.175.48.1', 'reserved'],
    ['198.18.0.0/15 benchmarking', '198.19.0.1', 'reserved'],
    ['198.51.100.0/24 documentation (TEST-NET-2)', '198.51.100.7', 'reserved'],
    ['203.0.113.0/24 documentation (TEST-NET-3)', '203.0.113.9', 'reserved'],
    ['224.0.0.0/4 multicast', '224.0.0.1', 'reserved'],
    ['224.0.0.0/4 multicast', '239.255.255.250', 'reserved'],
    ['240.0.0.0/4 reserved', '240.0.0.1', 'reserved'],
    ['255.255.255.255/32 limited broadcast', '255.255.255.255', 'reserved'],
    ['::1/128 loopback', '::1', 'private'],
    ['::/128 unspecified', '::', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, of a loopback address', '::ffff:127.0.0.1', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, hexadecimal', '::ffff:7f00:1', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, of a private address', '::ffff:a00:5', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, of a link-local address', '::ffff:169.254.169.254', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, written out', '0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['::ffff:0:0/96 IPv4-mapped, of a documentation address', '::ffff:192.0.2.1', 'reserved'],
    ['::ffff:0:0:0/96 SIIT IPv4-translated, of a loopback address', '::ffff:0:7f00:1', 'private'],
    ['::ffff:0:0:0/96 SIIT IPv4-translated, of a public address', '::ffff:0:808:808', 'translated'],
    ['::/96 IPv4-compatible, of a loopback address', '::127.0.0.1', 'private'],
    ['::/96 IPv4-compatible, of a public address', '::8.8.8.8', 'translated'],
    ['64:ff9b::/96 NAT64, of a private address', '64:ff9b::10.0.0.5', 'private'],
    ['64:ff9b::/96 NAT64, of a loopback address', '64:ff9b::7f00:1', 'private'],
    ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::a00:5', 'translated'],
    ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1:808:808::', 'translated'],
    ['100::/64 discard-only', '100::1', 'reserved'],
    ['100:0:0:1::/64 dummy prefix (RFC 9780)', '100:0:0:1::1', 'reserved'],
    ['2001::/23 IETF protocol assignments', '2001:5::1', 'reserved'],
    ['2001::/23 IETF protocol assignments', '2001:1ff::1', 'reserved'],
    ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'translated'],
    ['2001:1::1/128 PCP anycast', '2001:1::1', 'reserved'],
    ['2001:1::2/128 TURN anycast', '2001:1::2', 'reserved'],
    ['2001:1::3/128 DNS-SD SRP anycast', '2001:1::3', 'reserved'],
    ['2001:2::/48 benchmarking', '2001:2::1', 'reserved'],
    ['2001:3::/32 AMT', '2001:3::1', 'reserved'],
    ['2001:4:112::/48 AS112-v6', '2001:4:112::1', 'reserved'],
    ['2001:10::/28 deprecated ORCHID', '2001:10::1', 'reserved'],
    ['2001:20::/28 ORCHIDv2', '2001:20::1', 'reserved'],
    ['2001:30::/28 drone remote ID', '2001:30::1', 'reserved'],
    ['2001:db8::/32 documentation', '2001:db8::1', 'reserved'],
    ['2002::/16 6to4, of a loopback address', '2002:7f00:1::1', 'private'],
    ['2002::/16 6to4, of a public address', '2002:808:808::1', 'translated'],
    ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::1', 'reserved'],
    ['3fff::/20 documentation', '3fff::1', 'reserved'],
    ['5f00::/16 segment routing SIDs', '5f00::1', 'reserved'],
    ['fc00::/7 unique local', 'fc00::', 'private'],
    ['fc00::/7 unique local', 'fd12:3456::1', 'private'],
    ['fe80::/10 link-local', 'fe80::1', 'private'],
    ['fe80::/10 link-local, with a zone', 'fe80::1%eth0', 'private'],
    ['fe80::/10 link-local', 'febf::1', 'private'],
    ['fec0::/10 deprecated site-local', 'fec0::1', 'private'],
    ['ff00::/8 multicast', 'ff02::1', 'reserved'],
    ['outside 2000::/3, reserved by the IETF', '4000::1', 'reserved'],
    ['not an address', 'example.com', 'reserved'],
  ])('refuses %s: %s (%s)', (_range, address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '192.0.1.1',
    '198.20.0.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450::1',
    '2001:200::1',
    '2620:4f:8001::1',
    '::ffff:8.8.8.8',
    // What a DNS64 resolver answers for an IPv4-only host: it carries a public address.
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });
});

describe('vetUrl', () => {
  it.each([
    ['https://127.0.0.1/hook', 'Webhook URL points to a private or loopback address (127.0.0.1)'],
    ['https://10.0.0.5/hook', 'Webhook URL points to a private or loopback address (10.0.0.5)'],
    [
      'https://169.254.169.254/latest/meta-data/',
      'Webhook URL points to a private or loopback address (169.254.169.254)',
    ],
    ['https://[::1]:8443/hook', 'Webhook URL points to a private or loopback address (::1)'],
    ['https://[fc00::1]/hook', 'Webhook URL points to a private or loopback address (fc00::1)'],
    ['https://[::ffff:127.0.0.1]/hook', 'Webhook URL points to a private or loopback address (::ffff:7f00:1)'],
    // The URL parser turns these spellings of 127.0.0.1 into 127.0.0.1 before the check.
    ['https://2130706433/hook', 'Webhook URL points to a private or loopback address (127.0.0.1)'],
    ['https://0x7f.1/hook', 'Webhook URL points to a private or loopback address (127.0.0.1)'],
    ['https://224.0.0.1/hook', 'Webhook URL points to a multicast, broadcast or reserved address (224.0.0.1)'],
    // Issue 33: translation addresses that a NAT64, SIIT or 6to4 translator near the server forwards.
    ['https://[::ffff:0:127.0.0.1]/hook', 'Webhook URL points to a private or loopback address (::ffff:0:7f00:1)'],
    [
      'https://[64:ff9b:1::a00:5]/hook',
      'Webhook URL points to an IPv6 translation or tunnel address (64:ff9b:1::a00:5)',
    ],
    ['https://[2002:a00:5::1]/hook', 'Webhook URL points to a private or loopback address (2002:a00:5::1)'],
    ['https://[2002:808:808::1]/hook', 'Webhook URL points to an IPv6 translation or tunnel address (2002:808:808::1)'],
    ['https://192.0.2.10/hook', 'Webhook URL points to a multicast, broadcast or reserved address (192.0.2.10)'],
    ['http://example.com/hook', 'Webhook URL must start with https://'],
    ['ftp://example.com/hook', 'Webhook URL must start with https://'],
    ['https://user:pass@example.com/hook', 'Webhook URL must not contain a user name or password'],
    ['not a url', 'Webhook URL is not a valid URL'],
  ])('refuses %s on a public deployment', async (url, message) => {
    const error = await vetUrl(url, publicOnly).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundBlockedError);
    expect((error as Error).message).toBe(message);
  });

  it('refuses a host name that resolves to a loopback address', async () => {
    const error = await vetUrl('https://localhost:9/hook', publicOnly).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboundBlockedError);
    expect((error as Error).message).toMatch(
      /^Webhook URL points to a private or loopback address \((127\.0\.0\.1|::1)\)$/,
    );
  });

  it('allows private and loopback targets, and http, on a loopback deployment', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'http://10.0.0.5/hook',
      'https://169.254.169.254/',
      'http://[::1]:8080/hook',
      'https://[fc00::1]/',
    ]) {
      const target = await vetUrl(url, loopback);
      expect(target.address).toBe(new URL(url).hostname.replace(/^\[|\]$/g, ''));
    }
    const local = await vetUrl('http://localhost:8080/hook', loopback);
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });

  it('pins a public address it resolved', async () => {
    const target = await vetUrl('https://8.8.8.8/dns-query', publicOnly);
    expect(target).toMatchObject({ address: '8.8.8.8', family: 4 });
  });
});

describe('requests through the guard', () => {
  let server: Server;
  let port = 0;
  const seen: Array<{ host: string | undefined; url: string | undefined }> = [];
  const handlers = new Map<string, (request: IncomingMessage, response: ServerResponse) => void>([
    ['/ok', (_request, response) => response.end('fine')],
    ['/redirect', (_request, response) => response.writeHead(302, { location: 'http://127.0.0.1/ok' }).end()],
    ['/huge', (_request, response) => response.end('x'.repeat(200_000))],
    ['/silent', () => undefined],
  ]);

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ host: request.headers.host, url: request.url });
      handlers.get(request.url ?? '')?.(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a local receiver on a public deployment and reaches it on a loopback one', async () => {
    await expect(
      guardedRequest(`https://127.0.0.1:${port}/ok`, publicOnly, { timeoutMs: 2000 }),
    ).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(guardedRequest(`http://127.0.0.1:${port}/ok`, publicOnly, { timeoutMs: 2000 })).rejects.toThrow(
      'Webhook URL must start with https://',
    );
    const response = await guardedRequest(`http://localhost:${port}/ok`, loopback, { timeoutMs: 2000 });
    expect(response.status).toBe(200);
    expect(response.body).toBe('fine');
  });

  it('connects to the pinned address, not to what the host name resolves to now', async () => {
    // The host name does not resolve at all: only the pinned address can have been used.
    const target = { url: new URL(`http://rebinding.invalid:${port}/ok`), address: '127.0.0.1', family: 4 as const };
    const response = await sendPinned(target, { method: 'GET', timeoutMs: 2000 });
    expect(response.status).toBe(200);
    expect(seen.at(-1)).toEqual({ host: `rebinding.invalid:${port}`, url: '/ok' });
  });

  it('does not follow a redirect', async () => {
    const before = seen.length;
    const response = await guardedRequest(`http://127.0.0.1:${port}/redirect`, loopback, { timeoutMs: 2000 });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('http://127.0.0.1/ok');
    expect(seen.length).toBe(before + 1);
  });

  it('keeps only the first bytes of a large answer', async () => {
    const response = await guardedRequest(`http://127.0.0.1:${port}/huge`, loopback, {
      timeoutMs: 2000,
      maxResponseBytes: 4096,
    });
    expect(response.body.length).toBe(4096);
  });

  it('gives up on a receiver that does not answer', async () => {
    const started = Date.now();
    const error = await guardedRequest(`http://127.0.0.1:${port}/silent`, loopback, { timeoutMs: 300 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OutboundNetworkError);
    expect((error as OutboundNetworkError).timedOut).toBe(true);
    expect((error as Error).message).toBe('No answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await guardedRequest(`http://127.0.0.1:${closedPort}/`, loopback, { timeoutMs: 2000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OutboundNetworkError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});
