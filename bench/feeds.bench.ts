// The streaming feeds' own cost (issue 34), for information, each beside a peer timed in the
// same run:
// - the demo tick feed playing every row of the symbol table at four ticks a second, ten
//   minutes of its clock, against building the same minutes' demo bars alone (the feed's floor:
//   it builds those bars and then the ticks inside them). Printed as the share of one core the
//   feed needs in real time;
// - the Coinbase feed reading 100,000 ticker messages from the local fake over a real socket,
//   against a bare `ws` client that only JSON.parses the same messages (the transport's floor).
// Best of several alternating rounds, so both sides see the same quiet and busy spells.
import WebSocket from 'ws';
import { SYMBOL_TABLE } from '../src/shared/symbolTable.ts';
import { demoProfile } from '../src/server/market/demoProfiles.ts';
import { DemoSeries } from '../src/server/market/demoSeries.ts';
import { createCoinbaseTickFeed } from '../src/server/market/feeds/coinbaseWs.ts';
import { createDemoTickFeed } from '../src/server/market/feeds/demoTicks.ts';
import { startFakeCoinbaseWs } from '../src/server/testing/fakeCoinbaseWs.ts';
import { report } from './report.ts';

const MINUTE = 60_000;
/** Wednesday 14 January 2026, 10:00 in New York: every class trades. */
const START = Date.UTC(2026, 0, 14, 15, 0);
const SPAN_MS = 10 * MINUTE;
const ROUNDS = 3;
const MESSAGES = 100_000;

function demoFeedMs(): { ms: number; ticks: number } {
  let time = START;
  let pump: () => void = () => undefined;
  const feed = createDemoTickFeed({
    now: () => time,
    schedule: (run) => {
      pump = run;
      return () => undefined;
    },
  });
  let ticks = 0;
  feed.onTick(() => {
    ticks += 1;
  });
  feed.setSymbols(SYMBOL_TABLE.map((row) => row.id));
  const started = performance.now();
  for (; time < START + SPAN_MS; time += 250) pump();
  const ms = performance.now() - started;
  void feed.close();
  return { ms, ticks };
}

function demoBarsMs(): number {
  const series = SYMBOL_TABLE.map((row) => new DemoSeries(demoProfile(row)));
  let sink = 0;
  const started = performance.now();
  // One minute at a time, as the feed asks.
  for (let minute = START; minute < START + SPAN_MS; minute += MINUTE) {
    for (const one of series) one.barsBetween(minute, minute + MINUTE, (_time, _o, _h, _l, close) => (sink += close));
  }
  const ms = performance.now() - started;
  if (sink === 0) throw new Error('no bars');
  return ms;
}

let bestFeed = Infinity;
let bestBars = Infinity;
let tickCount = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const bars = demoBarsMs();
  const feed = demoFeedMs();
  bestBars = Math.min(bestBars, bars);
  bestFeed = Math.min(bestFeed, feed.ms);
  tickCount = feed.ticks;
}
const share = bestFeed / SPAN_MS;
report({
  figure: `demo tick feed, ${SYMBOL_TABLE.length} symbols x 4 ticks/s: share of a core`,
  target: '-',
  measured: `${(share * 100).toFixed(2)}% (${tickCount.toLocaleString('en-US')} ticks in ${bestFeed.toFixed(0)} ms)`,
  peer: `the same minutes' bars alone ${bestBars.toFixed(0)} ms`,
  ratio: bestFeed / bestBars,
  pass: null,
});

// ---------------------------------------------------------------------------------------------

// No automatic heartbeats: they carry the fake's own sequences, not those of the raw burst.
const fake = await startFakeCoinbaseWs({ heartbeatMs: 1_000_000 });
const products = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'LTC-USD'];
let sequence = 10;
function burst(): void {
  for (let index = 0; index < MESSAGES; index += 1) {
    sequence += 1;
    fake.raw(
      JSON.stringify({
        type: 'ticker',
        sequence,
        product_id: products[index % products.length],
        price: (100 + (index % 1000) / 100).toFixed(2),
        time: new Date(START + index).toISOString(),
        trade_id: sequence,
        last_size: '0.01',
      }),
    );
  }
}

function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setTimeout(check, 1));
    check();
  });
}

async function bareMs(): Promise<number> {
  const client = new WebSocket(fake.url);
  await new Promise((resolve) => client.once('open', resolve));
  let parsed = 0;
  client.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as { price?: string };
    if (message.price !== undefined) parsed += Number(message.price) > 0 ? 1 : 0;
  });
  const started = performance.now();
  burst();
  await until(() => parsed >= MESSAGES);
  const ms = performance.now() - started;
  client.terminate();
  await until(() => fake.openCount() === 0);
  return ms;
}

async function feedMs(): Promise<number> {
  const feed = createCoinbaseTickFeed({ url: fake.url });
  let ticks = 0;
  feed.onTick(() => {
    ticks += 1;
  });
  feed.setSymbols(products);
  await until(() => fake.subscribed().length === products.length);
  const started = performance.now();
  burst();
  await until(() => ticks >= MESSAGES);
  const ms = performance.now() - started;
  if (feed.stats().rejected !== 0) throw new Error(`rejected ${feed.stats().rejected}`);
  await feed.close();
  await until(() => fake.openCount() === 0);
  return ms;
}

let bestOurs = Infinity;
let bestBare = Infinity;
for (let round = 0; round < ROUNDS; round += 1) {
  bestBare = Math.min(bestBare, await bareMs());
  bestOurs = Math.min(bestOurs, await feedMs());
}
await fake.close();
const rate = (ms: number) => `${Math.round((MESSAGES / ms) * 1000).toLocaleString('en-US')} msg/s`;
report({
  figure: `Coinbase feed, ${MESSAGES.toLocaleString('en-US')} tickers over a local socket`,
  target: '-',
  measured: rate(bestOurs),
  peer: `bare ws + JSON.parse ${rate(bestBare)}`,
  ratio: bestBare / bestOurs,
  pass: null,
});
