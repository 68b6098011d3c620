// The demo feed: deterministic across instances and first-use times, every class of the symbol
// table in its sessions (none on holidays, half days, Globex's daily break), gaps at the open,
// tick-rounded prices at realistic levels, only closed candles, stablecoins on their peg, a
// 2,000-symbol universe that starts fast, and the price endpoint labelled as demo data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import { isTradingMinute } from '../../shared/sessions.ts';
import type { MarketSymbol } from '../../shared/symbolTable.ts';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { createTestApp, type TestApp } from '../testing/app.ts';
import { jsonBody } from '../testing/http.ts';
import { subscribedUser } from '../testing/users.ts';
import { aggregate, createDemoFeed, DemoAsset, DEMO_EPOCH, demoCandleColumns, rowsOfColumns } from './demoFeed.ts';
import { demoProfile } from './demoProfiles.ts';
import { DemoSeries } from './demoSeries.ts';
import type { CandleRow } from './types.ts';

const now = Date.UTC(2026, 2, 15, 10, 30, 20);
const MINUTE = 60_000;
const DAY = 86_400_000;

const newYork = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  weekday: 'short',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** New York wall clock of an instant: date 'YYYY-MM-DD', weekday 'Mon', clock 'HH:MM'. */
function et(time: number): { date: string; weekday: string; clock: string } {
  const parts = Object.fromEntries(newYork.formatToParts(time).map((part) => [part.type, part.value]));
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: parts.weekday!,
    clock: `${parts.hour}:${parts.minute}`,
  };
}

/** Bars of a symbol in [from, to) from a feed whose minute window covers them. */
async function minuteBars(id: string, from: number, to: number): Promise<CandleRow[]> {
  const feed = createDemoFeed({ now: () => to, keepMinuteDays: Math.ceil((to - from) / DAY) + 1 });
  return feed.candles(id, 60, new Date(from), new Date(to));
}

/** A long history from the epoch through a cursor (closed minutes skipped). */
function history(id: string, days: number): CandleRow[] {
  const asset = new DemoAsset(id);
  const rows: CandleRow[] = [];
  while (asset.nextTime < DEMO_EPOCH + days * DAY) rows.push(asset.next());
  return rows;
}

const onGrid = (price: number, tick: number) => Math.abs(price / tick - Math.round(price / tick)) < 1e-6;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('DemoAsset', () => {
  it('replays the same walk for the same product, and a different one for another', () => {
    const first = new DemoAsset('BTC-USD');
    const second = new DemoAsset('BTC-USD');
    const other = new DemoAsset('ETH-USD');
    const a = Array.from({ length: 500 }, () => first.next());
    const b = Array.from({ length: 500 }, () => second.next());
    expect(a).toEqual(b);
    expect(other.next().close).not.toBe(a[0]!.close);
    expect(a[0]!.time).toBe(DEMO_EPOCH);
    expect(
      a.every(
        (bar) =>
          bar.high >= Math.max(bar.open, bar.close) && bar.low <= Math.min(bar.open, bar.close) && bar.volume > 0,
      ),
    ).toBe(true);
  });

  it('gives the same bars whether history was skipped or generated', () => {
    const generated = new DemoAsset('SOL-USD');
    const skipped = new DemoAsset('SOL-USD');
    for (let index = 0; index < 1000; index += 1) generated.next();
    for (let index = 0; index < 1000; index += 1) skipped.skip();
    expect(skipped.next()).toEqual(generated.next());
  });

  it("starts US equities at the first regular open after the epoch (Tuesday 2024-01-02 09:30 ET: the 1st is New Year's Day)", () => {
    expect(DEMO_EPOCH).toBe(Date.UTC(2024, 0, 1));
    const bar = new DemoAsset('AAPL').next();
    expect(bar.time).toBe(Date.UTC(2024, 0, 2, 14, 30));
  });

  it('has two years of history before now (a setup study reads two years of hours)', async () => {
    const at = Date.now();
    const feed = createDemoFeed({ now: () => at, keepHourDays: 731 });
    const hours = await feed.candles('AAPL', 3600, new Date(at - 730 * DAY), new Date(at));
    // The first regular session on or after the window's start: within a long weekend of it.
    expect(hours[0]!.time - (at - 730 * DAY)).toBeLessThan(4 * DAY);
    expect(hours.length).toBeGreaterThan(2 * 250 * 7 * 0.95);
  });
});

describe('demo feed', () => {
  const feed = createDemoFeed({ now: () => now });

  it('quotes all 28 assets at familiar levels with buy above sell', async () => {
    const quotes = await feed.quotes(CRYPTO_SYMBOLS);
    expect([...quotes.values()].every((result) => result.ok)).toBe(true);
    const btc = quotes.get('BTC-USD');
    const usdt = quotes.get('USDT-USD');
    if (!btc?.ok || !usdt?.ok) throw new Error('expected quotes');
    expect(btc.quote.spot).toBeGreaterThan(40_000);
    expect(btc.quote.spot).toBeLessThan(200_000);
    expect(btc.quote.buy).toBeGreaterThan(btc.quote.sell);
    expect(Math.abs(usdt.quote.spot - 1)).toBeLessThan(0.01);
    expect((await feed.quotes(['NOPE-USD'])).get('NOPE-USD')).toEqual({
      ok: false,
      error: 'No demo data for NOPE-USD',
    });
    expect(await feed.candles('NOPE', 60, new Date(now - DAY), new Date(now))).toEqual([]);
  });

  it('quotes every row of the symbol table; stocks and futures on their tick grid with a one-tick spread', async () => {
    const quotes = await feed.quotes(SYMBOL_TABLE.map((symbol) => symbol.id));
    expect([...quotes.values()].filter((result) => !result.ok)).toEqual([]);
    const aapl = quotes.get('AAPL');
    const mes = quotes.get('MES1!');
    const spx = quotes.get('SPX');
    if (!aapl?.ok || !mes?.ok || !spx?.ok) throw new Error('expected quotes');
    expect(aapl.quote.buy - aapl.quote.sell).toBeCloseTo(0.01, 9);
    expect(mes.quote.buy - mes.quote.sell).toBeCloseTo(0.25, 9);
    expect(onGrid(mes.quote.spot, 0.25) && onGrid(mes.quote.buy, 0.25) && onGrid(mes.quote.sell, 0.25)).toBe(true);
    // An index has no book: buy and sell are its level.
    expect(spx.quote.buy).toBe(spx.quote.spot);
    expect(spx.quote.sell).toBe(spx.quote.spot);
  });

  it("quotes a stock on a weekend at Friday's last regular minute", async () => {
    const saturday = Date.UTC(2026, 2, 14, 15, 0);
    const weekend = createDemoFeed({ now: () => saturday });
    const result = (await weekend.quotes(['AAPL'])).get('AAPL');
    if (!result?.ok) throw new Error('expected a quote');
    // Friday 2026-03-13, 16:00 EDT: the close of the 15:59 bar.
    expect(result.quote.at.getTime()).toBe(Date.UTC(2026, 2, 13, 20, 0));
    const friday = await minuteBars('AAPL', Date.UTC(2026, 2, 13), saturday);
    expect(result.quote.spot).toBe(friday.at(-1)!.close);
  });

  it('serves only closed candles, and hourly bars equal the aggregated minutes', async () => {
    const end = new Date(now + 3_600_000);
    const minutes = await feed.candles('ETH-USD', 60, new Date(now - 6 * 3_600_000), end);
    expect(minutes.at(-1)!.time).toBe(Math.floor(now / 60_000) * 60_000 - 60_000);
    const hours = await feed.candles('ETH-USD', 3600, new Date(now - 5 * 3_600_000), end);
    expect(hours.at(-1)!.time).toBe(Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000);
    const rebuilt = aggregate(minutes, 3600).filter((bar) => hours.some((hour) => hour.time === bar.time));
    expect(rebuilt.map((bar) => bar.close)).toEqual(hours.map((bar) => bar.close));
    expect(rebuilt[0]!.volume).toBeCloseTo(hours[0]!.volume, 6);
  });

  it('builds hourly stock bars from the regular-session minutes only', async () => {
    const at = Date.UTC(2026, 2, 13, 22, 0);
    const stocks = createDemoFeed({ now: () => at });
    const minutes = await stocks.candles('MSFT', 60, new Date(Date.UTC(2026, 2, 13)), new Date(at));
    const hours = await stocks.candles('MSFT', 3600, new Date(Date.UTC(2026, 2, 13)), new Date(at));
    expect(minutes).toHaveLength(390);
    // 09:30-16:00 EDT is 13:30-20:00 UTC: a half hour bucket, then six full ones.
    expect(hours.map((bar) => bar.time)).toEqual(
      [13, 14, 15, 16, 17, 18, 19].map((hour) => Date.UTC(2026, 2, 13, hour)),
    );
    expect(hours).toEqual(aggregate(minutes, 3600).map((bar) => ({ ...bar, volume: expect.closeTo(bar.volume, 6) })));
  });

  it('has volatility regimes: hourly ranges vary by several times', async () => {
    const hourStart = Math.floor(now / 3_600_000) * 3_600_000;
    const hours = await feed.candles('BTC-USD', 3600, new Date(hourStart - 30 * 86_400_000), new Date(now));
    const ranges = hours.map((bar) => (bar.high - bar.low) / bar.close).sort((a, b) => a - b);
    expect(hours.length).toBe(30 * 24);
    expect(ranges[Math.floor(ranges.length * 0.9)]! / ranges[Math.floor(ranges.length * 0.1)]!).toBeGreaterThan(2.5);
  });
});

describe('demo feed sessions', () => {
  it('gives US equities bars only in the regular session: none on Thanksgiving, weekends, after 13:00 on the half day', async () => {
    // Monday 2026-11-23 to Monday 2026-11-30: Thanksgiving Thursday 26th, half day Friday 27th.
    const bars = await minuteBars('AAPL', Date.UTC(2026, 10, 23), Date.UTC(2026, 10, 30));
    const clocks = bars.map((bar) => et(bar.time));
    expect(clocks.every(({ clock }) => clock >= '09:30' && clock <= '15:59')).toBe(true);
    expect(bars.every((bar) => isTradingMinute('us-equities', bar.time))).toBe(true);
    const byDate = new Map<string, string[]>();
    for (const { date, clock } of clocks) byDate.set(date, [...(byDate.get(date) ?? []), clock]);
    expect([...byDate.keys()]).toEqual(['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-27']);
    expect(byDate.get('2026-11-25')).toHaveLength(390);
    expect(byDate.get('2026-11-25')!.at(-1)).toBe('15:59');
    expect(byDate.get('2026-11-27')).toHaveLength(210);
    expect(byDate.get('2026-11-27')!.at(-1)).toBe('12:59');
    expect(clocks.some(({ weekday }) => weekday === 'Sat' || weekday === 'Sun')).toBe(false);
  });

  it('keeps 09:30 ET across the daylight-saving change (UTC open moves from 14:30 to 13:30)', async () => {
    const bars = await minuteBars('SPY', Date.UTC(2026, 2, 6), Date.UTC(2026, 2, 10));
    const opens = bars.filter((bar) => et(bar.time).clock === '09:30').map((bar) => new Date(bar.time).toISOString());
    expect(opens).toEqual(['2026-03-06T14:30:00.000Z', '2026-03-09T13:30:00.000Z']);
  });

  it('gives Globex futures bars from Sunday 18:00 ET, overnight, and none in the 17:00-18:00 ET break', async () => {
    // Friday 2026-03-06 to Friday 2026-03-13 (DST starts Sunday the 8th).
    const bars = await minuteBars('ES1!', Date.UTC(2026, 2, 6), Date.UTC(2026, 2, 13));
    const clocks = bars.map((bar) => et(bar.time));
    expect(bars.every((bar) => isTradingMinute('cme-globex', bar.time))).toBe(true);
    expect(clocks.some(({ clock }) => clock >= '17:00' && clock < '18:00')).toBe(false);
    expect(clocks.some(({ weekday }) => weekday === 'Sat')).toBe(false);
    const sunday = clocks.filter(({ weekday }) => weekday === 'Sun');
    expect(sunday[0]!.clock).toBe('18:00');
    expect(sunday).toHaveLength(6 * 60);
    expect(clocks.some(({ date, clock }) => date === '2026-03-10' && clock === '02:00')).toBe(true);
    // Monday to Thursday: 23 hours a session.
    expect(clocks.filter(({ date }) => date === '2026-03-10')).toHaveLength(23 * 60);
  });

  it('gives crypto a bar every minute', async () => {
    const bars = await minuteBars('BTC-USD', Date.UTC(2026, 2, 6), Date.UTC(2026, 2, 9));
    expect(bars).toHaveLength(3 * 1440);
    expect(bars.every((bar, index) => index === 0 || bar.time - bars[index - 1]!.time === MINUTE)).toBe(true);
  });

  it('shows the time closed as a jump at the open, never as bars of zeros, and futures gap less', async () => {
    const stock = history('AAPL', 120);
    const future = history('ES1!', 120);
    expect([...stock, ...future].every((bar) => bar.low > 0 && bar.volume > 0)).toBe(true);
    const gapsOf = (bars: CandleRow[]) =>
      bars.flatMap((bar, index) =>
        index > 0 && bar.time - bars[index - 1]!.time > MINUTE
          ? [Math.abs(bar.open - bars[index - 1]!.close) / bars[index - 1]!.close]
          : [],
      );
    const stepsOf = (bars: CandleRow[]) =>
      bars.flatMap((bar, index) =>
        index > 0 && bar.time - bars[index - 1]!.time === MINUTE ? [Math.abs(bar.open - bars[index - 1]!.close)] : [],
      );
    const stockGaps = gapsOf(stock);
    // About 80 sessions: nearly every open jumps, and within a session the open is the last close.
    expect(stockGaps.length).toBeGreaterThan(75);
    expect(stockGaps.filter((gap) => gap > 0).length / stockGaps.length).toBeGreaterThan(0.9);
    expect(stepsOf(stock).every((step) => step === 0)).toBe(true);
    const meanMinuteMove =
      stock.slice(1).reduce((sum, bar, index) => sum + Math.abs(bar.close - stock[index]!.close) / bar.close, 0) /
      (stock.length - 1);
    const meanGap = stockGaps.reduce((sum, gap) => sum + gap, 0) / stockGaps.length;
    expect(meanGap).toBeGreaterThan(3 * meanMinuteMove);
    const futureGaps = gapsOf(future);
    expect(futureGaps.reduce((sum, gap) => sum + gap, 0) / futureGaps.length).toBeLessThan(meanGap / 2);
  });
});

describe('demo feed prices', () => {
  it('rounds every price to the tick: MES to 0.25 points, CL to a cent, NG to 0.001', async () => {
    for (const [id, tick] of [
      ['MES1!', 0.25],
      ['CL1!', 0.01],
      ['NG1!', 0.001],
      ['SI1!', 0.005],
      ['AAPL', 0.01],
    ] as const) {
      const bars = await minuteBars(id, Date.UTC(2026, 3, 6), Date.UTC(2026, 3, 9));
      expect(bars.length).toBeGreaterThan(1000);
      const prices = bars.flatMap((bar) => [bar.open, bar.high, bar.low, bar.close]);
      expect(prices.filter((price) => !onGrid(price, tick))).toEqual([]);
    }
  });

  it('keeps AAPL near 230-280 and MES near the S&P 500 over a year, with MES moving tick for tick with ES', () => {
    const aapl = history('AAPL', 365);
    const mes = history('MES1!', 365);
    const es = history('ES1!', 30);
    expect(Math.min(...aapl.map((bar) => bar.low))).toBeGreaterThan(180);
    expect(Math.max(...aapl.map((bar) => bar.high))).toBeLessThan(360);
    expect(median(aapl.map((bar) => bar.close))).toBeGreaterThan(225);
    expect(median(aapl.map((bar) => bar.close))).toBeLessThan(290);
    const mesCloses = mes.map((bar) => bar.close);
    expect(mesCloses.reduce((low, close) => Math.min(low, close), Infinity)).toBeGreaterThan(5600);
    expect(mesCloses.reduce((high, close) => Math.max(high, close), -Infinity)).toBeLessThan(8000);
    expect(median(mesCloses)).toBeGreaterThan(6300);
    expect(median(mesCloses)).toBeLessThan(7300);
    expect(mes.slice(0, es.length).map((bar) => bar.close)).toEqual(es.map((bar) => bar.close));
  });

  it('starts every non-crypto row near its table level, VIX in its usual 14-22 band', async () => {
    const feed = createDemoFeed({ now: () => DEMO_EPOCH + 5 * DAY });
    const quotes = await feed.quotes(['SPY', 'QQQ', 'SPX', 'NDX', 'VIX', 'GC1!', 'CL1!', 'NG1!', 'NVDA']);
    const spot = (id: string) => {
      const result = quotes.get(id);
      if (!result?.ok) throw new Error(`no quote for ${id}`);
      return result.quote.spot;
    };
    expect(spot('SPY')).toBeGreaterThan(600);
    expect(spot('SPY')).toBeLessThan(720);
    expect(spot('QQQ')).toBeGreaterThan(520);
    expect(spot('SPX')).toBeGreaterThan(6000);
    expect(spot('NDX')).toBeGreaterThan(21_000);
    expect(spot('VIX')).toBeGreaterThan(12);
    expect(spot('VIX')).toBeLessThan(24);
    expect(spot('GC1!')).toBeGreaterThan(3300);
    expect(spot('CL1!')).toBeGreaterThan(55);
    expect(spot('NG1!')).toBeLessThan(5);
    expect(spot('NVDA')).toBeGreaterThan(140);
  });
});

describe('demo feed determinism and scale', () => {
  it('gives identical bars for the same minutes whatever `now` was at first use', async () => {
    const day = Date.UTC(2026, 5, 3);
    let clock = day + 2 * DAY;
    const late = createDemoFeed({ now: () => clock, keepMinuteDays: 5 });
    const lateBars = await late.candles('NVDA', 60, new Date(day), new Date(day + DAY));
    clock = day + DAY + 3 * 3_600_000;
    const early = createDemoFeed({ now: () => clock, keepMinuteDays: 5 });
    await early.candles('NVDA', 60, new Date(day), new Date(day + DAY));
    // Advance minute by minute through part of the session: the window grows, the bars stay.
    for (let step = 0; step < 30; step += 1) {
      clock += 17 * MINUTE;
      await early.quotes(['NVDA']);
    }
    const earlyBars = await early.candles('NVDA', 60, new Date(day), new Date(day + DAY));
    expect(lateBars).toHaveLength(390);
    expect(earlyBars).toEqual(lateBars);
    const fromEpoch = history('NVDA', Math.ceil((day + DAY - DEMO_EPOCH) / DAY)).filter(
      (bar) => bar.time >= day && bar.time < day + DAY,
    );
    expect(fromEpoch).toEqual(lateBars);
    const hoursLate = await late.candles('ES1!', 3600, new Date(day - 10 * DAY), new Date(day));
    const hoursEarly = await early.candles('ES1!', 3600, new Date(day - 10 * DAY), new Date(day));
    expect(hoursEarly).toEqual(hoursLate);
  });

  it('draws a long history straight into columns, the very bars a feed answers and the minutes aggregate to', async () => {
    // Mid-hour edges, a window past `now`, a weekend, each class (crypto volumes are not whole,
    // so a sum in another order would show).
    const at = Date.UTC(2026, 4, 20, 15, 42, 10);
    for (const [id, start, end] of [
      ['BTC-USD', at - 40 * DAY + 17 * MINUTE, at + DAY],
      ['AAPL', at - 40 * DAY - 5 * MINUTE, at - 3 * DAY + 31 * MINUTE],
      ['MES1!', at - 12 * DAY, at],
      ['VIX', at - 9 * DAY + 30 * MINUTE, at - 2 * DAY],
    ] as const) {
      const feed = createDemoFeed({ now: () => at, keepHourDays: 41, keepMinuteDays: 41 });
      const hours = await feed.candles(id, 3600, new Date(start), new Date(end));
      const minutes = await feed.candles(id, 60, new Date(start), new Date(end));
      expect(hours.length).toBeGreaterThan(30);
      expect(rowsOfColumns(demoCandleColumns(id, 3600, start, end, at))).toEqual(hours);
      expect(rowsOfColumns(demoCandleColumns(id, 60, start, end, at))).toEqual(minutes);
      // The hours the minutes cover whole (the window may end inside one).
      const covered = hours.filter((hour) => hour.time >= start && hour.time + 3_600_000 <= end);
      const whole = aggregate(minutes, 3600).filter((bar) => covered.some((hour) => hour.time === bar.time));
      expect(whole.length).toBeGreaterThan(30);
      // Exactly, volumes too: the series sums an hour's minutes in the order aggregating them does.
      expect(whole).toEqual(covered);
    }
    expect(() => demoCandleColumns('NOPE', 3600, at - DAY, at, at)).toThrow('No demo data for NOPE');
  });

  it('draws the same bars when an emit callback draws another series meanwhile (shared scratch arrays)', () => {
    const seriesOf = (id: string) => new DemoSeries(demoProfile(SYMBOL_TABLE.find((row) => row.id === id)!));
    const from = Date.UTC(2026, 3, 7, 13);
    const collect = (series: DemoSeries, inner?: DemoSeries) => {
      const bars: number[][] = [];
      series.barsBetween(from, from + 3 * 3_600_000, (...bar) => {
        bars.push(bar);
        inner?.barsBetween(from + bars.length * MINUTE, from + (bars.length + 1) * MINUTE, () => {});
      });
      return bars;
    };
    const alone = collect(seriesOf('ES1!'));
    expect(alone).toHaveLength(180);
    expect(collect(seriesOf('ES1!'), seriesOf('ETH-USD'))).toEqual(alone);
  });

  it('serves a synthetic universe of 2,000 symbols, and their first use is fast', async () => {
    const calendars = [
      ['stock', 'us-equities', 0.01],
      ['etf', 'us-equities', 0.01],
      ['future', 'cme-globex', 0.25],
      ['crypto', 'crypto-24x7', 1e-8],
    ] as const;
    const symbols: MarketSymbol[] = Array.from({ length: 2000 }, (_, index) => {
      const [assetClass, calendar, tickSize] = calendars[index < 1400 ? 0 : index < 1700 ? 1 : index < 1900 ? 2 : 3];
      const id = `SYN${index}`;
      return {
        assetClass,
        id,
        ticker: id,
        name: `Synthetic ${index}`,
        exchange: 'NYSE',
        tradingViewExchange: 'NYSE',
        currency: 'USD',
        tickSize,
        calendar,
        providerSymbol: id,
      };
    });
    const at = Date.UTC(2027, 2, 10, 15, 0);
    const feed = createDemoFeed({ now: () => at, symbols });
    const ids = symbols.map((symbol) => symbol.id);
    const started = performance.now();
    const quotes = await feed.quotes(ids);
    const quoted = performance.now();
    let bars = 0;
    for (const id of ids) bars += (await feed.candles(id, 60, new Date(at - DAY), new Date(at))).length;
    const finished = performance.now();
    console.log(
      `demo feed, 2,000 synthetic symbols at first use: quotes ${(quoted - started).toFixed(0)} ms, ` +
        `plus the minute window (${bars} bars in the last day) ${(finished - quoted).toFixed(0)} ms`,
    );
    expect([...quotes.values()].every((result) => result.ok)).toBe(true);
    expect(bars).toBeGreaterThan(1400 * 390);
    expect((await feed.quotes(['AAPL'])).get('AAPL')).toEqual({ ok: false, error: 'No demo data for AAPL' });
    // Generous: a sanity bound on shared machines, not a benchmark.
    expect(finished - started).toBeLessThan(60_000);
  });
});

describe('GET /external-api/coinbase-prices on demo data', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await createTestApp({ MARKET_DATA: 'demo' });
  });
  afterAll(async () => {
    await test?.close();
  });

  it('answers docs/SPEC.md shape for subscribers, labelled demo, and 401 for visitors', async () => {
    const visitor = await test.app.inject({ method: 'GET', url: '/external-api/coinbase-prices' });
    expect(visitor.statusCode).toBe(401);
    const { browser } = await subscribedUser(test, 'prices@example.com');
    const response = await browser.get('/external-api/coinbase-prices');
    expect(response.statusCode).toBe(200);
    const body = jsonBody<{ summary: unknown; metadata: { source: string }; prices: Record<string, unknown> }>(
      response,
    );
    expect(body.summary).toMatchObject({ total_cryptos_requested: 28, successful_fetches: 28, failed_fetches: 0 });
    expect(body.metadata.source).toBe('demo');
    expect(Object.keys(body.prices)).toHaveLength(28);
    expect(body.prices['BTC-USD']).toMatchObject({
      symbol: 'BTC',
      spot_price: expect.any(Number),
      spread_percent: expect.any(Number),
    });
  });
});
