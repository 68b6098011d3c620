// The track record (issue 20): the public surface of the forecasts feature and the only module
// that reads or writes the `forecasts` table.
// - Recording: every WATOS statement shown (grid card, assistant answer, watos_odds rule
//   firing) becomes forecasts (statements.ts), queued in memory and inserted in batches with
//   ON CONFLICT DO NOTHING on the dedup key. Fire-and-forget: a request never waits for it and
//   a failed insert is logged, never thrown.
// - Resolving: resolveDue() settles forecasts past their due time against the candle store
//   (resolution.ts), in batches, with UPDATE ... WHERE status = 'pending': idempotent, so the
//   alert engine's holder of shard 0 runs it after each pass, and the next holder after a
//   failover simply picks up what is still pending.
// - Scoring: the live record is aggregated in SQL (GROUP BY signal and decile: at most 60
//   rows whatever the number of forecasts) and merged into the streaming scorer
//   (signals/forecastScore.ts); the backtest walks the grid's own history (market analysis,
//   analysis/service.ts) in a worker (backtest.ts, backtestPool.ts), admitted per user
//   (backtestAdmission.ts) and cached.
// - Citing: what the assistant says about a signal's record (live, else the backtest).
import { and, asc, eq, gte, inArray, lte, ne, sql, type SQL } from 'drizzle-orm';
import { WATOS_SIGNALS } from '../../shared/constants.ts';
import type { WatosTimeframe } from '../../shared/schemas/chat.ts';
import type {
  BacktestQuery,
  BacktestTrackRecord,
  ForecastSourceName,
  LiveTrackRecord,
  MyTrackRecord,
  TrackRecordQuery,
} from '../../shared/schemas/trackRecord.ts';
import { resolveSymbol, unknownSymbolMessage } from '../../shared/symbols.ts';
import { SYMBOL_TABLE } from '../../shared/symbolTable.ts';
import { symbolById } from '../../shared/tickers.ts';
import { FLAG_MIN_RESOLVED, ForecastScorer, type ScoreReport } from '../../signals/forecastScore.ts';
import type { MarketAnalysis } from '../analysis/service.ts';
import type { Database } from '../db/client.ts';
import { alertRules, forecasts } from '../db/schema.ts';
import { onlyRow } from '../db/rows.ts';
import { invalid, notFound } from '../errors/domain.ts';
import { createDemoFeed, storeCandles, storedCandlesBetween, type MarketSource } from '../market/service.ts';
import type { BacktestPool } from './backtestPool.ts';
import {
  FORECAST_TIMEFRAMES,
  GIVE_UP_MS,
  RESOLVE_GRACE_MS,
  resolveForecast,
  type PendingForecast,
  type Resolution,
} from './resolution.ts';
import {
  forecastsOfCard,
  isForecastTimeframe,
  type AvailableCard,
  type ForecastDraft,
  type ForecastOrigin,
} from './statements.ts';

export { forecastOfRuleFiring, type AvailableCard, type ForecastDraft, type ForecastOrigin } from './statements.ts';
export { FORECAST_TIMEFRAMES } from './resolution.ts';
export { createBacktestAdmission, type BacktestAdmission } from './backtestAdmission.ts';
export { createBacktestPool, defaultBacktestThreads, type BacktestPool } from './backtestPool.ts';

const DAY = 86_400_000;
const INSERT_CHUNK = 500;
/** Pending forecasts settled per batch, and batches per resolveDue call. */
const RESOLVE_BATCH = 2000;
const RESOLVE_MAX_BATCHES = 10;
/** Backtests kept (per symbol, timeframe, signal filter and latest bar). */
const BACKTEST_CACHE_SIZE = 64;

const PERIOD_MS: Record<TrackRecordQuery['period'], number | null> = {
  '7d': 7 * DAY,
  '30d': 30 * DAY,
  '90d': 90 * DAY,
  all: null,
};

const signalName = (id: string) => WATOS_SIGNALS.find((signal) => signal.id === id)?.name ?? id;
const toSourceName = (source: MarketSource): ForecastSourceName => (source === 'demo' ? 'demo' : 'real');

// ---- recording -------------------------------------------------------------------------------

/** Inserts forecasts, skipping any already recorded (same dedup key); returns how many were new. */
export async function insertForecasts(db: Database, drafts: readonly ForecastDraft[]): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < drafts.length; start += INSERT_CHUNK) {
    const rows = drafts.slice(start, start + INSERT_CHUNK).map((draft) => ({
      ...draft,
      barTime: new Date(draft.barTime),
      dueAt: new Date(draft.dueAt),
    }));
    const result = await db
      .insert(forecasts)
      .values(rows)
      .onConflictDoNothing({ target: forecasts.dedupKey })
      .returning({ id: forecasts.id });
    inserted += result.length;
  }
  return inserted;
}

// ---- resolving -------------------------------------------------------------------------------

export interface ResolveSummary {
  resolved: number;
  unresolvable: number;
  /** Due forecasts left pending (their data may still arrive). */
  waiting: number;
}

interface PendingRow extends PendingForecast {
  symbol: string;
}

async function duePending(db: Database, now: number, limit: number): Promise<PendingRow[]> {
  const rows = await db
    .select({
      id: forecasts.id,
      symbol: forecasts.symbol,
      timeframe: forecasts.timeframe,
      horizonBars: forecasts.horizonBars,
      barTime: forecasts.barTime,
      dueAt: forecasts.dueAt,
      entryClose: forecasts.entryClose,
      source: forecasts.source,
    })
    .from(forecasts)
    .where(and(eq(forecasts.status, 'pending'), lte(forecasts.dueAt, new Date(now - RESOLVE_GRACE_MS))))
    .orderBy(asc(forecasts.dueAt), asc(forecasts.id))
    .limit(limit);
  return rows.flatMap((row) => {
    if (!(row.timeframe in FORECAST_TIMEFRAMES)) return [];
    return [
      {
        id: row.id,
        symbol: row.symbol,
        timeframe: row.timeframe,
        horizonBars: row.horizonBars,
        barTime: row.barTime.getTime(),
        dueAt: row.dueAt.getTime(),
        entryClose: row.entryClose,
        source: row.source,
        calendar: symbolById(row.symbol)?.calendar ?? 'crypto-24x7',
      },
    ];
  });
}

/** Writes resolutions; only rows still pending change, so a second run changes nothing. */
async function applyResolutions(db: Database, resolutions: readonly Resolution[], now: number): Promise<number> {
  if (resolutions.length === 0) return 0;
  const values = resolutions.map((resolution) => ({
    id: resolution.id,
    status: resolution.status,
    rose: resolution.status === 'resolved' ? resolution.rose : null,
    exit_close: resolution.status === 'resolved' ? resolution.exitClose : null,
    note: resolution.status === 'unresolvable' ? resolution.note : null,
  }));
  const answer = await db.execute(sql`
    update ${forecasts} as f
    set status = v.status, rose = v.rose, exit_close = v.exit_close, note = v.note,
      resolved_at = ${new Date(now).toISOString()}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as v(id bigint, status text, rose boolean, exit_close double precision, note text)
    where f.id = v.id and f.status = 'pending'
    returning f.id`);
  return (answer as { rows: unknown[] }).rows.length;
}

/**
 * Settles the forecasts due by `now` (at most RESOLVE_BATCH x RESOLVE_MAX_BATCHES a call):
 * grouped by symbol and base bar size, one candle read per group.
 */
export async function resolveDueForecasts(db: Database, now: number): Promise<ResolveSummary> {
  const summary: ResolveSummary = { resolved: 0, unresolvable: 0, waiting: 0 };
  const offsetIds = new Set<number>();
  for (let batch = 0; batch < RESOLVE_MAX_BATCHES; batch += 1) {
    // Forecasts left waiting stay first in due order: skip the ones already looked at.
    const due = (await duePending(db, now, RESOLVE_BATCH + offsetIds.size)).filter((row) => !offsetIds.has(row.id));
    if (due.length === 0) break;
    const groups = new Map<string, PendingRow[]>();
    for (const row of due) {
      const key = `${row.symbol}|${FORECAST_TIMEFRAMES[row.timeframe].base}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const resolutions: Resolution[] = [];
    for (const rows of groups.values()) {
      const [first] = rows;
      if (!first) continue;
      const granularity = FORECAST_TIMEFRAMES[first.timeframe].base;
      const from = Math.min(...rows.map((row) => row.barTime));
      const to = Math.min(now + 1, Math.max(...rows.map((row) => row.dueAt)) + GIVE_UP_MS);
      const bars = await storedCandlesBetween(db, first.symbol, granularity, new Date(from), new Date(to));
      for (const row of rows) {
        const resolution = resolveForecast(row, bars, now);
        if (resolution) resolutions.push(resolution);
        else {
          summary.waiting += 1;
          offsetIds.add(row.id);
        }
      }
    }
    await applyResolutions(db, resolutions, now);
    for (const resolution of resolutions) summary[resolution.status] += 1;
    if (due.length < RESOLVE_BATCH) break;
  }
  return summary;
}

/**
 * Test hook (TEST_HOOKS only): stores the demo feed's bars up to `now` for the symbols of the
 * demo forecasts due by then, as the alert engine would have by that time, so a test can see
 * forecasts resolve without waiting for the horizon.
 */
export async function advanceDemoCandles(db: Database, now: number): Promise<number> {
  const rows = await db
    .selectDistinct({ symbol: forecasts.symbol, timeframe: forecasts.timeframe })
    .from(forecasts)
    .where(
      and(
        eq(forecasts.status, 'pending'),
        eq(forecasts.source, 'demo'),
        lte(forecasts.dueAt, new Date(now - RESOLVE_GRACE_MS)),
      ),
    );
  let stored = 0;
  const done = new Set<string>();
  for (const { symbol, timeframe } of rows) {
    if (!(timeframe in FORECAST_TIMEFRAMES)) continue;
    const { base } = FORECAST_TIMEFRAMES[timeframe];
    if (done.has(`${symbol}|${base}`)) continue;
    done.add(`${symbol}|${base}`);
    const { from } = onlyRow(
      await db
        .select({ from: sql<string>`min(${forecasts.barTime})` })
        .from(forecasts)
        .where(and(eq(forecasts.symbol, symbol), eq(forecasts.status, 'pending'), eq(forecasts.source, 'demo'))),
    );
    const start = new Date(from).getTime() - DAY;
    const feed = createDemoFeed({ now: () => now, keepMinuteDays: Math.ceil((now - start) / DAY) + 1 });
    const bars = await feed.candles(symbol, base, new Date(start), new Date(now));
    await storeCandles(db, symbol, base, 'demo', bars);
    stored += bars.length;
  }
  return stored;
}

// ---- scoring ---------------------------------------------------------------------------------

export interface LiveFilters {
  signal?: string;
  /** Canonical id. */
  symbol?: string;
  assetClass?: string;
  timeframe?: WatosTimeframe;
  period: TrackRecordQuery['period'];
  source: ForecastSourceName;
  /**
   * Whose record: a trader's own rules' forecasts (origin 'rule' of this user id); the traders'
   * published rules ('published'); or, when absent, the product's own record, which never
   * includes a trader's rule (its calibration is the product's statements alone).
   */
  owner?: { userId: string } | 'published';
}

function filterConditions(filters: LiveFilters, now: number): SQL[] {
  const conditions: SQL[] = [eq(forecasts.source, filters.source)];
  if (filters.owner === 'published') conditions.push(eq(forecasts.origin, 'rule'), eq(forecasts.published, true));
  else if (filters.owner !== undefined)
    conditions.push(eq(forecasts.origin, 'rule'), eq(forecasts.userId, filters.owner.userId));
  else conditions.push(ne(forecasts.origin, 'rule'));
  if (filters.signal) conditions.push(eq(forecasts.signal, filters.signal));
  if (filters.symbol) conditions.push(eq(forecasts.symbol, filters.symbol));
  if (filters.assetClass) conditions.push(eq(forecasts.assetClass, filters.assetClass));
  if (filters.timeframe) conditions.push(eq(forecasts.timeframe, filters.timeframe));
  const span = PERIOD_MS[filters.period];
  if (span !== null) conditions.push(gte(forecasts.barTime, new Date(now - span)));
  return conditions;
}

/** The resolved forecasts matching the filters, scored (aggregated in SQL, merged by the scorer). */
export async function scoreForecasts(
  db: Database,
  filters: LiveFilters,
  now: number,
): Promise<{ report: ScoreReport; counts: LiveTrackRecord['counts'] }> {
  const conditions = filterConditions(filters, now);
  const outcome = sql`(case when ${forecasts.rose} then 1.0 else 0.0 end)`;
  const bin = sql<number>`least(9, greatest(0, floor(${forecasts.stated} * 10)))::int`;
  const groups = await db
    .select({
      signal: forecasts.signal,
      bin,
      count: sql<number>`count(*)::int`,
      stated: sql<number>`sum(${forecasts.stated})::float8`,
      rises: sql<number>`sum(case when ${forecasts.rose} then 1 else 0 end)::int`,
      hits: sql<number>`sum(case when ${forecasts.rose} = (${forecasts.direction} = 'bullish') then 1 else 0 end)::int`,
      brier: sql<number>`sum((${forecasts.stated} - ${outcome}) * (${forecasts.stated} - ${outcome}))::float8`,
      baseBrier: sql<number>`sum((${forecasts.baseRate} - ${outcome}) * (${forecasts.baseRate} - ${outcome}))::float8`,
    })
    .from(forecasts)
    .where(and(...conditions, eq(forecasts.status, 'resolved')))
    .groupBy(forecasts.signal, bin);
  const scorer = new ForecastScorer();
  for (const group of groups) {
    scorer.addSums(group.signal, Number(group.bin), {
      count: Number(group.count),
      stated: Number(group.stated),
      rises: Number(group.rises),
      hits: Number(group.hits),
      brier: Number(group.brier),
      baseBrier: Number(group.baseBrier),
    });
  }
  const statuses = await db
    .select({ status: forecasts.status, count: sql<number>`count(*)::int` })
    .from(forecasts)
    .where(and(...conditions))
    .groupBy(forecasts.status);
  const counts = { resolved: 0, pending: 0, unresolvable: 0 };
  for (const row of statuses)
    if (row.status === 'resolved' || row.status === 'pending' || row.status === 'unresolvable')
      counts[row.status] = Number(row.count);
  return { report: scorer.report(), counts };
}

function scoreFields(report: ScoreReport, names: (id: string) => string = signalName) {
  return {
    brier: report.brier,
    baseBrier: report.baseBrier,
    brierSkill: report.brierSkill,
    reliability: report.reliability,
    signals: report.signals.map((signal) => ({ ...signal, name: names(signal.signal) })),
    flagMinResolved: FLAG_MIN_RESOLVED,
  };
}

// ---- the service -----------------------------------------------------------------------------

/** One line the assistant can cite about a signal's record. */
export interface TrackRecordCitation {
  signal: string;
  name: string;
  timeframe: string;
  kind: 'live' | 'backtest';
  source: ForecastSourceName;
  stated: number;
  realised: number;
  count: number;
  /** "RSI Divergence on 1h: stated 53%, realised 51% over 1,212 resolved forecasts (demo data)". */
  text: string;
}

export interface ForecastServiceOptions {
  db: Database;
  log: { warn(details: object, message: string): void; error(details: object, message: string): void };
  /** Which market-data source serves a symbol now (the market router's sourceOf). */
  sourceOf: (productId: string) => MarketSource;
  /** Market analysis: the grid's history (the backtest and the assistant's fallback citation). */
  analysis?: Pick<MarketAnalysis, 'history'>;
  /** Where the walk-forward runs (off the event loop); backtests need it and `analysis`. */
  backtestPool?: BacktestPool;
  now?: () => number;
  /** How long recorded statements wait in memory before one batched insert. */
  flushMs?: number;
}

const percentText = (share: number) => `${Math.round(share * 100)}%`;

export function createForecastService(options: ForecastServiceOptions) {
  const { db, log } = options;
  const now = options.now ?? Date.now;
  const flushMs = options.flushMs ?? 250;
  let queue: ForecastDraft[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  // Keys recorded lately: a grid refreshed every 30 s restates the same bar; skip the insert.
  const recent = new Set<string>();
  const backtests = new Map<string, BacktestTrackRecord>();

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queue;
    queue = [];
    if (batch.length > 0) {
      writing = writing
        .then(() => insertForecasts(db, batch))
        .then(
          () => undefined,
          (error: unknown) => {
            for (const draft of batch) recent.delete(draft.dedupKey);
            log.error({ err: error, forecasts: batch.length }, 'track record: recording forecasts failed');
          },
        );
    }
    return writing;
  }

  function recordDrafts(drafts: readonly ForecastDraft[]): void {
    for (const draft of drafts) {
      if (recent.has(draft.dedupKey)) continue;
      if (recent.size >= 20_000) recent.clear();
      recent.add(draft.dedupKey);
      queue.push(draft);
    }
    if (queue.length >= INSERT_CHUNK) void flush();
    else if (queue.length > 0 && !timer) {
      timer = setTimeout(() => void flush(), flushMs);
      timer.unref?.();
    }
  }

  function defaultSource(symbol?: string, assetClass?: string): ForecastSourceName {
    const representative =
      symbol ?? SYMBOL_TABLE.find((row) => row.assetClass === (assetClass ?? 'crypto'))?.id ?? 'BTC-USD';
    return toSourceName(options.sourceOf(representative));
  }

  function canonical(symbol: string): string {
    const market = resolveSymbol(symbol);
    if (!market) throw invalid(unknownSymbolMessage(symbol));
    return market.id;
  }

  /**
   * The walk-forward over the grid's history, cached per symbol, timeframe, signal filter and
   * latest bar. A miss is admitted first by `admit` when given (the route's per-user bounds:
   * it throws a 429 past them and answers the release of its place), then queued for a worker; `signal` (the request closing) drops it from the queue
   * or stops it.
   */
  async function backtest(
    query: BacktestQuery,
    asked: { admit?: () => Promise<() => void>; signal?: AbortSignal } = {},
  ): Promise<BacktestTrackRecord> {
    const pool = options.backtestPool;
    if (!options.analysis || !pool) throw invalid('Backtests are not available on this server.');
    const productId = canonical(query.symbol);
    // "Not enough history" and the like are MarketAnalysisErrors: 422 with the analysis's text.
    const loaded = await options.analysis.history(productId, query.timeframe);
    const { series } = loaded;
    const last = series.length > 0 ? series.time[series.length - 1] : 0;
    const key = `${productId}|${query.timeframe}|${loaded.source}|${series.length}|${last}|${query.signal ?? '*'}`;
    const hit = backtests.get(key);
    if (hit) return hit;
    const release = asked.admit ? await asked.admit() : undefined;
    const result = await pool
      .run({ series, horizon: loaded.horizonBars, signal: query.signal }, asked.signal)
      .finally(() => release?.());
    const { report } = result;
    const answer: BacktestTrackRecord = {
      kind: 'backtest',
      source: toSourceName(loaded.source),
      filters: { symbol: productId, signal: query.signal ?? null, timeframe: query.timeframe },
      horizonBars: loaded.horizonBars,
      bars: result.bars,
      from: Number.isFinite(result.from) ? new Date(result.from).toISOString() : null,
      to: Number.isFinite(result.to) ? new Date(result.to).toISOString() : null,
      counts: { resolved: report.count, pending: result.pending, unresolvable: 0 },
      ...scoreFields(report),
    };
    if (backtests.size >= BACKTEST_CACHE_SIZE) backtests.delete(backtests.keys().next().value!);
    backtests.set(key, answer);
    return answer;
  }

  function citation(
    kind: 'live' | 'backtest',
    source: ForecastSourceName,
    timeframe: string,
    signal: { signal: string; stated: number; realised: number; count: number },
    symbol?: string,
  ): TrackRecordCitation {
    const name = signalName(signal.signal);
    const where = symbol ? `${timeframe}, ${symbol}` : timeframe;
    const what =
      kind === 'live'
        ? `over ${signal.count.toLocaleString('en-US')} resolved forecast${signal.count === 1 ? '' : 's'}`
        : `over ${signal.count.toLocaleString('en-US')} backtest forecast${signal.count === 1 ? '' : 's'} (backtest, not live)`;
    return {
      signal: signal.signal,
      name,
      timeframe,
      kind,
      source,
      stated: signal.stated,
      realised: signal.realised,
      count: signal.count,
      text: `${name} on ${where}: stated ${percentText(signal.stated)}, realised ${percentText(signal.realised)} ${what}${source === 'demo' ? ' (demo data)' : ''}`,
    };
  }

  /** A record of traders' rules (one row per rule, named by the rule while it exists, else "Rule <id>"). */
  async function rulesRecord(
    query: TrackRecordQuery,
    owner: { userId: string } | 'published',
  ): Promise<LiveTrackRecord> {
    const symbol = query.symbol ? canonical(query.symbol) : undefined;
    const source = query.source ?? defaultSource(symbol, query.assetClass);
    const filters: LiveFilters = { ...query, symbol, source, owner };
    const { report, counts } = await scoreForecasts(db, filters, now());
    const ids = report.signals.flatMap((signal) => {
      const id = Number(signal.signal.replace(/^rule:/, ''));
      return Number.isInteger(id) ? [id] : [];
    });
    const rows = ids.length
      ? await db
          .select({ id: alertRules.id, name: alertRules.name })
          .from(alertRules)
          .where(
            owner === 'published'
              ? inArray(alertRules.id, ids)
              : and(inArray(alertRules.id, ids), eq(alertRules.userId, owner.userId)),
          )
      : [];
    const names = new Map(rows.map((row) => [`rule:${row.id}`, row.name]));
    return {
      kind: 'live',
      source,
      filters: {
        signal: query.signal ?? null,
        symbol: symbol ?? null,
        assetClass: query.assetClass ?? null,
        timeframe: query.timeframe ?? null,
        period: query.period,
      },
      counts,
      ...scoreFields(report, (id) => names.get(id) ?? `Rule ${id.replace(/^rule:/, '')}`),
    };
  }

  return {
    /** Records the forecasts a card states; returns at once, never throws. */
    record(card: AvailableCard, origin: ForecastOrigin): void {
      try {
        recordDrafts(forecastsOfCard(card, origin));
      } catch (error) {
        log.error({ err: error }, 'track record: could not read the statement');
      }
    },
    recordDrafts,
    /** Writes what is queued (tests, shutdown). */
    flush,
    async close(): Promise<void> {
      await flush();
    },

    /** Settles due forecasts (the alert engine on shard 0's holder, after each pass; the test hook with a later `now`). */
    resolveDue(at: number = now()): Promise<ResolveSummary> {
      return resolveDueForecasts(db, at);
    },

    async trackRecord(query: TrackRecordQuery): Promise<LiveTrackRecord> {
      const symbol = query.symbol ? canonical(query.symbol) : undefined;
      const source = query.source ?? defaultSource(symbol, query.assetClass);
      const filters: LiveFilters = { ...query, symbol, source };
      const { report, counts } = await scoreForecasts(db, filters, now());
      return {
        kind: 'live',
        source,
        filters: {
          signal: query.signal ?? null,
          symbol: symbol ?? null,
          assetClass: query.assetClass ?? null,
          timeframe: query.timeframe ?? null,
          period: query.period,
        },
        counts,
        ...scoreFields(report),
      };
    },

    backtest,

    /**
     * "My rules" (issue 36): the trader's own rules' resolved forecasts scored like the product's
     * (reliability diagram, Brier skill), one row per rule (named by the rule's name while the
     * rule exists, else "Rule <id>"). Published or not: they are the trader's own.
     */
    async mine(userId: string, query: TrackRecordQuery): Promise<MyTrackRecord> {
      const record = await rulesRecord(query, { userId });
      // Every rule of the record, pending ones too: its flag and counts (one grouped read), its name.
      const grouped = await db
        .select({
          ruleId: forecasts.ruleId,
          published: sql<boolean>`bool_or(${forecasts.published})`,
          pending: sql<number>`(count(*) filter (where ${forecasts.status} = 'pending'))::int`,
          resolved: sql<number>`(count(*) filter (where ${forecasts.status} = 'resolved'))::int`,
          name: sql<string | null>`max(${alertRules.name})`,
        })
        .from(forecasts)
        .leftJoin(alertRules, and(eq(alertRules.id, forecasts.ruleId), eq(alertRules.userId, userId)))
        .where(and(eq(forecasts.origin, 'rule'), eq(forecasts.userId, userId)))
        .groupBy(forecasts.ruleId)
        .orderBy(forecasts.ruleId);
      return {
        ...record,
        rules: grouped.flatMap((row) =>
          row.ruleId === null
            ? []
            : [
                {
                  ruleId: row.ruleId,
                  name: row.name ?? `Rule ${row.ruleId}`,
                  published: row.published,
                  pending: row.pending,
                  resolved: row.resolved,
                },
              ],
        ),
      };
    },

    /** The rules traders published (issue 36): each scored like the product's, apart from it. */
    async publishedRules(query: TrackRecordQuery): Promise<LiveTrackRecord> {
      return rulesRecord(query, 'published');
    },

    /** Whether each rule's record is published: a new firing's forecast follows its rule's choice. */
    async publishedRuleIds(ruleIds: readonly number[]): Promise<Set<number>> {
      if (ruleIds.length === 0) return new Set();
      const rows = await db
        .selectDistinct({ ruleId: forecasts.ruleId })
        .from(forecasts)
        .where(
          and(eq(forecasts.origin, 'rule'), eq(forecasts.published, true), inArray(forecasts.ruleId, [...ruleIds])),
        );
      return new Set(rows.flatMap((row) => (row.ruleId === null ? [] : [row.ruleId])));
    },

    /** Publishes (or withdraws) a rule's record among the traders' published rules; 404 when the trader has none of that rule. */
    async publish(
      userId: string,
      ruleId: number,
      published: boolean,
    ): Promise<{ ruleId: number; published: boolean; forecasts: number }> {
      await flush();
      const rows = await db
        .update(forecasts)
        .set({ published })
        .where(and(eq(forecasts.origin, 'rule'), eq(forecasts.userId, userId), eq(forecasts.ruleId, ruleId)))
        .returning({ id: forecasts.id });
      if (rows.length === 0) throw notFound(`ruleId: no forecasts of rule ${ruleId} in your record yet`);
      return { ruleId, published, forecasts: rows.length };
    },

    /**
     * What the assistant can say about the record of the card's active signals on its timeframe
     * and source: the live record where forecasts were resolved, else this symbol's backtest.
     * Never throws (a citation is a bonus, not part of the answer).
     */
    async cite(card: AvailableCard): Promise<TrackRecordCitation[]> {
      try {
        const source = toSourceName(card.source);
        const { timeframe } = card;
        if (!isForecastTimeframe(timeframe)) return [];
        const stated = card.signals.filter((signal) => signal.active && signal.odds?.probability != null);
        if (stated.length === 0) return [];
        const { report } = await scoreForecasts(db, { timeframe, period: 'all', source }, now());
        const citations: TrackRecordCitation[] = [];
        const missing: string[] = [];
        for (const signal of stated) {
          const live = report.signals.find((entry) => entry.signal === signal.id);
          if (live && live.count > 0) citations.push(citation('live', source, card.timeframe, live));
          else missing.push(signal.id);
        }
        if (missing.length > 0 && options.analysis && card.timeframe in FORECAST_TIMEFRAMES) {
          const tested = await backtest({
            symbol: card.productId,
            timeframe: card.timeframe as WatosTimeframe,
          });
          for (const id of missing) {
            const entry = tested.signals.find((row) => row.signal === id);
            if (entry && entry.count > 0)
              citations.push(citation('backtest', tested.source, card.timeframe, entry, card.symbol));
          }
        }
        return citations;
      } catch (error) {
        log.warn({ err: error }, 'track record: no citation');
        return [];
      }
    },
  };
}

export type ForecastService = ReturnType<typeof createForecastService>;
