// Preloaded by bench/spreadsheet.bench.ts into the server it starts (through NODE_OPTIONS
// --import; plain JavaScript so it loads before tsx): it watches the server's own event-loop
// delay (perf_hooks, 10 ms resolution) and, on SIGWINCH, prints the delay since the previous
// signal as one marked line on stdout, then starts over (EVENT_LOOP_PROBE_SIGNAL names another).
// SIGWINCH, because its default is to do nothing: a server started without the probe is not
// ended by it, as it would be by SIGUSR2. It measures nothing else and the app never loads it.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const EVENT_LOOP_PROBE_MARKER = 'EVENT_LOOP_DELAY';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();

process.on(process.env.EVENT_LOOP_PROBE_SIGNAL || 'SIGWINCH', () => {
  const reading = { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, samples: histogram.count };
  histogram.reset();
  process.stdout.write(`${EVENT_LOOP_PROBE_MARKER} ${JSON.stringify(reading)}\n`);
});
