// Alert generators on constructed series (each rule fires exactly where it should and not
// again until reset). On the demo feed: src/server/market/signalsOnDemo.test.ts.
import { describe, expect, it } from 'vitest';
import { alertDisplayType } from '../shared/alertDisplay.ts';
import { candleSeries, type CandleInput } from './candles.ts';
import {
  ALERT_COOLDOWN_MS,
  breakout,
  momentumShift,
  runAlertGenerators,
  trendChange,
  volatilitySpike,
} from './alertGenerators.ts';

const MINUTE = 60_000;

/** Bars from closes; each bar's range is `range` around its close unless given. */
function bars(closes: number[], range = 0.2, volume = 100): CandleInput[] {
  return closes.map((close, index) => ({
    time: index * MINUTE,
    open: index === 0 ? close : closes[index - 1]!,
    high: Math.max(close, index === 0 ? close : closes[index - 1]!) + range / 2,
    low: Math.min(close, index === 0 ? close : closes[index - 1]!) - range / 2,
    close,
    volume,
  }));
}

function collect(generator: ReturnType<typeof volatilitySpike>, rows: CandleInput[]) {
  const fired: Array<{ index: number; message: string }> = [];
  generator.scan(candleSeries(rows), 'TEST', (index, message) => fired.push({ index, message }));
  return fired;
}

const calm = (length: number, level = 100) => Array.from({ length }, (_, index) => level + Math.sin(index / 3) * 0.1);

describe('VolatilitySpikeAlertGenerator', () => {
  it('fires on a bar 4x the average range, once, and again only after calming down', () => {
    const rows = bars(calm(120));
    rows[100] = { ...rows[100]!, high: rows[100]!.close + 2, low: rows[100]!.close - 2 };
    rows[101] = { ...rows[101]!, high: rows[101]!.close + 2, low: rows[101]!.close - 2 };
    rows[110] = { ...rows[110]!, high: rows[110]!.close + 2.5, low: rows[110]!.close - 2.5 };
    const fired = collect(volatilitySpike(), rows);
    expect(fired.map((alert) => alert.index)).toEqual([100, 110]);
    expect(fired[0]!.message).toMatch(
      /^TEST volatility spike: the bar's range of \d+\.\d{2}% is \d+\.\dx its 60-bar average true range$/,
    );
    expect(alertDisplayType('VolatilitySpikeAlertGenerator', fired[0]!.message)).toBe('caution');
  });
});

describe('BreakoutAlertGenerator', () => {
  it('fires when the close clears the 60-bar high, not on every new high after it', () => {
    const closes = [...calm(80), ...Array.from({ length: 10 }, (_, index) => 101 + index * 0.5)];
    const fired = collect(breakout({ cooldownBars: 30 }), bars(closes));
    expect(fired.map((alert) => alert.index)).toEqual([80]);
    expect(fired[0]!.message).toContain('above its 60-bar high of');
    expect(alertDisplayType('BreakoutAlertGenerator', fired[0]!.message)).toBe('bullish');
  });
});

describe('BreakoutAlertGenerator effect size', () => {
  it('does not call a close a hair above the high a breakout: it must clear it by half an ATR', () => {
    // Calm bars with a range of 0.2 (ATR about 0.2): a close 0.05 above the 60-bar high is noise,
    // one 0.5 above it is a breakout.
    const level = Math.max(...calm(80).map((close) => close + 0.1));
    const hair = collect(breakout(), bars([...calm(80), level + 0.05 - 0.1, ...calm(5)]));
    expect(hair).toEqual([]);
    const clear = collect(breakout(), bars([...calm(80), level + 0.5, ...calm(5)]));
    expect(clear.map((alert) => alert.index)).toEqual([80]);
  });
});

describe('TrendChangeAlertGenerator', () => {
  it('reports bullish and bearish flips of EMA 20 against EMA 50 with the words the display mapping needs', () => {
    const down = Array.from({ length: 120 }, (_, index) => 120 - index * 0.2);
    const up = Array.from({ length: 120 }, (_, index) => 96 + index * 0.3);
    const downAgain = Array.from({ length: 150 }, (_, index) => 132 - index * 0.3);
    const fired = collect(trendChange(), bars([...down, ...up, ...downAgain]));
    expect(fired).toHaveLength(2);
    expect(fired[0]!.message).toMatch(/^TEST bullish trend change: EMA 20 crossed above EMA 50/);
    expect(fired[1]!.message).toMatch(/^TEST bearish trend change: EMA 20 crossed below EMA 50/);
    expect(alertDisplayType('TrendChangeAlertGenerator', fired[0]!.message)).toBe('bullish');
    expect(alertDisplayType('TrendChangeAlertGenerator', fired[1]!.message)).toBe('bearish');
  });
});

describe('MomentumShiftAlertGenerator', () => {
  it('reports momentum building then a slowdown, mapped bullish then caution', () => {
    const flat = calm(80);
    const rally = Array.from({ length: 25 }, (_, index) => 100 + index * 0.6);
    const stall = Array.from({ length: 40 }, () => 115);
    const fired = collect(momentumShift(), bars([...flat, ...rally, ...stall]));
    expect(fired.map((alert) => alert.message.split(':')[0])).toEqual([
      'TEST momentum building',
      'TEST momentum slowdown',
    ]);
    expect(alertDisplayType('MomentumShiftAlertGenerator', fired[0]!.message)).toBe('bullish');
    expect(alertDisplayType('MomentumShiftAlertGenerator', fired[1]!.message)).toBe('caution');
  });
});

describe('runAlertGenerators', () => {
  it('reports a generator at most once per cooldown on a symbol, measured in time', () => {
    // A spike every 30 minutes, each after calm bars (so the generator re-arms and fires each time).
    const rows = bars(calm(60 * 10));
    const spikes = [100, 130, 160, 400, 430];
    for (const index of spikes)
      rows[index] = { ...rows[index]!, high: rows[index]!.close + 3, low: rows[index]!.close - 3 };
    const series = candleSeries(rows);
    const raw: number[] = [];
    volatilitySpike().scan(series, 'TEST', (index) => raw.push(index));
    expect(raw).toEqual(spikes);
    const reported = runAlertGenerators(series, 'TEST', MINUTE, 0, [volatilitySpike()]).map((alert) => alert.index);
    // 100 fires; 130 and 160 fall within 4 hours of it; 400 is 5 hours later; 430 is within its cooldown.
    expect(ALERT_COOLDOWN_MS).toBe(4 * 3_600_000);
    expect(reported).toEqual([100, 400]);
    // The cooldown is built from bars before fromIndex too: a later pass does not re-report 130.
    expect(runAlertGenerators(series, 'TEST', MINUTE, 120, [volatilitySpike()]).map((alert) => alert.index)).toEqual([
      400,
    ]);
  });

  it('gives pegged assets (stablecoins) only volatility spikes of half a percent, never trend or momentum', () => {
    // A steady climb that makes trend, momentum and breakout alerts for any other asset.
    const peg = (length: number) => Array.from({ length }, (_, index) => 1 + Math.sin(index / 3) * 0.0005);
    const closes = [...peg(200), ...Array.from({ length: 300 }, (_, index) => 1 + index * 0.0004)];
    const series = candleSeries(bars(closes, 0.0002));
    const other = new Set(runAlertGenerators(series, 'BTC', MINUTE).map((alert) => alert.alert_type));
    expect(other.has('TrendChangeAlertGenerator') || other.has('BreakoutAlertGenerator')).toBe(true);
    expect(runAlertGenerators(series, 'DAI', MINUTE)).toEqual([]);
    expect(runAlertGenerators(series, 'USDT', MINUTE)).toEqual([]);
    // A depeg: a bar a full percent wide.
    const depeg = bars(peg(200), 0.0002);
    depeg[150] = { ...depeg[150]!, high: 1.005, low: 0.995 };
    expect(runAlertGenerators(candleSeries(depeg), 'USDT', MINUTE).map((alert) => alert.alert_type)).toEqual([
      'VolatilitySpikeAlertGenerator',
    ]);
  });

  it('is quiet on flat prices and short series, with no throw', () => {
    expect(runAlertGenerators(candleSeries(bars(new Array<number>(300).fill(50), 0)), 'FLAT', MINUTE)).toEqual([]);
    expect(runAlertGenerators(candleSeries(bars([1, 2, 3])), 'SHORT', MINUTE)).toEqual([]);
    expect(runAlertGenerators(candleSeries([]), 'EMPTY', MINUTE)).toEqual([]);
  });
});
