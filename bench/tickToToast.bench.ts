// Tick to toast (issue 34): a price rule's firing reaches its stream, p95, at most 500 ms after
// the crossing tick; its e-mail, push and webhook deliveries start within 1 s (p95).
//
// The real server as a child process (src/server/main.ts through testing/serverProcess.ts: its
// own event loop, PGlite in DATA_DIR, MARKET_DATA=demo, TEST_HOOKS=true, SMTP_URL set), so the
// bench's clients and receivers never share the server's loop. Before it starts, the bench
// prepares that DATA_DIR in-process (buildApp on the same PGlite directory, closed again):
// TOAST_USERS (200) subscribers with a session each (bench/subscriber.ts's way, one
// AUTH_SECRET for both), a Web Push subscription each on a local fake push service
// (testing/fakePushService.ts: checks VAPID, decrypts), and per user one price_cross rule
// ('above' LEVEL, every_time) on each crypto symbol of the rounds, channels in_app + email +
// push + webhook, the webhook to a local HTTP receiver here (loopback targets are allowed on a
// loopback deployment). E-mail goes over SMTP to aiosmtpd (testing/aiosmtpd.ts), a real SMTP
// server in its own process.
//
// Each user holds one GET /api/live stream, read in a worker thread (toastClients.mjs). Then
// one warm-up round and TOAST_ROUNDS (10) rounds, each on a symbol of its own (an every_time
// rule fires at most once a minute on ticks): the crossing tick goes in through POST
// /api/test/ticks (the owner's accept, as if the demo feed had sent it), and the round waits
// until every stream has its `rule` event and every delivery has arrived (or TOAST_ROUND_MS).
// Times are from the moment the hook request is sent (it also reloads the rules when they
// changed, so this is an upper bound on the tick's own arrival; the tick's server stamp as one
// stream sees it is printed beside). Figures, each a p95 over rounds x users:
//   - tick to the `rule` event on the user's stream: target <= 500 ms;
//   - tick to each delivery's start: webhook request received, e-mail accepted by the SMTP
//     server (its DATA answered), push message received by the push service: target <= 1 s.
// Peer, same run: the bare bus round trip of a round's firings (the in-process bus,
// publishFirings to subscribeFirings, one listener, the same batch size), as the other
// live benches. Also printed: the hook's answer (the tick's firings recorded and published).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inArray } from 'drizzle-orm';
import { buildApp } from '../src/server/app.ts';
import { createAlertBus, type UserFiring } from '../src/server/alerts/bus.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { alertRules, user } from '../src/server/db/schema.ts';
import { savePushSubscription } from '../src/server/rules/push.ts';
import { startAiosmtpd } from '../src/server/testing/aiosmtpd.ts';
import { startFakePushService } from '../src/server/testing/fakePushService.ts';
import { startServerProcess } from '../src/server/testing/serverProcess.ts';
import { SYMBOL_TABLE } from '../src/shared/symbols.ts';
import { stopAfter } from './benchProcess.ts';
import { percentile, report } from './report.ts';
import { grantedSubscriberCookies } from './subscriber.ts';

const USERS = Number(process.env.TOAST_USERS ?? 200);
const ROUNDS = Number(process.env.TOAST_ROUNDS ?? 10);
const ROUND_MS = Number(process.env.TOAST_ROUND_MS ?? 30_000);
/** Quiet time between rounds, so each round starts from an idle server. */
const GAP_MS = Number(process.env.TOAST_GAP_MS ?? 500);
const PUSH = process.env.TOAST_PUSH !== 'false';
/** Far above any demo price: only the bench's ticks cross it, the demo feed's never do. */
const LEVEL = 1_000_000_000;
const AUTH_SECRET = 'tick-to-toast-bench-auth-secret-0123456789abcdef';
const STREAM_TARGET_MS = 500;
const DELIVERY_TARGET_MS = 1000;

const crypto = SYMBOL_TABLE.filter((symbol) => symbol.assetClass === 'crypto').map((symbol) => symbol.id);
if (ROUNDS + 1 > crypto.length) throw new Error(`TOAST_ROUNDS is at most ${crypto.length - 1}`);
const symbols = crypto.slice(0, ROUNDS + 1);
const ruleName = (symbol: string, userIndex: number) => `toast:${symbol}:${userIndex}`;
const ruleOf = (text: string) => /toast:([A-Z0-9-]+):(\d+)/.exec(text);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const fixed = (value: number) => value.toFixed(value < 1 ? 3 : 1);

const children: Array<() => unknown> = [];
stopAfter('tickToToast', 300_000, () => children.forEach((stop) => void stop()));

// ---- The receivers, each noting when a round's delivery arrived (by the rule's name) ----
type Channel = 'rule' | 'webhook' | 'email' | 'push';
const CHANNELS: Channel[] = PUSH ? ['rule', 'webhook', 'email', 'push'] : ['rule', 'webhook', 'email'];
/** symbol -> channel -> user index -> arrival (ms since the epoch). */
const arrivals = new Map<string, Map<Channel, Map<number, number>>>(
  symbols.map((symbol) => [symbol, new Map(CHANNELS.map((channel) => [channel, new Map()]))]),
);
let duplicates = 0;
let strays = 0;
function arrived(channel: Channel, text: string, at: number) {
  const match = ruleOf(text);
  const got = match && arrivals.get(match[1]!)?.get(channel);
  if (!got) {
    strays += 1;
    return;
  }
  const userIndex = Number(match[2]);
  if (got.has(userIndex)) duplicates += 1;
  else got.set(userIndex, at);
}

const receiver = createServer((request, response) => {
  const at = Date.now();
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    arrived('webhook', body, at);
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
children.push(() => receiver.close());
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const smtp = await startAiosmtpd();
children.push(() => smtp.close());
// Stamped when the message's line arrives from aiosmtpd, which prints it in its DATA handler
// before answering 250: the moment the SMTP server accepted it.
const pushMail = smtp.received.push.bind(smtp.received);
smtp.received.push = (...mails) => {
  const at = Date.now();
  for (const mail of mails) arrived('email', mail.headers.find(([name]) => name === 'Subject')?.[1] ?? '', at);
  return pushMail(...mails);
};

const pushService = await startFakePushService();
children.push(() => pushService.close());
// Stamped once the fake push service verified and decrypted the message (about a millisecond).
const received = pushService.received as unknown as Array<{ payload: unknown }>;
const pushPush = received.push.bind(received);
received.push = (...messages) => {
  const at = Date.now();
  for (const message of messages) arrived('push', JSON.stringify(message.payload), at);
  return pushPush(...messages);
};

// ---- The server's DATA_DIR, prepared in-process ----
const dataDir = mkdtempSync(join(tmpdir(), 'watos-toast-bench-'));
children.push(() => rmSync(dataDir, { recursive: true, force: true }));
const preparing = performance.now();
const cookies = await (async () => {
  const database = await openDatabase({ pgliteDir: join(dataDir, 'db') });
  await database.migrate();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', MARKET_DATA: 'demo', AUTH_SECRET });
  const app = await buildApp({ config, database, webRoot: null });
  const made = await grantedSubscriberCookies(app, USERS, AUTH_SECRET);
  const emails = Array.from({ length: USERS }, (_, index) => `fanout${index}@example.com`);
  const ids = new Map(
    (await database.db.select({ id: user.id, email: user.email }).from(user).where(inArray(user.email, emails))).map(
      (row) => [row.email, row.id],
    ),
  );
  const userIds = emails.map((email) => ids.get(email)!);
  for (const [index, userId] of userIds.entries()) {
    if (PUSH) {
      const subscription = pushService.subscribe();
      await savePushSubscription(
        database.db,
        userId,
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        { allowPrivateTargets: true },
      );
    }
    await database.db.insert(alertRules).values(
      symbols.map((symbol) => ({
        userId,
        name: ruleName(symbol, index),
        symbol,
        timeframe: '1m' as const,
        condition: { kind: 'price_cross' as const, direction: 'above' as const, level: LEVEL },
        trigger: 'every_time' as const,
        channels: PUSH
          ? ['in_app' as const, 'email' as const, 'push' as const, 'webhook' as const]
          : ['in_app' as const, 'email' as const, 'webhook' as const],
        webhookUrl,
      })),
    );
  }
  await app.close();
  await database.close();
  return made;
})();
console.log(
  `Prepared ${USERS} subscribers, ${USERS * symbols.length} rules (${CHANNELS.join(', ')}) in ${((performance.now() - preparing) / 1000).toFixed(1)} s.`,
);

// ---- The server ----
const server = await startServerProcess({
  dataDir,
  env: { AUTH_SECRET, SMTP_URL: smtp.url, LOG_LEVEL: 'warn' },
  startTimeoutMs: 90_000,
});
children.unshift(() => server.child.kill('SIGKILL'));
const port = Number(new URL(server.origin).port);

async function tick(symbol: string, price: number): Promise<{ status: number; fired: number }> {
  const response = await fetch(`${server.origin}/api/test/ticks`, {
    method: 'POST',
    // The hook wants a signed-in user (any): the first subscriber's session.
    headers: { 'content-type': 'application/json', origin: server.origin, cookie: cookies[0]! },
    body: JSON.stringify({ symbol, price }),
  });
  const body = (await response.json().catch(() => ({}))) as { fired?: number };
  return { status: response.status, fired: body.fired ?? 0 };
}
// The live path starts once the market sources are pinned (after listening): wait for it, and
// give every round's symbol a price below the level (a first tick compares with it).
for (const symbol of symbols) {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await tick(symbol, 1);
    if (answer.status === 200) break;
    // 503: the live path has not started yet; anything else is a failure.
    if (answer.status !== 503 || attempt > 300)
      throw new Error(`POST /api/test/ticks answered ${answer.status}:\n${server.output()}`);
    await sleep(100);
  }
}

// ---- The streams ----
const worker = new Worker(new URL('./toastClients.mjs', import.meta.url), {
  workerData: {
    port,
    level: LEVEL,
    // The first stream also watches the rounds' symbols: the crossing tick's server stamp.
    streams: cookies.map((cookie, index) => ({ cookie, symbols: index === 0 ? symbols : [] })),
  },
});
children.push(() => worker.terminate());
let failure: string | null = null;
const tickStamps = new Map<string, number>();
const opened = new Promise<void>((resolve, reject) => {
  worker.on('message', (message: { type: string } & Record<string, unknown>) => {
    if (message.type === 'open') resolve();
    else if (message.type === 'failed') {
      failure ??= String(message.error);
      reject(new Error(failure));
    } else if (message.type === 'tick') tickStamps.set(String(message.symbol), Number(message.time));
    else if (message.type === 'rules')
      for (const event of message.events as Array<{ stream: number; symbol: string; at: number }>) {
        const got = arrivals.get(event.symbol)?.get('rule');
        if (!got) strays += 1;
        else if (got.has(event.stream)) duplicates += 1;
        else got.set(event.stream, event.at);
      }
  });
  worker.on('error', (error) => reject(error));
});
await opened;

// ---- The peer: the bare in-process bus, a round's firings ----
const bareBus = createAlertBus();
let peerWaiting: { last: number; resolve: () => void } | null = null;
bareBus.subscribeFirings((event) => {
  if (peerWaiting && event.firing.id === peerWaiting.last) peerWaiting.resolve();
});
let peerId = 0;
async function peerRound(): Promise<number> {
  const firings: UserFiring[] = Array.from({ length: USERS }, (_, index) => {
    peerId += 1;
    return {
      userId: `user-${index}`,
      firing: {
        id: peerId,
        ruleId: index + 1,
        ruleName: ruleName('BTC-USD', index),
        symbol: 'BTC-USD',
        ticker: 'BTC',
        timeframe: '1m',
        price: LEVEL * 2,
        message: 'BTC crossed above 1,000,000,000',
        barTime: new Date().toISOString(),
        firedAt: new Date().toISOString(),
        source: 'demo',
      },
    };
  });
  const started = performance.now();
  const reached = new Promise<void>((resolve) => (peerWaiting = { last: peerId, resolve }));
  await bareBus.publishFirings(firings);
  await reached;
  return performance.now() - started;
}

// ---- The rounds ----
interface Round {
  symbol: string;
  sentAt: number;
  /** The tick's own stamp (server clock, set in owner.accept), when the witness stream saw it. */
  tickTime: number | null;
  hookMs: number;
  fired: number;
  complete: boolean;
  peerMs: number;
}
const rounds: Round[] = [];
const loadsAtStart = loadavg();
console.log(
  `${USERS} live streams open; ${ROUNDS} rounds (+1 warm-up) of one crossing tick firing ${USERS} rules x ${CHANNELS.length} channels; 127.0.0.1, server in its own process.`,
);
for (const [index, symbol] of symbols.entries()) {
  const got = arrivals.get(symbol)!;
  const sentAt = Date.now();
  const answer = await tick(symbol, LEVEL * 2);
  const hookMs = Date.now() - sentAt;
  if (answer.status !== 200) throw new Error(`crossing tick answered ${answer.status}`);
  const deadline = sentAt + ROUND_MS;
  const complete = () => CHANNELS.every((channel) => got.get(channel)!.size >= USERS);
  while (!complete() && Date.now() < deadline && failure === null) await sleep(5);
  const round: Round = {
    symbol,
    sentAt,
    tickTime: tickStamps.get(symbol) ?? null,
    hookMs,
    fired: answer.fired,
    complete: complete(),
    peerMs: await peerRound(),
  };
  const last = (channel: Channel) => Math.max(...got.get(channel)!.values()) - sentAt;
  console.log(
    `${index === 0 ? 'warm-up' : `round ${index}`.padEnd(7)} ${symbol.padEnd(9)} the hook user's firings ${round.fired}; hook answered ${hookMs} ms; last ${CHANNELS.map((channel) => `${channel} ${got.get(channel)!.size > 0 ? last(channel) : '-'} ms (${got.get(channel)!.size})`).join(', ')}${round.complete ? '' : ' INCOMPLETE'}`,
  );
  if (index > 0) rounds.push(round);
  await sleep(GAP_MS);
}

// ---- Figures ----
const latencies = (channel: Channel) =>
  rounds.flatMap((round) => [...arrivals.get(round.symbol)!.get(channel)!.values()].map((at) => at - round.sentAt));
const expected = rounds.length * USERS;
const loads = `load avg ${[loadsAtStart, loadavg()].map((averages) => averages.map((average) => average.toFixed(2)).join(' ')).join(' -> ')} (1, 5, 15 min)`;
console.log(`Machine ${loads}.`);
const offsets = rounds.flatMap((round) => (round.tickTime === null ? [] : [round.tickTime - round.sentAt]));
console.log(
  `Hook request sent -> tick stamped by the owner: p50 ${fixed(percentile(offsets, 0.5))} ms (${offsets.length} of ${rounds.length} rounds witnessed); hook answered (firings recorded and published) p50 ${fixed(
    percentile(
      rounds.map((round) => round.hookMs),
      0.5,
    ),
  )} ms, p95 ${fixed(
    percentile(
      rounds.map((round) => round.hookMs),
      0.95,
    ),
  )} ms; ${duplicates} duplicates, ${strays} strays.`,
);
const peer = rounds.map((round) => round.peerMs);
const peerP95 = percentile(peer, 0.95);
const peerText = `bare bus round trip of ${USERS} firings p95 ${fixed(peerP95)} ms (p50 ${fixed(percentile(peer, 0.5))} ms)`;
for (const channel of CHANNELS) {
  const values = latencies(channel);
  const p95 = values.length < expected ? Infinity : percentile(values, 0.95);
  const target = channel === 'rule' ? STREAM_TARGET_MS : DELIVERY_TARGET_MS;
  const what =
    channel === 'rule'
      ? `the rule event on the user's stream`
      : channel === 'webhook'
        ? 'the webhook request received'
        : channel === 'email'
          ? 'the e-mail accepted by the SMTP server'
          : 'the push message received by the push service';
  report({
    figure: `tick to toast, ${USERS} users, ${rounds.length} crossing ticks: tick to ${what}, p95`,
    target: `at most ${target} ms`,
    measured: `${values.length < expected ? `${values.length} of ${expected} arrived in ${ROUND_MS / 1000} s; ` : ''}${fixed(percentile(values, 0.95))} ms (p50 ${fixed(percentile(values, 0.5))} ms, max ${fixed(percentile(values, 1))} ms)`,
    peer: peerText,
    ratio: p95 / peerP95,
    pass: p95 <= target && failure === null,
  });
}

worker.postMessage({ type: 'close' });
await server.stop();
await bareBus.close();
await pushService.close();
await smtp.close();
receiver.close();
rmSync(dataDir, { recursive: true, force: true });
