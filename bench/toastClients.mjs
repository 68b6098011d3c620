// Worker thread of the tick-to-toast bench (tickToToast.bench.ts): opens one GET /api/live
// stream per { cookie, symbols } it is given, on the server's port, and reports every `rule`
// event (a rule firing, what the dashboard shows as a toast) with the time it was parsed here,
// and every tick at or above `level` (a crossing tick the bench sent) with the server's stamp
// (tick.time, set when the owner accepted it). Plain JavaScript: a worker does not inherit tsx.
// The readers run off the bench's main thread, whose loop also serves the webhook receiver and
// the push service, so a busy receiver never delays a stream's stamp.
// Messages out: { type: 'open', count }, { type: 'rules', events: [{ stream, firingId, ruleId,
// symbol, at }] } (batched per read), { type: 'tick', symbol, time, at }, { type: 'failed', error }.
// Messages in: { type: 'close' }.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { port, streams, level } = workerData;
const requests = [];
let opened = 0;
const seenTicks = new Set();

function onFrame(index, block, at, out) {
  if (block.startsWith('event: ticks\n') || block.includes('\nevent: ticks\n')) {
    const data = block.indexOf('data: ');
    if (data < 0) return;
    for (const tick of JSON.parse(block.slice(data + 6))) {
      const key = `${tick.symbol}|${tick.time}`;
      if (tick.price < level || seenTicks.has(key)) continue;
      seenTicks.add(key);
      parentPort.postMessage({ type: 'tick', symbol: tick.symbol, time: tick.time, at });
    }
    return;
  }
  if (!block.includes('event: rule\n')) return;
  const data = block.indexOf('data: ');
  if (data < 0) return;
  const firing = JSON.parse(block.slice(data + 6));
  out.push({ stream: index, firingId: firing.id, ruleId: firing.ruleId, symbol: firing.symbol, at });
}

streams.forEach(({ cookie, symbols }, index) => {
  const query = symbols.length > 0 ? `?symbols=${symbols.join(',')}` : '';
  const req = request(
    { host: '127.0.0.1', port, path: `/api/live${query}`, headers: { cookie, accept: 'text/event-stream' } },
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
        const at = Date.now();
        if (first) {
          first = false;
          opened += 1;
          if (opened === streams.length) parentPort.postMessage({ type: 'open', count: opened });
        }
        buffer += text;
        const events = [];
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          onFrame(index, buffer.slice(0, end), at, events);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        if (events.length > 0) parentPort.postMessage({ type: 'rules', events });
      });
      res.on('end', () => parentPort.postMessage({ type: 'failed', error: `stream ${index} ended` }));
    },
  );
  req.on('error', (error) => parentPort.postMessage({ type: 'failed', error: `stream ${index}: ${error.message}` }));
  req.end();
  requests.push(req);
});

parentPort.on('message', (message) => {
  if (message.type === 'close') {
    for (const req of requests) req.destroy();
    parentPort.close();
  }
});
