// The alert rules' limits without zod: the rules API module is on the dashboard's first paint
// (the active rules are the chart's alert levels) and asks for a page of RULE_PAGE_MAX, while
// the schemas that check the answers (alertRules.ts, which re-exports these) load with the first
// answer. scripts/bundleBudget.mjs fails the build when zod reaches the first paint again.

/** A page of the rules, the Triggered list or the delivery log: its default and largest size. */
export const RULE_PAGE_DEFAULT = 50;
export const RULE_PAGE_MAX = 200;
export const RULE_NAME_MAX = 80;
export const RULE_MESSAGE_MAX = 500;
export const WEBHOOK_URL_MAX = 2000;
