// Worker thread of the live-ticks bench (liveTicks.bench.ts): opens one GET /api/live stream
// per { port, cookie, symbols } it is given and, for every tick that arrives, notes its age
// (now - tick.time: the tick's time is stamped when it is pushed into the owner's publisher).
// Plain JavaScript: a worker does not inherit tsx. The readers run off the server's thread.
// Messages in: { type: 'measure' } (start noting ages afresh), { type: 'collect' } (answers
// { type: 'latencies', values, ticks, frames }), { type: 'pause' } / { type: 'resume' } (stop
// or go on reading every socket: a tab that reads nothing), { type: 'close' }.
// Messages out: { type: 'open', count }, 'latencies', { type: 'failed', error }.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { streams } = workerData;
const MAX_SAMPLES = 2_000_000;
let samples = new Float64Array(MAX_SAMPLES);
let sampled = 0;
let ticks = 0;
let frames = 0;
const responses = [];
const requests = [];
let opened = 0;

function onFrame(block) {
  if (!block.startsWith('event: ticks\n')) return;
  const at = block.indexOf('data: ');
  if (at < 0) return;
  const list = JSON.parse(block.slice(at + 6));
  const now = Date.now();
  frames += 1;
  for (const tick of list) {
    ticks += 1;
    if (sampled < MAX_SAMPLES) samples[sampled++] = now - tick.time;
  }
}

streams.forEach(({ port, cookie, symbols }, index) => {
  const req = request(
    {
      host: '127.0.0.1',
      port,
      path: `/api/live?symbols=${symbols.join(',')}`,
      headers: { cookie, accept: 'text/event-stream' },
    },
    (res) => {
      if (res.statusCode !== 200) {
        parentPort.postMessage({ type: 'failed', error: `stream ${index} answered ${res.statusCode}` });
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let first = true;
      res.on('data', (text) => {
        if (first) {
          first = false;
          opened += 1;
          if (opened === streams.length) parentPort.postMessage({ type: 'open', count: opened });
        }
        buffer += text;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          onFrame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      });
      res.on('end', () => parentPort.postMessage({ type: 'failed', error: `stream ${index} ended` }));
      responses.push(res);
    },
  );
  req.on('error', (error) => parentPort.postMessage({ type: 'failed', error: `stream ${index}: ${error.message}` }));
  req.end();
  requests.push(req);
});

parentPort.on('message', (message) => {
  if (message.type === 'measure') {
    samples = new Float64Array(MAX_SAMPLES);
    sampled = 0;
    ticks = 0;
    frames = 0;
  } else if (message.type === 'collect') {
    parentPort.postMessage({ type: 'latencies', values: samples.slice(0, sampled), ticks, frames });
  } else if (message.type === 'pause') {
    for (const res of responses) res.pause();
  } else if (message.type === 'resume') {
    for (const res of responses) res.resume();
  } else if (message.type === 'close') {
    for (const req of requests) req.destroy();
    parentPort.close();
  }
});
