// The owner's side of the live path (issue 34): the instance that runs a symbol's feed pushes
// every tick here, and this puts them on the bus coalesced: the latest tick of each symbol
// wins, and a batch goes out at most every intervalMs, so the bus (and every instance and
// browser behind it) sees a bounded rate however fast a feed ticks. The first tick after a
// quiet spell leaves at once (on the next timer turn, with whatever else arrived with it);
// only ticks that follow within the interval wait for it.
//
// The default interval is 100 ms, not the 250 ms first planned: a tick waits at most one
// interval here, so a 250 ms window alone would spend most of issue 34's 250 ms p95 budget
// from a tick's arrival to the browser (ADR 0021). 10 batches a second is still nothing for
// Redis or NOTIFY.
import type { LiveTick } from '../../shared/schemas/live.ts';
import type { AlertBus } from '../alerts/service.ts';
import { noLiveMetrics, type LiveMetrics } from '../http/metrics.ts';

const TICK_PUBLISH_INTERVAL_MS = 100;

export interface TickPublisherOptions {
  bus: Pick<AlertBus, 'publishTicks'>;
  intervalMs?: number;
  metrics?: Pick<LiveMetrics, 'ticksCoalesced'>;
  /** A batch the bus refused (Redis or PostgreSQL away); the next batch carries newer ticks. */
  onError?: (error: unknown) => void;
}

export interface TickPublisher {
  /** The newest tick of its symbol: replaces one of the same symbol still waiting. */
  push(tick: LiveTick): void;
  /** Publishes what waits now, whatever the interval (resolves once the bus took it). */
  flush(): Promise<void>;
  /** Publishes what waits and stops; later pushes are ignored. */
  close(): Promise<void>;
}

export function createTickPublisher(options: TickPublisherOptions): TickPublisher {
  const { bus, metrics = noLiveMetrics, onError = () => undefined } = options;
  const intervalMs = options.intervalMs ?? TICK_PUBLISH_INTERVAL_MS;
  const pending = new Map<string, LiveTick>();
  let lastPublished = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  /** One batch on its way at a time: a slow bus makes batches larger, not more numerous. */
  let publishing: Promise<void> | null = null;
  let closed = false;

  function schedule() {
    if (timer || publishing || pending.size === 0) return;
    timer = setTimeout(() => void publish(), Math.max(0, lastPublished + intervalMs - Date.now()));
    timer.unref();
  }

  function publish(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (publishing) return publishing.then(() => publish());
    if (pending.size === 0) return Promise.resolve();
    const batch = [...pending.values()];
    pending.clear();
    lastPublished = Date.now();
    publishing = bus
      .publishTicks(batch)
      .catch(onError)
      .finally(() => {
        publishing = null;
        if (!closed) schedule();
      });
    return publishing;
  }

  return {
    push(tick) {
      if (closed) return;
      if (pending.has(tick.symbol)) metrics.ticksCoalesced(1);
      pending.set(tick.symbol, tick);
      schedule();
    },
    flush: publish,
    async close() {
      closed = true;
      await publish();
    },
  };
}
