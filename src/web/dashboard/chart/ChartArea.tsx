// The chart area: a switcher of five sources, the professional charting widget by default.
// A panel is mounted when its source is first chosen and then stays mounted, only the active one
// visible, so switching away and back keeps each panel's state (a typed Barchart key, a scrolled
// price list) and the first paint renders only the panel on screen. Above the active
// panel: the chart watchlist for TradingView, the own candle chart's symbol picker for the
// exchange data. The spreadsheet and demo trading addresses are asked for when one of those two
// panels is first opened: the chart's first paint does not wait on them.
import { useState, type ReactNode } from 'react';
import { BarchartPanel } from './BarchartPanel.tsx';
import { EmbedPanel, useEmbeds } from './EmbedPanel.tsx';
import { TradingViewChart } from './TradingViewChart.tsx';

export type ChartSource = 'tradingview' | 'barchart' | 'exchange' | 'spreadsheet' | 'demo-trading';

const CHART_SOURCES: Array<{ id: ChartSource; label: string }> = [
  { id: 'tradingview', label: 'TradingView' },
  { id: 'barchart', label: 'Barchart' },
  { id: 'exchange', label: 'Exchange Data' },
  { id: 'spreadsheet', label: 'Spreadsheet' },
  { id: 'demo-trading', label: 'Demo Trading' },
];

export function ChartArea({
  symbols,
  watchlistControls,
  exchangeControls,
  exchangeView,
  source: controlledSource,
  onSourceChange,
}: {
  symbols: readonly string[];
  watchlistControls: ReactNode;
  /** Shown above the exchange view while it is the active source (the candle chart's symbol picker). */
  exchangeControls?: ReactNode;
  exchangeView: (active: boolean) => ReactNode;
  source?: ChartSource;
  onSourceChange?: (source: ChartSource) => void;
}) {
  const [ownSource, setOwnSource] = useState<ChartSource>('tradingview');
  const source = controlledSource ?? ownSource;
  const setSource = onSourceChange ?? setOwnSource;
  const [embedsOpened, setEmbedsOpened] = useState(false);
  if (!embedsOpened && (source === 'spreadsheet' || source === 'demo-trading')) setEmbedsOpened(true);
  const embeds = useEmbeds(embedsOpened);
  // The sources chosen so far: their panels are mounted (adjusted while rendering, not in an effect).
  const [opened, setOpened] = useState<ReadonlySet<ChartSource>>(() => new Set([source]));
  if (!opened.has(source)) setOpened(new Set([...opened, source]));

  const panel = (id: ChartSource, content: () => ReactNode) => (
    <div key={id} hidden={source !== id} className="min-h-0 flex-1" data-testid={`chart-panel-${id}`}>
      {opened.has(id) || source === id ? content() : null}
    </div>
  );

  return (
    <section
      className="flex h-full flex-col gap-3 rounded-lg bg-gray-900 p-3"
      aria-label="Chart area"
      data-tour="chart-area"
    >
      <div role="tablist" aria-label="Chart source" className="flex flex-wrap gap-1" data-tour="chart-switcher">
        {CHART_SOURCES.map((entry) => (
          <button
            key={entry.id}
            type="button"
            role="tab"
            aria-selected={source === entry.id}
            onClick={() => setSource(entry.id)}
            className={`rounded px-3 py-1.5 text-sm font-medium ${source === entry.id ? 'bg-indigo-600 text-white' : 'bg-gray-800 text-gray-300 hover:text-white'}`}
          >
            {entry.label}
          </button>
        ))}
      </div>
      {source === 'tradingview' && watchlistControls}
      {source === 'exchange' && exchangeControls}
      {panel('tradingview', () => (
        <TradingViewChart symbols={symbols} />
      ))}
      {panel('barchart', () => (
        <BarchartPanel open={source === 'barchart'} />
      ))}
      {panel('exchange', () => exchangeView(source === 'exchange'))}
      {panel('spreadsheet', () => (
        <EmbedPanel
          title="Spreadsheet platform"
          url={embeds.data?.spreadsheetUrl}
          missing="No spreadsheet is linked to this dashboard yet. Ask your administrator to set one up."
          active={source === 'spreadsheet'}
          loading={embeds.isLoading}
        />
      ))}
      {panel('demo-trading', () => (
        <EmbedPanel
          title="Demo trading platform"
          url={embeds.data?.demoTradingUrl}
          missing="No demo trading platform is linked to this dashboard yet. Ask your administrator to set one up."
          active={source === 'demo-trading'}
          loading={embeds.isLoading}
        />
      ))}
    </section>
  );
}
