// The preset scans the scanner offers (GET /api/scans/presets): named, explained, and checked
// to find symbols on the demo feed (presets.test.ts runs each on demo bars at a fixed clock).
import type { ScanPreset } from '../../shared/schemas/scans.ts';

export const SCAN_PRESETS: readonly ScanPreset[] = [
  {
    id: 'oversold-large-caps',
    name: 'Oversold large caps',
    description: 'Stocks whose hourly RSI(14) is below 35: sold hard, candidates for a bounce.',
    timeframe: '1h',
    conditions: [
      { kind: 'rsi', side: 'below', level: 35, period: 14 },
      { kind: 'asset_class', classes: ['stock'] },
    ],
  },
  {
    id: 'breakouts-on-volume',
    name: 'Breakouts on volume',
    description:
      'Hourly volume at least 1.5 standard deviations above its 20-bar mean while the close rose 0.5% or more.',
    timeframe: '1h',
    conditions: [
      { kind: 'volume_z', threshold: 1.5, period: 20 },
      { kind: 'change', side: 'above', percent: 0.5, bars: 1 },
    ],
  },
  {
    id: 'futures-above-ema50',
    name: 'Futures trending above EMA 50',
    description: 'Futures and micro futures whose hourly close is above its EMA 50.',
    timeframe: '1h',
    conditions: [
      { kind: 'price_vs_ema', side: 'above', period: 50 },
      { kind: 'asset_class', classes: ['future', 'micro-future'] },
    ],
  },
  {
    id: 'crypto-momentum',
    name: 'Crypto momentum',
    description: 'Crypto up 2% or more over the last 24 hours and above its hourly EMA 20.',
    timeframe: '1h',
    conditions: [
      { kind: 'change', side: 'above', percent: 2, bars: 24 },
      { kind: 'price_vs_ema', side: 'above', period: 20 },
      { kind: 'asset_class', classes: ['crypto'] },
    ],
  },
  {
    id: 'fresh-golden-cross',
    name: 'Fresh EMA 20/50 cross up',
    description: 'EMA 20 crossed above EMA 50 on the 4h chart within the last 10 bars.',
    timeframe: '4h',
    conditions: [{ kind: 'ema_cross', side: 'above', fast: 20, slow: 50, withinBars: 10 }],
  },
  {
    id: 'below-lower-band',
    name: 'Closed below the lower Bollinger band',
    description: 'Hourly close below the lower Bollinger band (20, 2): stretched to the downside.',
    timeframe: '1h',
    conditions: [{ kind: 'bollinger', side: 'below', period: 20, deviations: 2 }],
  },
];
