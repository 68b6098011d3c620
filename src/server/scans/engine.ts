// The scan engine: evaluates a scan's conditions (AND) for the whole universe at each symbol's
// newest closed bar of the chosen timeframe. Each symbol's stored bars of a base size (1m or 1h)
// are kept in memory with the series and indicators built on them, keyed by the newest stored
// bar's time: a scan asks the store for the universe's newest bar times (one query, at most
// every `freshnessMs`), re-reads only the symbols whose newest bar moved, and is otherwise pure
// CPU over cached arrays. `runNaive` is the peer the benchmark checks it against: every symbol
// read from the store and computed afresh, through the same condition functions.
// The engine's pass also hands it the bars it is about to store (`ingest`), so the scan-entry
// alerts see a bar the moment it closes.
import { RULE_TIMEFRAME_MS, type RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { ScanCondition, ScanRequest, ScanResponse, ScanRow } from '../../shared/schemas/scans.ts';
import { SYMBOL_TABLE, type MarketSymbol } from '../../shared/symbolTable.ts';
import type { CandleInput } from '../../signals/candles.ts';
import {
  baseGranularity,
  evaluateCondition,
  HISTORY_BARS,
  prepareSeries,
  sessionChange,
  type AlertsByTicker,
  type PreparedSeries,
  type ScanAlert,
} from './conditions.ts';

/** Where the engine reads stored bars (market/service.ts in the app; the demo feed or arrays in tests). */
export interface ScanCandleSource {
  /** Open time (ms) of the newest stored bar of each symbol and base size. */
  newestTimes(productIds: readonly string[]): Promise<Map<string, Partial<Record<60 | 3600, number>>>>;
  /** The newest `limit` stored bars of one symbol and size, oldest first, with their source. */
  latest(productId: string, granularity: 60 | 3600, limit: number): Promise<Array<CandleInput & { source: string }>>;
  /** The same for many symbols in one read (symbols without bars absent); without it, one read a symbol. */
  latestMany?(
    productIds: readonly string[],
    granularity: 60 | 3600,
    limit: number,
  ): Promise<Map<string, Array<CandleInput & { source: string }>>>;
}

/** Symbols read together when the source reads many at once: 2,000 stale symbols are 20 round trips, not 2,000. */
const READ_BATCH = 100;

export interface ScanEngineOptions {
  source: ScanCandleSource;
  /** The built-in alerts stored since a moment (only read when a scan has a `builtin` condition). */
  alertsSince?(since: Date): Promise<ScanAlert[]>;
  /** The symbols scanned (default: the symbol table). */
  universe?: readonly MarketSymbol[];
  now?: () => number;
  /** How long the universe's newest bar times are trusted before a scan asks again (ms; default 5,000). */
  freshnessMs?: number;
  /** Symbols read from the store at once when the cache fills (default 8). */
  readConcurrency?: number;
}

/** What one symbol gave for a scan's conditions at one bar. */
export interface SymbolVerdict {
  matched: boolean;
  /** A condition's figure could not be known (too few bars): the symbol is skipped. */
  skipped: boolean;
  values: Array<number | null>;
}

interface BaseEntry {
  /** Stored (and ingested) bars, oldest first, at most HISTORY_BARS. */
  rows: Array<CandleInput & { source: string }>;
  newest: number;
  /** Prepared series per timeframe, valid for `rows` as they are and the closed count at preparation. */
  prepared: Map<RuleTimeframe, PreparedSeries>;
}

const DEFAULT_FRESHNESS_MS = 5_000;

/** Evaluates conditions at `index` (AND, stopping at the first that fails or is unknown). */
export function verdictAt(
  prepared: PreparedSeries,
  conditions: readonly ScanCondition[],
  index: number,
  alerts: AlertsByTicker,
): SymbolVerdict {
  const values: Array<number | null> = [];
  for (const condition of conditions) {
    const outcome = evaluateCondition(prepared, condition, index, alerts);
    if (!outcome.known) return { matched: false, skipped: true, values };
    if (!outcome.pass) return { matched: false, skipped: false, values };
    values.push(outcome.value);
  }
  return { matched: true, skipped: false, values };
}

/** Which way the first condition's figure is stronger: +1 the higher, -1 the lower. */
function strength(condition: ScanCondition): 1 | -1 {
  switch (condition.kind) {
    case 'change':
    case 'rsi':
    case 'ema_cross':
    case 'price_vs_ema':
    case 'bollinger':
    case 'session_change':
      return condition.side === 'above' ? 1 : -1;
    case 'builtin':
      return -1;
    default:
      return 1;
  }
}

/** Rows strongest first by the first condition's figure (nulls last), then by id. */
function sortRows(rows: ScanRow[], first: ScanCondition): ScanRow[] {
  const sign = strength(first);
  return rows.sort((a, b) => {
    const x = a.values[0] ?? null;
    const y = b.values[0] ?? null;
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return sign * (y - x);
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

function scanRow(prepared: PreparedSeries, index: number, values: Array<number | null>): ScanRow {
  const { symbol, bars } = prepared;
  const session = sessionChange(prepared, index);
  return {
    id: symbol.id,
    ticker: symbol.ticker,
    name: symbol.name,
    assetClass: symbol.assetClass,
    last: bars.close[index]!,
    barTime: new Date(bars.time[index]!).toISOString(),
    change: session?.change ?? null,
    changePercent: session?.percent ?? null,
    values,
    source: prepared.source,
  };
}

/** The built-in alerts a scan needs, grouped by ticker (oldest first), or none when no condition reads them. */
async function alertsFor(
  options: ScanEngineOptions,
  request: Pick<ScanRequest, 'timeframe' | 'conditions'>,
  now: number,
): Promise<AlertsByTicker> {
  const within = request.conditions.reduce(
    (most, condition) => (condition.kind === 'builtin' ? Math.max(most, condition.withinBars) : most),
    0,
  );
  const grouped = new Map<string, ScanAlert[]>();
  if (within === 0 || !options.alertsSince) return grouped;
  // Calendar time covers the bars wanted unless sessions closed in between: twice as far, plus a weekend.
  const since = new Date(now - 2 * (within + 1) * RULE_TIMEFRAME_MS[request.timeframe] - 3 * 86_400_000);
  const alerts = await options.alertsSince(since);
  for (const alert of alerts.sort((a, b) => a.time - b.time)) {
    const list = grouped.get(alert.ticker) ?? [];
    list.push(alert);
    grouped.set(alert.ticker, list);
  }
  return grouped;
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await work(item);
    }
  });
  await Promise.all(workers);
}

export function createScanEngine(options: ScanEngineOptions) {
  const universe = options.universe ?? SYMBOL_TABLE;
  const ids = universe.map((symbol) => symbol.id);
  const now = options.now ?? Date.now;
  const freshnessMs = options.freshnessMs ?? DEFAULT_FRESHNESS_MS;
  const concurrency = options.readConcurrency ?? 8;
  const entries: Record<60 | 3600, Map<string, BaseEntry>> = { 60: new Map(), 3600: new Map() };
  let newest: Map<string, Partial<Record<60 | 3600, number>>> | null = null;
  let checkedAt = -Infinity;
  let checking: Promise<void> | null = null;

  function refreshNewest(force: boolean): Promise<void> {
    if (!force && now() - checkedAt < freshnessMs && newest) return Promise.resolve();
    checking ??= options.source
      .newestTimes(ids)
      .then((times) => {
        newest = times;
        checkedAt = now();
      })
      .finally(() => {
        checking = null;
      });
    return checking;
  }

  async function read(symbol: MarketSymbol, granularity: 60 | 3600): Promise<void> {
    const rows = await options.source.latest(symbol.id, granularity, HISTORY_BARS[granularity]);
    entries[granularity].set(symbol.id, { rows, newest: rows.at(-1)?.time ?? -Infinity, prepared: new Map() });
  }

  /** Reads the symbols whose newest stored bar is newer than the one held (or none is held). */
  async function fill(granularity: 60 | 3600, symbols: readonly MarketSymbol[]): Promise<void> {
    const stale = symbols.filter((symbol) => {
      const entry = entries[granularity].get(symbol.id);
      const stored = newest?.get(symbol.id)?.[granularity];
      if (stored === undefined) return !entry;
      return !entry || stored > entry.newest;
    });
    const { source } = options;
    if (!source.latestMany) {
      await eachLimited(stale, concurrency, (symbol) => read(symbol, granularity));
      return;
    }
    for (let start = 0; start < stale.length; start += READ_BATCH) {
      const batch = stale.slice(start, start + READ_BATCH);
      const read = await source.latestMany(
        batch.map((symbol) => symbol.id),
        granularity,
        HISTORY_BARS[granularity],
      );
      for (const symbol of batch) {
        const rows = read.get(symbol.id) ?? [];
        entries[granularity].set(symbol.id, { rows, newest: rows.at(-1)?.time ?? -Infinity, prepared: new Map() });
      }
    }
  }

  /** The prepared series of a held symbol (built again when its bars or the closed buckets changed). */
  function preparedOf(symbol: MarketSymbol, timeframe: RuleTimeframe, at: number): PreparedSeries | null {
    const entry = entries[baseGranularity(timeframe)].get(symbol.id);
    if (!entry || entry.rows.length === 0) return null;
    const held = entry.prepared.get(timeframe);
    const frameMs = RULE_TIMEFRAME_MS[timeframe];
    // Valid while no held bucket closed since: its newest bar's bucket end is still ahead, or it was already closed.
    if (held) {
      const last = held.bars.length > 0 ? held.bars.time[held.bars.length - 1]! : -Infinity;
      const forming = Math.floor(entry.newest / frameMs) * frameMs;
      const formingClosed = forming + frameMs <= at;
      if (last === forming || !formingClosed) return held;
    }
    const prepared = prepareSeries(symbol, timeframe, entry.rows, entry.rows.at(-1)!.source, at);
    entry.prepared.set(timeframe, prepared);
    return prepared;
  }

  function respond(
    request: ScanRequest,
    verdicts: Array<{ prepared: PreparedSeries | null; verdict: SymbolVerdict | null }>,
  ): ScanResponse {
    let skipped = 0;
    let asOf = -Infinity;
    const rows: ScanRow[] = [];
    const frameMs = RULE_TIMEFRAME_MS[request.timeframe];
    for (const { prepared, verdict } of verdicts) {
      if (!prepared || !verdict || verdict.skipped) {
        skipped += 1;
        continue;
      }
      const index = prepared.bars.length - 1;
      asOf = Math.max(asOf, prepared.bars.time[index]! + frameMs);
      if (verdict.matched) rows.push(scanRow(prepared, index, verdict.values));
    }
    sortRows(rows, request.conditions[0]!);
    return {
      timeframe: request.timeframe,
      evaluated: verdicts.length - skipped,
      skipped,
      matched: rows.length,
      rows: rows.slice(0, request.limit),
      asOf: Number.isFinite(asOf) ? new Date(asOf).toISOString() : null,
    };
  }

  function judge(prepared: PreparedSeries | null, conditions: readonly ScanCondition[], alerts: AlertsByTicker) {
    if (!prepared || prepared.bars.length === 0) return { prepared, verdict: null };
    return { prepared, verdict: verdictAt(prepared, conditions, prepared.bars.length - 1, alerts) };
  }

  return {
    universe,

    /** The scan over the cached series (re-reading only the symbols whose newest stored bar moved). */
    async run(request: ScanRequest): Promise<ScanResponse> {
      const at = now();
      const granularity = baseGranularity(request.timeframe);
      // The newest-times check runs behind the scan once the series are held: a scan answers from
      // what is held (kept current by the engine's pass, see ingest) and re-reads the symbols the
      // check found moved on a later scan. Only the very first scan waits for it.
      const due = newest === null ? refreshNewest(false) : null;
      if (!due) refreshNewest(false).catch(() => undefined);
      const [alerts] = await Promise.all([
        alertsFor(options, request, at),
        (due ?? Promise.resolve()).then(() => fill(granularity, universe)),
      ]);
      return respond(
        request,
        universe.map((symbol) => judge(preparedOf(symbol, request.timeframe, at), request.conditions, alerts)),
      );
    },

    /** The naive peer: every symbol read from the store and computed afresh, nothing cached. */
    async runNaive(request: ScanRequest): Promise<ScanResponse> {
      const at = now();
      const granularity = baseGranularity(request.timeframe);
      const alerts = await alertsFor(options, request, at);
      const verdicts = Array.from(universe, (): { prepared: PreparedSeries | null; verdict: SymbolVerdict | null } => ({
        prepared: null,
        verdict: null,
      }));
      await eachLimited(
        universe.map((symbol, index) => ({ symbol, index })),
        concurrency,
        async ({ symbol, index }) => {
          const rows = await options.source.latest(symbol.id, granularity, HISTORY_BARS[granularity]);
          const prepared =
            rows.length === 0 ? null : prepareSeries(symbol, request.timeframe, rows, rows.at(-1)!.source, at);
          verdicts[index] = judge(prepared, request.conditions, alerts);
        },
      );
      return respond(request, verdicts);
    },

    /**
     * Bars the engine's pass is about to store (closed, oldest first): appended to the held
     * series of the symbol (read from the store first when not held), the oldest trimmed so
     * that the held bars stay the newest HISTORY_BARS, as a read after the store would give.
     */
    async ingest(symbol: MarketSymbol, granularity: 60 | 3600, bars: readonly CandleInput[], source: string) {
      if (bars.length === 0) return;
      if (!entries[granularity].has(symbol.id)) await read(symbol, granularity);
      const entry = entries[granularity].get(symbol.id)!;
      let added = false;
      for (const bar of bars) {
        if (bar.time <= entry.newest) continue;
        entry.rows.push({ ...bar, source });
        entry.newest = bar.time;
        added = true;
      }
      if (!added) return;
      const limit = HISTORY_BARS[granularity];
      if (entry.rows.length > limit) entry.rows.splice(0, entry.rows.length - limit);
      entry.prepared.clear();
    },

    /**
     * Reads the symbols of this size that are not held yet, READ_BATCH a query when the source
     * reads many at once: the scan-entry alerts' first pass after a start holds the whole universe
     * in 20 reads rather than one read a symbol in `ingest`.
     */
    async hold(symbols: readonly MarketSymbol[], granularity: 60 | 3600): Promise<void> {
      await fill(
        granularity,
        symbols.filter((symbol) => !entries[granularity].has(symbol.id)),
      );
    },

    /** The prepared series of a symbol (read from the store when not held): the scan-entry alerts' view. */
    async seriesOf(symbol: MarketSymbol, timeframe: RuleTimeframe, at = now()): Promise<PreparedSeries | null> {
      const granularity = baseGranularity(timeframe);
      if (!entries[granularity].has(symbol.id)) await read(symbol, granularity);
      return preparedOf(symbol, timeframe, at);
    },

    /**
     * Asks the store for the newest bar times now and re-reads the given symbols whose stored
     * bars moved past the held ones (bars stored by another path: a backfill, another leader).
     */
    async refresh(symbols: readonly MarketSymbol[], granularity: 60 | 3600): Promise<void> {
      const held = symbols.filter((symbol) => entries[granularity].has(symbol.id));
      if (held.length === 0) return;
      const times = await options.source.newestTimes(held.map((symbol) => symbol.id));
      newest ??= new Map();
      for (const symbol of held) {
        const time = times.get(symbol.id);
        if (time) newest.set(symbol.id, { ...newest.get(symbol.id), ...time });
      }
      await fill(granularity, held);
    },

    /** Resolves when the newest-times check a scan started behind it has finished (tests, the bench). */
    checked: (): Promise<void> => checking ?? Promise.resolve(),

    /** Whether the symbol's bars of this size are held. */
    holds: (symbol: MarketSymbol, granularity: 60 | 3600) => entries[granularity].has(symbol.id),

    alerts: (request: Pick<ScanRequest, 'timeframe' | 'conditions'>, at = now()) => alertsFor(options, request, at),

    /** Forgets the held series (tests; a backfill of older bars, which the newest-time check cannot see). */
    clear(): void {
      entries[60].clear();
      entries[3600].clear();
      newest = null;
    },
  };
}

export type ScanEngine = ReturnType<typeof createScanEngine>;
