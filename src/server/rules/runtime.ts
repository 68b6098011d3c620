// The alert rules as the alert engine runs them: the active rules, reloaded only when the
// rules table changed; after each slice of a pass, each symbol that moved is handed to the
// evaluator, which touches only that symbol's rules; what fires is recorded and delivered
// (firings.ts). The engine calls this before it stores the slice's bars, so a pass cut short
// by a crash or a failover is re-run by the next leader from the same bars: its firings hit
// the unique key instead of firing twice, and none is missed.
import type { Database } from '../db/client.ts';
import type { AlertBus } from '../alerts/service.ts';
import type { MarketAnalysis } from '../analysis/service.ts';
import type { ForecastService } from '../forecasts/service.ts';
import { recordFirings, type RecordedFirings } from './firings.ts';
import { expireRules, loadActiveRules, rulesVersion, type EngineRule } from './store.ts';
import type { ActiveRule, FiringDraft, SymbolUpdate } from './types.ts';
import type { RuleTimeframe } from '../../shared/schemas/alertRules.ts';

export interface RuleEvaluatorLike {
  setRules(rules: readonly ActiveRule[]): void;
  symbols(): ReadonlySet<string>;
  evaluate(update: SymbolUpdate): Promise<FiringDraft[]>;
  retire(ruleId: number): void;
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
}

export interface RulesRuntime {
  /** Reloads the active rules when the table changed (and marks expired ones). */
  sync(): Promise<void>;
  /** Evaluates the symbols of a slice that have rules and records what fired. */
  onPass(updates: readonly SymbolUpdate[]): Promise<RecordedFirings>;
  /**
   * Test hook (TEST_HOOKS only): a one-minute bar closing at `price` for the symbol, as if its
   * demo feed had moved there, through the same evaluation, recording and delivery.
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

export function createRulesRuntime(options: RulesRuntimeOptions): RulesRuntime {
  const { db, evaluator, log } = options;
  const now = options.now ?? Date.now;
  let version: string | null = null;
  let rules = new Map<number, EngineRule>();
  let lastExpiry = 0;
  const syntheticTimes = new Map<string, number>();

  async function sync(): Promise<void> {
    // Expiry is checked at most once a minute; the evaluator also never fires past it.
    if (now() - lastExpiry >= MINUTE) {
      lastExpiry = now();
      await expireRules(db, new Date(now()));
    }
    const current = await rulesVersion(db);
    if (current === version) return;
    const loaded = await loadActiveRules(db, new Date(now()));
    rules = new Map(loaded.map((rule) => [rule.id, rule]));
    evaluator.setRules(loaded);
    version = current;
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
    for (const ruleId of recorded.retired) {
      evaluator.retire(ruleId);
      rules.delete(ruleId);
    }
    return recorded;
  }

  return {
    sync,
    onPass,
    async priceUpdate(symbol, price) {
      await sync();
      const minute = Math.floor(now() / MINUTE) * MINUTE;
      const time = Math.max(minute, (syntheticTimes.get(symbol) ?? 0) + MINUTE);
      syntheticTimes.set(symbol, time);
      const bar = { time, open: price, high: price, low: price, close: price, volume: 0 };
      return onPass([{ productId: symbol, source: 'demo', minutes: [bar], hours: [], alerts: [] }]);
    },
  };
}
