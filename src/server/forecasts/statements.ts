// Which forecasts a WATOS card states (issue 20), pure: every active signal with a measured
// probability is one forecast of a higher close `horizonBars` bars after the card's last bar.
// Inactive signals and "not enough history" state nothing, so they are not recorded.
import { WATOS_TIMEFRAMES, type WatosCard, type WatosTimeframe } from '../../shared/schemas/chat.ts';
import { symbolById } from '../../shared/tickers.ts';
import { dueTime, FORECAST_TIMEFRAMES, type ForecastSource } from './resolution.ts';

export type ForecastOrigin = 'grid' | 'answer' | 'alert';
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
