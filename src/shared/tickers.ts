// Product ids and plain tickers: the market data is keyed by Coinbase-style product ids
// ('BTC-USD'), while alerts, the alerts panel and the assistant speak plain tickers ('BTC').
// The one conversion between them (issue 15 grows this into the full symbol model).

/** The plain ticker of a product id: 'BTC-USD' gives 'BTC'; anything else is returned as is. */
export function tickerOf(productId: string): string {
  return productId.replace(/-USD$/, '');
}
