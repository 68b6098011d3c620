// Alert rules (issue 16): the public surface other parts of the server use. store.ts keeps the
// rules and reads back firings and deliveries, runtime.ts runs them inside the alert engine,
// firings.ts records and fans out what fired, delivery.ts delivers it (webhook.ts, push.ts).
export { firingsAfter } from './store.ts';
export { createRulesRuntime, recordStatedOdds, type RulesRuntime } from './runtime.ts';
export { createRuleEvaluator } from './evaluator.ts';
export {
  deliveryCounts,
  deliveryPolicy,
  lazyDeliveryQueue,
  openDeliveryQueue,
  type DeliveryQueue,
} from './delivery.ts';
export { createPushSender, resolveVapidKeys } from './push.ts';
export {
  deleteScanEntryRule,
  scanEntryRuleIds,
  updateScanEntryRule,
  upsertScanEntryRule,
  type RuleLimits,
} from './store.ts';
export { type FiringDraft, type ScanEntryEvaluator, type ScanEntryRule } from './types.ts';
