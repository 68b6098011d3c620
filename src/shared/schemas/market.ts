// Shapes of the market-data calls (SPEC.md section 3: exchange price response).
export type MarketSource = 'coinbase' | 'demo';

export interface PriceEntry {
  symbol: string;
  spot_price: number | null;
  buy_price: number | null;
  sell_price: number | null;
  spread_percent: number | null;
  last_updated: string | null;
  error?: string;
}

export interface PriceSnapshot {
  summary: {
    total_cryptos_requested: number;
    successful_fetches: number;
    failed_fetches: number;
    /** Sum of one unit of every asset priced, in USD. */
    total_market_value_tracked: number;
  };
  prices: Record<string, PriceEntry>;
  metadata: { timestamp: string; source: MarketSource; exchange: string };
}
