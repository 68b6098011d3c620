// A local Web Push service for tests: it hands out subscriptions the way a browser's push
// service does (an endpoint, a P-256 public key and an auth secret whose private half only the
// "browser" here knows), and on each POST does what a real push service and browser do
// together: checks the VAPID `Authorization: vapid t=<JWT>,k=<public key>` header (the JWT's
// ES256 signature verified with k, its audience the endpoint's origin, not expired) and
// decrypts the aes128gcm body (RFC 8291 / RFC 8188) with the subscription's private key. A
// request that fails either check is answered 401/400 and recorded as rejected.
import { createECDH, createPublicKey, createDecipheriv, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeSubscription {
  id: string;
  endpoint: string;
  /** base64url of the uncompressed P-256 public key (65 bytes), as PushSubscription.toJSON() gives it. */
  p256dh: string;
  /** base64url of the 16-byte auth secret. */
  auth: string;
}

interface PushMessage {
  subscriptionId: string;
  /** The decrypted payload, parsed as JSON (or the text when it is not JSON). */
  payload: unknown;
  ttl: number | null;
  urgency: string | null;
  /** The VAPID JWT's claims and key. */
  vapid: { aud: string; sub: string; exp: number; publicKey: string };
}

export interface FakePushService {
  readonly url: string;
  /** Messages decrypted and accepted, in arrival order. */
  readonly received: PushMessage[];
  /** Requests refused, with the reason. */
  readonly rejected: Array<{ subscriptionId: string; reason: string }>;
  /** A new subscription (a browser subscribing). */
  subscribe(): FakeSubscription;
  /** The status the next requests to this subscription get instead of 201 (410: gone). */
  answer(subscriptionId: string, status: number): void;
  /** Only accept this VAPID public key (else any key whose signature verifies). */
  expectVapidKey(publicKey: string | null): void;
  close(): Promise<void>;
}

interface Entry {
  ecdh: ECDH;
  publicKey: Buffer;
  auth: Buffer;
  status: number;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

class Rejection extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Checks `vapid t=<jwt>,k=<key>` and returns the JWT's claims. */
function checkVapid(header: string | undefined, origin: string): PushMessage['vapid'] {
  const match = /^vapid\s+(.+)$/i.exec(header ?? '');
  if (!match) throw new Rejection(401, 'no vapid Authorization header');
  const fields = Object.fromEntries(
    match[1]!.split(',').map((part) => {
      const index = part.indexOf('=');
      return [part.slice(0, index).trim(), part.slice(index + 1).trim()];
    }),
  );
  const token = fields.t ?? '';
  const publicKey = fields.k ?? '';
  const key = Buffer.from(publicKey, 'base64url');
  if (key.length !== 65 || key[0] !== 4) throw new Rejection(401, 'k is not an uncompressed P-256 public key');
  const [headerPart, claimsPart, signaturePart] = token.split('.');
  if (!headerPart || !claimsPart || !signaturePart) throw new Rejection(401, 't is not a JWT');
  const jwtHeader = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as { alg?: string };
  if (jwtHeader.alg !== 'ES256') throw new Rejection(401, `JWT alg ${jwtHeader.alg} is not ES256`);
  const verifier = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: key.subarray(1, 33).toString('base64url'),
      y: key.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const valid = verify(
    'sha256',
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key: verifier, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signaturePart, 'base64url'),
  );
  if (!valid) throw new Rejection(401, 'JWT signature does not verify with k');
  const claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as {
    aud?: string;
    sub?: string;
    exp?: number;
  };
  if (claims.aud !== origin) throw new Rejection(401, `JWT aud ${claims.aud} is not ${origin}`);
  const now = Date.now() / 1000;
  if (typeof claims.exp !== 'number' || claims.exp < now || claims.exp > now + 24 * 3600)
    throw new Rejection(401, 'JWT exp is missing, past or more than 24 hours ahead');
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub))
    throw new Rejection(401, 'JWT sub is not a mailto: or https: URL');
  return { aud: claims.aud, sub: claims.sub, exp: claims.exp, publicKey };
}

/** Decrypts an aes128gcm Web Push body with the subscription's keys (one record). */
function decrypt(body: Buffer, entry: Entry): string {
  if (body.length < 21) throw new Rejection(400, 'body too short for an aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (idLength !== 65) throw new Rejection(400, 'keyid is not the sender P-256 public key');
  if (ciphertext.length > recordSize) throw new Rejection(400, 'more than one record');
  const secret = entry.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), entry.publicKey, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, entry.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  } catch {
    throw new Rejection(400, 'the body does not decrypt with the subscription keys');
  }
  // Padding: the last record ends with 0x02 followed by zero or more 0x00.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (end < 0 || plain[end] !== 2) throw new Rejection(400, 'no last-record padding delimiter');
  return plain.subarray(0, end).toString('utf8');
}

export async function startFakePushService(): Promise<FakePushService> {
  const entries = new Map<string, Entry>();
  const received: PushMessage[] = [];
  const rejected: Array<{ subscriptionId: string; reason: string }> = [];
  let expectedKey: string | null = null;
  let url = '';

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const id = /^\/push\/([\w-]+)$/.exec(request.url ?? '')?.[1] ?? '';
    const body = await readBody(request);
    const entry = entries.get(id);
    if (request.method !== 'POST' || !entry) {
      response.writeHead(404).end('no such subscription');
      return;
    }
    try {
      if (entry.status === 404 || entry.status === 410) {
        response.writeHead(entry.status).end('subscription expired');
        return;
      }
      const vapid = checkVapid(request.headers.authorization, new URL(url).origin);
      if (expectedKey && vapid.publicKey !== expectedKey)
        throw new Rejection(403, 'VAPID key is not the one the subscription was made with');
      if (request.headers['content-encoding'] !== 'aes128gcm')
        throw new Rejection(415, `content-encoding ${request.headers['content-encoding']} is not aes128gcm`);
      const ttlHeader = request.headers.ttl;
      if (typeof ttlHeader !== 'string' || !/^\d+$/.test(ttlHeader)) throw new Rejection(400, 'missing TTL header');
      const text = decrypt(body, entry);
      if (entry.status >= 300) {
        response.writeHead(entry.status).end('push service trouble');
        return;
      }
      let payload: unknown = text;
      try {
        payload = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      received.push({
        subscriptionId: id,
        payload,
        ttl: Number(ttlHeader),
        urgency: typeof request.headers.urgency === 'string' ? request.headers.urgency : null,
        vapid,
      });
      response.writeHead(201, { location: `${url}/message/${received.length}` }).end();
    } catch (error) {
      const status = error instanceof Rejection ? error.status : 500;
      const reason = error instanceof Error ? error.message : String(error);
      rejected.push({ subscriptionId: id, reason });
      response.writeHead(status).end(reason);
    }
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    received,
    rejected,
    subscribe() {
      const id = randomBytes(8).toString('hex');
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      entries.set(id, { ecdh, publicKey, auth, status: 201 });
      return {
        id,
        endpoint: `${url}/push/${id}`,
        p256dh: publicKey.toString('base64url'),
        auth: auth.toString('base64url'),
      };
    },
    answer(subscriptionId, status) {
      const entry = entries.get(subscriptionId);
      if (!entry) throw new Error(`no subscription ${subscriptionId}`);
      entry.status = status;
    },
    expectVapidKey(publicKey) {
      expectedKey = publicKey;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
