// Worker thread of the alert fan-out bench (alertFanout.bench.ts): opens one server-sent-event
// stream per Cookie header it is given and counts the `alert` events each receives, so the
// readers do not share the server's thread. Plain JavaScript: a worker does not inherit tsx.
// It can also poll, as the dashboard's tabs do beside their stream: { type: 'poll', paths,
// perSecond } sends GETs of `paths` in turn at `perSecond` over every stream's cookie (its own
// keep-alive agent, Set-Cookie kept per cookie as a browser keeps it, so Better Auth's
// session cookie cache is sent back); { type: 'stopPoll' } answers { type: 'polled', sent,
// answered, failed, non2xx, latencies }.
// Messages in: { type: 'expect', total } (every stream is to reach `total` alerts), 'poll',
// 'stopPoll', 'close'.
// Messages out: { type: 'open', count }, { type: 'reached', total, at } (at = epoch ms, when the
// last stream got its `total`-th alert), 'polled', { type: 'failed', error }.
import { Agent, request } from 'node:http';
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

// Polling: one cookie jar per stream (its session cookie, then whatever the server sets).
const jars = cookies.map((cookie) => {
  const jar = new Map();
  for (const pair of cookie.split('; ')) {
    const cut = pair.indexOf('=');
    jar.set(pair.slice(0, cut), { value: pair.slice(cut + 1), expires: Infinity });
  }
  return jar;
});
const pollAgent = new Agent({ keepAlive: true, maxSockets: 64 });
let poller = null;

function cookieHeader(jar) {
  const now = performance.now();
  const pairs = [];
  for (const [name, cookie] of jar) {
    if (cookie.expires <= now) jar.delete(name);
    else pairs.push(`${name}=${cookie.value}`);
  }
  return pairs.join('; ');
}

function keepCookies(jar, lines = []) {
  const now = performance.now();
  for (const line of lines) {
    const [pair, ...attributes] = line.split(';');
    const cut = pair.indexOf('=');
    if (cut <= 0) continue;
    const name = pair.slice(0, cut).trim();
    const value = pair.slice(cut + 1).trim();
    let expires = Infinity;
    for (const attribute of attributes) {
      const [key, text = ''] = attribute.trim().split('=');
      if (/^max-age$/i.test(key)) expires = now + Number(text) * 1000;
    }
    if (value === '' || expires <= now) jar.delete(name);
    else jar.set(name, { value, expires });
  }
}

function startPolling(paths, perSecond) {
  const state = { sent: 0, answered: 0, failed: 0, non2xx: 0, latencies: [], timer: null };
  let next = 0;
  const started = performance.now();
  const send = () => {
    const index = next % jars.length;
    const target = paths[next % paths.length];
    next += 1;
    const jar = jars[index];
    const sentAt = performance.now();
    state.sent += 1;
    const req = request(
      { host: '127.0.0.1', port, path: target, agent: pollAgent, headers: { cookie: cookieHeader(jar) } },
      (res) => {
        keepCookies(jar, res.headers['set-cookie']);
        res.resume();
        res.on('end', () => {
          state.answered += 1;
          if (res.statusCode < 200 || res.statusCode >= 300) state.non2xx += 1;
          state.latencies.push(performance.now() - sentAt);
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', () => (state.failed += 1));
    req.end();
  };
  // Every 10 ms, as many as are due since the start: the rate holds even when a tick is late.
  state.timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (state.sent < due) send();
  }, 10);
  return state;
}

parentPort.on('message', (message) => {
  if (message.type === 'poll') poller = startPolling(message.paths, message.perSecond);
  else if (message.type === 'stopPoll') {
    clearInterval(poller.timer);
    // Requests still on their way land (or time out) first.
    const settled = setInterval(() => {
      const { sent, answered, failed, non2xx, latencies } = poller;
      if (answered + failed < sent) return;
      clearInterval(settled);
      parentPort.postMessage({ type: 'polled', sent, answered, failed, non2xx, latencies });
    }, 100);
  } else if (message.type === 'expect') {
    expected = message.total;
    behind = 0;
    for (const value of counts) if (value < expected) behind += 1;
    if (behind === 0) parentPort.postMessage({ type: 'reached', total: expected, at: now() });
  } else if (message.type === 'close') {
    for (const req of streams) req.destroy();
    pollAgent.destroy();
    parentPort.close();
  }
});
