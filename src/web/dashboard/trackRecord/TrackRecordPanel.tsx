// The Track record view (issue 20), loaded when the trader opens it (TrackRecordSection): the
// filters of GET /api/track-record (signal, symbol, asset class, timeframe, period, source),
// then the live record scored (RecordScores), labelled "Demo data" when it holds the demo
// feed's records (an answer never mixes demo and real). With nothing resolved yet it says so
// and offers a walk-forward backtest (GET /api/track-record/backtest) for the chosen symbol,
// signal and timeframe, shown below and always marked as a backtest. Last, the trader's own
// rules' record (MyRulesRecord, issue 36).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { WATOS_SIGNALS } from '../../../shared/constants.ts';
import { WATOS_TIMEFRAMES, type WatosTimeframe } from '../../../shared/schemas/chat.ts';
import {
  FORECAST_SOURCES,
  TRACK_RECORD_PERIODS,
  type ForecastSourceName,
  type TrackRecordPeriod,
  type TrackRecordResponse,
} from '../../../shared/schemas/trackRecord.ts';
import { resolveSymbol, unknownSymbolMessage } from '../../../shared/symbols.ts';
import { ASSET_CLASSES, ASSET_CLASS_GROUP_LABELS, isAssetClass } from '../../ui/assetClasses.ts';
import { SymbolSearch } from '../../ui/SymbolSearch.tsx';
import { MyRulesRecord } from './MyRulesRecord.tsx';
import { PublishedRulesRecord } from './PublishedRulesRecord.tsx';
import { RecordScores } from './RecordScores.tsx';
import {
  ALL_RECORDS,
  backtestQuery,
  trackRecordQuery,
  type BacktestRequest,
  type TrackRecordFilters,
} from './trackRecordApi.ts';

export const BACKTEST_TITLE = 'Backtest (walk-forward over stored history, not live forecasts)';
const DEMO_LABEL = 'Demo data';
/** The market a backtest runs on when no symbol is chosen. */
const DEFAULT_BACKTEST_SYMBOL = 'BTC-USD';

const PERIOD_LABELS: Record<TrackRecordPeriod, string> = {
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  all: 'All time',
};
const SOURCE_LABELS: Record<ForecastSourceName, string> = { demo: 'Demo data', real: 'Real data' };

const signalName = (id: string | null) =>
  id ? (WATOS_SIGNALS.find((signal) => signal.id === id)?.name ?? id) : 'all signals';

const FIELD = 'mt-1 w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-xs text-white';

function Select({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: ReadonlyArray<readonly [string, string]>;
}) {
  const id = useId();
  return (
    <div className="min-w-0">
      <label htmlFor={id} className="block text-[11px] font-medium text-gray-300">
        {label}
      </label>
      <select id={id} className={FIELD} value={value} onChange={(event) => onChange(event.target.value)}>
        {options.map(([optionValue, text]) => (
          <option key={optionValue} value={optionValue}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The symbol filter: the watchlists' type-ahead; a pick or Enter on a known symbol applies it, an empty box clears it. */
function SymbolFilter({ onChange }: { onChange: (symbolId: string | null) => void }) {
  const [text, setText] = useState('');
  const [unknown, setUnknown] = useState<string | null>(null);
  const unknownId = useId();
  return (
    <div className="min-w-0">
      <span className="block text-[11px] font-medium text-gray-300" aria-hidden="true">
        Symbol
      </span>
      <SymbolSearch
        form="ticker"
        label="Symbol"
        value={text}
        onChange={(value) => {
          setText(value);
          setUnknown(null);
          if (!value.trim()) onChange(null);
        }}
        onPick={(ticker, market) => {
          setText(ticker);
          onChange(market.id);
        }}
        onEnter={() => {
          const typed = text.trim();
          if (!typed) return onChange(null);
          const market = resolveSymbol(typed);
          if (market) onChange(market.id);
          else setUnknown(unknownSymbolMessage(typed));
        }}
        placeholder="Any symbol"
        describedBy={unknown ? unknownId : undefined}
        className={FIELD}
      />
      {unknown ? (
        <p id={unknownId} role="alert" className="mt-1 text-[11px] text-amber-300">
          {unknown}
        </p>
      ) : null}
    </div>
  );
}

function Filters({ filters, onChange }: { filters: TrackRecordFilters; onChange: (next: TrackRecordFilters) => void }) {
  const set = (patch: Partial<TrackRecordFilters>) => onChange({ ...filters, ...patch });
  return (
    <form
      className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3 xl:grid-cols-6"
      aria-label="Track record filters"
      onSubmit={(event) => event.preventDefault()}
    >
      <Select
        label="Signal"
        value={filters.signal ?? ''}
        onChange={(value) => set({ signal: value || null })}
        options={[['', 'All signals'], ...WATOS_SIGNALS.map((signal) => [signal.id, signal.name] as const)]}
      />
      <SymbolFilter onChange={(symbol) => set({ symbol })} />
      <Select
        label="Asset class"
        value={filters.assetClass ?? ''}
        onChange={(value) => set({ assetClass: isAssetClass(value) ? value : null })}
        options={[
          ['', 'All classes'],
          ...ASSET_CLASSES.map((value) => [value, ASSET_CLASS_GROUP_LABELS[value]] as const),
        ]}
      />
      <Select
        label="Timeframe"
        value={filters.timeframe ?? ''}
        onChange={(value) =>
          set({ timeframe: (WATOS_TIMEFRAMES as readonly string[]).includes(value) ? (value as WatosTimeframe) : null })
        }
        options={[['', 'All timeframes'], ...WATOS_TIMEFRAMES.map((value) => [value, value] as const)]}
      />
      <Select
        label="Period"
        value={filters.period}
        onChange={(value) => set({ period: value as TrackRecordPeriod })}
        options={TRACK_RECORD_PERIODS.map((value) => [value, PERIOD_LABELS[value]] as const)}
      />
      <Select
        label="Source"
        value={filters.source ?? ''}
        onChange={(value) => set({ source: value === 'demo' || value === 'real' ? value : null })}
        options={[['', 'Serving now'], ...FORECAST_SOURCES.map((value) => [value, SOURCE_LABELS[value]] as const)]}
      />
    </form>
  );
}

/** The record's source, said on every answer: demo records are never shown as real ones. */
function SourceBadge({ source }: { source: ForecastSourceName }) {
  return source === 'demo' ? (
    <span
      className="rounded bg-amber-500/20 px-1.5 py-0.5 text-[11px] font-semibold text-amber-300"
      data-testid="track-record-demo"
      title="Forecasts on the demo feed's synthetic prices, kept apart from real-data records"
    >
      {DEMO_LABEL}
    </span>
  ) : (
    <span
      className="rounded bg-sky-500/20 px-1.5 py-0.5 text-[11px] font-semibold text-sky-300"
      data-testid="track-record-real"
      title="Forecasts on real market data (Coinbase, Yahoo Finance), kept apart from demo records"
    >
      Real data
    </span>
  );
}

function Heading({ children, record }: { children: ReactNode; record: TrackRecordResponse }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <h3 className="text-sm font-semibold text-white">{children}</h3>
      <SourceBadge source={record.source} />
    </div>
  );
}

function describeLive(filters: TrackRecordFilters): string {
  return [
    signalName(filters.signal),
    filters.symbol ?? (filters.assetClass ? ASSET_CLASS_GROUP_LABELS[filters.assetClass] : 'every symbol'),
    filters.timeframe ?? 'every timeframe',
    PERIOD_LABELS[filters.period].toLowerCase(),
  ].join(', ');
}

function BacktestResult({ request, onClose }: { request: BacktestRequest; onClose: () => void }) {
  const backtest = useQuery({ ...backtestQuery(request), staleTime: 5 * 60_000, retry: false });
  const what = `${request.symbol}, ${signalName(request.signal)}, ${request.timeframe}`;
  return (
    <section
      className="mt-4 rounded-md border border-dashed border-indigo-400/60 bg-indigo-500/5 p-3"
      aria-labelledby="track-record-backtest-heading"
      data-testid="track-record-backtest"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h3 id="track-record-backtest-heading" className="text-sm font-semibold text-white">
            {BACKTEST_TITLE}
          </h3>
          {backtest.data ? <SourceBadge source={backtest.data.source} /> : null}
        </div>
        <button
          type="button"
          className="rounded border border-gray-700 px-2 py-0.5 text-[11px] text-gray-200 hover:bg-gray-800"
          onClick={onClose}
        >
          Close backtest
        </button>
      </div>
      {backtest.isPending ? (
        <p className="mt-2 text-sm text-gray-300" role="status">
          Running the backtest on {what}…
        </p>
      ) : backtest.isError ? (
        <p className="mt-2 text-sm text-red-300" role="alert">
          The backtest could not be run: {backtest.error.message}
        </p>
      ) : (
        <>
          <p className="mt-1 text-[11px] text-gray-300" data-testid="track-record-backtest-scope">
            {backtest.data.filters.symbol}, {signalName(backtest.data.filters.signal)},{' '}
            {backtest.data.filters.timeframe} bars: the odds stated at each of{' '}
            {backtest.data.bars.toLocaleString('en-US')} bars
            {backtest.data.from && backtest.data.to
              ? ` (${backtest.data.from.slice(0, 10)} to ${backtest.data.to.slice(0, 10)})`
              : ''}{' '}
            from the bars before it only, scored {backtest.data.horizonBars} bars later.
          </p>
          <RecordScores record={backtest.data} label={`backtest of ${what}`} />
        </>
      )}
    </section>
  );
}

export function TrackRecordPanel() {
  const [filters, setFilters] = useState<TrackRecordFilters>(ALL_RECORDS);
  const [backtest, setBacktest] = useState<BacktestRequest | null>(null);
  const live = useQuery({ ...trackRecordQuery(filters), placeholderData: keepPreviousData, staleTime: 60_000 });
  const target: BacktestRequest = {
    symbol: filters.symbol ?? DEFAULT_BACKTEST_SYMBOL,
    signal: filters.signal,
    timeframe: filters.timeframe ?? '1h',
  };
  const runBacktest = (
    <button
      type="button"
      className="rounded bg-indigo-600 px-3 py-1 text-xs font-semibold text-white hover:bg-indigo-500"
      onClick={() => setBacktest(target)}
      data-testid="run-backtest"
    >
      Run backtest
    </button>
  );
  const backtestOf = (
    <span className="text-[11px] text-gray-300">
      on {target.symbol}, {signalName(target.signal)}, {target.timeframe}
      {filters.symbol ? '' : ' (choose a symbol above for another)'}
    </span>
  );
  const record = live.data;
  return (
    <div data-testid="track-record-panel">
      <Filters filters={filters} onChange={setFilters} />
      {/* While new filters load, the previous record stays, dimmed. */}
      <div className={`mt-3 ${live.isPlaceholderData ? 'opacity-60' : ''}`} aria-busy={live.isFetching}>
        {live.isPending ? (
          <p className="text-sm text-gray-300">Loading the track record…</p>
        ) : live.isError ? (
          <p className="text-sm text-red-300" role="alert">
            The track record could not be loaded: {live.error.message}
          </p>
        ) : (
          <section aria-labelledby="track-record-live-heading" data-testid="track-record-live">
            <Heading record={record!}>
              <span id="track-record-live-heading">Live record</span>
            </Heading>
            <p className="mt-0.5 text-[11px] text-gray-400">{describeLive(filters)}</p>
            {record!.counts.resolved === 0 ? (
              <div className="mt-2 rounded border border-gray-700 p-3" data-testid="track-record-empty">
                <p className="text-sm text-gray-200">
                  No forecast has been resolved yet for these filters
                  {record!.counts.pending > 0
                    ? ` (${record!.counts.pending.toLocaleString('en-US')} pending: each settles once its horizon has passed)`
                    : ''}
                  . A backtest scores the same odds over the stored history meanwhile.
                </p>
                <div className="mt-2 flex flex-wrap items-center gap-2">
                  {runBacktest}
                  {backtestOf}
                </div>
              </div>
            ) : (
              <>
                <RecordScores record={record!} label={`live record, ${describeLive(filters)}`} />
                <div className="mt-3 flex flex-wrap items-center gap-2">
                  {runBacktest}
                  {backtestOf}
                </div>
              </>
            )}
          </section>
        )}
      </div>
      {backtest ? <BacktestResult request={backtest} onClose={() => setBacktest(null)} /> : null}
      <MyRulesRecord />
      <PublishedRulesRecord />
    </div>
  );
}
