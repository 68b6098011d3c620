// A local fake of the S3 object API the file storage uses (path-style: PutObject, the
// multipart upload calls including ListMultipartUploads, GetObject, HeadObject, DeleteObject,
// ListObjectsV2) on 127.0.0.1, keeping objects
// in memory. It checks what a real service would refuse: an unknown access key, a wrong
// bucket, a body that does not match its signed SHA-256, parts of an unknown upload.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

interface FakeS3Object {
  body: Buffer;
  contentType: string | undefined;
  /** LastModified; tests may move it back to age an object. */
  modifiedAt: Date;
}

/** Keys per ListObjectsV2 page (real S3: 1,000); small, so paging is exercised. */
const LIST_PAGE_SIZE = 2;

export interface FakeS3 {
  port: number;
  bucket: string;
  /** Objects by key (e.g. `uploads/<uuid>.csv`). */
  objects: Map<string, FakeS3Object>;
  /** Multipart uploads started and neither completed nor aborted. */
  openUploads(): number;
  /** Moves every open multipart upload's start back by `ms`, to age it for the sweep. */
  ageOpenUploads(ms: number): void;
  /**
   * While on, AbortMultipartUpload answers 405 MethodNotAllowed, as some S3-compatible
   * servers do; the upload stays open.
   */
  refuseAborts(on: boolean): void;
  /** While on, ListMultipartUploads answers 501 NotImplemented, as s3rver does. */
  withoutUploadListing(on: boolean): void;
  /** How many multipart uploads were aborted. */
  abortedUploads(): number;
  requests: Array<{ method: string; path: string; query: string }>;
  /** The S3_* variables that point the app at this fake. */
  env(): Record<string, string>;
  /** The next `count` requests answer 503 SlowDown, as during an outage. */
  failNext(count: number): void;
  close(): Promise<void>;
}

const ACCESS_KEY_ID = 'FAKEACCESSKEY';
const SECRET_ACCESS_KEY = 'fake-secret-access-key';
const UNSIGNED = new Set(['UNSIGNED-PAYLOAD', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER']);

function xml(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/xml', ...headers });
  response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
}

function error(response: ServerResponse, status: number, code: string, message: string): void {
  xml(response, status, `<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeS3(bucket = 'watos-test-bucket'): Promise<FakeS3> {
  const objects = new Map<string, FakeS3Object>();
  const uploads = new Map<
    string,
    { key: string; contentType: string | undefined; parts: Map<number, Buffer>; initiated: Date }
  >();
  const requests: FakeS3['requests'] = [];
  let aborted = 0;
  let failures = 0;
  let abortsRefused = false;
  let listingMissing = false;

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    requests.push({ method, path: url.pathname, query: url.search });
    const body = await readBody(request);

    if (!String(request.headers.authorization ?? '').includes(`Credential=${ACCESS_KEY_ID}/`)) {
      return error(
        response,
        403,
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
      );
    }
    const signedHash = String(request.headers['x-amz-content-sha256'] ?? '');
    if (!UNSIGNED.has(signedHash) && signedHash !== createHash('sha256').update(body).digest('hex')) {
      return error(
        response,
        400,
        'XAmzContentSHA256Mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
      );
    }
    if (failures > 0) {
      failures -= 1;
      return error(response, 503, 'SlowDown', 'Please reduce your request rate.');
    }
    const [, bucketName, ...keyParts] = url.pathname.split('/');
    if (bucketName !== bucket) return error(response, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    const key = decodeURIComponent(keyParts.join('/'));
    const params = url.searchParams;
    const contentType = request.headers['content-type'];

    if (method === 'POST' && params.has('uploads')) {
      const uploadId = randomBytes(12).toString('hex');
      uploads.set(uploadId, { key, contentType, parts: new Map(), initiated: new Date() });
      return xml(
        response,
        200,
        `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    const uploadId = params.get('uploadId');
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.key !== key)
        return error(response, 404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
      if (method === 'PUT') {
        upload.parts.set(Number(params.get('partNumber')), body);
        response.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
        return void response.end();
      }
      if (method === 'DELETE') {
        if (abortsRefused)
          return error(response, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
        uploads.delete(uploadId);
        aborted += 1;
        response.writeHead(204);
        return void response.end();
      }
      if (method === 'POST') {
        const numbers = [...body.toString('utf8').matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((match) =>
          Number(match[1]),
        );
        if (numbers.length === 0 || numbers.some((number) => !upload.parts.has(number)))
          return error(response, 400, 'InvalidPart', 'One or more of the specified parts could not be found.');
        objects.set(key, {
          body: Buffer.concat(numbers.map((number) => upload.parts.get(number)!)),
          contentType: upload.contentType,
          modifiedAt: new Date(),
        });
        uploads.delete(uploadId);
        return xml(
          response,
          200,
          `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`,
        );
      }
    }
    if (method === 'PUT') {
      objects.set(key, { body, contentType, modifiedAt: new Date() });
      response.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
      return void response.end();
    }
    if (method === 'GET' && key === '' && params.has('uploads')) {
      if (listingMissing)
        return error(
          response,
          501,
          'NotImplemented',
          'A parameter you provided implies functionality that is not implemented',
        );
      // ListMultipartUploads: ordered by key, then upload id; paged by the two markers.
      const prefix = params.get('prefix') ?? '';
      const keyMarker = params.get('key-marker') ?? '';
      const idMarker = params.get('upload-id-marker') ?? '';
      const matching = [...uploads.entries()]
        .filter(([, upload]) => upload.key.startsWith(prefix))
        .sort(([idA, a], [idB, b]) => (a.key === b.key ? idA.localeCompare(idB) : a.key.localeCompare(b.key)))
        .filter(
          ([id, upload]) =>
            !keyMarker || upload.key > keyMarker || (upload.key === keyMarker && idMarker !== '' && id > idMarker),
        );
      const page = matching.slice(0, LIST_PAGE_SIZE);
      const more = matching.length > page.length;
      const last = page.at(-1);
      const entries = page
        .map(
          ([id, upload]) =>
            `<Upload><Key>${upload.key}</Key><UploadId>${id}</UploadId><Initiated>${upload.initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
        )
        .join('');
      return xml(
        response,
        200,
        `<ListMultipartUploadsResult><Bucket>${bucket}</Bucket><KeyMarker>${keyMarker}</KeyMarker><UploadIdMarker>${idMarker}</UploadIdMarker>` +
          `${more && last ? `<NextKeyMarker>${last[1].key}</NextKeyMarker><NextUploadIdMarker>${last[0]}</NextUploadIdMarker>` : ''}` +
          `<Prefix>${prefix}</Prefix><MaxUploads>${LIST_PAGE_SIZE}</MaxUploads><IsTruncated>${more}</IsTruncated>${entries}</ListMultipartUploadsResult>`,
      );
    }
    if (method === 'GET' && key === '' && params.get('list-type') === '2') {
      const prefix = params.get('prefix') ?? '';
      const matching = [...objects.keys()].filter((name) => name.startsWith(prefix)).sort();
      const start = Number(params.get('continuation-token') ?? 0);
      const page = matching.slice(start, start + LIST_PAGE_SIZE);
      const more = start + page.length < matching.length;
      const contents = page
        .map(
          (name) =>
            `<Contents><Key>${name}</Key><LastModified>${objects.get(name)!.modifiedAt.toISOString()}</LastModified><ETag>"object"</ETag><Size>${objects.get(name)!.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
        )
        .join('');
      return xml(
        response,
        200,
        `<ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${LIST_PAGE_SIZE}</MaxKeys><IsTruncated>${more}</IsTruncated>${contents}${more ? `<NextContinuationToken>${start + page.length}</NextContinuationToken>` : ''}</ListBucketResult>`,
      );
    }
    if (method === 'GET' || method === 'HEAD') {
      const object = objects.get(key);
      if (!object) {
        if (method === 'HEAD') {
          response.writeHead(404);
          return void response.end();
        }
        return error(response, 404, 'NoSuchKey', 'The specified key does not exist.');
      }
      response.writeHead(200, {
        'content-type': object.contentType ?? 'application/octet-stream',
        'content-length': object.body.length,
        etag: '"object"',
      });
      return void response.end(method === 'GET' ? object.body : undefined);
    }
    if (method === 'DELETE') {
      objects.delete(key);
      response.writeHead(204);
      return void response.end();
    }
    error(response, 405, 'MethodNotAllowed', `The fake does not serve ${method} ${url.pathname}`);
  }

  const server = createServer((request, response) => {
    route(request, response).catch((failure: unknown) => error(response, 500, 'InternalError', String(failure)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The fake S3 did not get a port');
  const port = address.port;

  return {
    port,
    bucket,
    objects,
    openUploads: () => uploads.size,
    ageOpenUploads(ms) {
      for (const upload of uploads.values()) upload.initiated = new Date(upload.initiated.getTime() - ms);
    },
    refuseAborts(on) {
      abortsRefused = on;
    },
    withoutUploadListing(on) {
      listingMissing = on;
    },
    abortedUploads: () => aborted,
    requests,
    env: () => ({
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    }),
    failNext(count) {
      failures = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
