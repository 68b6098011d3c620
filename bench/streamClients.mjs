// Worker thread of the alert fan-out bench (alertFanout.bench.ts): opens one server-sent-event
// stream per Cookie header it is given and counts the `alert` events each receives, so the
// readers do not share the server's thread. Plain JavaScript: a worker does not inherit tsx.
// Messages in: { type: 'expect', total } (every stream is to reach `total` alerts), 'close'.
// Messages out: { type: 'open', count }, { type: 'reached', total, at } (at = epoch ms, when the
// last stream got its `total`-th alert), { type: 'failed', error }.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { port, path, cookies } = workerData;
const MARKER = Buffer.from('event: alert\n');
const counts = new Int32Array(cookies.length);
const streams = [];
let expected = Infinity;
let behind = 0;

const now = () => performance.timeOrigin + performance.now();

function count(index, chunk, carry) {
  const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
  let from = 0;
  let found = 0;
  for (;;) {
    const at = data.indexOf(MARKER, from);
    if (at < 0) break;
    found += 1;
    from = at + MARKER.length;
  }
  if (found > 0) {
    const before = counts[index];
    counts[index] += found;
    if (before < expected && counts[index] >= expected) {
      behind -= 1;
      if (behind === 0) parentPort.postMessage({ type: 'reached', total: expected, at: now() });
    }
  }
  // A marker may straddle two chunks: keep the tail that could begin one.
  return data.subarray(Math.max(from, data.length - MARKER.length + 1));
}

let opened = 0;
cookies.forEach((cookie, index) => {
  const req = request({ host: '127.0.0.1', port, path, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      parentPort.postMessage({ type: 'failed', error: `stream ${index} answered ${res.statusCode}` });
      res.resume();
      return;
    }
    let carry = Buffer.alloc(0);
    let first = true;
    res.on('data', (chunk) => {
      if (first) {
        first = false;
        opened += 1;
        if (opened === cookies.length) parentPort.postMessage({ type: 'open', count: opened });
      }
      carry = count(index, chunk, carry);
    });
    res.on('end', () => parentPort.postMessage({ type: 'failed', error: `stream ${index} ended` }));
  });
  req.on('error', (error) => parentPort.postMessage({ type: 'failed', error: `stream ${index}: ${error.message}` }));
  req.end();
  streams.push(req);
});

parentPort.on('message', (message) => {
  if (message.type === 'expect') {
    expected = message.total;
    behind = 0;
    for (const value of counts) if (value < expected) behind += 1;
    if (behind === 0) parentPort.postMessage({ type: 'reached', total: expected, at: now() });
  } else if (message.type === 'close') {
    for (const req of streams) req.destroy();
    parentPort.close();
  }
});
