// The tick publisher on fake timers: latest tick per symbol wins, a batch at most every
// interval however fast ticks come, the first tick after a quiet spell at once, one batch on
// the bus at a time, and the replaced ticks counted.
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveTick } from '../../shared/schemas/live.ts';
import { createLiveMetrics } from '../http/metrics.ts';
import { createTickPublisher } from './publisher.ts';

function tick(symbol: string, price: number): LiveTick {
  return { symbol, price, time: 1_767_225_600_000, source: 'demo', delayMinutes: 0, bar: null };
}

/** A bus that keeps each batch with the (fake) time it was published at. */
function recordingBus() {
  const batches: Array<{ at: number; ticks: LiveTick[] }> = [];
  return {
    batches,
    async publishTicks(ticks: LiveTick[]) {
      batches.push({ at: Date.now(), ticks });
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('tick publisher', () => {
  it('publishes the newest tick of each symbol, one batch an interval at most', async () => {
    const bus = recordingBus();
    const registry = new Registry();
    const publisher = createTickPublisher({ bus, intervalMs: 100, metrics: createLiveMetrics(registry) });

    publisher.push(tick('BTC-USD', 1));
    // The first tick after a quiet spell goes on the next timer turn.
    await vi.advanceTimersByTimeAsync(1);
    expect(bus.batches).toEqual([{ at: 0, ticks: [tick('BTC-USD', 1)] }]);

    // 1,000 ticks a second on three symbols for one second.
    for (let ms = 1; ms <= 1_000; ms += 1) {
      publisher.push(tick(['BTC-USD', 'ETH-USD', 'SOL-USD'][ms % 3]!, ms));
      await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(200);
    const times = bus.batches.map((batch) => batch.at);
    for (let index = 1; index < times.length; index += 1)
      expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(100);
    // At 0, 100, ..., 1,000 ms, and the tick pushed at 1,000 ms (after that batch) at 1,100 ms.
    expect(times).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]);
    // Each batch: the newest price of each symbol since the one before.
    const bySymbol = (ticks: LiveTick[]) => [...ticks].sort((a, b) => a.symbol.localeCompare(b.symbol));
    expect(bySymbol(bus.batches[10]!.ticks)).toEqual([
      tick('BTC-USD', 999),
      tick('ETH-USD', 997),
      tick('SOL-USD', 998),
    ]);
    expect(bus.batches[11]!.ticks).toEqual([tick('ETH-USD', 1000)]);
    const published = bus.batches.reduce((sum, batch) => sum + batch.ticks.length, 0);
    const coalesced = Number(/^watos_live_ticks_coalesced_total (\d+)$/m.exec(await registry.metrics())![1]);
    expect(published + coalesced).toBe(1_001);
  });

  it('keeps one batch on a slow bus at a time; ticks meanwhile coalesce into the next', async () => {
    const batches: LiveTick[][] = [];
    let finish: () => void = () => undefined;
    const bus = {
      publishTicks(ticks: LiveTick[]) {
        batches.push(ticks);
        return new Promise<void>((resolve) => (finish = resolve));
      },
    };
    const publisher = createTickPublisher({ bus, intervalMs: 100 });
    publisher.push(tick('BTC-USD', 1));
    await vi.advanceTimersByTimeAsync(1);
    for (let price = 2; price <= 50; price += 1) {
      publisher.push(tick('BTC-USD', price));
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(batches).toEqual([[tick('BTC-USD', 1)]]);
    finish();
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[tick('BTC-USD', 1)], [tick('BTC-USD', 50)]]);
  });

  it('goes on after the bus refused a batch, and publishes what waits on close', async () => {
    const errors: unknown[] = [];
    let refuse = true;
    const published: LiveTick[][] = [];
    const bus = {
      async publishTicks(ticks: LiveTick[]) {
        if (refuse) throw new Error('Redis is away');
        published.push(ticks);
      },
    };
    const publisher = createTickPublisher({ bus, intervalMs: 100, onError: (error) => errors.push(error) });
    publisher.push(tick('BTC-USD', 1));
    await vi.advanceTimersByTimeAsync(1);
    expect(errors).toHaveLength(1);
    refuse = false;
    publisher.push(tick('BTC-USD', 2));
    publisher.push(tick('ETH-USD', 3));
    await publisher.close();
    publisher.push(tick('BTC-USD', 4));
    await vi.advanceTimersByTimeAsync(500);
    expect(published).toEqual([[tick('BTC-USD', 2), tick('ETH-USD', 3)]]);
  });
});
