// First-token latency of the chat with the built-in analyst: the real app (buildApp on an
// in-memory PGlite, demo market data, a subscriber registered, verified and paid through the
// real flows) listening on 127.0.0.1; each request is a multipart POST /api/chat through
// fetch, timed from sending until the first text-delta chunk of the server-sent UI message
// stream arrives (session and subscription check, rate limit, multipart parse, conversation
// and message saved, then the answer's first piece), and until the stream ends. 200 requests
// one after another over a mix of questions, after a warm-up. The timing client runs in a
// worker thread, like a browser in its own process: server work never delays its reading. Peer, in the same run and
// process: a bare Fastify route reading the same multipart form and answering one text-delta
// event. Target: the analyst's first token under 100 ms at p95. The process's first request
// and the first question about a product nobody asked about yet (its history replayed) are
// printed for information.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { percentile, report } from './report.ts';
import { subscriberCookie } from './subscriber.ts';
import { portOf, stopAfter } from './benchProcess.ts';

const REQUESTS = 200;
const WARMUP = 20;
const TARGET_MS = 100;
const QUESTIONS = [
  'What are the odds for ETH?',
  'How is BTC doing?',
  'Compare BTC and ETH',
  "Summarize today's alerts",
  'What are the odds for AAPL?',
];
const WATCHDOG_MS = 240_000;

interface Timing {
  firstToken: number;
  complete: number;
  deltas: number;
}

/** Sends one chat request and times the first text-delta event and the end of the stream. */
async function timeChat(url: string, cookie: string, question: string): Promise<Timing> {
  const form = new FormData();
  form.append('messages', JSON.stringify([{ role: 'user', content: question }]));
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', body: form, headers: { cookie } });
  if (response.status !== 200 || !response.body)
    throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let firstToken = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    if (Number.isNaN(firstToken) && text.includes('"type":"text-delta"')) firstToken = performance.now() - started;
    if (done) break;
  }
  if (Number.isNaN(firstToken)) throw new Error(`No text-delta in the answer to "${question}"`);
  if (!text.includes('"type":"finish"'))
    throw new Error(`The answer to "${question}" did not finish: ${text.slice(-300)}`);
  return { firstToken, complete: performance.now() - started, deltas: text.split('"type":"text-delta"').length - 1 };
}

interface ClientJob {
  chatUrl: string;
  peerUrl: string;
  cookie: string;
}

interface ClientResult {
  firstRequest: Timing;
  cold: Timing;
  ours: Timing[];
  peers: Timing[];
}

/** The timing client (worker thread): warm-up, then the measured requests in turn with the peer's. */
async function runClient(job: ClientJob): Promise<ClientResult> {
  const firstRequest = await timeChat(job.chatUrl, job.cookie, 'What are the odds for SOL?');
  for (let index = 0; index < WARMUP; index += 1) {
    await timeChat(job.chatUrl, job.cookie, QUESTIONS[index % QUESTIONS.length]!);
    await timeChat(job.peerUrl, '', 'warm-up');
  }
  // A product nobody asked about yet: its demo history is replayed before the signals run.
  const cold = await timeChat(job.chatUrl, job.cookie, 'What are the odds for XRP?');
  const ours: Timing[] = [];
  const peers: Timing[] = [];
  for (let index = 0; index < REQUESTS; index += 1) {
    ours.push(await timeChat(job.chatUrl, job.cookie, QUESTIONS[index % QUESTIONS.length]!));
    peers.push(await timeChat(job.peerUrl, '', 'peer'));
  }
  return { firstRequest, cold, ours, peers };
}

async function main(): Promise<void> {
  const database = await openDatabase({});
  await database.migrate();
  const config = loadConfig({
    NODE_ENV: 'production',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'watos-chat-bench-')),
    LOG_LEVEL: 'warn',
    MARKET_DATA: 'demo',
    AI_RATE_LIMIT_PER_MINUTE: '10000',
  });
  const app = await buildApp({ config, database, webRoot: null, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const chatUrl = `http://127.0.0.1:${portOf(app)}/api/chat`;

  // The peer: the smallest server-sent answer Fastify can give to the same multipart request
  // (the form read the same way), one text-delta chunk and [DONE].
  const peer = Fastify({ logger: false });
  await peer.register(multipart);
  peer.post('/chat', async (request, reply) => {
    for await (const part of request.parts()) if (part.type === 'file') await part.toBuffer();
    reply.hijack();
    reply.raw.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
    reply.raw.write(`data: ${JSON.stringify({ type: 'text-delta', id: 'peer', delta: 'Hello' })}\n\n`);
    reply.raw.end(`data: ${JSON.stringify({ type: 'finish' })}\n\ndata: [DONE]\n\n`);
  });
  await peer.listen({ host: '127.0.0.1', port: 0 });
  const peerUrl = `http://127.0.0.1:${portOf(peer)}/chat`;

  const cookie = await subscriberCookie(app, config.publicUrl, database, 'chat-bench@example.com');
  console.log(
    `Built-in analyst, demo feed, PGlite in memory; ${REQUESTS} sequential requests after ${WARMUP} warm-up ones, questions in rotation:`,
  );
  for (const question of QUESTIONS) console.log(`  - ${question}`);

  // The worker runs this same TypeScript file: a one-line bootstrap imports it once the tsx
  // loader is registered in the worker (a .ts file cannot be a worker's entry point directly).
  const client = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
    {
      eval: true,
      workerData: { chatUrl, peerUrl, cookie } satisfies ClientJob,
    },
  );
  const { firstRequest, cold, ours, peers } = await new Promise<ClientResult>((resolve, reject) => {
    client.once('message', resolve);
    client.once('error', reject);
  });
  await client.terminate();

  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const row = (name: string, values: number[]) =>
    `${name.padEnd(44)} ${percentile(values, 0.5).toFixed(2).padStart(8)} ${percentile(values, 0.95).toFixed(2).padStart(8)} ${percentile(values, 0.99).toFixed(2).padStart(8)}`;
  console.log('\n                                               p50 ms   p95 ms   p99 ms');
  console.log(
    row(
      'built-in analyst: first token',
      ours.map((timing) => timing.firstToken),
    ),
  );
  console.log(
    row(
      'built-in analyst: complete answer',
      ours.map((timing) => timing.complete),
    ),
  );
  console.log(
    row(
      'peer: bare Fastify SSE route, first token',
      peers.map((timing) => timing.firstToken),
    ),
  );
  console.log(
    `\nstream pieces an answer: median ${percentile(
      ours.map((timing) => timing.deltas),
      0.5,
    )}`,
  );
  console.log(
    `first request of the process (SOL): first token ${ms(firstRequest.firstToken)}, complete ${ms(firstRequest.complete)}`,
  );
  console.log(
    `first question about XRP after warm-up (history replayed): first token ${ms(cold.firstToken)}, complete ${ms(cold.complete)}`,
  );
  const firstP95 = percentile(
    ours.map((timing) => timing.firstToken),
    0.95,
  );
  const peerP95 = percentile(
    peers.map((timing) => timing.firstToken),
    0.95,
  );
  console.log(
    `ratio ours/peer at p95: ${(firstP95 / peerP95).toFixed(1)}x (${(firstP95 * 1e6).toExponential(3)} ns vs ${(peerP95 * 1e6).toExponential(3)} ns)`,
  );
  console.log(`target first token p95 < ${TARGET_MS} ms: ${firstP95 < TARGET_MS ? 'met' : 'NOT met'}`);

  report({
    figure: 'chat first token p95 (built-in analyst)',
    target: `< ${TARGET_MS} ms`,
    measured: `${ms(firstP95)} (p50 ${ms(
      percentile(
        ours.map((timing) => timing.firstToken),
        0.5,
      ),
    )})`,
    peer: `bare Fastify SSE ${ms(peerP95)}`,
    ratio: firstP95 / peerP95,
    pass: firstP95 < TARGET_MS,
  });
  report({
    figure: 'chat complete answer p95 (built-in analyst)',
    target: '-',
    measured: ms(
      percentile(
        ours.map((timing) => timing.complete),
        0.95,
      ),
    ),
    peer: `bare Fastify SSE ${ms(
      percentile(
        peers.map((timing) => timing.complete),
        0.95,
      ),
    )}`,
    ratio:
      percentile(
        ours.map((timing) => timing.complete),
        0.95,
      ) /
      percentile(
        peers.map((timing) => timing.complete),
        0.95,
      ),
    pass: null,
  });

  await peer.close();
  await app.close();
  await database.close();
}

if (isMainThread) {
  stopAfter('chatLatency', WATCHDOG_MS);
  await main();
} else {
  parentPort!.postMessage(await runClient(workerData as ClientJob));
}
