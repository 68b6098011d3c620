// Which market a trader means, in free text: the symbols a question names (any form the symbol
// table resolves: AAPL, $TSLA, NASDAQ:AAPL, CME_MINI:MES1!, BTCUSDT, Bitcoin, Apple, Micro Gold)
// and the timeframe. The mapping itself is the shared one (src/shared/symbols.ts); this module
// only decides which words of a sentence are meant as symbols. A ticker-like word we have no data
// for (LSE:VOD, XYZW) is reported as such, never mapped to something else.
import { TIMEFRAMES, type Timeframe } from '../../shared/constants.ts';
import { resolveSymbol, SYMBOL_TABLE, type MarketSymbol } from '../../shared/symbols.ts';
import { NAME_ALIASES } from '../../shared/symbolTable.ts';

/** Crypto tickers that are also everyday words: recognised only when written in capitals. */
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

/** Names that are everyday words in a trading question: never read as a company by themselves. */
const AMBIGUOUS_NAMES = new Set(['strategy']);

interface NamePattern {
  pattern: RegExp;
  symbol: MarketSymbol;
  /** Single-word company names (and coin names that are words) count only capitalised: Apple, not apple. */
  capitalised: boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every display name and alias, longest first so "Micro E-mini S&P 500" wins over "S&P 500". */
const NAME_PATTERNS: NamePattern[] = (() => {
  const entries = new Map<string, MarketSymbol>();
  for (const symbol of SYMBOL_TABLE) entries.set(symbol.name.toLowerCase(), symbol);
  for (const [alias, id] of Object.entries(NAME_ALIASES)) {
    const symbol = resolveSymbol(id);
    if (symbol) entries.set(alias, symbol);
  }
  return [...entries]
    .filter(([name]) => !AMBIGUOUS_NAMES.has(name))
    .sort((a, b) => b[0].length - a[0].length)
    .map(([name, symbol]) => ({
      pattern: new RegExp(`(?<![\\w&])${escape(name)}(?![\\w&])`, 'gi'),
      symbol,
      capitalised: !/[\s&-]/.test(name) && (symbol.assetClass !== 'crypto' || WORDLIKE.has(name.toUpperCase())),
    }));
})();

/** The market a typed symbol names, or null when we have no data for it. */
export function resolveProduct(input: string): MarketSymbol | null {
  return resolveSymbol(input);
}

/** The plain ticker of a typed symbol: 'BINANCE:BTCUSDT' gives 'BTC', 'CME_MINI:MES1!' 'MES', 'aapl' 'AAPL'. */
export function plainTicker(input: string): string {
  const symbol = resolveSymbol(input);
  if (symbol) return symbol.ticker;
  return input
    .trim()
    .toUpperCase()
    .replace(/^[A-Z0-9_.!]+:/, '');
}

export interface MentionedSymbols {
  /** Canonical ids of the markets we have data for (BTC-USD, AAPL, MES1!), in order of first mention. */
  products: string[];
  /** Ticker-like words we have no data for (e.g. XYZW, LSE:VOD), in order of first mention. */
  unknown: string[];
}

/**
 * A symbol-like token: an optional cashtag or exchange prefix, a ticker (BRK.B, ^GSPC), an optional
 * continuous-contract or Yahoo futures suffix (MES1!, MES=F) and an optional dollar quote (BTCUSDT).
 */
const TOKEN =
  /(?<![\w^.!=:$])(\$)?(?:([A-Za-z][A-Za-z_]{1,11}):)?(\^?[A-Za-z]{1,6}(?:\.[A-Za-z])?)((?:[1-9]!|=F)?(?:[-/]?(?:USDT|USDC|USD))?)(?![\w!])/g;

/**
 * The symbols a question names. Tickers count in capitals, with a cashtag ($AAPL), an exchange
 * prefix (NYSE:NOW) or a suffix (MES1!, btcusdt); lower-case crypto tickers count unless they
 * are everyday words; company names count capitalised (Apple), other names in any case
 * (bitcoin, micro gold). Capitalised jargon (RSI, ETF, NOW) is not a ticker without a prefix.
 */
export function mentionedSymbols(text: string): MentionedSymbols {
  const found: Array<{ at: number; symbol: MarketSymbol | null; word: string }> = [];
  const covered: Array<[number, number]> = [];
  const isCovered = (at: number, end: number) => covered.some(([from, to]) => at < to && end > from);
  for (const { pattern, symbol, capitalised } of NAME_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (isCovered(match.index, end)) continue;
      if (capitalised && !/^[A-Z0-9]/.test(match[0])) continue;
      covered.push([match.index, end]);
      found.push({ at: match.index, symbol, word: symbol.ticker });
    }
  }
  for (const match of text.matchAll(TOKEN)) {
    const [whole, cashtag, prefix, word, suffix] = match;
    if (isCovered(match.index, match.index + whole.length)) continue;
    const typed = cashtag ? whole.slice(1) : whole;
    const upper = word!.toUpperCase();
    const isCapitals = word === upper && (prefix === undefined || prefix === prefix.toUpperCase());
    const marked = Boolean(cashtag || prefix || suffix);
    const symbol = resolveSymbol(typed);
    if (symbol) {
      const counts =
        marked ||
        (symbol.assetClass === 'crypto'
          ? isCapitals || !WORDLIKE.has(upper)
          : isCapitals && upper.length >= 2 && !NOT_TICKERS.has(upper));
      if (counts) found.push({ at: match.index, symbol, word: symbol.ticker });
      continue;
    }
    if (!isCapitals) continue;
    if (cashtag || prefix) found.push({ at: match.index, symbol: null, word: typed.toUpperCase() });
    else if (upper.length >= 2 && upper.length <= 5 && !suffix && !NOT_TICKERS.has(upper))
      found.push({ at: match.index, symbol: null, word: upper });
  }
  found.sort((a, b) => a.at - b.at);
  const products: string[] = [];
  const unknown: string[] = [];
  for (const entry of found) {
    if (entry.symbol) {
      if (!products.includes(entry.symbol.id)) products.push(entry.symbol.id);
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
