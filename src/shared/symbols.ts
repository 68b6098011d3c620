// One symbol model for every market (issue 15): what a trader types, in any of the forms
// below, maps to one row of the symbol table (./symbolTable.ts, where the canonical id form
// is described), and each row gives back its chart-watchlist form. resolveSymbol is the only
// mapping; everything else (the alerts panel, the chart watchlist, the assistant, the data
// providers) goes through it.
//
// Accepted forms, case-insensitive, surrounding spaces ignored:
//   canonical id           BTC-USD, AAPL, BRK.B, SPX, MES1!
//   plain ticker           BTC, ETH, AAPL, TSLA, SPX, MES, ES (a futures root is its front month)
//   provider symbol        BTC-USD, MES=F, ES=F, ^GSPC, BRK-B
//   crypto pair            BTCUSD, BTCUSDT, BTC/USDT, BTC-USDC (any USD, USDT or USDC quote)
//   EXCHANGE:SYMBOL        NASDAQ:AAPL, AMEX:SPY, SP:SPX, CME_MINI:MES1!, NYMEX:MCL1!,
//                          COINBASE:BTCUSD, BINANCE:BTCUSDT, BITSTAMP:ETHUSD
//   name or alias          Bitcoin, Apple, S&P 500, Micro Gold, ether, google
//
// Exchange prefixes are checked by family, not exactly: any US equity prefix (NASDAQ, NYSE,
// AMEX, ARCA, NYSEARCA, BATS) finds any stock or ETF, because listings move (Walmart went from
// the NYSE to Nasdaq) and chart sites disagree, so NYSE:AAPL is Apple; any CME Group prefix
// finds any future; any crypto exchange finds a crypto (priced from Coinbase). A prefix of
// another family is refused (BINANCE:AAPL, NASDAQ:ES1!, CME_MINI:BTC), as is an exchange we do
// not know (LSE:VOD): the trader meant a market we do not have.
import { NAME_ALIASES, SYMBOL_TABLE, type AssetClass, type MarketSymbol } from './symbolTable.ts';

export {
  ASSET_CLASSES,
  EXCHANGES,
  SESSION_CALENDAR_IDS,
  SYMBOL_TABLE,
  type AssetClass,
  type MarketSymbol,
} from './symbolTable.ts';

const EQUITY: readonly AssetClass[] = ['stock', 'etf'];
const FUTURES: readonly AssetClass[] = ['future', 'micro-future'];

/** The asset classes each known exchange prefix may name. */
const PREFIX_CLASSES: ReadonlyMap<string, readonly AssetClass[]> = new Map<string, readonly AssetClass[]>([
  ['NASDAQ', [...EQUITY, 'index']],
  ['NYSE', EQUITY],
  ['AMEX', EQUITY],
  ['ARCA', EQUITY],
  ['NYSEARCA', EQUITY],
  ['BATS', EQUITY],
  ['CBOE', [...EQUITY, 'index']],
  ['SP', ['index']],
  ['DJ', ['index']],
  ['TVC', ['index']],
  ['RUSSELL', ['index']],
  ['INDEX', ['index']],
  ['CME', FUTURES],
  ['CME_MINI', FUTURES],
  ['CBOT', FUTURES],
  ['CBOT_MINI', FUTURES],
  ['COMEX', FUTURES],
  ['COMEX_MINI', FUTURES],
  ['NYMEX', FUTURES],
  ['NYMEX_MINI', FUTURES],
  ...['COINBASE', 'BINANCE', 'BINANCEUS', 'BITSTAMP', 'KRAKEN', 'BYBIT', 'OKX', 'GEMINI', 'BITFINEX', 'KUCOIN'].map(
    (prefix): [string, readonly AssetClass[]] => [prefix, ['crypto']],
  ),
]);

/** Upper-case keys (canonical id, ticker, provider symbol) to their row. */
const BY_KEY = new Map<string, MarketSymbol>();
/** Lower-case names and aliases to their row. */
const BY_NAME = new Map<string, MarketSymbol>();
const BY_ID = new Map<string, MarketSymbol>();
for (const symbol of SYMBOL_TABLE) {
  BY_ID.set(symbol.id, symbol);
  for (const key of [symbol.id, symbol.ticker, symbol.providerSymbol]) {
    if (!BY_KEY.has(key.toUpperCase())) BY_KEY.set(key.toUpperCase(), symbol);
  }
  BY_NAME.set(symbol.name.toLowerCase(), symbol);
}
for (const [alias, id] of Object.entries(NAME_ALIASES)) {
  const symbol = BY_ID.get(id);
  if (symbol && !BY_NAME.has(alias)) BY_NAME.set(alias, symbol);
}

/** The keys a row is found by (for the table-integrity tests). */
export function lookupKeys(symbol: MarketSymbol): string[] {
  return [...new Set([symbol.id, symbol.ticker, symbol.providerSymbol].map((key) => key.toUpperCase()))];
}

const MAX_INPUT = 64;
const CRYPTO_QUOTE = /[-/ ]?(?:USDT|USDC|USD)$/;

function findPlain(text: string, classes: readonly AssetClass[] | null): MarketSymbol | null {
  const allowed = (symbol: MarketSymbol | undefined) =>
    symbol !== undefined && (classes === null || classes.includes(symbol.assetClass)) ? symbol : null;
  const direct = allowed(BY_KEY.get(text));
  if (direct) return direct;
  // A crypto pair against a dollar quote: BTCUSD, BTCUSDT, BTC/USDC, ETH-USDT.
  const base = text.replace(CRYPTO_QUOTE, '');
  if (base === text || base === '') return null;
  const pair = BY_KEY.get(base);
  return pair?.assetClass === 'crypto' ? allowed(pair) : null;
}

/** The market a typed symbol names, or null when we have no data for it. */
export function resolveSymbol(input: string): MarketSymbol | null {
  const text = input.trim();
  if (text === '' || text.length > MAX_INPUT) return null;
  const named = BY_NAME.get(text.toLowerCase().replace(/\s+/g, ' '));
  if (named) return named;
  const upper = text.toUpperCase();
  const colon = upper.indexOf(':');
  if (colon === -1) return findPlain(upper, null);
  const classes = PREFIX_CLASSES.get(upper.slice(0, colon).trim());
  if (!classes) return null;
  return findPlain(upper.slice(colon + 1).trim(), classes);
}

/** The chart watchlist's EXCHANGE:SYMBOL form: NASDAQ:AAPL, AMEX:SPY, CME_MINI:MES1!, COINBASE:BTCUSD. */
export function toTradingView(symbol: MarketSymbol): string {
  const name = symbol.assetClass === 'crypto' ? `${symbol.ticker}USD` : symbol.id;
  return `${symbol.tradingViewExchange}:${name}`;
}

/** USD value of one tick: futures tickSize * pointValue, otherwise the tick size itself. */
export function tickValue(symbol: MarketSymbol): number {
  return symbol.tickSize * (symbol.pointValue ?? 1);
}

const EXAMPLES =
  'a ticker (AAPL, SPY, MES, BTC), a chart symbol (NASDAQ:AAPL, CME_MINI:MES1!) or a name (Apple, Micro Gold)';

/** What to tell a trader who typed a symbol we have no data for. */
export function unknownSymbolMessage(input: string): string {
  const text = input.trim().replace(/\s+/g, ' ');
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  if (shown === '') return `No symbol given: type ${EXAMPLES}.`;
  const colon = text.indexOf(':');
  if (colon !== -1) {
    const prefix = text.slice(0, colon).trim().toUpperCase();
    const plain = findPlain(
      text
        .slice(colon + 1)
        .trim()
        .toUpperCase(),
      null,
    );
    if (plain) {
      const why = PREFIX_CLASSES.has(prefix)
        ? `${plain.ticker} (${plain.name}) is not traded on ${prefix}`
        : `we do not know the exchange ${prefix}`;
      return `No market data for ${shown}: ${why}; ${plain.name} is ${toTradingView(plain)}.`;
    }
  }
  const contract = /^([A-Z0-9]+?)(?:\d+!|[FGHJKMNQUVXZ]\d{1,4})$/.exec(
    (colon === -1 ? text : text.slice(colon + 1)).trim().toUpperCase(),
  );
  const root = contract ? BY_KEY.get(contract[1]!) : undefined;
  if (root && FUTURES.includes(root.assetClass))
    return `No market data for ${shown}: we carry the continuous front-month contract only; use ${toTradingView(root)} (${root.name}).`;
  const suggestions = searchSymbols(colon === -1 ? text : text.slice(colon + 1), 3);
  const didYouMean =
    suggestions.length > 0
      ? ` Did you mean ${suggestions.map((symbol) => `${symbol.ticker} (${symbol.name})`).join(', ')}?`
      : '';
  return `No market data for ${shown}: it is not a market we cover.${didYouMean} Try ${EXAMPLES}.`;
}

const normalise = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9&^=!.]+/g, ' ')
    .trim();

interface Ranked {
  symbol: MarketSymbol;
  tier: number;
  at: number;
  order: number;
}

/**
 * Type-ahead over the table, at most `limit` rows, best first: the symbol the text resolves to
 * exactly, then tickers starting with it (shorter first), then names with a word equal to it,
 * then names with a word starting with it, then any substring of ticker, id, provider symbol
 * or name. Within a tier an earlier match in the name comes first, then table order: the same
 * query always gives the same list.
 */
export function searchSymbols(query: string, limit: number): MarketSymbol[] {
  const max = Math.max(0, Math.floor(limit));
  const text = query.trim();
  if (max === 0 || text === '' || text.length > MAX_INPUT) return [];
  const exact = resolveSymbol(text);
  const colon = text.indexOf(':');
  const bare = colon === -1 ? text : text.slice(colon + 1).trim();
  const upper = bare.toUpperCase();
  const words = normalise(bare);
  const ranked: Ranked[] = [];
  SYMBOL_TABLE.forEach((symbol, order) => {
    const name = ` ${normalise(symbol.name)} `;
    let tier = -1;
    let at = 0;
    if (symbol === exact) tier = 0;
    else if (upper !== '' && (symbol.ticker.startsWith(upper) || symbol.id.startsWith(upper))) {
      tier = 1;
      at = symbol.ticker.length;
    } else if (words !== '' && name.includes(` ${words} `)) {
      tier = 2;
      at = name.indexOf(` ${words} `);
    } else if (words !== '' && name.includes(` ${words}`)) {
      tier = 3;
      at = name.indexOf(` ${words}`);
    } else if (
      upper !== '' &&
      [symbol.ticker, symbol.id, symbol.providerSymbol].some((key) => key.toUpperCase().includes(upper))
    ) {
      tier = 4;
    } else if (words !== '' && name.includes(words)) {
      tier = 5;
      at = name.indexOf(words);
    }
    if (tier >= 0) ranked.push({ symbol, tier, at, order });
  });
  ranked.sort((a, b) => a.tier - b.tier || a.at - b.at || a.order - b.order);
  return ranked.slice(0, max).map((entry) => entry.symbol);
}
