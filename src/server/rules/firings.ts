// Recording what the evaluator found: each firing once (the unique (rule, trigger key) makes a
// bar re-run after a restart or failover fire nothing), one delivery row per channel of its
// rule in the same transaction, the rule's count (and a "once" rule marked triggered), then
// the in-app fan-out and the durable queue for the other channels. Rules of users without an
// active subscription do not fire.
import { and, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { alertRules, ruleDeliveries, ruleFirings } from '../db/schema.ts';
import { usersWithActiveSubscription } from '../billing/service.ts';
import type { AlertBus, UserFiring } from '../alerts/service.ts';
import type { RuleChannel } from '../../shared/schemas/alertRules.ts';
import { toRuleFiring, type EngineRule } from './store.ts';
import type { FiringDraft } from './types.ts';

export interface FiringSinks {
  bus: AlertBus;
  /** Queues the deliveries of the channels other than in-app (the durable queue). */
  enqueue(deliveryIds: number[]): Promise<void>;
  log: { warn(details: object, message: string): void };
}

export interface RecordedFirings {
  /** The firings that were new (not recorded before). */
  firings: UserFiring[];
  /** Ids of the "once" rules that fired (the evaluator retires them). */
  retired: number[];
  /** Delivery rows queued for e-mail, push and webhook. */
  queued: number[];
}

/**
 * Records the drafts whose rule is known and whose owner is subscribed, then fans them out.
 * Safe to call again with the same drafts: nothing is recorded, sent or queued twice.
 */
export async function recordFirings(
  db: Database,
  drafts: readonly FiringDraft[],
  rules: ReadonlyMap<number, EngineRule>,
  sinks: FiringSinks,
  now = new Date(),
): Promise<RecordedFirings> {
  const known = drafts.filter((draft) => rules.has(draft.ruleId));
  if (known.length === 0) return { firings: [], retired: [], queued: [] };
  const subscribed = await usersWithActiveSubscription(
    db,
    known.map((draft) => draft.userId),
    now,
  );
  const allowed = known.filter((draft) => subscribed.has(draft.userId));
  if (allowed.length === 0) return { firings: [], retired: [], queued: [] };

  const result = await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(ruleFirings)
      .values(
        allowed.map((draft) => ({
          ruleId: draft.ruleId,
          userId: draft.userId,
          symbol: draft.symbol,
          triggerKey: draft.triggerKey,
          barTime: new Date(draft.barTime),
          price: draft.price,
          message: draft.message,
          source: draft.source,
          firedAt: now,
        })),
      )
      .onConflictDoNothing({ target: [ruleFirings.ruleId, ruleFirings.triggerKey] })
      .returning();
    if (inserted.length === 0) return { inserted, queued: [] as number[], retired: [] as number[] };

    const deliveries = inserted.flatMap((firing) =>
      rules.get(firing.ruleId)!.channels.map((channel: RuleChannel) =>
        channel === 'in_app'
          ? {
              firingId: firing.id,
              userId: firing.userId,
              channel,
              target: 'Dashboard',
              status: 'delivered' as const,
              attempts: 1,
              deliveredAt: now,
              latencyMs: 0,
            }
          : { firingId: firing.id, userId: firing.userId, channel, status: 'pending' as const },
      ),
    );
    const rows = deliveries.length
      ? await tx
          .insert(ruleDeliveries)
          .values(deliveries)
          .onConflictDoNothing({ target: [ruleDeliveries.firingId, ruleDeliveries.channel] })
          .returning({ id: ruleDeliveries.id, channel: ruleDeliveries.channel })
      : [];

    const perRule = new Map<number, number>();
    for (const firing of inserted) perRule.set(firing.ruleId, (perRule.get(firing.ruleId) ?? 0) + 1);
    const retired: number[] = [];
    // One statement per (count, once) pair rather than one per rule: a level that hundreds of
    // rules share is a handful of updates, not hundreds of round trips inside the transaction.
    const groups = new Map<string, { fired: number; once: boolean; ids: number[] }>();
    for (const [ruleId, fired] of perRule) {
      const once = rules.get(ruleId)!.trigger === 'once';
      if (once) retired.push(ruleId);
      const key = `${fired}|${once}`;
      const group = groups.get(key) ?? { fired, once, ids: [] };
      group.ids.push(ruleId);
      groups.set(key, group);
    }
    for (const { fired, once, ids } of groups.values()) {
      await tx
        .update(alertRules)
        .set({
          triggerCount: sql`${alertRules.triggerCount} + ${fired}`,
          lastTriggeredAt: now,
          // updated_at is left alone: it is the rules' change fingerprint (store.rulesVersion),
          // and a firing needs no reload (the runtime retires a fired "once" rule itself).
          ...(once ? { status: 'triggered' } : {}),
        })
        .where(and(inArray(alertRules.id, ids), inArray(alertRules.status, ['active', 'triggered'])));
    }
    return { inserted, queued: rows.filter((row) => row.channel !== 'in_app').map((row) => row.id), retired };
  });

  const firings: UserFiring[] = result.inserted.map((row) => {
    const rule = rules.get(row.ruleId)!;
    return {
      userId: row.userId,
      firing: toRuleFiring({ ...row, ruleName: rule.name, timeframe: rule.timeframe }),
    };
  });
  // Recorded first, so a failure below loses nothing: the queue's sweep picks up deliveries
  // that were never queued, and a dashboard that missed the live event finds the firing in
  // its Triggered list (and in the stream's replay after a reconnect). The live fan-out and
  // the queueing go together: the toast never waits for the queue's insert of every
  // e-mail, push and webhook job (hundreds when many rules share a level).
  await Promise.all([
    result.queued.length > 0
      ? sinks
          .enqueue(result.queued)
          .catch((error: unknown) =>
            sinks.log.warn({ err: error }, 'alert rules: deliveries not queued; the sweep will queue them'),
          )
      : undefined,
    sinks.bus
      .publishFirings(firings)
      .catch((error: unknown) => sinks.log.warn({ err: error }, 'alert rules: live fan-out failed')),
  ]);
  return { firings, retired: result.retired, queued: result.queued };
}
