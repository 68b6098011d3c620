// The hub over real Writables and the in-process bus: ticks reach only the connections that
// watch their symbol, one frame a batch, latest value wins; a backed-up socket holds at most
// one tick per watched symbol however long it stays backed up, and gets the newest on
// 'drain'; a new subscriber gets the last tick at once; demand is announced and withdrawn.
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { createAlertBus, type AlertBus } from '../alerts/service.ts';
import { createLiveMetrics } from '../http/metrics.ts';
import { createLiveHub, type LiveHub } from './hub.ts';

const T0 = 1_767_225_600_000;
function tick(symbol: string, price: number, time = T0 + price): LiveTick {
  return { symbol, price, time, source: 'demo', delayMinutes: 0, bar: null };
}

/** A socket that takes everything at once, keeping each write. */
function readingSink() {
  const writes: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  /** The `ticks` frames written, each as its list of ticks. */
  const frames = () =>
    writes
      .filter((text) => text.startsWith('event: ticks\n'))
      .map((text) => JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as LiveTick[]);
  return { sink, writes, frames };
}

/**
 * A socket whose reader never reads: the first write fills it (16-byte buffer) and no write
 * ever completes until release() (what a paused browser tab is to the server).
 */
function stuckSink() {
  const writes: string[] = [];
  const waiting: Array<() => void> = [];
  const sink = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      waiting.push(done);
    },
  });
  return {
    sink,
    writes,
    /** The reader catches up: every write completes, and the socket drains. */
    release() {
      while (waiting.length > 0) waiting.shift()!();
    },
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let bus: AlertBus;
let hub: LiveHub;
afterEach(async () => {
  await hub?.close();
  await bus?.close();
});

describe('live hub', () => {
  it('writes each connection one frame with the newest tick of each symbol it watches', async () => {
    bus = createAlertBus();
    hub = createLiveHub({ bus });
    const btc = readingSink();
    const both = readingSink();
    const aapl = readingSink();
    hub.open({ userId: 'u1', symbols: ['BTC-USD'], sink: btc.sink });
    hub.open({ userId: 'u2', symbols: ['BTC-USD', 'AAPL'], sink: both.sink });
    hub.open({ userId: 'u3', symbols: ['AAPL'], sink: aapl.sink });

    // Two batches in the same turn: one frame, the later BTC price replacing the earlier.
    await bus.publishTicks([tick('BTC-USD', 100), tick('ETH-USD', 5)]);
    await bus.publishTicks([tick('BTC-USD', 101), tick('AAPL', 200)]);
    await nextTurn();
    expect(btc.frames()).toEqual([[tick('BTC-USD', 101)]]);
    expect(both.frames()).toEqual([[tick('BTC-USD', 101), tick('AAPL', 200)]]);
    expect(aapl.frames()).toEqual([[tick('AAPL', 200)]]);
    expect(hub.stats()).toEqual({ connections: 3, backedUp: 0, pendingTicks: 0 });

    await bus.publishTicks([tick('ETH-USD', 6)]);
    await nextTurn();
    expect(btc.frames()).toHaveLength(1);
    expect(both.frames()).toHaveLength(1);
  });

  it('sends a new subscriber the last tick at once, and stops what it unsubscribed', async () => {
    bus = createAlertBus();
    hub = createLiveHub({ bus });
    await bus.publishTicks([tick('BTC-USD', 100), tick('SOL-USD', 150)]);
    const reader = readingSink();
    const connection = hub.open({ userId: 'u1', symbols: ['BTC-USD'], sink: reader.sink });
    await nextTurn();
    expect(reader.frames()).toEqual([[tick('BTC-USD', 100)]]);

    connection.setSymbols(['SOL-USD', 'AAPL']);
    expect(connection.symbols()).toEqual(['SOL-USD', 'AAPL']);
    await nextTurn();
    expect(reader.frames()[1]).toEqual([tick('SOL-USD', 150)]);
    await bus.publishTicks([tick('BTC-USD', 102), tick('AAPL', 201)]);
    await nextTurn();
    expect(reader.frames()[2]).toEqual([tick('AAPL', 201)]);

    connection.close();
    expect(hub.connection(connection.id)).toBeUndefined();
    await bus.publishTicks([tick('AAPL', 202)]);
    await nextTurn();
    expect(reader.frames()).toHaveLength(3);
    expect(hub.watched()).toEqual([]);
  });

  it('keeps a late tick from undoing a newer price', async () => {
    bus = createAlertBus();
    hub = createLiveHub({ bus });
    const reader = readingSink();
    hub.open({ userId: 'u1', symbols: ['BTC-USD'], sink: reader.sink });
    await bus.publishTicks([tick('BTC-USD', 100, T0 + 2000)]);
    await bus.publishTicks([tick('BTC-USD', 99, T0 + 1000)]);
    await nextTurn();
    expect(reader.frames()).toEqual([[tick('BTC-USD', 100, T0 + 2000)]]);
    expect(hub.lastTick('BTC-USD')?.price).toBe(100);
  });

  it('holds one tick per symbol for a socket that never drains, and the newest after drain', async () => {
    bus = createAlertBus();
    const registry = new Registry();
    hub = createLiveHub({ bus, metrics: createLiveMetrics(registry) });
    const stuck = stuckSink();
    const symbols = Array.from({ length: 10 }, (_, index) => `SYM${index}`);
    hub.open({ userId: 'u1', symbols, sink: stuck.sink });
    const reader = readingSink();
    hub.open({ userId: 'u2', symbols: ['SYM0'], sink: reader.sink });

    // 2,000 batches of all ten symbols: 20,000 ticks for a reader that reads nothing.
    for (let round = 1; round <= 2_000; round += 1) {
      await bus.publishTicks(symbols.map((symbol) => tick(symbol, round)));
      if (round % 100 === 0) await nextTurn();
    }
    await nextTurn();
    // One frame went out before the socket filled; since then at most one tick per symbol waits.
    expect(stuck.writes).toHaveLength(1);
    expect(stuck.sink.writableLength).toBe(stuck.writes[0]!.length);
    expect(hub.stats()).toEqual({ connections: 2, backedUp: 1, pendingTicks: 10 });
    // The reading connection was not held back by the stuck one.
    expect(reader.frames().at(-1)).toEqual([tick('SYM0', 2_000)]);

    stuck.release();
    await nextTurn();
    expect(stuck.writes).toHaveLength(2);
    expect(JSON.parse(/^data: (.*)$/m.exec(stuck.writes[1]!)![1]!)).toEqual(
      symbols.map((symbol) => tick(symbol, 2_000)),
    );
    expect(hub.stats()).toEqual({ connections: 2, backedUp: 0, pendingTicks: 0 });

    const text = await registry.metrics();
    expect(text).toMatch(/^watos_live_connections_open 2$/m);
    expect(text).toMatch(/^watos_live_ticks_received_total\{source="demo"\} 20000$/m);
    // The stuck connection got 10 ticks in its first frame and 10 after drain: 19,980 of its
    // 20,000 were replaced by newer ones. The reader's replaced ones come on top.
    const superseded = Number(/^watos_live_ticks_superseded_total (\d+)$/m.exec(text)![1]);
    const sent = Number(/^watos_live_ticks_sent_total (\d+)$/m.exec(text)![1]);
    expect(superseded + sent).toBe(20_000 + 2_000);
    expect(superseded).toBeGreaterThanOrEqual(19_980);
  });

  it('announces the watched symbols on change and on renewal, and withdraws them on close', async () => {
    bus = createAlertBus();
    const heard: Array<[string, readonly string[]]> = [];
    bus.subscribeDemand((instance, symbols) => heard.push([instance, symbols]));
    hub = createLiveHub({ bus, instanceId: 'instance-a', demandEveryMs: 100 });
    const first = hub.open({ userId: 'u1', symbols: ['BTC-USD', 'AAPL'], sink: readingSink().sink });
    hub.open({ userId: 'u2', symbols: ['AAPL', 'ETH-USD'], sink: readingSink().sink });
    await expect.poll(() => heard.at(-1)).toEqual(['instance-a', ['AAPL', 'BTC-USD', 'ETH-USD']]);
    // Both openings within the debounce: one announcement.
    expect(heard).toHaveLength(1);
    first.close();
    await expect.poll(() => heard.at(-1)).toEqual(['instance-a', ['AAPL', 'ETH-USD']]);
    const count = heard.length;
    // Renewed without a change.
    await expect.poll(() => heard.length).toBeGreaterThan(count);
    expect(heard.at(-1)).toEqual(['instance-a', ['AAPL', 'ETH-USD']]);
    await hub.close();
    expect(heard.at(-1)).toEqual(['instance-a', []]);
  });
});
