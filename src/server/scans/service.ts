// The scanner (issue 36): the public surface of the feature. Running a scan over the universe
// (engine.ts, conditions.ts), the presets, a user's saved scans (the only module that writes
// `saved_scans`), and "alert me when a symbol enters this scan": a rule of the rules feature
// (symbol '*', condition { kind: 'scan_entry', scanId }) that the rules runtime hands to this
// feature's entry evaluator on each engine pass (createScanEntryEvaluator).
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { parseAlertTimestamp, formatAlertTimestamp } from '../../shared/alertDisplay.ts';
import { formatPrice } from '../../shared/format.ts';
import type { RuleChannel } from '../../shared/schemas/alertRules.ts';
import {
  SAVED_SCANS_MAX,
  type SavedScan,
  type SavedScanBody,
  type ScanCondition,
  type ScanRequest,
} from '../../shared/schemas/scans.ts';
import type { MarketSymbol } from '../../shared/symbolTable.ts';
import { queryAlerts } from '../alerts/service.ts';
import type { Database } from '../db/client.ts';
import { onlyRow } from '../db/rows.ts';
import { savedScans } from '../db/schema.ts';
import { conflict, notFound } from '../errors/domain.ts';
import { lastCandleTimes, latestCandles, latestCandlesOf } from '../market/service.ts';
import {
  deleteScanEntryRule,
  scanEntryRuleIds,
  updateScanEntryRule,
  upsertScanEntryRule,
  type FiringDraft,
  type RuleLimits,
  type ScanEntryEvaluator,
  type ScanEntryRule,
} from '../rules/service.ts';
import { baseGranularity, type ScanAlert } from './conditions.ts';
import { verdictAt, type ScanCandleSource, type ScanEngine } from './engine.ts';

export { createScanEngine, type ScanCandleSource } from './engine.ts';

/** The candle store as the engine reads it (market/service.ts). */
export function storedCandleSource(db: Database): ScanCandleSource {
  return {
    newestTimes: (productIds) => lastCandleTimes(db, productIds),
    latest: (productId, granularity, limit) => latestCandles(db, productId, granularity, limit),
    latestMany: (productIds, granularity, limit) => latestCandlesOf(db, productIds, granularity, limit),
  };
}

/** The stored built-in alerts since a moment (the alert log), for the `builtin` condition. */
export function storedAlerts(db: Database): (since: Date) => Promise<ScanAlert[]> {
  return async (since) => {
    const now = new Date();
    const records = await queryAlerts(
      db,
      { start_time: formatAlertTimestamp(since), end_time: formatAlertTimestamp(now), max_count: 50_000 },
      now,
    );
    return records.map((record) => ({
      ticker: record.ticker,
      alertType: record.alert_type,
      time: parseAlertTimestamp(record.timestamp).getTime(),
    }));
  };
}

type SavedRow = typeof savedScans.$inferSelect;

function toSavedScan(row: SavedRow, alertRuleId: number | null): SavedScan {
  return {
    id: row.id,
    name: row.name,
    timeframe: row.timeframe,
    conditions: row.conditions,
    createdAt: row.createdAt.toISOString(),
    alertRuleId,
  };
}

const SCAN_NOT_FOUND = 'No such saved scan';
const duplicateName = (name: string) =>
  conflict(`name: you already have a saved scan named '${name}'; pick another name`);

/** A unique-violation of (user, name), from either driver. */
function isDuplicateName(error: unknown): boolean {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).code ??
    (error as { cause?: { code?: unknown } }).cause?.code;
  return code === '23505';
}

export interface ScanServiceOptions {
  db: Database;
  engine: ScanEngine;
  /** The caps of the user's alert rules (a scan's alert is one of them). */
  ruleLimits: Pick<RuleLimits, 'maxActive' | 'maxTotal'>;
}

export function createScanService(options: ScanServiceOptions) {
  const { db, engine } = options;

  async function ownScan(userId: string, id: number): Promise<SavedRow> {
    const [row] = await db
      .select()
      .from(savedScans)
      .where(and(eq(savedScans.id, id), eq(savedScans.userId, userId)));
    if (!row) throw notFound(SCAN_NOT_FOUND);
    return row;
  }

  async function withRule(userId: string, row: SavedRow): Promise<SavedScan> {
    const rules = await scanEntryRuleIds(db, userId, [row.id]);
    return toSavedScan(row, rules.get(row.id) ?? null);
  }

  return {
    run: (request: ScanRequest) => engine.run(request),

    async list(userId: string): Promise<SavedScan[]> {
      const rows = await db.select().from(savedScans).where(eq(savedScans.userId, userId)).orderBy(asc(savedScans.id));
      const rules = await scanEntryRuleIds(
        db,
        userId,
        rows.map((row) => row.id),
      );
      return rows.map((row) => toSavedScan(row, rules.get(row.id) ?? null));
    },

    async create(userId: string, body: SavedScanBody): Promise<SavedScan> {
      try {
        const row = await db.transaction(async (tx) => {
          const { total } = onlyRow(
            await tx.select({ total: count() }).from(savedScans).where(eq(savedScans.userId, userId)),
          );
          if (total >= SAVED_SCANS_MAX)
            throw conflict(
              `You have ${SAVED_SCANS_MAX} saved scans, the most allowed: delete one before saving another`,
            );
          return onlyRow(
            await tx
              .insert(savedScans)
              .values({ userId, ...body })
              .returning(),
          );
        });
        return toSavedScan(row, null);
      } catch (error) {
        if (isDuplicateName(error)) throw duplicateName(body.name);
        throw error;
      }
    },

    async update(userId: string, id: number, body: SavedScanBody): Promise<SavedScan> {
      await ownScan(userId, id);
      let row: SavedRow;
      try {
        row = onlyRow(
          await db
            .update(savedScans)
            .set({ ...body, updatedAt: new Date() })
            .where(and(eq(savedScans.id, id), eq(savedScans.userId, userId)))
            .returning(),
        );
      } catch (error) {
        if (isDuplicateName(error)) throw duplicateName(body.name);
        throw error;
      }
      await updateScanEntryRule(db, userId, { scanId: id, scanName: row.name, timeframe: row.timeframe });
      return withRule(userId, row);
    },

    async remove(userId: string, id: number): Promise<void> {
      await ownScan(userId, id);
      await deleteScanEntryRule(db, userId, id);
      await db.delete(savedScans).where(and(eq(savedScans.id, id), eq(savedScans.userId, userId)));
    },

    /** "Alert me when a symbol enters this scan": creates (or re-arms) the scan's rule. */
    async createAlert(userId: string, id: number, channels: RuleChannel[]): Promise<SavedScan> {
      const row = await ownScan(userId, id);
      await upsertScanEntryRule(
        db,
        userId,
        { scanId: id, scanName: row.name, timeframe: row.timeframe, channels },
        options.ruleLimits,
      );
      return withRule(userId, row);
    },

    async deleteAlert(userId: string, id: number): Promise<SavedScan> {
      const row = await ownScan(userId, id);
      if (!(await deleteScanEntryRule(db, userId, id))) throw notFound('This saved scan has no alert');
      return toSavedScan(row, null);
    },
  };
}

export type ScanService = ReturnType<typeof createScanService>;

/** Bars of one timeframe are keyed per symbol; the symbol's index in the universe fits in 12 bits. */
const SYMBOL_SLOTS = 4096;

/**
 * The trigger key of a scan entry: (bar open time in minutes) * 4096 + the symbol's index in the
 * universe, unique per (rule, symbol, bar) and well inside a bigint (and a double's 2^53).
 */
export function scanEntryKey(barTime: number, symbolIndex: number): number {
  return Math.floor(barTime / 60_000) * SYMBOL_SLOTS + symbolIndex;
}

export interface ScanEntryEvaluatorOptions {
  engine: ScanEngine;
  /** The saved scans the rules watch, by id (the database in the app). */
  loadScans(
    ids: readonly number[],
  ): Promise<Map<number, { name: string; timeframe: SavedScan['timeframe']; conditions: ScanCondition[] }>>;
  now?: () => number;
}

/** The saved scans by id, from the database. */
export function storedScans(db: Database): ScanEntryEvaluatorOptions['loadScans'] {
  return async (ids) => {
    const result = new Map<number, { name: string; timeframe: SavedScan['timeframe']; conditions: ScanCondition[] }>();
    if (ids.length === 0) return result;
    const rows = await db
      .select()
      .from(savedScans)
      .where(inArray(savedScans.id, [...ids]));
    for (const row of rows)
      result.set(row.id, { name: row.name, timeframe: row.timeframe, conditions: row.conditions });
    return result;
  };
}

/**
 * The scan-entry rules on the engine's pass (see rules/types.ts ScanEntryEvaluator). Each
 * update's bars are folded into the engine's held series first (the pass runs before the store
 * write). Then, per rule and per symbol of the slice, every bar of the scan's timeframe that
 * closed since the last one evaluated (on first sight: the newest closed bar only) is judged
 * with the bar before it: matched now and not before fires, keyed by scanEntryKey. The bars
 * judged are the ones the pass just closed, so an entry fires on the pass that closes its bar.
 */
export function createScanEntryEvaluator(options: ScanEntryEvaluatorOptions): ScanEntryEvaluator {
  const { engine } = options;
  const now = options.now ?? Date.now;
  const indexOf = new Map<string, { symbol: MarketSymbol; index: number }>(
    engine.universe.map((symbol, index) => [symbol.id, { symbol, index }]),
  );
  if (engine.universe.length > SYMBOL_SLOTS) throw new RangeError(`at most ${SYMBOL_SLOTS} symbols`);
  /** `${ruleId}|${symbol}` -> the open time of the last bar judged. */
  const judged = new Map<string, number>();

  return {
    async evaluate(updates, rules) {
      const at = now();
      const scans = await options.loadScans(rules.length > 0 ? [...new Set(rules.map((rule) => rule.scanId))] : []);
      const wanted = new Set<60 | 3600>();
      for (const rule of rules) {
        const scan = scans.get(rule.scanId);
        if (scan) wanted.add(baseGranularity(scan.timeframe));
      }
      const moved = updates.flatMap((update) => indexOf.get(update.productId)?.symbol ?? []);
      // Bars stored since they were read (a backfill, another leader's passes) are read first, and
      // the symbols not held yet in batches (ingest would read them one at a time).
      if (rules.length > 0)
        for (const granularity of wanted) {
          await engine.refresh(moved, granularity);
          await engine.hold(moved, granularity);
        }
      for (const update of updates) {
        const known = indexOf.get(update.productId);
        if (!known) continue;
        if (wanted.has(3600) || engine.holds(known.symbol, 3600))
          await engine.ingest(known.symbol, 3600, update.hours, update.source);
        if (wanted.has(60) || engine.holds(known.symbol, 60))
          await engine.ingest(known.symbol, 60, update.minutes, update.source);
      }
      const drafts: FiringDraft[] = [];
      for (const rule of rules) {
        const scan = scans.get(rule.scanId);
        if (!scan) continue;
        const alerts = await engine.alerts(scan, at);
        for (const update of updates) {
          const known = indexOf.get(update.productId);
          if (!known) continue;
          const prepared = await engine.seriesOf(known.symbol, scan.timeframe, at);
          if (!prepared || prepared.bars.length < 2) continue;
          const { bars } = prepared;
          const key = `${rule.id}|${known.symbol.id}`;
          const last = judged.get(key);
          const newest = bars.length - 1;
          if (last !== undefined && bars.time[newest]! <= last) continue;
          let from = newest;
          if (last !== undefined) while (from > 1 && bars.time[from - 1]! > last) from -= 1;
          for (let index = Math.max(1, from); index <= newest; index += 1) {
            const time = bars.time[index]!;
            if (rule.expiresAt !== null && time >= rule.expiresAt) continue;
            if (!verdictAt(prepared, scan.conditions, index, alerts).matched) continue;
            if (verdictAt(prepared, scan.conditions, index - 1, alerts).matched) continue;
            drafts.push(entryDraft(rule, scan.name, scan.timeframe, known, time, bars.close[index]!, prepared.source));
          }
          judged.set(key, bars.time[newest]!);
        }
      }
      return drafts;
    },
  };
}

function entryDraft(
  rule: ScanEntryRule,
  scanName: string,
  timeframe: string,
  known: { symbol: MarketSymbol; index: number },
  time: number,
  price: number,
  source: string,
): FiringDraft {
  return {
    ruleId: rule.id,
    userId: rule.userId,
    symbol: known.symbol.id,
    triggerKey: scanEntryKey(time, known.index),
    barTime: time,
    price,
    message: `${known.symbol.ticker} entered the scan '${scanName}' (${timeframe}) at ${formatPrice(price)}`,
    source,
  };
}
