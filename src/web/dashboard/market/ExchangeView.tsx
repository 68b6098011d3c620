// The exchange market-data view (docs/SPEC.md chart area): market summary, live price cards with
// buy/sell/spread, 'Refresh Data', and 'API Connection Failed' with 'Retry Connection' on
// failure. Refetches when it becomes the active source and every 30 s while active; demo
// data is labelled as such.
import { useEffect, useRef, useState } from 'react';
import { formatPrice, formatSpread } from '../../../shared/format.ts';
import { CandleChart } from './CandleChart.tsx';
import { usePrices } from './marketApi.ts';

function time(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleTimeString() : 'N/A';
}

export function ExchangeView({
  active,
  chartSymbol,
  onChartSymbol,
}: {
  active: boolean;
  chartSymbol?: string | null;
  onChartSymbol?: (productId: string | null) => void;
}) {
  const [ownChart, setOwnChart] = useState<string | null>(null);
  const openChart = chartSymbol === undefined ? ownChart : chartSymbol;
  const setChart = onChartSymbol ?? setOwnChart;
  const prices = usePrices(active);
  const { refetch } = prices;

  // Becoming the visible source always fetches fresh figures, not only the first time.
  const wasActive = useRef(active);
  useEffect(() => {
    if (active && !wasActive.current) void refetch();
    wasActive.current = active;
  }, [active, refetch]);

  const snapshot = prices.data;
  const exchange = snapshot?.metadata.source === 'demo' ? 'Coinbase' : (snapshot?.metadata.exchange ?? 'Coinbase');
  const isDemo = snapshot?.metadata.source === 'demo';

  return (
    <section
      className="relative h-full overflow-y-auto rounded-lg bg-gray-900 p-4"
      aria-label="Exchange market data"
      data-testid="exchange-view"
    >
      {openChart && <CandleChart productId={openChart} onClose={() => setChart(null)} />}
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-xl font-bold text-white">
            {exchange} Market Data
            {isDemo && (
              <span
                className="ml-3 rounded bg-amber-500 px-2 py-0.5 align-middle text-xs font-bold text-gray-900"
                title="Coinbase is unreachable from this server; these prices are simulated."
              >
                Demo data
              </span>
            )}
          </h2>
          <p className="text-sm text-gray-400">Real-time cryptocurrency prices and trading spreads</p>
        </div>
        <button
          type="button"
          onClick={() => void refetch()}
          disabled={prices.isFetching}
          className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
        >
          {prices.isFetching ? 'Refreshing...' : 'Refresh Data'}
        </button>
      </header>

      {prices.isError && (
        <div role="alert" className="mt-4 rounded-lg border border-red-800 bg-red-950/60 p-4">
          <h3 className="font-semibold text-red-300">API Connection Failed</h3>
          <p className="mt-1 text-sm text-red-200">{prices.error.message}</p>
          <button
            type="button"
            onClick={() => void refetch()}
            className="mt-3 rounded bg-red-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-red-600"
          >
            Retry Connection
          </button>
        </div>
      )}

      {prices.isPending && !prices.isError && <p className="mt-6 text-gray-400">Loading...</p>}

      {snapshot && (
        <>
          <h3 className="mt-5 text-sm font-semibold uppercase tracking-wide text-gray-400">Market Summary</h3>
          <dl className="mt-2 grid grid-cols-2 gap-3 md:grid-cols-4">
            {[
              ['Total Cryptos', String(snapshot.summary.total_cryptos_requested)],
              ['Successful', String(snapshot.summary.successful_fetches)],
              ['Failed', String(snapshot.summary.failed_fetches)],
              ['Total Value', `$${formatPrice(snapshot.summary.total_market_value_tracked)}`],
            ].map(([label, value]) => (
              <div key={label} className="rounded-lg bg-gray-800 p-3">
                <dt className="text-xs text-gray-400">{label}</dt>
                <dd className="text-lg font-semibold text-white">{value}</dd>
              </div>
            ))}
          </dl>

          <div className="mt-5 flex items-baseline justify-between">
            <h3 className="text-sm font-semibold uppercase tracking-wide text-gray-400">Live Crypto Prices</h3>
            <p className="text-xs text-gray-400">Last Updated: {time(snapshot.metadata.timestamp)}</p>
          </div>
          <ul className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
            {Object.entries(snapshot.prices).map(([productId, entry]) => (
              <li key={productId}>
                <button
                  type="button"
                  data-testid="price-card"
                  onClick={() => setChart(productId)}
                  title={`Open the ${entry.symbol} chart`}
                  className="w-full rounded-lg border border-gray-800 bg-gray-800/60 p-3 text-left hover:border-indigo-600"
                >
                  <div className="flex items-baseline justify-between">
                    <span className="font-bold text-white">{entry.symbol}</span>
                    <span
                      className={entry.spot_price === null ? 'font-semibold text-red-400' : 'font-semibold text-white'}
                    >
                      {entry.spot_price === null ? 'Error' : `$${formatPrice(entry.spot_price)}`}
                    </span>
                  </div>
                  <dl className="mt-2 grid grid-cols-3 gap-1 text-xs">
                    <div>
                      <dt className="text-gray-400">Buy</dt>
                      <dd className="text-green-400">
                        {entry.buy_price === null ? '—' : `$${formatPrice(entry.buy_price)}`}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-gray-400">Sell</dt>
                      <dd className="text-red-400">
                        {entry.sell_price === null ? '—' : `$${formatPrice(entry.sell_price)}`}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-gray-400">Spread</dt>
                      <dd className="text-gray-200">
                        {entry.spread_percent === null ? '—' : formatSpread(entry.spread_percent)}
                      </dd>
                    </div>
                  </dl>
                  <p className="mt-2 text-[11px] text-gray-400">Updated: {time(entry.last_updated)}</p>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
