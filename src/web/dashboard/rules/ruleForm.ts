// The rule form's state and its rules, kept out of the component: what each condition kind
// asks for, the form's text fields to a RuleInput, a stored rule back to the form, and the
// shared schema's errors keyed by the field they belong to (the server gives the same ones).
import type { FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import { ALERT_TYPES } from '../../../shared/constants.ts';
import {
  ALERT_TYPE_LABELS,
  defaultTrigger,
  RULE_CONDITION_KINDS,
  ruleInput,
  type AlertRule,
  type RuleChannel,
  type RuleConditionKind,
  type RuleInput,
  type RuleTimeframe,
  type RuleTrigger,
} from '../../../shared/schemas/alertRules.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { symbolByTicker } from '../../../shared/tickers.ts';

export interface ConditionField {
  name: string;
  label: string;
  /** A select's choices as [value, label]; a number input without them. */
  options?: readonly (readonly [string, string])[];
  /** The number input's step (any: decimals allowed). */
  step?: string;
  hint?: string;
}

const ABOVE_BELOW = [
  ['above', 'Above'],
  ['below', 'Below'],
] as const;
const CROSSES = [
  ['above', 'Crosses above'],
  ['below', 'Crosses below'],
] as const;

/** What each condition kind asks for, in the order the form shows it. */
export const CONDITION_FIELDS: Record<RuleConditionKind, ConditionField[]> = {
  price_cross: [
    { name: 'direction', label: 'Direction', options: CROSSES },
    { name: 'level', label: 'Price level', step: 'any' },
  ],
  channel: [
    {
      name: 'direction',
      label: 'Direction',
      options: [
        ['enters', 'Enters the channel'],
        ['exits', 'Exits the channel'],
      ],
    },
    { name: 'lower', label: 'Lower bound', step: 'any' },
    { name: 'upper', label: 'Upper bound', step: 'any' },
  ],
  percent_move: [
    { name: 'percent', label: 'Move (%)', step: 'any', hint: '+3 for a rise of 3% or more, -3 for a fall' },
    { name: 'windowMinutes', label: 'Window (minutes)', step: '1' },
  ],
  rsi: [
    { name: 'direction', label: 'Direction', options: ABOVE_BELOW },
    { name: 'level', label: 'RSI level', step: 'any' },
    { name: 'period', label: 'RSI period', step: '1' },
  ],
  ema_cross: [
    { name: 'direction', label: 'Fast EMA crosses', options: ABOVE_BELOW },
    { name: 'fast', label: 'Fast EMA period', step: '1' },
    { name: 'slow', label: 'Slow EMA period', step: '1' },
  ],
  bollinger: [
    {
      name: 'direction',
      label: 'Close',
      options: [
        ['above', 'Above the upper band'],
        ['below', 'Below the lower band'],
      ],
    },
    { name: 'period', label: 'Band period', step: '1' },
    { name: 'deviations', label: 'Standard deviations', step: 'any' },
  ],
  volume_z: [
    { name: 'threshold', label: 'Volume z-score above', step: 'any' },
    { name: 'period', label: 'Volume period', step: '1' },
  ],
  builtin: [
    { name: 'alertType', label: 'Built-in alert', options: ALERT_TYPES.map((type) => [type, ALERT_TYPE_LABELS[type]]) },
  ],
  watos_odds: [
    {
      name: 'outcome',
      label: 'Odds of a',
      options: [
        ['rise', 'Rise'],
        ['fall', 'Fall'],
      ],
    },
    { name: 'threshold', label: 'At least (%)', step: 'any' },
  ],
};

/** Each kind's starting values: sensible defaults a trader can keep. */
const CONDITION_DEFAULTS: Record<RuleConditionKind, Record<string, string>> = {
  price_cross: { direction: 'above', level: '' },
  channel: { direction: 'enters', lower: '', upper: '' },
  percent_move: { percent: '3', windowMinutes: '15' },
  rsi: { direction: 'above', level: '70', period: '14' },
  ema_cross: { direction: 'above', fast: '9', slow: '21' },
  bollinger: { direction: 'above', period: '20', deviations: '2' },
  volume_z: { threshold: '3', period: '20' },
  builtin: { alertType: 'BreakoutAlertGenerator' },
  watos_odds: { outcome: 'rise', threshold: '70' },
};

export interface RuleFormState {
  name: string;
  symbol: string;
  timeframe: RuleTimeframe;
  trigger: RuleTrigger;
  /** A datetime-local value (the trader's local time), or ''. */
  expiresAt: string;
  message: string;
  channels: RuleChannel[];
  webhookUrl: string;
  kind: RuleConditionKind;
  /** The fields of every kind, so switching kinds back and forth keeps what was typed. */
  conditions: Record<RuleConditionKind, Record<string, string>>;
}

/**
 * What an entry point fills in: a symbol, and a price level for a price-cross rule; or (the
 * scanner, issue 36) a whole condition on a timeframe, with a name.
 */
export interface RulePrefill {
  symbol?: string;
  level?: number;
  condition?: RuleInput['condition'];
  timeframe?: RuleTimeframe;
  name?: string;
}

export function emptyForm(prefill: RulePrefill = {}): RuleFormState {
  const conditions = Object.fromEntries(
    RULE_CONDITION_KINDS.map((kind) => [kind, { ...CONDITION_DEFAULTS[kind] }]),
  ) as RuleFormState['conditions'];
  if (prefill.level !== undefined) conditions.price_cross.level = String(prefill.level);
  const kind = prefill.condition?.kind ?? 'price_cross';
  if (prefill.condition) {
    const { kind: _kind, ...fields } = prefill.condition;
    conditions[kind] = {
      ...conditions[kind],
      ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, String(value)])),
    };
  }
  return {
    name: prefill.name ?? '',
    symbol: prefill.symbol ?? '',
    timeframe: prefill.timeframe ?? '1h',
    trigger: defaultTrigger(kind),
    expiresAt: '',
    message: '',
    channels: ['in_app'],
    webhookUrl: '',
    kind,
    conditions,
  };
}

/** An ISO time as a datetime-local value in the trader's time zone. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A stored rule back in the form, to edit it. */
export function formFromRule(rule: AlertRule): RuleFormState {
  const form = emptyForm();
  const { kind, ...fields } = rule.condition;
  form.conditions[kind] = {
    ...form.conditions[kind],
    ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, String(value)])),
  };
  return {
    ...form,
    name: rule.name,
    symbol: rule.symbol,
    timeframe: rule.timeframe,
    trigger: rule.trigger,
    expiresAt: rule.expiresAt ? toLocalInput(rule.expiresAt) : '',
    message: rule.message ?? '',
    channels: rule.channels,
    webhookUrl: rule.webhookUrl ?? '',
    kind,
  };
}

/** A typed number as the schema should see it: empty is "not given", anything else a number (NaN when it is not one). */
function numberOrUnset(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

/** The form as the API's RuleInput: text fields become numbers, empty optional fields are left out. */
export function toRuleInput(form: RuleFormState): RuleInput {
  const condition: Record<string, unknown> = { kind: form.kind };
  for (const field of CONDITION_FIELDS[form.kind]) {
    const value = form.conditions[form.kind][field.name] ?? '';
    condition[field.name] = field.options ? value : numberOrUnset(value);
  }
  const expires = form.expiresAt ? new Date(form.expiresAt) : null;
  return {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    symbol: form.symbol.trim(),
    timeframe: form.timeframe,
    trigger: form.trigger,
    // An unreadable date goes as typed, so the schema names the problem.
    expiresAt: expires ? (Number.isNaN(expires.getTime()) ? form.expiresAt : expires.toISOString()) : null,
    ...(form.message.trim() ? { message: form.message } : {}),
    channels: form.channels,
    webhookUrl: form.channels.includes('webhook') ? form.webhookUrl.trim() || null : null,
    condition: condition as RuleInput['condition'],
  };
}

/** Errors keyed by field: 'symbol', 'condition.level', 'webhookUrl'...; '' for the whole rule. */
export type RuleFormErrors = Record<string, string>;

/**
 * The shared rule schema over the form's values (the form's resolver): the text fields become
 * the RuleInput that `ruleInput` checks, so the errors are the server's, keyed by RuleInput's
 * paths ('condition.level'), and a valid form gives the input to send.
 */
export const ruleFormSchema = z.custom<RuleFormState>().transform(toRuleInput).pipe(ruleInput);

/** The resolver's nested errors, keyed by their dotted path ('condition.level'), in their order. */
export function ruleFormErrors(errors: FieldErrors, prefix = ''): RuleFormErrors {
  const flat: RuleFormErrors = {};
  for (const [key, value] of Object.entries(errors)) {
    if (key === 'ref' || key === 'types' || value === null || typeof value !== 'object') continue;
    const path = prefix && key ? `${prefix}.${key}` : prefix || key;
    const { message } = value as { message?: unknown };
    if (typeof message === 'string') flat[path] ??= message;
    for (const [nested, text] of Object.entries(ruleFormErrors(value as FieldErrors, path))) flat[nested] ??= text;
  }
  return flat;
}

/** The shared schema's verdict on the form: the input to send, or the first error of each field. */
export function validateRuleForm(form: RuleFormState): { input: RuleInput } | { errors: RuleFormErrors } {
  const parsed = ruleFormSchema.safeParse(form);
  // The input as the form sends it (the server's parse canonicalises it, e.g. the symbol).
  if (parsed.success) return { input: toRuleInput(form) };
  const errors: RuleFormErrors = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join('.');
    errors[key] ??= issue.message;
  }
  return { errors };
}

export { roundPrice } from './rulePrice.ts';

/** The symbol table's canonical id of a typed or saved symbol (BTC gives BTC-USD), or null. */
export function canonicalSymbol(symbol: string): string | null {
  const text = symbol.trim().toUpperCase();
  return (symbolByTicker(text) ?? resolveSymbol(text))?.id ?? null;
}
