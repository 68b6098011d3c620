// Canonical ids and plain tickers: market data is keyed by the symbol table's canonical ids
// ('BTC-USD', 'AAPL', 'SPX', 'MES1!'), while alerts, the alerts panel and the assistant speak
// plain tickers ('BTC', 'AAPL', 'SPX', 'MES'). The conversions between them, through the one
// symbol table.
import { SYMBOL_TABLE, type AssetClass, type MarketSymbol } from './symbolTable.ts';

const BY_ID = new Map<string, MarketSymbol>(SYMBOL_TABLE.map((symbol) => [symbol.id, symbol]));
const BY_TICKER = new Map<string, MarketSymbol>();
for (const symbol of SYMBOL_TABLE) if (!BY_TICKER.has(symbol.ticker)) BY_TICKER.set(symbol.ticker, symbol);

/** The row of a canonical id ('BTC-USD', 'AAPL', 'MES1!'), or undefined. */
export function symbolById(id: string): MarketSymbol | undefined {
  return BY_ID.get(id);
}

/** The row of a plain ticker ('BTC', 'AAPL', 'MES'), or undefined. */
export function symbolByTicker(ticker: string): MarketSymbol | undefined {
  return BY_TICKER.get(ticker);
}

/** The plain ticker of a canonical id: 'BTC-USD' gives 'BTC', 'MES1!' gives 'MES'; an unknown id loses a '-USD' suffix only. */
export function tickerOf(productId: string): string {
  return BY_ID.get(productId)?.ticker ?? productId.replace(/-USD$/, '');
}

/** The asset class of a plain ticker as alerts store it; null for a ticker the table does not know. */
export function assetClassOfTicker(ticker: string): AssetClass | null {
  return BY_TICKER.get(ticker)?.assetClass ?? null;
}

/** The plain tickers of one asset class (the alert log's market filter). */
export function tickersOfClass(assetClass: AssetClass): string[] {
  return SYMBOL_TABLE.filter((symbol) => symbol.assetClass === assetClass).map((symbol) => symbol.ticker);
}
