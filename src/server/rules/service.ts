// Alert rules (issue 16): the public surface other parts of the server use. store.ts keeps the
// rules and reads back firings and deliveries, runtime.ts runs them inside the alert engine,
// firings.ts records and fans out what fired, delivery.ts delivers it (webhook.ts, push.ts).
export {
  firingsAfter,
  listDeliveries,
  listFirings,
  listRules,
  loadActiveRules,
  type EngineRule,
  type RuleLimits,
} from './store.ts';
export { createRulesRuntime, recordStatedOdds, type RulesRuntime } from './runtime.ts';
export type { ActiveRule, FiringDraft } from './types.ts';
export { createRuleEvaluator, type RuleEvaluator } from './evaluator.ts';
export {
  deliveryPolicy,
  lazyDeliveryQueue,
  openDeliveryQueue,
  type DeliveryPolicy,
  type DeliveryQueue,
} from './delivery.ts';
export { createPushSender, resolveVapidKeys, type PushSender, type VapidKeys } from './push.ts';
