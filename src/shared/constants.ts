// Business constants of docs/SPEC.md section 9, defined once and imported by server and web.

export const MIN_PASSWORD_LENGTH = 6;
export const PAYMENT_REDIRECT_DELAY_MS = 3000;
export const PASSWORD_UPDATE_REDIRECT_DELAY_MS = 2000;
export const USER_REFRESH_INTERVAL_MS = 300_000;
export const EXCHANGE_REFRESH_INTERVAL_MS = 30_000;
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

export type PlanId = 'live-test' | 'three-day' | 'monthly';

export interface Plan {
  id: PlanId;
  name: string;
  /** Integer cents. */
  unitAmount: number;
  interval: 'one_time' | 'month';
  /** Length of access bought by a one-time plan, in days (null for recurring). */
  accessDays: number | null;
  description: string;
  features: string[];
  popular: boolean;
}

export const PLANS: readonly Plan[] = [
  {
    id: 'live-test',
    name: 'Live Test',
    unitAmount: 50,
    interval: 'one_time',
    accessDays: 1,
    description: '1 day access, live payment test',
    features: ['1 day access', 'Live payment test'],
    popular: false,
  },
  {
    id: 'three-day',
    name: '3-Day Access',
    unitAmount: 299,
    interval: 'one_time',
    accessDays: 3,
    description: 'One-time payment, no recurring charges',
    features: ['3 days of full access', 'One-time payment', 'No recurring charges'],
    popular: false,
  },
  {
    id: 'monthly',
    name: 'Monthly Subscription',
    unitAmount: 2999,
    interval: 'month',
    accessDays: null,
    description: 'Full platform access, billed monthly',
    features: ['Full platform access', 'Priority support', 'Advanced analytics'],
    popular: true,
  },
];

export const DEFAULT_CHART_WATCHLIST: readonly string[] = [
  'NASDAQ:AAPL',
  'NASDAQ:TSLA',
  'NASDAQ:MSFT',
  'NASDAQ:GOOG',
  'BINANCE:BTCUSDT',
  'BINANCE:ETHUSDT',
];

export const DEFAULT_ALERTS_WATCHLIST: readonly string[] = ['AAPL', 'TSLA', 'BTC', 'ETH'];

export type WatosStrength = 'low' | 'medium' | 'high';

export interface WatosSignalDefinition {
  id: 'watos1' | 'watos2' | 'watos3' | 'watos4' | 'watos5' | 'watos6';
  name: string;
  /** The seed product's fixed strength; the signals engine computes the live one. */
  defaultStrength: WatosStrength;
  description: string;
}

export const WATOS_SIGNALS: readonly WatosSignalDefinition[] = [
  { id: 'watos1', name: 'Volume Surge', defaultStrength: 'high', description: 'Volume well above its recent average' },
  { id: 'watos2', name: 'Price Momentum', defaultStrength: 'medium', description: 'Rate of change of the close' },
  { id: 'watos3', name: 'MA Crossover', defaultStrength: 'high', description: '50/200 moving-average cross' },
  { id: 'watos4', name: 'RSI Divergence', defaultStrength: 'low', description: 'Price and RSI moving apart' },
  { id: 'watos5', name: 'Support Test', defaultStrength: 'medium', description: 'Price testing a support level' },
  {
    id: 'watos6',
    name: 'Volatility Expansion',
    defaultStrength: 'high',
    description: 'Range widening against its average',
  },
];

export const TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '8h', '12h', 'D', '3D', 'W', 'M', '12M'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

export const CRYPTO_SYMBOLS = [
  'AAVE-USD',
  'ADA-USD',
  'APT-USD',
  'AVAX-USD',
  'BCH-USD',
  'BTC-USD',
  'CRO-USD',
  'DAI-USD',
  'DOGE-USD',
  'DOT-USD',
  'ETC-USD',
  'ETH-USD',
  'HBAR-USD',
  'ICP-USD',
  'LINK-USD',
  'LTC-USD',
  'NEAR-USD',
  'ONDO-USD',
  'PEPE-USD',
  'SHIB-USD',
  'SOL-USD',
  'SUI-USD',
  'TAO-USD',
  'TRUMP-USD',
  'UNI-USD',
  'USDT-USD',
  'XLM-USD',
  'XRP-USD',
] as const;
export type CryptoSymbol = (typeof CRYPTO_SYMBOLS)[number];

export const ALERT_TYPES = [
  'VolatilitySpikeAlertGenerator',
  'MomentumShiftAlertGenerator',
  'BreakoutAlertGenerator',
  'TrendChangeAlertGenerator',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export const ALERT_LOG_DEFAULT_MAX = 10;
export const ALERT_LOG_MAX_CAP = 100;
export const ALERT_LOG_DEFAULT_WINDOW_MS = 3_600_000;

export const TOUR = {
  zIndex: 10000,
  scrollOffset: 100,
  primaryColor: '#4f46e5', // indigo-600: white on it reads at 6.3:1 (indigo-500 was 4.47:1, below AA)
  tooltipBackground: '#1f2937',
  scrollPauseMs: 50,
  resizeDebounceMs: 100,
  spotlightFadeSeconds: 0.2,
} as const;
