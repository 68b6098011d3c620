// The alert rules feature's public surface: what other dashboard features may import
// (eslint.config.js). The rules panel itself is not here: the chart (on the dashboard's first
// paint) imports this file, and the panel loads on demand with the alerts column
// (dashboard/AlertsColumn.tsx).
export { useRuleEditor } from './AlertRulesProvider.tsx';
export { BellIcon } from './BellIcon.tsx';
export { roundPrice } from './rulePrice.ts';
export { useActiveRules } from './rulesApi.ts';
