// Preview of a workbook that unpacks to ~197 MB (issue 14, item 3) on the real server
// (src/server/main.ts as a child process on a fresh DATA_DIR: PGlite, disk storage, a
// subscriber made through the real flows). The workbook is generated here
// (src/server/testing/bigWorkbook.ts: a trade log of ~760,000 rows), uploaded once, then
// GET /files/{id}/preview is timed while a probe asks GET /healthz every 10 ms and the server
// watches its own event-loop delay (bench/eventLoopProbe.mjs, preloaded).
// Figures, each against a peer measured in the same run on the same server:
//  - preview time (median of 3 warm runs; target < 2 s)       peer: downloading the same file
//  - server event-loop delay p99 during the previews (target < 50 ms)  peer: the idle server
//  - server peak RSS growth during a preview (target < 200 MB) peer: during the download
// and, for information, /healthz latency during the previews (it also carries the client's
// and the machine's scheduling), the first (cold) preview and two previews at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigWorkbook, bigWorkbookRow } from '../src/server/testing/bigWorkbook.ts';
import { startServerProcess, subscribeOverHttp, type ServerProcess } from '../src/server/testing/serverProcess.ts';
import { trackPeakRss } from './procStatus.ts';
import { percentile, report } from './report.ts';

const MB = 1024 * 1024;
const RUNS = 3;
const TIME_TARGET_S = 2;
const PROBE_TARGET_MS = 50;
const MEMORY_TARGET_BYTES = 200 * MB;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /healthz every 10 ms until stopped; resolves with each answer's latency in ms. */
function probe(origin: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${origin}/healthz`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
      latencies.push(performance.now() - started);
      await sleep(10);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

interface LoopDelay {
  p99: number;
  max: number;
  samples: number;
}

interface Measured {
  seconds: number;
  peakGrowth: number;
  probe: number[];
  loop: LoopDelay;
}

const EVENT_LOOP_PROBE = join(dirname(fileURLToPath(import.meta.url)), 'eventLoopProbe.mjs');
const MARKER = 'EVENT_LOOP_DELAY';

/** Asks the server for its event-loop delay since the previous ask (SIGWINCH, see eventLoopProbe.mjs). */
async function loopDelay(server: ServerProcess): Promise<LoopDelay> {
  const seen = server.output().split(MARKER).length;
  server.child.kill('SIGWINCH');
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const parts = server.output().split(MARKER);
    if (parts.length > seen) return JSON.parse(parts.at(-1)!.split('\n')[0]!) as LoopDelay;
    await sleep(10);
  }
  throw new Error('the server did not report its event-loop delay');
}

/** Runs `work` on the server while probing it and tracking its peak RSS. */
async function measure(server: ServerProcess, work: () => Promise<void>): Promise<Measured> {
  const pid = server.child.pid!;
  await sleep(1_000);
  const rss = trackPeakRss(pid);
  await loopDelay(server);
  const probing = probe(server.origin);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const latencies = await probing.stop();
  const loop = await loopDelay(server);
  const peakGrowth = rss.stop();
  return { seconds, peakGrowth, probe: latencies, loop };
}

const dataDir = mkdtempSync(join(tmpdir(), 'watos-sheet-bench-'));
let server: ServerProcess | undefined;
try {
  let started = performance.now();
  const book = await bigWorkbook({ sheetBytes: 196 * MB, level: 6 });
  console.log(
    `Workbook: ${(book.data.length / MB).toFixed(1)} MB, unpacks to ${(book.unpackedBytes / MB).toFixed(1)} MB, ` +
      `${book.dataRows.toLocaleString('en-US')} data rows (generated in ${((performance.now() - started) / 1000).toFixed(1)} s).`,
  );

  server = await startServerProcess({
    dataDir,
    env: { UPLOAD_MAX_MB: '64', NODE_ENV: 'production', NODE_OPTIONS: `--import=${EVENT_LOOP_PROBE}` },
    startTimeoutMs: 120_000,
  });
  const { session, userId } = await subscribeOverHttp(server.origin, 'sheet-bench@example.com');
  console.log(
    `Server: src/server/main.ts (pid ${server.child.pid}) on ${server.origin}, fresh DATA_DIR, PGlite, disk storage.`,
  );

  const form = new FormData();
  form.append('user_id', userId);
  form.append('file', new Blob([new Uint8Array(book.data)], { type: XLSX }), 'trades-197mb.xlsx');
  started = performance.now();
  const uploaded = await fetch(`${server.origin}/upload`, {
    method: 'POST',
    body: form,
    headers: { cookie: session.cookieHeader, origin: server.origin },
  });
  if (uploaded.status !== 201)
    throw new Error(`upload answered ${uploaded.status}: ${(await uploaded.text()).slice(0, 300)}`);
  const file = ((await uploaded.json()) as { file: { id: string; url: string } }).file;
  console.log(`Uploaded in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);

  const preview = async () => {
    const response = await fetch(`${server!.origin}/files/${file.id}/preview`, {
      headers: { cookie: session.cookieHeader },
    });
    const body = (await response.json()) as { tables?: Array<{ rows: string[][]; totalRows: number }>; error?: string };
    if (response.status !== 200) throw new Error(`preview answered ${response.status}: ${body.error}`);
    const [table] = body.tables!;
    if (JSON.stringify(table!.rows[19]) !== JSON.stringify(bigWorkbookRow(19)) || table!.totalRows !== book.dataRows) {
      throw new Error('the preview does not show the workbook’s first rows and row count');
    }
  };
  const download = async () => {
    const response = await fetch(`${server!.origin}${file.url}`, { headers: { cookie: session.cookieHeader } });
    const bytes = (await response.arrayBuffer()).byteLength;
    if (response.status !== 200 || bytes !== book.data.length)
      throw new Error(`download answered ${response.status} with ${bytes} bytes`);
  };
  const line = (label: string, run: Measured) =>
    console.log(
      `${label.padEnd(22)} ${run.seconds.toFixed(2).padStart(6)} s   peak RSS +${(run.peakGrowth / MB).toFixed(0).padStart(4)} MB   ` +
        `loop delay p99 ${run.loop.p99.toFixed(1).padStart(5)} ms, max ${run.loop.max.toFixed(1).padStart(5)} ms   ` +
        `/healthz p99 ${percentile(run.probe, 0.99).toFixed(1).padStart(6)} ms (${run.probe.length} probes)`,
    );

  const idle = await measure(server, async () => {
    await sleep(3_000);
  });
  line('idle (probe only)', idle);
  const cold = await measure(server, preview);
  line('first preview (cold)', cold);
  const previews: Measured[] = [];
  const downloads: Measured[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const mine = await measure(server, preview);
    line(`preview, run ${run}`, mine);
    previews.push(mine);
    const theirs = await measure(server, download);
    line(`download, run ${run}`, theirs);
    downloads.push(theirs);
  }
  const both = await measure(server, async () => {
    await Promise.all([preview(), preview()]);
  });
  line('two previews at once', both);

  const previewSeconds = percentile(
    previews.map((run) => run.seconds),
    0.5,
  );
  const downloadSeconds = percentile(
    downloads.map((run) => run.seconds),
    0.5,
  );
  report({
    figure: `preview of a ${(book.unpackedBytes / MB).toFixed(0)} MB-unpacked xlsx (median of ${RUNS})`,
    target: `< ${TIME_TARGET_S} s`,
    measured: `${previewSeconds.toFixed(2)} s`,
    peer: `download of the same file ${downloadSeconds.toFixed(2)} s`,
    ratio: previewSeconds / downloadSeconds,
    pass: previewSeconds < TIME_TARGET_S,
  });
  report({
    figure: 'first preview after start (worker cold)',
    target: '-',
    measured: `${cold.seconds.toFixed(2)} s`,
    peer: `warm median ${previewSeconds.toFixed(2)} s`,
    ratio: cold.seconds / previewSeconds,
    pass: null,
  });
  const loopDuring = Math.max(...previews.map((run) => run.loop.p99));
  report({
    figure: 'server event-loop delay p99 during a preview (worst of 3)',
    target: `< ${PROBE_TARGET_MS} ms`,
    measured: `${loopDuring.toFixed(1)} ms`,
    peer: `idle server ${idle.loop.p99.toFixed(1)} ms`,
    ratio: loopDuring / idle.loop.p99,
    pass: loopDuring < PROBE_TARGET_MS,
  });
  const probeDuring = percentile(
    previews.flatMap((run) => run.probe),
    0.99,
  );
  const probeIdle = percentile(idle.probe, 0.99);
  report({
    figure: 'GET /healthz p99 while previews run',
    target: '-',
    measured: `${probeDuring.toFixed(1)} ms`,
    peer: `idle server ${probeIdle.toFixed(1)} ms`,
    ratio: probeDuring / probeIdle,
    pass: null,
  });
  // The cold run counts too: its growth includes starting the reader's worker.
  const growth = Math.max(cold.peakGrowth, ...previews.map((run) => run.peakGrowth));
  const downloadGrowth = Math.max(...downloads.map((run) => run.peakGrowth));
  report({
    figure: 'server peak RSS growth during a preview (worst of cold + 3)',
    target: '< 200 MB',
    measured: `${(growth / MB).toFixed(1)} MB`,
    peer: `download of the same file ${(downloadGrowth / MB).toFixed(1)} MB`,
    // A download that grew the server by under 1 MB makes no meaningful divisor.
    ratio: downloadGrowth >= MB ? growth / downloadGrowth : null,
    pass: growth < MEMORY_TARGET_BYTES,
  });
  report({
    figure: 'two previews at once: time, peak RSS growth',
    target: '-',
    measured: `${both.seconds.toFixed(2)} s, +${(both.peakGrowth / MB).toFixed(0)} MB`,
    peer: `one preview ${previewSeconds.toFixed(2)} s`,
    ratio: both.seconds / previewSeconds,
    pass: null,
  });
} finally {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
