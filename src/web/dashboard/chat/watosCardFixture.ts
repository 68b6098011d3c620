// Test data for the WATOS grid's component tests: an available card with the six signals of
// docs/SPEC.md, all inactive unless `active` names one (that one bullish, medium, with odds).
import { WATOS_SIGNALS } from '../../../shared/constants.ts';
import type { WatosCard } from '../../../shared/schemas/chat.ts';

export type AvailableWatosCard = Extract<WatosCard, { available: true }>;

export function watosCardOf(
  overrides: Partial<AvailableWatosCard>,
  active?: { index: number; odds: NonNullable<AvailableWatosCard['signals'][number]['odds']> },
): AvailableWatosCard {
  return {
    available: true,
    symbol: 'AAPL',
    productId: 'AAPL',
    assetClass: 'stock',
    source: 'yahoo',
    delayed: true,
    timeframe: '1h',
    horizonBars: 24,
    bars: 700,
    lastBarTime: '2026-11-24T20:00:00.000Z',
    lastClose: 231.5,
    baseRate: { probability: 0.52, raw: 0.53, samples: 676, effectiveSamples: 40, interval: [0.45, 0.59] },
    signals: WATOS_SIGNALS.map(({ id, name }, index) => {
      const on = active?.index === index;
      return {
        id,
        name,
        active: on,
        direction: on ? ('bullish' as const) : ('neutral' as const),
        strength: on ? ('medium' as const) : ('low' as const),
        description: `${name} reading`,
        odds: on ? active.odds : null,
      };
    }),
    ...overrides,
  };
}
