// Which forecasts a WATOS card states (issue 20), pure: every active signal with a measured
// probability is one forecast of a higher close `horizonBars` bars after the card's last bar.
// Inactive signals and "not enough history" state nothing, so they are not recorded.
import { WATOS_TIMEFRAMES, type WatosCard, type WatosTimeframe } from '../../shared/schemas/chat.ts';
import { symbolById } from '../../shared/tickers.ts';
import type { RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import { dueTime, FORECAST_TIMEFRAMES, type ForecastSource } from './resolution.ts';

export type ForecastOrigin = 'grid' | 'answer' | 'alert' | 'rule';
export type AvailableCard = Extract<WatosCard, { available: true }>;

/** A forecast about to be recorded (times in ms). */
export interface ForecastDraft {
  dedupKey: string;
  symbol: string;
  assetClass: string;
  timeframe: WatosTimeframe;
  signal: string;
  direction: 'bullish' | 'bearish';
  stated: number;
  intervalLow: number | null;
  intervalHigh: number | null;
  rawFrequency: number | null;
  horizonBars: number;
  barTime: number;
  dueAt: number;
  baseRate: number;
  sampleSize: number;
  source: ForecastSource;
  origin: ForecastOrigin;
  entryClose: number;
  /** origin 'rule': the trader and the rule; private unless published. */
  userId?: string | null;
  ruleId?: number | null;
  published?: boolean;
}

export const isForecastTimeframe = (value: string): value is WatosTimeframe =>
  (WATOS_TIMEFRAMES as readonly string[]).includes(value);

/** Identical statements within a bar share this key (the origin is not part of it). */
export function dedupKey(draft: Omit<ForecastDraft, 'dedupKey'>): string {
  return [
    draft.source,
    draft.symbol,
    draft.timeframe,
    draft.signal,
    draft.direction,
    draft.horizonBars,
    new Date(draft.barTime).toISOString(),
  ].join('|');
}

export function forecastsOfCard(card: AvailableCard, origin: ForecastOrigin): ForecastDraft[] {
  if (!isForecastTimeframe(card.timeframe) || card.baseRate.probability === null) return [];
  const timeframe = card.timeframe;
  const { ms } = FORECAST_TIMEFRAMES[timeframe];
  const calendar = symbolById(card.productId)?.calendar ?? 'crypto-24x7';
  // lastBarTime is the open of the last closed bar; the statement is about its close.
  const barTime = Date.parse(card.lastBarTime) + ms;
  if (!Number.isFinite(barTime)) return [];
  const dueAt = dueTime(calendar, timeframe, barTime, card.horizonBars);
  const source: ForecastSource = card.source === 'demo' ? 'demo' : 'real';
  const drafts: ForecastDraft[] = [];
  for (const signal of card.signals) {
    const odds = signal.odds;
    if (!signal.active || !odds || odds.probability === null || signal.direction === 'neutral') continue;
    const draft = {
      symbol: card.productId,
      assetClass: card.assetClass,
      timeframe,
      signal: signal.id,
      direction: signal.direction,
      stated: odds.probability,
      intervalLow: odds.interval?.[0] ?? null,
      intervalHigh: odds.interval?.[1] ?? null,
      rawFrequency: odds.raw,
      horizonBars: card.horizonBars,
      barTime,
      dueAt,
      baseRate: card.baseRate.probability,
      sampleSize: odds.samples,
      source,
      origin,
      entryClose: card.lastClose,
    };
    drafts.push({ ...draft, dedupKey: dedupKey(draft) });
  }
  return drafts;
}

/** What a trader's rule firing states (issue 36): the study of its condition on its symbol and timeframe. */
export interface RuleStatement {
  ruleId: number;
  /** Whether the trader published this rule's record (its new forecasts follow). */
  published: boolean;
  userId: string;
  /** The firing's id: one forecast a firing. */
  firingId: number;
  symbol: string;
  timeframe: RuleTimeframe;
  /** Open time (ms) of the one-minute bar that triggered it, and the price it fired at. */
  barTime: number;
  price: number;
  /** The feed of the firing's price (coinbase, yahoo, demo). */
  source: string;
  direction: 'bullish' | 'bearish';
  /** The study's probability of a higher close `horizonBars` bars later, its interval and measured share. */
  stated: number;
  intervalLow: number;
  intervalHigh: number;
  rawFrequency: number | null;
  baseRate: number;
  sampleSize: number;
  horizonBars: number;
}

/**
 * The forecast of a rule firing: about the close of the rule-timeframe bar the firing fell in,
 * entered at the firing's price, due `horizonBars` bars of that timeframe later (the rule's 1D is
 * the forecasts' D). Private to its trader unless they published the rule's record.
 */
export function forecastOfRuleFiring(statement: RuleStatement): ForecastDraft {
  const timeframe: WatosTimeframe = statement.timeframe === '1D' ? 'D' : statement.timeframe;
  const { ms } = FORECAST_TIMEFRAMES[timeframe];
  const market = symbolById(statement.symbol);
  const barTime = Math.floor(statement.barTime / ms) * ms + ms;
  return {
    dedupKey: `rule|${statement.ruleId}|${statement.firingId}`,
    symbol: statement.symbol,
    assetClass: market?.assetClass ?? 'crypto',
    timeframe,
    signal: `rule:${statement.ruleId}`,
    direction: statement.direction,
    stated: statement.stated,
    intervalLow: statement.intervalLow,
    intervalHigh: statement.intervalHigh,
    rawFrequency: statement.rawFrequency,
    horizonBars: statement.horizonBars,
    barTime,
    dueAt: dueTime(market?.calendar ?? 'crypto-24x7', timeframe, barTime, statement.horizonBars),
    baseRate: statement.baseRate,
    sampleSize: statement.sampleSize,
    source: statement.source === 'demo' ? 'demo' : 'real',
    origin: 'rule',
    entryClose: statement.price,
    userId: statement.userId,
    ruleId: statement.ruleId,
    published: statement.published,
  };
}
