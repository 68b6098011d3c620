// Which market a trader means: maps what people type (BTC, btc, BTC-USD, BTCUSDT,
// BINANCE:BTCUSDT, Bitcoin) to one of the 28 Coinbase products we have data for, and finds
// the symbols and the timeframe named in a free-text question. A symbol we have no data for
// (AAPL, TSLA) is reported as such, never mapped to something else.
import { CRYPTO_SYMBOLS, TIMEFRAMES, type CryptoSymbol, type Timeframe } from '../../shared/constants.ts';
import { tickerOf } from '../../shared/tickers.ts';

const TICKERS = new Map<string, CryptoSymbol>(CRYPTO_SYMBOLS.map((productId) => [tickerOf(productId), productId]));

const NAMES: Record<string, string> = {
  bitcoin: 'BTC',
  'bitcoin cash': 'BCH',
  ethereum: 'ETH',
  ether: 'ETH',
  'ethereum classic': 'ETC',
  solana: 'SOL',
  ripple: 'XRP',
  dogecoin: 'DOGE',
  cardano: 'ADA',
  polkadot: 'DOT',
  chainlink: 'LINK',
  litecoin: 'LTC',
  avalanche: 'AVAX',
  uniswap: 'UNI',
  stellar: 'XLM',
  'shiba inu': 'SHIB',
  shiba: 'SHIB',
  tether: 'USDT',
  hedera: 'HBAR',
  'internet computer': 'ICP',
  aptos: 'APT',
  bittensor: 'TAO',
  cronos: 'CRO',
  'near protocol': 'NEAR',
};

/** Tickers that are also everyday words: recognised only when written in capitals. */
const WORDLIKE = new Set([
  'NEAR',
  'DOT',
  'LINK',
  'UNI',
  'SUI',
  'APT',
  'TRUMP',
  'CRO',
  'DAI',
  'ETC',
  'TAO',
  'SOL',
  'ONDO',
  'PEPE',
]);

/**
 * Capitalised words that are not tickers: indicators, units, file types and trading jargon,
 * so "RSI" or "CSV" in a question is never reported as a symbol without data.
 */
const NOT_TICKERS = new Set([
  'AI',
  'WATOS',
  'RSI',
  'ATR',
  'SMA',
  'EMA',
  'MA',
  'MACD',
  'VWAP',
  'BB',
  'USD',
  'USDC',
  'EUR',
  'OK',
  'CSV',
  'XLS',
  'XLSX',
  'IV',
  'OI',
  'PUT',
  'CALL',
  'PUTS',
  'CALLS',
  'US',
  'UTC',
  'GMT',
  'EST',
  'ET',
  'PST',
  'ETF',
  'ATH',
  'ATL',
  'PNL',
  'TA',
  'FAQ',
  'API',
  'AM',
  'PM',
  'EOD',
  'YTD',
  'MTD',
  'DCA',
  'FOMO',
  'FUD',
  'HODL',
  'NFT',
  'DEFI',
  'CEO',
  'GDP',
  'CPI',
  'FED',
  'FOMC',
  'IPO',
  'ID',
  'TP',
  'SL',
  'RR',
  'OHLC',
  'PE',
  'EPS',
  'LLM',
  'PDF',
  'URL',
  'FX',
  'CFD',
  'DTE',
  'ATM',
  'OTM',
  'ITM',
  'ROC',
  'STD',
  'AVG',
  'MAX',
  'MIN',
  'VOL',
  'NA',
  'TBD',
  'ASAP',
  'FYI',
  'IMO',
  'THE',
  'AND',
  'FOR',
  'WHAT',
  'HOW',
  'IS',
  'ARE',
  'ODDS',
  'ME',
  'MY',
  'IT',
  'OF',
  'ON',
  'IN',
  'TO',
  'AT',
  'BY',
  'OR',
  'BE',
  'DO',
  'IF',
  'SO',
  'NO',
  'UP',
  'AN',
  'VS',
  'HIGH',
  'LOW',
  'BUY',
  'SELL',
  'LONG',
  'SHORT',
  'GIVE',
  'SHOW',
  'TELL',
  'NOW',
  'TODAY',
]);

/** The product for a typed symbol, or null when we have no market data for it. */
export function resolveProduct(input: string): CryptoSymbol | null {
  let text = input.trim();
  // Own keys only: '__proto__' or 'constructor' must not find Object.prototype's members.
  const lower = text.toLowerCase();
  const named = Object.hasOwn(NAMES, lower) ? NAMES[lower] : undefined;
  if (named) text = named;
  text = text.toUpperCase().replace(/^[A-Z0-9_.!]+:/, '');
  const base = text.replace(/[-/ ]?(USDT|USDC|USD)$/, '') || text;
  return TICKERS.get(base) ?? null;
}

/** The plain ticker of a typed symbol: 'BINANCE:BTCUSDT' gives 'BTC', 'aapl' gives 'AAPL'. */
export function plainTicker(input: string): string {
  const product = resolveProduct(input);
  if (product) return tickerOf(product);
  return input
    .trim()
    .toUpperCase()
    .replace(/^[A-Z0-9_.!]+:/, '');
}

export interface MentionedSymbols {
  /** Products we have data for, in order of first mention. */
  products: CryptoSymbol[];
  /** Ticker-like words we have no data for (e.g. AAPL), in order of first mention. */
  unknown: string[];
}

/** The symbols a question names. Lower-case tickers count unless they are everyday words. */
export function mentionedSymbols(text: string): MentionedSymbols {
  const found: Array<{ at: number; product: CryptoSymbol | null; word: string }> = [];
  const lower = text.toLowerCase();
  for (const [name, ticker] of Object.entries(NAMES)) {
    const at = new RegExp(`\\b${name}\\b`).exec(lower)?.index;
    if (at !== undefined) found.push({ at, product: TICKERS.get(ticker)!, word: ticker });
  }
  const token = /(?:\b[A-Za-z]{2,12}:)?\b([A-Za-z]{2,6})(?:[-/]?(?:USDT|USDC|USD))?\b/g;
  for (const match of text.matchAll(token)) {
    const word = match[1];
    const upper = word.toUpperCase();
    const isCapitals = word === upper;
    const product = resolveProduct(match[0]);
    if (product) {
      if (isCapitals || !WORDLIKE.has(upper)) found.push({ at: match.index, product, word: upper });
      continue;
    }
    if (isCapitals && upper.length >= 2 && upper.length <= 5 && !NOT_TICKERS.has(upper))
      found.push({ at: match.index, product: null, word: upper });
  }
  found.sort((a, b) => a.at - b.at);
  const products: CryptoSymbol[] = [];
  const unknown: string[] = [];
  for (const entry of found) {
    if (entry.product) {
      if (!products.includes(entry.product)) products.push(entry.product);
    } else if (!unknown.includes(entry.word)) {
      unknown.push(entry.word);
    }
  }
  return { products, unknown };
}

const TIMEFRAME_WORDS: Array<[RegExp, Timeframe]> = [
  [/\b(one|1)[- ]minute\b/i, '1m'],
  [/\b(five|5)[- ]minute\b/i, '5m'],
  [/\b(fifteen|15)[- ]minute\b/i, '15m'],
  [/\bhourly\b|\b(one|1)[- ]hour\b/i, '1h'],
  [/\b(four|4)[- ]hour\b/i, '4h'],
  [/\b(eight|8)[- ]hour\b/i, '8h'],
  [/\b(twelve|12)[- ]hour\b/i, '12h'],
  [/\bdaily\b/i, 'D'],
  [/\bweekly\b/i, 'W'],
  [/\bmonthly\b/i, 'M'],
];

/**
 * The timeframe a question names, case-sensitive like docs/SPEC.md's list ('1m' is a minute, 'M'
 * a month): '1h', '4h', '15m'... anywhere, and the one-letter ones only where they clearly
 * name a chart ('on the D chart', '(W)', 'W timeframe').
 */
export function mentionedTimeframe(text: string): Timeframe | null {
  const multi = TIMEFRAMES.filter((timeframe) => timeframe.length > 1).sort((a, b) => b.length - a.length);
  for (const timeframe of multi) {
    if (new RegExp(`(?<![A-Za-z0-9])${timeframe}(?![A-Za-z0-9])`).test(text)) return timeframe;
  }
  const single = /(?:\bthe\s+|\()(D|W|M)(?:\s+(?:chart|timeframe|bars?|candles?)\b|\))/.exec(text);
  if (single) return single[1] as Timeframe;
  for (const [pattern, timeframe] of TIMEFRAME_WORDS) if (pattern.test(text)) return timeframe;
  return null;
}
