// The deterministic demo feed (MARKET_DATA=demo, or auto while Coinbase is unreachable).
// Every asset follows a seeded random walk from a fixed epoch, minute by minute, with
// volatility regimes (calm / normal / stormy), drifting trends, and volume bursts that come
// with big moves, so every alert generator fires over time. Deterministic: every instance
// and every restart sees the same history. Always labelled "Demo data" where shown.
import { CRYPTO_SYMBOLS } from '../../shared/constants.ts';
import type { CandleRow, Granularity, MarketDataProvider, QuoteResult } from './types.ts';

/** The demo history starts here; the walk is replayed from it. */
export const DEMO_EPOCH = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

interface AssetProfile {
  price: number;
  /** Per-minute volatility in the normal regime. */
  volatility: number;
  /** Typical volume per minute, in units of the asset. */
  volume: number;
  /** Half the buy/sell spread, as a fraction of the price. */
  halfSpread: number;
}

const STABLECOINS = new Set(['USDT-USD', 'DAI-USD']);

/** Starting levels of the same order as the real market, so the numbers look familiar. */
const START_PRICES: Record<string, number> = {
  'AAVE-USD': 280,
  'ADA-USD': 0.9,
  'APT-USD': 9,
  'AVAX-USD': 36,
  'BCH-USD': 450,
  'BTC-USD': 94000,
  'CRO-USD': 0.15,
  'DAI-USD': 1,
  'DOGE-USD': 0.32,
  'DOT-USD': 6.8,
  'ETC-USD': 26,
  'ETH-USD': 3300,
  'HBAR-USD': 0.27,
  'ICP-USD': 10,
  'LINK-USD': 21,
  'LTC-USD': 105,
  'NEAR-USD': 5,
  'ONDO-USD': 1.3,
  'PEPE-USD': 0.000017,
  'SHIB-USD': 0.000021,
  'SOL-USD': 190,
  'SUI-USD': 4.1,
  'TAO-USD': 450,
  'TRUMP-USD': 12,
  'UNI-USD': 13,
  'USDT-USD': 1,
  'XLM-USD': 0.34,
  'XRP-USD': 2.2,
};

function profileOf(productId: string): AssetProfile {
  const price = START_PRICES[productId] ?? 10;
  if (STABLECOINS.has(productId)) return { price, volatility: 0.00005, volume: 500_000, halfSpread: 0.00005 };
  // Per-minute volatility of roughly 45% (majors) and 75% (others) a year in the normal regime.
  const major = productId === 'BTC-USD' || productId === 'ETH-USD';
  return { price, volatility: major ? 0.0006 : 0.001, volume: 1_000_000 / price, halfSpread: major ? 0.0005 : 0.0025 };
}

/** Small, fast, seedable PRNG (mulberry32). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stateless uniform in [0, 1) for (seed, index, salt): per-bar details without a stream. */
function hashUniform(seed: number, index: number, salt: number): number {
  let x = (seed ^ Math.imul(index, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

function seedOf(text: string): number {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return hash >>> 0;
}

/** Regimes: volatility multiplier and mean stay length in minutes. */
const REGIMES = [
  { multiplier: 0.45, meanMinutes: 720 },
  { multiplier: 1, meanMinutes: 1440 },
  { multiplier: 2.8, meanMinutes: 180 },
] as const;

/**
 * One asset's minute-by-minute walk. Keeps its state so it can be continued bar by bar;
 * replaying from the epoch with the same product id always gives the same bars.
 */
export class DemoAsset {
  private readonly random: () => number;
  private readonly seed: number;
  private index = 0;
  private readonly profile: AssetProfile;
  private close: number;
  private regime = 1;
  private regimeLeft = 0;
  private drift = 0;
  private driftLeft = 0;
  private spare: number | null = null;
  /** Open time of the next bar to generate. */
  nextTime = DEMO_EPOCH;

  constructor(readonly productId: string) {
    this.seed = seedOf(productId);
    this.random = prng(this.seed);
    this.profile = profileOf(productId);
    this.close = this.profile.price;
  }

  get halfSpread(): number {
    return this.profile.halfSpread;
  }

  private gaussian(): number {
    if (this.spare !== null) {
      const value = this.spare;
      this.spare = null;
      return value;
    }
    const u = Math.max(this.random(), 1e-12);
    const v = this.random();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spare = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  /** Moves the walk one minute on and returns the new close (cheap: no bar details). */
  private step(): { open: number; close: number; sigma: number; change: number } {
    if (this.regimeLeft <= 0) {
      const roll = this.random();
      this.regime = roll < 0.35 ? 0 : roll < 0.85 ? 1 : 2;
      this.regimeLeft = Math.ceil(-Math.log(Math.max(this.random(), 1e-9)) * REGIMES[this.regime].meanMinutes);
    }
    if (this.driftLeft <= 0) {
      // Trends last hours to days; stablecoins only wobble around their peg.
      const stable = STABLECOINS.has(this.productId);
      this.drift = stable ? 0 : (this.random() - 0.5) * 2 * this.profile.volatility * 0.04;
      this.driftLeft = Math.ceil(-Math.log(Math.max(this.random(), 1e-9)) * 2880);
    }
    this.regimeLeft -= 1;
    this.driftLeft -= 1;

    const sigma = this.profile.volatility * REGIMES[this.regime].multiplier;
    // Stablecoins are pulled hard to their peg; other assets weakly back to their starting
    // level over weeks, so a year of replay stays in a familiar price range.
    const distance = Math.log(this.profile.price / this.close);
    const pull = distance * (STABLECOINS.has(this.productId) ? 0.2 : 1 / 40_000);
    const change = this.drift + pull + sigma * this.gaussian();
    const open = this.close;
    this.close = open * Math.exp(change);
    this.index += 1;
    this.nextTime += MINUTE;
    return { open, close: this.close, sigma, change };
  }

  /** Skips a minute whose bar nobody needs (replaying old history). */
  skip(): void {
    this.step();
  }

  /** Generates the next one-minute bar. */
  next(): CandleRow {
    const time = this.nextTime;
    const { open, close, sigma, change } = this.step();
    // Wicks and volume come from a per-bar hash, so skipping bars costs only the walk.
    const uniform = (salt: number) => hashUniform(this.seed, this.index, salt);
    const high = Math.max(open, close) * (1 + uniform(1) * uniform(2) * sigma * 1.5);
    const low = Math.min(open, close) * (1 - uniform(3) * uniform(4) * sigma * 1.5);
    const surprise = Math.abs(change) / sigma;
    const burst = uniform(5) < 0.002 ? 4 + uniform(6) * 6 : 1;
    const volume =
      this.profile.volume * REGIMES[this.regime].multiplier * (0.5 + uniform(7)) * (1 + 0.6 * surprise) * burst;
    return { time, open, high, low, close, volume };
  }
}

/** Adds a bar to `bars`, merging it into the last bar when it falls in its bucket. */
export function appendToBucket(bars: CandleRow[], bar: CandleRow, sizeMs: number): void {
  const bucket = Math.floor(bar.time / sizeMs) * sizeMs;
  const last = bars.at(-1);
  if (last && last.time === bucket) {
    last.high = Math.max(last.high, bar.high);
    last.low = Math.min(last.low, bar.low);
    last.close = bar.close;
    last.volume += bar.volume;
  } else {
    bars.push({ ...bar, time: bucket });
  }
}

/** Aggregates one-minute bars into bars of `granularity` seconds (aligned to UTC). */
export function aggregate(minutes: CandleRow[], granularity: Granularity): CandleRow[] {
  if (granularity === 60) return minutes;
  const result: CandleRow[] = [];
  for (const bar of minutes) appendToBucket(result, bar, granularity * 1000);
  return result;
}

export interface DemoFeedOptions {
  now?: () => number;
  /** How many days of one-minute bars to keep in memory per asset. */
  keepMinuteDays?: number;
  /** How many days of hourly bars to keep in memory per asset. */
  keepHourDays?: number;
}

/**
 * The demo provider: replays each asset's walk up to now (on first use) and keeps the last
 * days of one-minute bars; hourly bars are aggregated from them and kept for the full span.
 */
export function createDemoFeed(
  options: DemoFeedOptions = {},
): MarketDataProvider & { minuteBars(productId: string): CandleRow[] } {
  const now = options.now ?? Date.now;
  const keepMinutes = (options.keepMinuteDays ?? 3) * 1440;
  const keepHourDays = options.keepHourDays ?? 60;
  const assets = new Map<string, { asset: DemoAsset; minutes: CandleRow[]; hours: CandleRow[] }>();

  function advance(productId: string) {
    let entry = assets.get(productId);
    if (!entry) {
      entry = { asset: new DemoAsset(productId), minutes: [], hours: [] };
      assets.set(productId, entry);
    }
    const until = Math.floor(now() / MINUTE) * MINUTE;
    const keepMinutesFrom = until - keepMinutes * MINUTE;
    // Hourly bars start on an hour boundary so the first one is complete.
    const keepHoursFrom = Math.floor((until - keepHourDays * 86_400_000) / 3_600_000) * 3_600_000;
    while (entry.asset.nextTime < keepHoursFrom) entry.asset.skip();
    while (entry.asset.nextTime < until) {
      const bar = entry.asset.next();
      if (bar.time >= keepMinutesFrom) entry.minutes.push(bar);
      appendToBucket(entry.hours, bar, 3_600_000);
    }
    if (entry.minutes.length > keepMinutes * 1.5) entry.minutes.splice(0, entry.minutes.length - keepMinutes);
    if (entry.hours.length > keepHourDays * 24 * 1.5) entry.hours.splice(0, entry.hours.length - keepHourDays * 24);
    return entry;
  }

  return {
    source: 'demo',
    minuteBars: (productId) => advance(productId).minutes,
    async quotes(productIds) {
      const results = new Map<string, QuoteResult>();
      for (const productId of productIds) {
        if (!(productId in START_PRICES)) {
          results.set(productId, { ok: false, error: `No demo data for ${productId}` });
          continue;
        }
        const entry = advance(productId);
        const last = entry.minutes.at(-1);
        if (!last) {
          results.set(productId, { ok: false, error: 'Demo history is empty' });
          continue;
        }
        const spot = last.close;
        const half = entry.asset.halfSpread;
        results.set(productId, {
          ok: true,
          quote: { productId, spot, buy: spot * (1 + half), sell: spot * (1 - half), at: new Date(last.time + MINUTE) },
        });
      }
      return results;
    },
    async candles(productId, granularity, start, end) {
      if (!(productId in START_PRICES)) return [];
      const entry = advance(productId);
      const source = granularity === 60 ? entry.minutes : entry.hours;
      const closedBefore = Math.floor(now() / (granularity * 1000)) * granularity * 1000;
      return source
        .filter((bar) => bar.time >= start.getTime() && bar.time < end.getTime() && bar.time < closedBefore)
        .map((bar) => ({ ...bar }));
    },
  };
}

export const DEMO_PRODUCTS: readonly string[] = CRYPTO_SYMBOLS;
