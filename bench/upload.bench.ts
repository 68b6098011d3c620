// Upload of a 50 MB CSV to the real server (src/server/main.ts as a child process on a fresh
// DATA_DIR: PGlite, disk storage, a subscriber made through the real flows), streamed over
// 127.0.0.1 as a browser sends it (multipart, chunked). Figures: throughput, and the server's
// peak memory growth during the upload (its peak RSS, reset by the kernel just before, minus
// its RSS then): it must stream, not hold the file (target under 100 MB). Each upload is
// checked: 201, listed with its exact size, downloaded with the same SHA-256.
// Peer, same run, same client: bench/uploadPeer.ts, a bare Fastify + @fastify/multipart
// process streaming the part to disk with nothing else (no session, checks or database).
import { text } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { multipartHead } from '../src/server/testing/spreadsheets.ts';
import { startServerProcess, subscribeOverHttp, type ServerProcess } from '../src/server/testing/serverProcess.ts';
import { trackPeakRss } from './procStatus.ts';
import { percentile, report } from './report.ts';

const FILE_BYTES = 50 * 1024 * 1024;
const RUNS = 3;
const MEMORY_TARGET_BYTES = 100 * 1024 * 1024;
const MB = 1024 * 1024;
const ROW = Buffer.from('2026-01-02 14:30:00,BTC-USD,buy,0.50000000,97000.25,48500.13,"limit, filled"\n');
/** 64 KiB of whole CSV rows: what the client writes at a time. */
const CHUNK = Buffer.concat(Array.from({ length: Math.floor(65_536 / ROW.length) }, () => ROW));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface UploadRun {
  seconds: number;
  peakGrowth: number;
  status: number;
  body: string;
  sha256: string;
}

/** The CSV body: a header, then rows, cut to exactly `bytes`. Same bytes every time. */
function* csvChunks(bytes: number): Generator<Buffer> {
  const header = Buffer.from('time,symbol,side,qty,price,notional,note\n');
  yield header;
  let left = bytes - header.length;
  while (left > 0) {
    const piece = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    left -= piece.length;
    yield piece;
  }
}

async function upload(
  server: ServerProcess,
  headers: Record<string, string>,
  fields: Record<string, string>,
): Promise<UploadRun> {
  const pid = server.child.pid!;
  await sleep(1_000);
  const rss = trackPeakRss(pid);

  const { head, tail, contentType } = multipartHead(fields, { filename: 'trades-50mb.csv', contentType: 'text/csv' });
  const hash = createHash('sha256');
  const started = performance.now();
  const request = httpRequest(`${server.origin}/upload`, {
    method: 'POST',
    headers: { ...headers, origin: server.origin, 'content-type': contentType, 'transfer-encoding': 'chunked' },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      text(response).then((body) => resolve({ status: response.statusCode ?? 0, body }), reject);
    });
  });
  request.write(head);
  for (const chunk of csvChunks(FILE_BYTES)) {
    hash.update(chunk);
    if (!request.write(chunk)) await Promise.race([once(request, 'drain'), answered]);
  }
  request.end(tail);
  const { status, body } = await answered;
  const seconds = (performance.now() - started) / 1000;
  const peakGrowth = rss.stop();
  return { seconds, peakGrowth, status, body, sha256: hash.digest('hex') };
}

async function downloadSha256(url: string, cookie: string): Promise<{ bytes: number; sha256: string }> {
  const response = await fetch(url, { headers: { cookie } });
  if (response.status !== 200 || !response.body) throw new Error(`download answered ${response.status}`);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

const dataDir = mkdtempSync(join(tmpdir(), 'watos-upload-bench-'));
const peerDir = mkdtempSync(join(tmpdir(), 'watos-upload-peer-'));
const servers: ServerProcess[] = [];
try {
  const server = await startServerProcess({
    dataDir,
    env: { UPLOAD_MAX_MB: '64', NODE_ENV: 'production' },
    startTimeoutMs: 120_000,
  });
  servers.push(server);
  const peer = await startServerProcess({ dataDir: peerDir, script: 'bench/uploadPeer.ts' });
  servers.push(peer);
  const { session, userId } = await subscribeOverHttp(server.origin, 'upload-bench@example.com');
  console.log(
    `Server: src/server/main.ts (pid ${server.child.pid}) on ${server.origin}, fresh DATA_DIR, PGlite, disk storage.`,
  );
  console.log(
    `Peer: bench/uploadPeer.ts (pid ${peer.child.pid}) on ${peer.origin}, bare Fastify + @fastify/multipart to disk.`,
  );
  console.log(
    `${FILE_BYTES / MB} MB CSV, ${Math.round(CHUNK.length / 1024)} KiB writes, chunked multipart, ${RUNS} runs each after one warm-up; alternating.\n`,
  );

  const ours: UploadRun[] = [];
  const peers: UploadRun[] = [];
  for (let run = 0; run <= RUNS; run += 1) {
    const mine = await upload(server, { cookie: session.cookieHeader }, { user_id: userId });
    if (mine.status !== 201) throw new Error(`upload answered ${mine.status}: ${mine.body.slice(0, 300)}`);
    const file = (JSON.parse(mine.body) as { file: { id: string; file_size: number; url: string } }).file;
    if (file.file_size !== FILE_BYTES) throw new Error(`stored ${file.file_size} bytes, sent ${FILE_BYTES}`);
    const back = await downloadSha256(`${server.origin}${file.url}`, session.cookieHeader);
    if (back.bytes !== FILE_BYTES || back.sha256 !== mine.sha256)
      throw new Error('the downloaded file differs from the uploaded one');
    const theirs = await upload(peer, {}, {});
    if (theirs.status !== 201) throw new Error(`peer answered ${theirs.status}`);
    const label = run === 0 ? 'warm-up' : `run ${run}`;
    console.log(
      `${label.padEnd(8)} ours ${(FILE_BYTES / MB / mine.seconds).toFixed(1).padStart(6)} MB/s, peak +${(mine.peakGrowth / MB).toFixed(1)} MB   ` +
        `peer ${(FILE_BYTES / MB / theirs.seconds).toFixed(1).padStart(6)} MB/s, peak +${(theirs.peakGrowth / MB).toFixed(1)} MB`,
    );
    if (run === 0) continue;
    ours.push(mine);
    peers.push(theirs);
  }
  const listing = (await (await session.fetch('/files')).json()) as { files: Array<{ file_size: number }> };
  if (listing.files.length !== RUNS + 1 || listing.files.some((file) => file.file_size !== FILE_BYTES))
    throw new Error('GET /files does not list every upload with its size');
  console.log(`\nEvery upload: 201, listed with ${FILE_BYTES} bytes, downloaded with the same SHA-256.`);

  const throughput =
    FILE_BYTES /
    MB /
    percentile(
      ours.map((run) => run.seconds),
      0.5,
    );
  const peerThroughput =
    FILE_BYTES /
    MB /
    percentile(
      peers.map((run) => run.seconds),
      0.5,
    );
  report({
    figure: '50 MB CSV upload throughput (median of 3)',
    target: '-',
    measured: `${throughput.toFixed(1)} MB/s`,
    peer: `bare Fastify multipart to disk ${peerThroughput.toFixed(1)} MB/s`,
    ratio: throughput / peerThroughput,
    pass: null,
  });
  const growth = Math.max(...ours.map((run) => run.peakGrowth));
  const peerGrowth = Math.max(...peers.map((run) => run.peakGrowth));
  report({
    figure: '50 MB CSV upload: server peak RSS growth (worst of 3)',
    target: '< 100 MB',
    measured: `${(growth / MB).toFixed(1)} MB`,
    peer: `bare Fastify multipart to disk ${(peerGrowth / MB).toFixed(1)} MB`,
    ratio: peerGrowth > 0 ? growth / peerGrowth : null,
    pass: growth < MEMORY_TARGET_BYTES,
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(peerDir, { recursive: true, force: true });
}
