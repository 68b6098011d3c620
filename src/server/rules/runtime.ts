// The alert rules as the alert engine and the live feed run them: the active rules, reloaded
// only when the rules table changed; after each slice of a pass, each symbol that moved is
// handed to the evaluator, which touches only that symbol's rules; what fires is recorded and
// delivered (firings.ts). The engine calls this before it stores the slice's bars, so a pass
// cut short by a crash or a failover is re-run by the symbol's next owner from the same bars: its
// firings hit the unique key instead of firing twice, and none is missed.
// Ticks (issue 34): the owner of a symbol's feed hands each tick of tickSymbols() to onTick,
// which evaluates the price rules at once and records what fired in a short batch (drafts of a
// few milliseconds together, in order, retried on a database error); the same unique key makes
// a tick replayed after a restart or by the next owner fire nothing twice.
import pRetry from 'p-retry';
import type { Database } from '../db/client.ts';
import type { AlertBus } from '../alerts/service.ts';
import type { MarketAnalysis } from '../analysis/service.ts';
import type { ForecastService } from '../forecasts/service.ts';
import { recordFirings, type RecordedFirings } from './firings.ts';
import { expireRules, loadActiveRules, loadScanEntryRules, rulesVersion, type EngineRule } from './store.ts';
import type { ActiveRule, FiringDraft, ScanEntryEvaluator, ScanEntryRule, SymbolUpdate } from './types.ts';
import type { RuleCondition, RuleTimeframe } from '../../shared/schemas/alertRules.ts';
import type { LiveTick } from '../../shared/schemas/live.ts';

export interface RuleEvaluatorLike {
  setRules(rules: readonly ActiveRule[]): void;
  symbols(): ReadonlySet<string>;
  evaluate(update: SymbolUpdate): Promise<FiringDraft[]>;
  retire(ruleId: number): void;
  evaluateTick(tick: LiveTick): FiringDraft[];
  tickSymbols(): ReadonlySet<string>;
  prepareTicks(): Promise<void>;
}

export interface RulesRuntimeOptions {
  db: Database;
  bus: AlertBus;
  evaluator: RuleEvaluatorLike;
  /** The durable delivery queue's enqueue. */
  enqueue(deliveryIds: number[]): Promise<void>;
  log: { warn(details: object, message: string): void; error(details: object, message: string): void };
  now?: () => number;
  /**
   * A WATOS-odds rule fired: its alert states an edge, so the odds behind it are recorded in the
   * track record (origin 'alert'). Called after the firing is recorded; never awaited by the pass.
   */
  onStatedOdds?(symbol: string, timeframe: RuleTimeframe): Promise<unknown>;
  /**
   * Rules fired (issue 36): each firing becomes a forecast of the trader's own record (origin
   * 'rule', studies/ruleForecasts.ts). Called after the firings are recorded; never awaited.
   */
  onRuleFirings?(fired: RuleFiringFact[]): Promise<unknown>;
  /**
   * The scan-entry rules' evaluator (the scans feature): handed every update of each pass with
   * the active scan-entry rules. Without it those rules stay silent.
   */
  scanEntries?: ScanEntryEvaluator;
  /** How long tick firings wait for others before they are recorded together (ms; default 5). */
  tickBatchMs?: number;
  /** The wait before a tick batch that failed to record is tried again (ms; default 1,000). */
  tickRetryMs?: number;
  /**
   * While ticks arrive, the rules are reloaded (when the table changed) at most this often, so
   * a new rule is live within about this long without waiting for the engine's pass (ms;
   * default 1,000; 0: only the engine's pass and priceUpdate reload them).
   */
  tickSyncMs?: number;
}

/** A recorded firing with its rule's condition: what onRuleFirings is handed. */
interface RuleFiringFact {
  ruleId: number;
  userId: string;
  firingId: number;
  symbol: string;
  timeframe: RuleTimeframe;
  condition: RuleCondition;
  /** Open time (ms) of the one-minute bar that triggered it. */
  barTime: number;
  price: number;
  source: string;
}

export interface RulesRuntime {
  /** Reloads the active rules when the table changed (and marks expired ones). */
  sync(): Promise<void>;
  /** Evaluates the symbols of a slice that have rules and records what fired. */
  onPass(updates: readonly SymbolUpdate[]): Promise<RecordedFirings>;
  /**
   * A tick of a symbol's feed: its price rules are evaluated now, what fired is recorded in a
   * batch a few milliseconds later. Never throws (errors are logged); cheap for a symbol
   * without tick rules.
   */
  onTick(tick: LiveTick): void;
  /**
   * Records the tick firings still waiting; resolves with what was recorded from ticks since
   * the last call (tests and benches: the newest 10,000 firings at most).
   */
  flushTicks(): Promise<RecordedFirings>;
  /** The symbols with rules evaluated on ticks: the ones whose ticks onTick wants. */
  tickSymbols(): ReadonlySet<string>;
  /**
   * Test hook (TEST_HOOKS only): the symbol's price moves to `price`, as if its demo feed had
   * moved there: a tick at `price` (the tick rules) in a minute of its own, then that minute's
   * bar closing at `price` (the close-only and indicator rules), through the same evaluation,
   * recording and delivery.
   */
  priceUpdate(symbol: string, price: number): Promise<RecordedFirings>;
}

/**
 * The `onStatedOdds` of the app: the WATOS card of the rule's symbol and timeframe from market
 * analysis (the grid's own card, cached per bar), recorded in the track record as origin 'alert'.
 */
export function recordStatedOdds(
  analysis: Pick<MarketAnalysis, 'watos'>,
  forecasts: Pick<ForecastService, 'record'>,
): NonNullable<RulesRuntimeOptions['onStatedOdds']> {
  return async (symbol, timeframe) => {
    const card = await analysis.watos(symbol, timeframe === '1D' ? 'D' : timeframe);
    forecasts.record(card, 'alert');
  };
}

const MINUTE = 60_000;
const EMPTY: RecordedFirings = { firings: [], retired: [], queued: [] };
/**
 * A tick batch that failed this many times is dropped (logged): the database is not coming back
 * soon. Attempts are tickRetryMs apart, doubling up to 4x (p-retry): 1, 2, 4, 4 s by default.
 */
const TICK_ATTEMPTS = 5;
/** Tick firings kept for flushTicks (the newest batches); nothing calls it in production. */
const KEPT_FIRINGS = 10_000;

function merge(into: RecordedFirings, from: RecordedFirings): RecordedFirings {
  if (from.firings.length === 0 && from.retired.length === 0 && from.queued.length === 0) return into;
  return {
    firings: [...into.firings, ...from.firings],
    retired: [...into.retired, ...from.retired],
    queued: [...into.queued, ...from.queued],
  };
}

export function createRulesRuntime(options: RulesRuntimeOptions): RulesRuntime {
  const { db, evaluator, log } = options;
  const now = options.now ?? Date.now;
  let version: string | null = null;
  let rules = new Map<number, EngineRule>();
  let scanRules: ScanEntryRule[] = [];
  let lastExpiry = 0;
  const syntheticTimes = new Map<string, number>();
  const tickBatchMs = options.tickBatchMs ?? 5;
  const tickRetryMs = options.tickRetryMs ?? 1000;
  const tickSyncMs = options.tickSyncMs ?? 1000;
  let syncing: Promise<void> | null = null;
  let lastTickSync = -Infinity;

  /** One reload at a time: the engine's pass and the ticks' periodic one share it. */
  function sync(): Promise<void> {
    syncing ??= reload().finally(() => {
      syncing = null;
    });
    return syncing;
  }

  async function reload(): Promise<void> {
    // Expiry is checked at most once a minute; the evaluator also never fires past it.
    if (now() - lastExpiry >= MINUTE) {
      lastExpiry = now();
      await expireRules(db, new Date(now()));
    }
    const current = await rulesVersion(db);
    if (current === version) return;
    const loaded = await loadActiveRules(db, new Date(now()));
    const scans = options.scanEntries ? await loadScanEntryRules(db, new Date(now())) : [];
    rules = new Map([...loaded, ...scans.map((entry) => entry.engine)].map((rule) => [rule.id, rule]));
    scanRules = scans.map((entry) => entry.rule);
    evaluator.setRules(loaded);
    version = current;
    // The first tick of a symbol compares with its last close: read it before ticks count on it.
    await evaluator.prepareTicks();
  }

  async function onPass(updates: readonly SymbolUpdate[]): Promise<RecordedFirings> {
    const ruled = evaluator.symbols();
    const drafts: FiringDraft[] = [];
    for (const update of updates) {
      if (!ruled.has(update.productId)) continue;
      try {
        drafts.push(...(await evaluator.evaluate(update)));
      } catch (error) {
        // One symbol's evaluation failing must not stop the engine or the other symbols.
        log.error({ err: error, productId: update.productId }, 'alert rules: evaluation failed for this symbol');
      }
    }
    if (options.scanEntries) {
      // Every pass, with or without scan rules: the scan engine keeps its held series current.
      try {
        drafts.push(...(await options.scanEntries.evaluate(updates, scanRules)));
      } catch (error) {
        log.error({ err: error }, 'alert rules: scan-entry evaluation failed for this pass');
      }
    }
    return record(drafts);
  }

  /** Records drafts, starts the WATOS odds of the ones that state odds, retires fired "once" rules. */
  async function record(drafts: readonly FiringDraft[]): Promise<RecordedFirings> {
    if (drafts.length === 0) return EMPTY;
    const recorded = await recordFirings(
      db,
      drafts,
      rules,
      { bus: options.bus, enqueue: (ids) => options.enqueue(ids), log },
      new Date(now()),
    );
    if (options.onStatedOdds) {
      const stated = new Set<string>();
      for (const { firing } of recorded.firings) {
        const rule = rules.get(firing.ruleId);
        if (rule?.condition.kind !== 'watos_odds') continue;
        const key = `${rule.symbol}|${rule.timeframe}`;
        if (stated.has(key)) continue;
        stated.add(key);
        options.onStatedOdds(rule.symbol, rule.timeframe).catch((error: unknown) => {
          log.warn(
            { err: error, symbol: rule.symbol },
            'track record: the odds behind a WATOS alert were not recorded',
          );
        });
      }
    }
    if (options.onRuleFirings && recorded.firings.length > 0) {
      const facts: RuleFiringFact[] = [];
      for (const { userId, firing } of recorded.firings) {
        const rule = rules.get(firing.ruleId);
        if (!rule) continue;
        facts.push({
          ruleId: firing.ruleId,
          userId,
          firingId: firing.id,
          symbol: firing.symbol,
          timeframe: rule.timeframe,
          condition: rule.condition,
          barTime: Date.parse(firing.barTime),
          price: firing.price,
          source: firing.source,
        });
      }
      if (facts.length > 0)
        options.onRuleFirings(facts).catch((error: unknown) => {
          log.warn({ err: error }, 'track record: rule firings were not recorded as forecasts');
        });
    }
    for (const ruleId of recorded.retired) {
      evaluator.retire(ruleId);
      rules.delete(ruleId);
    }
    return recorded;
  }

  // Tick firings: gathered for tickBatchMs, then recorded one batch after another (in order, so
  // a retried batch never overtakes a later one's "once" retirement).
  let pending: FiringDraft[] = [];
  let batchTimer: ReturnType<typeof setTimeout> | null = null;
  let recording: Promise<void> = Promise.resolve();
  // The batches' results since the last flushTicks, the oldest dropped beyond KEPT_FIRINGS.
  const kept: RecordedFirings[] = [];
  let keptFirings = 0;

  function startBatch(): void {
    if (batchTimer) clearTimeout(batchTimer);
    batchTimer = null;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    recording = recording.then(() => recordBatch(batch));
  }

  async function recordBatch(batch: FiringDraft[]): Promise<void> {
    try {
      // Safe to try again: a draft already recorded hits the unique key.
      const result = await pRetry(() => record(batch), {
        retries: TICK_ATTEMPTS - 1,
        minTimeout: tickRetryMs,
        maxTimeout: 4 * tickRetryMs,
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft > 0)
            log.warn({ err: error, attempt: attemptNumber }, 'alert rules: tick firings not recorded, trying again');
        },
      });
      if (result.firings.length > 0 || result.retired.length > 0) {
        kept.push(result);
        keptFirings += result.firings.length;
        while (keptFirings > KEPT_FIRINGS && kept.length > 1) keptFirings -= kept.shift()!.firings.length;
      }
    } catch (error) {
      log.error({ err: error, firings: batch.length }, 'alert rules: tick firings not recorded, dropped');
    }
  }

  function onTick(tick: LiveTick): void {
    if (tickSyncMs > 0 && now() - lastTickSync >= tickSyncMs) {
      lastTickSync = now();
      sync().catch((error: unknown) => log.warn({ err: error }, 'alert rules: reload for ticks failed'));
    }
    let drafts: FiringDraft[];
    try {
      drafts = evaluator.evaluateTick(tick);
    } catch (error) {
      // A feed must never see an evaluation error; the symbol's next tick is evaluated again.
      log.error({ err: error, symbol: tick.symbol }, 'alert rules: tick evaluation failed for this symbol');
      return;
    }
    if (drafts.length === 0) return;
    for (const draft of drafts) pending.push(draft);
    batchTimer ??= setTimeout(startBatch, tickBatchMs);
  }

  async function flushTicks(): Promise<RecordedFirings> {
    // Batches started while one was awaited (ticks keep coming) are recorded and awaited too.
    let current: Promise<void>;
    do {
      startBatch();
      current = recording;
      await current;
    } while (current !== recording || pending.length > 0);
    const result = kept.reduce(merge, EMPTY);
    kept.length = 0;
    keptFirings = 0;
    return result;
  }

  return {
    sync,
    onPass,
    onTick,
    flushTicks,
    tickSymbols: () => evaluator.tickSymbols(),
    async priceUpdate(symbol, price) {
      await sync();
      const minute = Math.floor(now() / MINUTE) * MINUTE;
      const time = Math.max(minute, (syntheticTimes.get(symbol) ?? 0) + MINUTE);
      syntheticTimes.set(symbol, time);
      // The tick first (its minute is then covered, so the bar leaves the tick rules alone).
      const drafts = evaluator.evaluateTick({ symbol, price, time, source: 'demo', delayMinutes: 0, bar: null });
      const fromTick = await record(drafts);
      const bar = { time, open: price, high: price, low: price, close: price, volume: 0 };
      const fromBar = await onPass([{ productId: symbol, source: 'demo', minutes: [bar], hours: [], alerts: [] }]);
      return merge(fromTick, fromBar);
    },
  };
}
