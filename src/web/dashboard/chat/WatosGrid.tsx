// docs/SPEC.md's WATOS grid card under an assistant message: 'WATOS Grid: {symbol}', 'What Are The
// Odds?', six signal tiles in two columns coloured by strength (low yellow, medium blue, high
// green) and a 'Last updated' line in local time. The tiles come from the signals engine
// (GET /api/watos/{symbol}): each active signal with its calibrated odds and sample size, the
// measured frequency and 95% interval, and "no measurable edge" beside the probability when the
// interval includes the base rate; or "not enough history". A symbol without data says so
// instead of showing tiles. Any symbol of the table works (AAPL, MES, CME_MINI:MES1!); demo
// figures are labelled "Demo data" and Yahoo Finance figures "Delayed". The card's "last close"
// becomes the "last price" of the tab's live connection once its symbol ticks, with its state
// (Live, Delayed N min, Demo, Stale) beside it; the odds stay those of the last closed bar. A
// signal whose realised
// Brier skill is negative over enough resolved forecasts (the track record's `flagged`, on the
// card's timeframe and source: one request per grid, cached and shared between grids) carries
// a "below base rate in track record" badge on its tile.
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { WatosCard, WatosCardSignal, WatosStrengthName, WatosTimeframe } from '../../../shared/schemas/chat.ts';
import { formatPrice } from '../../../shared/format.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { symbolById } from '../../../shared/tickers.ts';
import { ASSET_CLASS_LABELS } from '../../ui/assetClasses.ts';
import { LiveStateLabel, useLiveState, useLiveTick } from '../../live/index.ts';
import { DELAYED_TITLE } from '../market/index.ts';
import type { ForecastSourceName, LiveTrackRecord } from '../../../shared/schemas/trackRecord.ts';
import { ALL_RECORDS, recordSourceOf, trackRecordQuery } from '../trackRecord/index.ts';
import { fetchWatosCard } from './chatApi.ts';

type SignalRecord = LiveTrackRecord['signals'][number];

/** A flagged signal and where its record comes from, to explain the badge. */
interface Flag {
  record: SignalRecord;
  timeframe: string;
  source: ForecastSourceName;
}

const STRENGTH_STYLES: Record<WatosStrengthName, { tile: string; badge: string }> = {
  low: { tile: 'border-yellow-500/60 bg-yellow-500/10', badge: 'bg-yellow-400 text-gray-900' },
  medium: { tile: 'border-blue-500/60 bg-blue-500/10', badge: 'bg-blue-700 text-white' },
  high: { tile: 'border-green-500/60 bg-green-500/10', badge: 'bg-green-500 text-gray-900' },
};

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function OddsLine({ signal, horizon }: { signal: WatosCardSignal; horizon: number }) {
  const odds = signal.odds;
  if (!odds) return <p className="mt-1 text-[11px] font-medium text-gray-100">Not active on the latest bar</p>;
  if (odds.probability === null)
    return (
      <p className="mt-1 text-[11px] font-medium text-gray-100">
        Not enough history ({odds.samples.toLocaleString('en-US')} past bars)
      </p>
    );
  return (
    <>
      <p className="mt-1 text-[11px] font-medium text-gray-100" data-testid="watos-odds">
        {percent(odds.probability)} chance of a higher close {horizon} bars later (n=
        {odds.samples.toLocaleString('en-US')}){odds.noEdge ? ' ' : null}
        {odds.noEdge ? (
          <span
            className="rounded bg-gray-700 px-1 text-[10px] font-semibold text-gray-200"
            data-testid="watos-no-edge"
            title="The 95% interval includes the base rate: the odds stated are the base rate"
          >
            no measurable edge
          </span>
        ) : null}
      </p>
      {/* The measured frequency behind the stated odds, and their interval (calibration: docs/features/signals-and-ai.md). */}
      <p className="text-[10px] text-gray-400" data-testid="watos-measured">
        measured {odds.raw === null ? '–' : percent(odds.raw)} of {odds.samples.toLocaleString('en-US')} bars
        {odds.interval ? ` · 95% ${percent(odds.interval[0])}–${percent(odds.interval[1])}` : ''}
      </p>
    </>
  );
}

export const FLAG_TEXT = 'below base rate in track record';

function flagTitle({ record, timeframe, source }: Flag): string {
  const skill = record.brierSkill === null ? '' : ` (Brier skill ${record.brierSkill.toFixed(3)})`;
  return (
    `Over ${record.count.toLocaleString('en-US')} resolved ${timeframe} forecasts` +
    `${source === 'demo' ? ' on demo data' : ''}, this signal's stated odds scored worse than ` +
    `quoting the base rate${skill}: treat its probability with caution.`
  );
}

function Tile({ signal, horizon, flag }: { signal: WatosCardSignal; horizon: number; flag?: Flag }) {
  const style = STRENGTH_STYLES[signal.strength];
  const direction = signal.active ? signal.direction : 'inactive';
  return (
    <li
      className={`rounded-md border p-2 ${style.tile} ${signal.active ? '' : 'border-dashed'}`}
      data-testid="watos-tile"
      data-strength={signal.strength}
      data-active={signal.active}
      data-flagged={flag ? true : undefined}
      aria-label={`${signal.name}: ${direction}, ${signal.strength} strength${flag ? `, ${FLAG_TEXT}` : ''}`}
    >
      <div className="flex items-center justify-between gap-1">
        <span className="min-w-0 break-words text-xs font-semibold leading-tight text-white">{signal.name}</span>
        {/* An inactive signal has no strength to speak of: its tile keeps the colour, without a badge. */}
        {signal.active ? (
          <span className={`shrink-0 rounded px-1.5 text-[10px] font-bold uppercase ${style.badge}`}>
            {signal.strength}
          </span>
        ) : null}
      </div>
      <p
        className={`text-[11px] font-semibold capitalize ${signal.direction === 'bullish' ? 'text-green-300' : signal.direction === 'bearish' ? 'text-red-300' : 'text-gray-300'}`}
      >
        {direction}
      </p>
      <p className="mt-0.5 text-[11px] leading-snug text-gray-300">{signal.description}</p>
      <OddsLine signal={signal} horizon={horizon} />
      {flag ? (
        <p className="mt-1">
          <span
            className="inline-block rounded bg-red-500/20 px-1 text-[10px] font-semibold text-red-200"
            data-testid="watos-flag"
            title={flagTitle(flag)}
          >
            ⚠ {FLAG_TEXT}
          </span>
          <span className="sr-only"> ({flagTitle(flag)})</span>
        </p>
      ) : null}
    </li>
  );
}

function Body({ card, flags }: { card: WatosCard; flags: ReadonlyMap<string, Flag> }) {
  const productId = card.available ? card.productId : null;
  const live = useLiveTick(productId);
  const liveState = useLiveState(productId);
  if (!card.available) return <p className="mt-2 text-sm text-gray-300">{card.message}</p>;
  const name = symbolById(card.productId)?.name;
  // Dollars for crypto, stocks and ETFs; index points for indices and futures (MES 6,012.25).
  const inDollars = card.assetClass === 'crypto' || card.assetClass === 'stock' || card.assetClass === 'etf';
  return (
    <>
      <p className="mt-1 text-[11px] text-gray-400" data-testid="watos-market">
        {card.productId}
        {name ? ` · ${name}` : ''} · {ASSET_CLASS_LABELS[card.assetClass]} · {card.timeframe} bars ·{' '}
        {live ? 'last price' : 'last close'} {inDollars ? '$' : ''}
        {formatPrice(live ? live.tick.price : card.lastClose)}
        {liveState ? (
          <>
            {' '}
            <LiveStateLabel state={liveState} />
          </>
        ) : null}
        {card.baseRate.probability !== null
          ? ` · base rate ${percent(card.baseRate.probability)} higher after ${card.horizonBars} bars (n=${card.baseRate.samples.toLocaleString('en-US')})`
          : ''}
      </p>
      <ul className="mt-2 grid grid-cols-2 gap-2">
        {card.signals.map((signal) => (
          <Tile key={signal.id} signal={signal} horizon={card.horizonBars} flag={flags.get(signal.id)} />
        ))}
      </ul>
    </>
  );
}

export function WatosGrid({
  symbol,
  timeframe = '1h',
  collapsed: startCollapsed = false,
}: {
  symbol: string;
  /** The bar size the answer above is about (4h for "... (WATOS, 4h)"). */
  timeframe?: WatosTimeframe;
  /** Later grids of a conversation start folded to their title, so the chat stays readable. */
  collapsed?: boolean;
}) {
  const [collapsed, setCollapsed] = useState(startCollapsed);
  const bodyId = useId();
  const card = useQuery({
    queryKey: queryKeys.watos.card(symbol, timeframe),
    queryFn: () => fetchWatosCard(symbol, timeframe),
    staleTime: 60_000,
    // A folded grid asks for nothing until it is opened.
    enabled: !collapsed,
  });
  // The flags: the track record of the card's timeframe and source (demo or real), once the
  // card says which source serves the symbol; cached, so grids of one source and timeframe share it.
  const source = card.data?.available ? recordSourceOf(card.data.source) : null;
  const record = useQuery({
    ...trackRecordQuery({ ...ALL_RECORDS, timeframe, source }),
    staleTime: 5 * 60_000,
    enabled: !collapsed && source !== null,
  });
  const flags = new Map<string, Flag>(
    source === null
      ? []
      : (record.data?.signals ?? [])
          .filter((entry) => entry.flagged)
          .map((entry) => [entry.signal, { record: entry, timeframe, source }]),
  );
  return (
    <section
      className="mt-2 rounded-lg border border-gray-700 bg-gray-900/80 p-3"
      data-testid="watos-grid"
      aria-label={`WATOS Grid: ${symbol}`}
    >
      <div className="flex items-start justify-between gap-2">
        <div>
          <h3 className="text-sm font-bold text-white">WATOS Grid: {symbol}</h3>
          <p className="text-xs text-indigo-300">What Are The Odds?</p>
        </div>
        <button
          type="button"
          className="ml-auto rounded border border-gray-700 px-2 py-0.5 text-[11px] text-gray-300 hover:bg-gray-800 hover:text-white"
          aria-expanded={!collapsed}
          aria-controls={bodyId}
          onClick={() => setCollapsed((value) => !value)}
        >
          {collapsed ? 'Show signals' : 'Hide signals'}
        </button>
        {card.data?.available && card.data.source === 'demo' ? (
          <span className="rounded bg-amber-500/20 px-1.5 py-0.5 text-[10px] font-semibold text-amber-300">
            Demo data
          </span>
        ) : null}
        {card.data?.available && card.data.delayed ? (
          <span
            className="rounded bg-sky-500/20 px-1.5 py-0.5 text-[10px] font-semibold text-sky-300"
            title={DELAYED_TITLE}
          >
            Delayed
          </span>
        ) : null}
      </div>
      {collapsed ? null : (
        <div id={bodyId}>
          {card.isPending ? (
            <p className="mt-2 text-xs text-gray-400">Loading signals...</p>
          ) : card.isError ? (
            <p className="mt-2 text-xs text-red-300">The signals could not be loaded: {card.error.message}</p>
          ) : (
            <Body card={card.data} flags={flags} />
          )}
          <p className="mt-2 text-[11px] text-gray-400">
            Last updated: {card.dataUpdatedAt ? new Date(card.dataUpdatedAt).toLocaleTimeString() : '…'}
          </p>
        </div>
      )}
    </section>
  );
}
