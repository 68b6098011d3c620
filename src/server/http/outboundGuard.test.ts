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
  it.each([
    ['127.0.0.1', 'private'],
    ['127.255.0.9', 'private'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.254', 'private'],
    ['0.0.0.0', 'private'],
    ['0.1.2.3', 'private'],
    ['224.0.0.1', 'reserved'],
    ['239.255.255.250', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'private'],
    ['::', 'private'],
    ['fe80::1', 'private'],
    ['febf::1', 'private'],
    ['fc00::', 'private'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'reserved'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:a00:5', 'private'],
    ['::ffff:169.254.169.254', 'private'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['64:ff9b::10.0.0.5', 'private'],
    ['::127.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '2a00:1450::1',
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
