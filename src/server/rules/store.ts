// Alert rules in the database: a user's rules (create, edit, pause, resume, delete) with the
// per-user caps on active rules and on all rules, the active rules the engine evaluates, and
// the rules, the Triggered list and the delivery log read back a page at a time. The only module that writes `alert_rules`; firings.ts writes
// `rule_firings` and `rule_deliveries`.
import { and, count, desc, eq, gt, inArray, isNull, lt, lte, max, ne, or, sql, type Column } from 'drizzle-orm';
import { isIP } from 'node:net';
import type { Database } from '../db/client.ts';
import { classifyAddress } from '../http/outboundGuard.ts';
import { alertRules, ruleDeliveries, ruleFirings } from '../db/schema.ts';
import { onlyRow } from '../db/rows.ts';
import { conflict, invalid, notFound } from '../errors/domain.ts';
import {
  describeCondition,
  RULE_NAME_MAX,
  type AlertRule,
  type ParsedRuleInput,
  type RuleChannel,
  type RuleCondition,
  type RuleDelivery,
  type RuleFiring,
  type RuleStatus,
  type RuleTimeframe,
} from '../../shared/schemas/alertRules.ts';
import { symbolById, tickerOf } from '../../shared/tickers.ts';
import {
  isScanEntryCondition,
  SCAN_RULE_SYMBOL,
  type ActiveRule,
  type ScanEntryCondition,
  type ScanEntryRule,
} from './types.ts';

type RuleRow = typeof alertRules.$inferSelect;

export interface RuleLimits {
  /** Active rules one user may hold (ALERT_RULES_MAX_ACTIVE). */
  maxActive: number;
  /** Rules of any status one user may hold (ALERT_RULES_MAX_TOTAL): pausing must not make room without end. */
  maxTotal: number;
  /** A loopback deployment may send webhooks to http:// and private addresses (a bot on the same machine). */
  allowPrivateTargets: boolean;
}

const tickerOfSymbol = (symbol: string) => symbolById(symbol)?.ticker ?? tickerOf(symbol);

function toAlertRule(row: RuleRow): AlertRule {
  const { condition, timeframe } = row;
  const ticker = tickerOfSymbol(row.symbol);
  return {
    id: row.id,
    name: row.name,
    symbol: row.symbol,
    ticker,
    timeframe,
    condition,
    trigger: row.trigger,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    message: row.message,
    channels: row.channels,
    webhookUrl: row.webhookUrl,
    status: row.status,
    description: `${describeCondition(condition, ticker)} (${timeframe})`,
    triggerCount: row.triggerCount,
    lastTriggeredAt: row.lastTriggeredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The checks the schema cannot make: an expiry in the future, and a webhook address a public
 * deployment may call (https, not a literal private address or a local name; the delivery's
 * guard re-checks the resolved address of every request).
 */
function checkInput(input: ParsedRuleInput, limits: RuleLimits, now: Date): void {
  if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime()) throw invalid('expiresAt must be in the future');
  if (!input.channels.includes('webhook') || !input.webhookUrl || limits.allowPrivateTargets) return;
  const url = new URL(input.webhookUrl);
  if (url.protocol !== 'https:') throw invalid('webhookUrl must start with https://');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || isIP(host) !== 0) {
    if (isIP(host) === 0 || classifyAddress(host) !== null)
      throw invalid(`webhookUrl points to a private or loopback address (${host})`);
  }
}

function rowValues(input: ParsedRuleInput) {
  const ticker = tickerOfSymbol(input.symbol);
  const described = describeCondition(input.condition, ticker);
  return {
    name: (input.name?.trim() || described).slice(0, RULE_NAME_MAX),
    symbol: input.symbol,
    timeframe: input.timeframe,
    condition: input.condition,
    trigger: input.trigger,
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
    message: input.message?.trim() || null,
    channels: input.channels,
    webhookUrl: input.channels.includes('webhook') ? (input.webhookUrl ?? null) : null,
  };
}

/** Serialises a user's rule changes (PostgreSQL; on PGlite a transaction holds its one backend anyway), so two requests cannot pass the cap together. */
async function lockUser(tx: Pick<Database, 'execute'>, userId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`alert-rules:${userId}`}))`);
}

async function assertUnderCap(tx: Database, userId: string, limits: RuleLimits, exceptId?: number) {
  const { active } = onlyRow(
    await tx
      .select({ active: count() })
      .from(alertRules)
      .where(
        and(
          eq(alertRules.userId, userId),
          eq(alertRules.status, 'active'),
          exceptId === undefined ? undefined : sql`${alertRules.id} <> ${exceptId}`,
        ),
      ),
  );
  if (active >= limits.maxActive)
    throw conflict(
      `You have ${limits.maxActive} active alert rules, the most allowed: pause or delete one before adding another`,
    );
}

async function assertUnderTotal(tx: Database, userId: string, limits: RuleLimits) {
  const { total } = onlyRow(await tx.select({ total: count() }).from(alertRules).where(eq(alertRules.userId, userId)));
  if (total >= limits.maxTotal)
    throw conflict(
      `You have ${limits.maxTotal} alert rules, the most allowed (paused ones count too): delete one before adding another`,
    );
}

/** Where a list reads from: the page after `cursor` (the last id of the page before), newest first. */
export interface PageRequest {
  cursor?: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Rows after the cursor, newest id first; one more than a page is read to know whether another follows. */
const afterCursor = (id: Column, cursor: number | undefined) => (cursor === undefined ? undefined : lt(id, cursor));

function toPage<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? String(last.id) : null };
}

/** A page of a user's rules, newest first, of one status when given. */
export async function listRules(
  db: Database,
  userId: string,
  page: PageRequest & { status?: RuleStatus },
): Promise<Page<AlertRule>> {
  const rows = await db
    .select()
    .from(alertRules)
    .where(
      and(
        eq(alertRules.userId, userId),
        // Scan-entry rules are the scanner's (GET /api/scans), never the rule form's.
        ne(alertRules.symbol, SCAN_RULE_SYMBOL),
        page.status === undefined ? undefined : eq(alertRules.status, page.status),
        afterCursor(alertRules.id, page.cursor),
      ),
    )
    .orderBy(desc(alertRules.id))
    .limit(page.limit + 1);
  const { items, nextCursor } = toPage(rows, page.limit);
  return { items: items.map(toAlertRule), nextCursor };
}

/** How many rules a user holds, all and active (the caps the list shows against). */
export async function countRules(db: Database, userId: string): Promise<{ total: number; active: number }> {
  return onlyRow(
    await db
      .select({
        total: count(),
        active: sql<number>`count(*) filter (where ${alertRules.status} = 'active')`.mapWith(Number),
      })
      .from(alertRules)
      .where(eq(alertRules.userId, userId)),
  );
}

export async function createRule(
  db: Database,
  userId: string,
  input: ParsedRuleInput,
  limits: RuleLimits,
  now = new Date(),
): Promise<AlertRule> {
  checkInput(input, limits, now);
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    await assertUnderTotal(tx, userId, limits);
    await assertUnderCap(tx, userId, limits);
    const row = onlyRow(
      await tx
        .insert(alertRules)
        .values({ userId, ...rowValues(input), status: 'active' })
        .returning(),
    );
    return toAlertRule(row);
  });
}

const RULE_NOT_FOUND = 'No such alert rule';

/** Replaces a rule's definition; an edited rule is active again (a fired "once" rule is re-armed). */
export async function updateRule(
  db: Database,
  userId: string,
  id: number,
  input: ParsedRuleInput,
  limits: RuleLimits,
  now = new Date(),
): Promise<AlertRule> {
  checkInput(input, limits, now);
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const [existing] = await tx
      .select({ status: alertRules.status })
      .from(alertRules)
      .where(and(eq(alertRules.id, id), eq(alertRules.userId, userId), ne(alertRules.symbol, SCAN_RULE_SYMBOL)));
    if (!existing) throw notFound(RULE_NOT_FOUND);
    // A paused rule stays paused when edited; anything else is armed again.
    const status = existing.status === 'paused' ? 'paused' : 'active';
    if (status === 'active') await assertUnderCap(tx, userId, limits, id);
    const row = onlyRow(
      await tx
        .update(alertRules)
        .set({ ...rowValues(input), status, updatedAt: now })
        .where(and(eq(alertRules.id, id), eq(alertRules.userId, userId)))
        .returning(),
    );
    return toAlertRule(row);
  });
}

/** Pauses or resumes a rule. Resuming a past-expiry rule is refused; resuming a fired "once" rule re-arms it. */
export async function setRuleStatus(
  db: Database,
  userId: string,
  id: number,
  status: 'active' | 'paused',
  limits: RuleLimits,
  now = new Date(),
): Promise<AlertRule> {
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const [existing] = await tx
      .select()
      .from(alertRules)
      .where(and(eq(alertRules.id, id), eq(alertRules.userId, userId), ne(alertRules.symbol, SCAN_RULE_SYMBOL)));
    if (!existing) throw notFound(RULE_NOT_FOUND);
    if (existing.status === status) return toAlertRule(existing);
    if (status === 'active') {
      if (existing.expiresAt && existing.expiresAt.getTime() <= now.getTime())
        throw conflict('This rule has expired: edit it with a later expiry to use it again');
      await assertUnderCap(tx, userId, limits, id);
    }
    const row = onlyRow(
      await tx
        .update(alertRules)
        .set({ status, updatedAt: now })
        .where(and(eq(alertRules.id, id), eq(alertRules.userId, userId)))
        .returning(),
    );
    return toAlertRule(row);
  });
}

export async function deleteRule(db: Database, userId: string, id: number): Promise<void> {
  const deleted = await db
    .delete(alertRules)
    .where(and(eq(alertRules.id, id), eq(alertRules.userId, userId), ne(alertRules.symbol, SCAN_RULE_SYMBOL)))
    .returning({ id: alertRules.id });
  if (deleted.length === 0) throw notFound(RULE_NOT_FOUND);
}

/** What the engine needs of an active rule: the evaluator's rule and where its firings go. */
export interface EngineRule extends ActiveRule {
  channels: RuleChannel[];
}

/** Every active per-symbol rule that has not expired, for the evaluator (scan-entry rules: loadScanEntryRules). */
export async function loadActiveRules(db: Database, now = new Date()): Promise<EngineRule[]> {
  const rows = await db
    .select()
    .from(alertRules)
    .where(
      and(
        eq(alertRules.status, 'active'),
        ne(alertRules.symbol, SCAN_RULE_SYMBOL),
        or(isNull(alertRules.expiresAt), gt(alertRules.expiresAt, now)),
      ),
    );
  return rows.map((row) => ({
    id: row.id,
    userId: row.userId,
    name: row.name,
    symbol: row.symbol,
    ticker: tickerOfSymbol(row.symbol),
    timeframe: row.timeframe,
    condition: row.condition,
    trigger: row.trigger,
    expiresAt: row.expiresAt?.getTime() ?? null,
    message: row.message,
    channels: row.channels,
  }));
}

/**
 * The active scan-entry rules, each with what recording its firings needs (an EngineRule whose
 * condition is never read by the per-symbol evaluator: the runtime keeps these apart).
 */
export async function loadScanEntryRules(
  db: Database,
  now = new Date(),
): Promise<Array<{ rule: ScanEntryRule; engine: EngineRule }>> {
  const rows = await db
    .select()
    .from(alertRules)
    .where(
      and(
        eq(alertRules.status, 'active'),
        eq(alertRules.symbol, SCAN_RULE_SYMBOL),
        or(isNull(alertRules.expiresAt), gt(alertRules.expiresAt, now)),
      ),
    );
  return rows.flatMap((row) => {
    const condition: unknown = row.condition;
    if (!isScanEntryCondition(condition)) return [];
    const expiresAt = row.expiresAt?.getTime() ?? null;
    return [
      {
        rule: {
          id: row.id,
          userId: row.userId,
          name: row.name,
          scanId: condition.scanId,
          timeframe: row.timeframe,
          expiresAt,
        },
        engine: {
          id: row.id,
          userId: row.userId,
          name: row.name,
          symbol: row.symbol,
          ticker: SCAN_RULE_SYMBOL,
          timeframe: row.timeframe,
          condition: row.condition,
          trigger: row.trigger,
          expiresAt,
          message: row.message,
          channels: row.channels,
        },
      },
    ];
  });
}

/** What a scan-entry rule is made from: the saved scan it watches and where its firings go. */
export interface ScanEntryRuleInput {
  scanId: number;
  scanName: string;
  timeframe: RuleTimeframe;
  channels: RuleChannel[];
}

const scanRuleName = (scanName: string) => `Enters scan: ${scanName}`.slice(0, RULE_NAME_MAX);
const scanEntryCondition = (scanId: number) => {
  const condition: ScanEntryCondition = { kind: 'scan_entry', scanId };
  // The column is typed for the per-symbol conditions; this one is kept apart by its symbol.
  return condition as unknown as RuleCondition;
};

/**
 * Creates (or re-arms with new channels) the scan-entry rule of a user's saved scan, under the
 * same caps as any rule. Fires every time a symbol enters the scan (every_time; the trigger key
 * is per symbol and bar).
 */
export async function upsertScanEntryRule(
  db: Database,
  userId: string,
  input: ScanEntryRuleInput,
  limits: Pick<RuleLimits, 'maxActive' | 'maxTotal'>,
): Promise<number> {
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const existing = await scanRuleRows(tx, userId, [input.scanId]);
    const found = existing.get(input.scanId);
    if (found !== undefined) {
      await assertUnderCap(tx, userId, { ...limits, allowPrivateTargets: false }, found);
      await tx
        .update(alertRules)
        .set({
          channels: input.channels,
          name: scanRuleName(input.scanName),
          timeframe: input.timeframe,
          status: 'active',
          updatedAt: new Date(),
        })
        .where(eq(alertRules.id, found));
      return found;
    }
    await assertUnderTotal(tx, userId, { ...limits, allowPrivateTargets: false });
    await assertUnderCap(tx, userId, { ...limits, allowPrivateTargets: false });
    const row = onlyRow(
      await tx
        .insert(alertRules)
        .values({
          userId,
          name: scanRuleName(input.scanName),
          symbol: SCAN_RULE_SYMBOL,
          timeframe: input.timeframe,
          condition: scanEntryCondition(input.scanId),
          trigger: 'every_time',
          channels: input.channels,
          status: 'active',
        })
        .returning({ id: alertRules.id }),
    );
    return row.id;
  });
}

async function scanRuleRows(tx: Pick<Database, 'select'>, userId: string, scanIds: readonly number[]) {
  const result = new Map<number, number>();
  if (scanIds.length === 0) return result;
  const rows = await tx
    .select({ id: alertRules.id, condition: alertRules.condition })
    .from(alertRules)
    .where(
      and(
        eq(alertRules.userId, userId),
        eq(alertRules.symbol, SCAN_RULE_SYMBOL),
        inArray(
          sql`(${alertRules.condition}->>'scanId')::int`,
          scanIds.map((id) => sql`${id}`),
        ),
      ),
    );
  for (const row of rows) {
    const condition: unknown = row.condition;
    if (isScanEntryCondition(condition)) result.set(condition.scanId, row.id);
  }
  return result;
}

/** The scan-entry rule ids of a user's saved scans, by scan id. */
export async function scanEntryRuleIds(
  db: Database,
  userId: string,
  scanIds: readonly number[],
): Promise<Map<number, number>> {
  return scanRuleRows(db, userId, scanIds);
}

/** Follows a saved scan's rename or new timeframe (no-op when it has no rule). */
export async function updateScanEntryRule(
  db: Database,
  userId: string,
  input: Pick<ScanEntryRuleInput, 'scanId' | 'scanName' | 'timeframe'>,
): Promise<void> {
  const found = (await scanRuleRows(db, userId, [input.scanId])).get(input.scanId);
  if (found === undefined) return;
  await db
    .update(alertRules)
    .set({ name: scanRuleName(input.scanName), timeframe: input.timeframe, updatedAt: new Date() })
    .where(eq(alertRules.id, found));
}

/** Removes a saved scan's rule; false when it had none. */
export async function deleteScanEntryRule(db: Database, userId: string, scanId: number): Promise<boolean> {
  const found = (await scanRuleRows(db, userId, [scanId])).get(scanId);
  if (found === undefined) return false;
  await db.delete(alertRules).where(and(eq(alertRules.id, found), eq(alertRules.userId, userId)));
  return true;
}

/**
 * A fingerprint of the rules table that changes whenever a rule is added, edited, paused,
 * resumed, fired-once or deleted: the engine reloads its rules only when it moves.
 */
export async function rulesVersion(db: Database): Promise<string> {
  const row = onlyRow(await db.select({ rules: count(), latest: max(alertRules.updatedAt) }).from(alertRules));
  return `${row.rules}:${row.latest?.getTime() ?? 0}`;
}

/** Marks active rules whose expiry has passed as expired; returns how many. */
export async function expireRules(db: Database, now = new Date()): Promise<number> {
  const rows = await db
    .update(alertRules)
    .set({ status: 'expired', updatedAt: now })
    .where(and(eq(alertRules.status, 'active'), lte(alertRules.expiresAt, now)))
    .returning({ id: alertRules.id });
  return rows.length;
}

const firingColumns = {
  id: ruleFirings.id,
  ruleId: ruleFirings.ruleId,
  ruleName: alertRules.name,
  symbol: ruleFirings.symbol,
  timeframe: alertRules.timeframe,
  price: ruleFirings.price,
  message: ruleFirings.message,
  barTime: ruleFirings.barTime,
  firedAt: ruleFirings.firedAt,
  source: ruleFirings.source,
};

type FiringRow = {
  id: number;
  ruleId: number;
  ruleName: string;
  symbol: string;
  timeframe: RuleTimeframe;
  price: number;
  message: string;
  barTime: Date;
  firedAt: Date;
  source: string;
};

export function toRuleFiring(row: FiringRow): RuleFiring {
  return {
    id: row.id,
    ruleId: row.ruleId,
    ruleName: row.ruleName,
    symbol: row.symbol,
    ticker: tickerOfSymbol(row.symbol),
    timeframe: row.timeframe,
    price: row.price,
    message: row.message,
    barTime: row.barTime.toISOString(),
    firedAt: row.firedAt.toISOString(),
    source: row.source,
  };
}

/** A page of a user's firings, newest first: the Triggered list. */
export async function listFirings(db: Database, userId: string, page: PageRequest): Promise<Page<RuleFiring>> {
  const rows = await db
    .select(firingColumns)
    .from(ruleFirings)
    .innerJoin(alertRules, eq(alertRules.id, ruleFirings.ruleId))
    .where(and(eq(ruleFirings.userId, userId), afterCursor(ruleFirings.id, page.cursor)))
    .orderBy(desc(ruleFirings.id))
    .limit(page.limit + 1);
  const { items, nextCursor } = toPage(rows, page.limit);
  return { items: items.map(toRuleFiring), nextCursor };
}

/** A user's firings after `lastId`, oldest first (the rules stream's replay after a reconnect). */
export async function firingsAfter(db: Database, userId: string, lastId: number, limit = 100): Promise<RuleFiring[]> {
  const rows = await db
    .select(firingColumns)
    .from(ruleFirings)
    .innerJoin(alertRules, eq(alertRules.id, ruleFirings.ruleId))
    .where(and(eq(ruleFirings.userId, userId), gt(ruleFirings.id, lastId)))
    .orderBy(ruleFirings.id)
    .limit(limit);
  return rows.map(toRuleFiring);
}

/** A page of a user's deliveries, newest first: the delivery log. */
export async function listDeliveries(db: Database, userId: string, page: PageRequest): Promise<Page<RuleDelivery>> {
  const rows = await db
    .select({
      id: ruleDeliveries.id,
      firingId: ruleDeliveries.firingId,
      ruleId: ruleFirings.ruleId,
      ruleName: alertRules.name,
      symbol: ruleFirings.symbol,
      channel: ruleDeliveries.channel,
      target: ruleDeliveries.target,
      status: ruleDeliveries.status,
      attempts: ruleDeliveries.attempts,
      lastError: ruleDeliveries.lastError,
      createdAt: ruleDeliveries.createdAt,
      deliveredAt: ruleDeliveries.deliveredAt,
      latencyMs: ruleDeliveries.latencyMs,
    })
    .from(ruleDeliveries)
    .innerJoin(ruleFirings, eq(ruleFirings.id, ruleDeliveries.firingId))
    .innerJoin(alertRules, eq(alertRules.id, ruleFirings.ruleId))
    .where(and(eq(ruleDeliveries.userId, userId), afterCursor(ruleDeliveries.id, page.cursor)))
    .orderBy(desc(ruleDeliveries.id))
    .limit(page.limit + 1);
  const { items, nextCursor } = toPage(rows, page.limit);
  const deliveries = items.map((row) => ({
    id: row.id,
    firingId: row.firingId,
    ruleId: row.ruleId,
    ruleName: row.ruleName,
    ticker: tickerOfSymbol(row.symbol),
    channel: row.channel,
    target: row.target,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    latencyMs: row.latencyMs,
  }));
  return { items: deliveries, nextCursor };
}
