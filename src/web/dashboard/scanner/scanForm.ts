// The scanner form's state and its rules, kept out of the components: what each scan condition
// kind asks for (with SCAN_CONDITION_LABELS naming the kind), the form's text fields to a
// ScanRequest, a preset or saved scan back to the form, the shared schema as the form's
// resolver (so its errors are the server's, keyed by the request's paths: 'conditions.0.level'),
// and a short column title per condition for the results table.
import type { FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import { ALERT_TYPES } from '../../../shared/constants.ts';
import { ALERT_TYPE_LABELS, type RuleTimeframe } from '../../../shared/schemas/alertRules.ts';
import {
  scanCondition,
  scanRequest,
  type ScanCondition,
  type ScanConditionKind,
  type ScanRequest,
} from '../../../shared/schemas/scans.ts';
import { ASSET_CLASSES, type AssetClass } from '../../ui/assetClasses.ts';

export interface ScanField {
  name: string;
  label: string;
  /** A select's choices as [value, label]; a number input without them. */
  options?: readonly (readonly [string, string])[];
  step?: string;
  /** Empty means "not given" (the schema's optional fields). */
  optional?: boolean;
}

const SIDE = (above: string, below: string) =>
  [
    ['above', above],
    ['below', below],
  ] as const;

/** Each kind's fields in the order the form shows them; asset_class has its checkboxes instead. */
export const SCAN_FIELDS: Record<ScanConditionKind, ScanField[]> = {
  change: [
    { name: 'side', label: 'Direction', options: SIDE('Up at least', 'Down at least') },
    { name: 'percent', label: 'Change (%)', step: 'any' },
    { name: 'bars', label: 'Over bars', step: '1' },
  ],
  rsi: [
    { name: 'side', label: 'RSI is', options: SIDE('Above', 'Below') },
    { name: 'level', label: 'RSI level', step: 'any' },
    { name: 'period', label: 'RSI period', step: '1' },
  ],
  ema_cross: [
    { name: 'side', label: 'Fast EMA crossed', options: SIDE('Above the slow', 'Below the slow') },
    { name: 'fast', label: 'Fast EMA period', step: '1' },
    { name: 'slow', label: 'Slow EMA period', step: '1' },
    { name: 'withinBars', label: 'Within bars', step: '1' },
  ],
  price_vs_ema: [
    { name: 'side', label: 'Close is', options: SIDE('Above the EMA', 'Below the EMA') },
    { name: 'period', label: 'EMA period', step: '1' },
  ],
  bollinger: [
    { name: 'side', label: 'Close is', options: SIDE('Above the upper band', 'Below the lower band') },
    { name: 'period', label: 'Band period', step: '1' },
    { name: 'deviations', label: 'Standard deviations', step: 'any' },
  ],
  volume_z: [
    { name: 'threshold', label: 'Volume z-score at least', step: 'any' },
    { name: 'period', label: 'Volume period', step: '1' },
  ],
  builtin: [
    {
      name: 'alertType',
      label: 'Built-in alert',
      optional: true,
      options: [['', 'Any built-in alert'], ...ALERT_TYPES.map((type) => [type, ALERT_TYPE_LABELS[type]] as const)],
    },
    { name: 'withinBars', label: 'Within bars', step: '1' },
  ],
  watos_edge: [
    {
      name: 'outcome',
      label: 'Odds of a',
      options: [
        ['rise', 'Rise'],
        ['fall', 'Fall'],
      ],
    },
  ],
  asset_class: [],
  price_range: [
    { name: 'min', label: 'Minimum price', step: 'any', optional: true },
    { name: 'max', label: 'Maximum price', step: 'any', optional: true },
  ],
  session_change: [
    { name: 'side', label: 'Since the open', options: SIDE('Up at least', 'Down at least') },
    { name: 'percent', label: 'Change (%)', step: 'any' },
  ],
};

/** Each kind's starting values: sensible ones a trader can keep. */
const DEFAULTS: Record<ScanConditionKind, Record<string, string>> = {
  change: { side: 'above', percent: '5', bars: '24' },
  rsi: { side: 'below', level: '30', period: '14' },
  ema_cross: { side: 'above', fast: '20', slow: '50', withinBars: '3' },
  price_vs_ema: { side: 'above', period: '50' },
  bollinger: { side: 'below', period: '20', deviations: '2' },
  volume_z: { threshold: '2', period: '20' },
  builtin: { alertType: '', withinBars: '10' },
  watos_edge: { outcome: 'rise' },
  asset_class: {},
  price_range: { min: '', max: '' },
  session_change: { side: 'above', percent: '2' },
};

export interface ConditionRow {
  kind: ScanConditionKind;
  /** The kind's fields as typed (text), by name. */
  values: Record<string, string>;
  /** asset_class only: the classes ticked. */
  classes: AssetClass[];
}

export interface ScanFormState {
  timeframe: RuleTimeframe;
  conditions: ConditionRow[];
}

export function conditionRow(kind: ScanConditionKind): ConditionRow {
  return { kind, values: { ...DEFAULTS[kind] }, classes: kind === 'asset_class' ? ['stock'] : [] };
}

export function emptyScanForm(): ScanFormState {
  return { timeframe: '1h', conditions: [conditionRow('rsi')] };
}

/** A condition (a preset's, a saved scan's) back in the form. */
function rowFromCondition(condition: ScanCondition): ConditionRow {
  const row = conditionRow(condition.kind);
  if (condition.kind === 'asset_class') return { ...row, classes: [...condition.classes] };
  for (const field of SCAN_FIELDS[condition.kind]) {
    // Every field of a condition is a number or a string (an enum's value).
    const value = (condition as Record<string, number | string | undefined>)[field.name];
    row.values[field.name] = value === undefined ? '' : String(value);
  }
  return row;
}

export function formFromScan(scan: { timeframe: RuleTimeframe; conditions: ScanCondition[] }): ScanFormState {
  return { timeframe: scan.timeframe, conditions: scan.conditions.map(rowFromCondition) };
}

/** A typed number as the schema should see it: empty is "not given", anything else a number (NaN when it is not one). */
function numberOrUnset(value: string | undefined): number | undefined {
  return value === undefined || value.trim() === '' ? undefined : Number(value);
}

/** What the schema reads (its defaults not applied yet). */
type ScanConditionInput = z.input<typeof scanCondition>;
export type ScanRequestInput = z.input<typeof scanRequest>;

function toCondition(row: ConditionRow): ScanConditionInput {
  if (row.kind === 'asset_class') return { kind: 'asset_class', classes: row.classes };
  const condition: Record<string, unknown> = { kind: row.kind };
  for (const field of SCAN_FIELDS[row.kind]) {
    const value = row.values[field.name] ?? '';
    if (field.options) {
      if (!(field.optional && value === '')) condition[field.name] = value;
    } else {
      const number = numberOrUnset(value);
      if (number !== undefined) condition[field.name] = number;
    }
  }
  // Checked by the schema right after; the cast only names the union.
  return condition as ScanConditionInput;
}

/** The form as the API's request (text fields become numbers; empty optional fields are left out). */
function toScanRequest(form: ScanFormState): ScanRequestInput {
  return { timeframe: form.timeframe, conditions: form.conditions.map(toCondition), limit: 100 };
}

/** The shared schema over the form's values: the form's resolver, giving the server's errors. */
export const scanFormSchema = z.custom<ScanFormState>().transform(toScanRequest).pipe(scanRequest);

/** A valid form as the request to send, the schema's defaults filled in (the results' columns name them). */
export function checkedScanRequest(form: ScanFormState): ScanRequest {
  return scanRequest.parse(toScanRequest(form));
}

/** Errors keyed by their dotted path ('conditions.0.level', 'conditions' for the list itself). */
export type ScanFormErrors = Record<string, string>;

/** react-hook-form's nested errors flattened by path; a field array's own error ('root') under the array's name. */
export function flattenErrors(errors: FieldErrors, prefix = ''): ScanFormErrors {
  const flat: ScanFormErrors = {};
  for (const [key, value] of Object.entries(errors)) {
    if (key === 'ref' || key === 'types' || value === null || typeof value !== 'object') continue;
    const path = key === 'root' ? prefix : prefix ? `${prefix}.${key}` : key;
    const { message } = value as { message?: unknown };
    if (typeof message === 'string') flat[path] ??= message;
    for (const [nested, text] of Object.entries(flattenErrors(value as FieldErrors, path))) flat[nested] ??= text;
  }
  return flat;
}

/** The results table's title of a condition's value column: 'RSI(14)', 'Change 24 bars'. */
export function conditionColumn(condition: ScanCondition): string {
  switch (condition.kind) {
    case 'change':
      return `Change ${condition.bars} bars (%)`;
    case 'rsi':
      return `RSI(${condition.period ?? 14})`;
    case 'ema_cross':
      return `EMA ${condition.fast}/${condition.slow} cross`;
    case 'price_vs_ema':
      return `Close vs EMA ${condition.period} (%)`;
    case 'bollinger':
      return `Bollinger(${condition.period ?? 20}, ${condition.deviations ?? 2})`;
    case 'volume_z':
      return 'Volume z';
    case 'builtin':
      return condition.alertType ? `${ALERT_TYPE_LABELS[condition.alertType]} alert` : 'Built-in alert';
    case 'watos_edge':
      return `WATOS odds of a ${condition.outcome ?? 'rise'}`;
    case 'asset_class':
      return 'Asset class';
    case 'price_range':
      return 'Price';
    case 'session_change':
      return 'Session change (%)';
  }
}

export { ASSET_CLASSES };
