// How many built-in alerts a trader gets (issue 16, item 5): the four generators over a week
// of the demo feed's one-minute bars for every symbol of the table, as the alert engine runs
// them, in alerts per symbol per day (median, 95th percentile and worst symbol), and for the
// pegged stablecoins. Peer, measured in the same run over the same bars: the generators as they
// were before (volatility 3x ATR, momentum 6 ATRs, a breakout any close above the high, trend
// dead band 0.5 ATR, no cooldown, stablecoins treated like any coin).
// Targets: median at most 8 and p95 at most 16 alerts per symbol per day, at most 1 a day on a
// stablecoin. The demo feed's walk is synthetic: the figures measure the rules, not a market.
import { createDemoFeed } from '../src/server/market/demoFeed.ts';
import { SYMBOL_TABLE } from '../src/shared/symbols.ts';
import {
  breakout,
  momentumShift,
  runAlertGenerators,
  trendChange,
  volatilitySpike,
} from '../src/signals/alertGenerators.ts';
import { candleSeries } from '../src/signals/candles.ts';
import { percentile, report } from './report.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const DAYS = 7;
const WARMUP = 400;
// A fixed week (Friday 2026-11-20 22:00 UTC back to the Friday before): five sessions of
// stocks, five Globex days of futures, seven days of crypto.
const end = Date.UTC(2026, 10, 20, 22, 0);
const feed = createDemoFeed({ now: () => end, keepMinuteDays: DAYS + 1 });
const before = [
  volatilitySpike({ factor: 3 }),
  momentumShift({ thresholdAtr: 6 }),
  breakout({ minClearanceAtr: 0 }),
  trendChange({ deadBandAtr: 0.5 }),
];

interface Rate {
  id: string;
  ours: number;
  peer: number;
}
const rates: Rate[] = [];
const byType = new Map<string, number>();
const started = performance.now();
for (const symbol of SYMBOL_TABLE) {
  const rows = await feed.candles(symbol.id, 60, new Date(end - DAYS * DAY), new Date(end));
  if (rows.length <= WARMUP) continue;
  const series = candleSeries(rows);
  // The days the scored bars span (after the warm-up), in calendar time.
  const days = (end - rows[WARMUP]!.time) / DAY;
  const ours = runAlertGenerators(series, symbol.ticker, MINUTE, WARMUP);
  const peer = runAlertGenerators(series, symbol.ticker, MINUTE, WARMUP, before, 0);
  for (const alert of ours) byType.set(alert.alert_type, (byType.get(alert.alert_type) ?? 0) + 1);
  rates.push({ id: symbol.id, ours: ours.length / days, peer: peer.length / days });
}
const seconds = (performance.now() - started) / 1000;

const stat = (pick: (rate: Rate) => number, share: number) => percentile(rates.map(pick), share);
const ours = { median: stat((rate) => rate.ours, 0.5), p95: stat((rate) => rate.ours, 0.95) };
const peer = { median: stat((rate) => rate.peer, 0.5), p95: stat((rate) => rate.peer, 0.95) };
const worst = rates.reduce((top, rate) => (rate.ours > top.ours ? rate : top));
const pegged = rates.filter((rate) => SYMBOL_TABLE.find((symbol) => symbol.id === rate.id)?.pegged);
const peggedWorst = Math.max(...pegged.map((rate) => rate.ours));

console.log(`${rates.length} symbols, ${DAYS} days of one-minute demo bars, ${seconds.toFixed(1)} s`);
console.log('alerts per symbol per day        median     p95   worst');
console.log(
  `now (effect sizes, cooldown)   ${ours.median.toFixed(1).padStart(8)}${ours.p95.toFixed(1).padStart(8)}${worst.ours.toFixed(1).padStart(8)} (${worst.id})`,
);
console.log(
  `before                         ${peer.median.toFixed(1).padStart(8)}${peer.p95.toFixed(1).padStart(8)}${Math.max(
    ...rates.map((rate) => rate.peer),
  )
    .toFixed(1)
    .padStart(8)}`,
);
console.log(`stablecoins now: ${pegged.map((rate) => `${rate.id} ${rate.ours.toFixed(1)}`).join(', ')}`);
console.log(`by type now: ${[...byType].map(([type, n]) => `${type.replace('AlertGenerator', '')} ${n}`).join(', ')}`);

report({
  figure: 'built-in alerts per symbol per day, median / p95',
  target: '<= 8 / <= 16',
  measured: `${ours.median.toFixed(1)} / ${ours.p95.toFixed(1)}`,
  peer: `before: ${peer.median.toFixed(1)} / ${peer.p95.toFixed(1)}`,
  ratio: ours.p95 / peer.p95,
  pass: ours.median <= 8 && ours.p95 <= 16,
});
report({
  figure: 'built-in alerts per stablecoin per day',
  target: '<= 1',
  measured: peggedWorst.toFixed(1),
  peer: `before: ${Math.max(...pegged.map((rate) => rate.peer)).toFixed(1)}`,
  ratio: null,
  pass: peggedWorst <= 1,
});
