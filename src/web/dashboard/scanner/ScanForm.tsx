// The scanner's form (issue 36): the timeframe and up to SCAN_CONDITIONS_MAX conditions, all of
// which must hold (AND), each with its kind (SCAN_CONDITION_LABELS) and that kind's own fields;
// then Run, and "Save as" with a name. The state is react-hook-form's, checked on submit by the
// shared scan schema through its zod resolver, so each error is the server's and shows beside
// the field it names ('conditions.1.level' under the second condition's RSI level). A preset or
// a saved scan fills the form by remounting it with that scan (the panel keys it).
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState } from 'react';
import { useFieldArray, useForm, useWatch } from 'react-hook-form';
import { RULE_TIMEFRAMES } from '../../../shared/schemas/alertRules.ts';
import {
  savedScanBody,
  SCAN_CONDITION_KINDS,
  SCAN_CONDITION_LABELS,
  SCAN_CONDITIONS_MAX,
  type ScanConditionKind,
  type ScanRequest,
} from '../../../shared/schemas/scans.ts';
import { ASSET_CLASS_GROUP_LABELS, type AssetClass } from '../../ui/assetClasses.ts';
import {
  ASSET_CLASSES,
  conditionRow,
  flattenErrors,
  SCAN_FIELDS,
  scanFormSchema,
  checkedScanRequest,
  type ConditionRow,
  type ScanFormState,
} from './scanForm.ts';

export const FIELD_CLASS =
  'w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-sm text-white placeholder-gray-500 focus:border-indigo-500 focus:outline-none aria-[invalid=true]:border-red-500';
export const LABEL_CLASS = 'block text-xs text-gray-400';

export function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} className="mt-1 text-xs text-red-300">
      {text}
    </p>
  );
}

export function ScanForm({
  initial,
  onRun,
  running,
  onSave,
  saving,
  saveError,
}: {
  initial: ScanFormState;
  onRun: (request: ScanRequest) => void;
  running: boolean;
  /** Saves the form's scan under `name`. */
  onSave: (name: string, request: ScanRequest) => void;
  saving: boolean;
  /** The server's refusal of the last save (a name already used: 409). */
  saveError: string | null;
}) {
  const id = useId();
  const { control, formState, handleSubmit, register, setValue } = useForm<ScanFormState>({
    defaultValues: initial,
    // raw: the form's values on success; what is sent is their ScanRequest, as the server gets it.
    resolver: zodResolver(scanFormSchema, undefined, { raw: true }),
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });
  const { fields, append, remove, update } = useFieldArray({ control, name: 'conditions' });
  const rows = (useWatch({ control, name: 'conditions' }) as ConditionRow[] | undefined) ?? [];
  const errors = flattenErrors(formState.errors);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);

  const errorId = (key: string) => `${id}-error-${key.replace(/\W/g, '-')}`;
  const invalid = (key: string) =>
    errors[key] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(key) } : {};
  const shown = new Set(['timeframe', 'conditions']);
  rows.forEach((row, index) => {
    shown.add(`conditions.${index}.classes`);
    for (const field of SCAN_FIELDS[row.kind]) shown.add(`conditions.${index}.${field.name}`);
  });
  const otherErrors = Object.entries(errors).filter(([key]) => !shown.has(key));

  const run = handleSubmit((values) => onRun(checkedScanRequest(values)));
  const save = handleSubmit((values) => {
    const checked = savedScanBody.shape.name.safeParse(name);
    if (!checked.success) {
      setNameError(checked.error.issues[0]?.message ?? 'name is required');
      return;
    }
    setNameError(null);
    onSave(checked.data, checkedScanRequest(values));
  });
  const nameMessage = nameError ?? saveError;

  function toggleClass(index: number, assetClass: AssetClass, checked: boolean) {
    const current = rows[index]?.classes ?? [];
    setValue(
      `conditions.${index}.classes`,
      ASSET_CLASSES.filter((entry) => (entry === assetClass ? checked : current.includes(entry))),
    );
  }

  return (
    <form noValidate aria-label="Scan conditions" className="space-y-3" onSubmit={(event) => void run(event)}>
      <div className="max-w-[10rem]">
        <label htmlFor={`${id}-timeframe`} className={LABEL_CLASS}>
          Timeframe
        </label>
        <select id={`${id}-timeframe`} className={FIELD_CLASS} {...register('timeframe')} {...invalid('timeframe')}>
          {RULE_TIMEFRAMES.map((timeframe) => (
            <option key={timeframe} value={timeframe}>
              {timeframe}
            </option>
          ))}
        </select>
        <FieldError id={errorId('timeframe')} text={errors.timeframe} />
      </div>
      <ol className="space-y-2" aria-describedby={errors.conditions ? errorId('conditions') : undefined}>
        {fields.map((item, index) => {
          const row = rows[index] ?? item;
          const number = index + 1;
          return (
            <li key={item.id} className="rounded border border-gray-700 p-2" data-testid="scan-condition">
              <fieldset className="min-w-0">
                <legend className="sr-only">
                  Condition {number}: {SCAN_CONDITION_LABELS[row.kind]}
                </legend>
                <div className="flex items-end gap-2">
                  <div className="min-w-0 flex-1">
                    <label htmlFor={`${id}-${item.id}-kind`} className={LABEL_CLASS}>
                      Condition {number}
                    </label>
                    <select
                      id={`${id}-${item.id}-kind`}
                      className={FIELD_CLASS}
                      value={row.kind}
                      onChange={(event) => update(index, conditionRow(event.target.value as ScanConditionKind))}
                    >
                      {SCAN_CONDITION_KINDS.map((kind) => (
                        <option key={kind} value={kind}>
                          {SCAN_CONDITION_LABELS[kind]}
                        </option>
                      ))}
                    </select>
                  </div>
                  <button
                    type="button"
                    aria-label={`Remove condition ${number}`}
                    className="rounded border border-gray-700 px-2 py-1 text-sm text-gray-300 hover:border-red-500 hover:text-red-300"
                    onClick={() => remove(index)}
                  >
                    ×
                  </button>
                </div>
                {row.kind === 'asset_class' ? (
                  <fieldset
                    className="mt-2"
                    aria-describedby={
                      errors[`conditions.${index}.classes`] ? errorId(`conditions.${index}.classes`) : undefined
                    }
                  >
                    <legend className={LABEL_CLASS}>Asset classes</legend>
                    <div className="mt-1 flex flex-wrap gap-3">
                      {ASSET_CLASSES.map((assetClass) => (
                        <label key={assetClass} className="flex items-center gap-1.5 text-sm text-gray-200">
                          <input
                            type="checkbox"
                            className="accent-indigo-500"
                            checked={row.classes.includes(assetClass)}
                            onChange={(event) => toggleClass(index, assetClass, event.target.checked)}
                          />
                          {ASSET_CLASS_GROUP_LABELS[assetClass]}
                        </label>
                      ))}
                    </div>
                    <FieldError
                      id={errorId(`conditions.${index}.classes`)}
                      text={errors[`conditions.${index}.classes`]}
                    />
                  </fieldset>
                ) : (
                  <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
                    {SCAN_FIELDS[row.kind].map((field) => {
                      const key = `conditions.${index}.${field.name}`;
                      const inputId = `${id}-${item.id}-${row.kind}-${field.name}`;
                      const name = `conditions.${index}.values.${field.name}` as const;
                      return (
                        <div key={inputId} className="min-w-0">
                          <label htmlFor={inputId} className={LABEL_CLASS}>
                            {field.label}
                          </label>
                          {field.options ? (
                            <select id={inputId} className={FIELD_CLASS} {...register(name)} {...invalid(key)}>
                              {field.options.map(([value, label]) => (
                                <option key={value} value={value}>
                                  {label}
                                </option>
                              ))}
                            </select>
                          ) : (
                            <input
                              id={inputId}
                              type="number"
                              step={field.step}
                              inputMode="decimal"
                              className={FIELD_CLASS}
                              {...register(name)}
                              {...invalid(key)}
                            />
                          )}
                          <FieldError id={errorId(key)} text={errors[key]} />
                        </div>
                      );
                    })}
                  </div>
                )}
              </fieldset>
            </li>
          );
        })}
      </ol>
      <FieldError id={errorId('conditions')} text={errors.conditions} />
      {otherErrors.length > 0 && (
        <div role="alert" className="rounded border border-red-800 bg-red-950/60 px-3 py-2 text-sm text-red-300">
          {otherErrors.map(([key, text]) => (
            <p key={key}>{text}</p>
          ))}
        </div>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          disabled={fields.length >= SCAN_CONDITIONS_MAX}
          className="rounded border border-gray-600 px-3 py-1.5 text-sm text-gray-200 hover:bg-gray-800 disabled:opacity-50"
          onClick={() => append(conditionRow('change'))}
        >
          Add condition
        </button>
        <button
          type="submit"
          disabled={running}
          className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
        >
          {running ? 'Scanning...' : 'Run scan'}
        </button>
      </div>
      <div className="flex flex-wrap items-start gap-2 border-t border-gray-800 pt-3">
        <div className="min-w-0 flex-1 basis-48">
          <label htmlFor={`${id}-name`} className={LABEL_CLASS}>
            Save this scan as
          </label>
          <input
            id={`${id}-name`}
            className={FIELD_CLASS}
            placeholder="e.g. Oversold on volume"
            value={name}
            onChange={(event) => setName(event.target.value)}
            aria-invalid={nameMessage ? true : undefined}
            aria-describedby={nameMessage ? errorId('name') : undefined}
          />
          <FieldError id={errorId('name')} text={nameMessage ?? undefined} />
        </div>
        <button
          type="button"
          disabled={saving}
          className="mt-4 rounded border border-indigo-500 px-3 py-1 text-sm text-indigo-200 hover:bg-indigo-950 disabled:opacity-60"
          onClick={() => void save()}
        >
          {saving ? 'Saving...' : 'Save scan'}
        </button>
      </div>
    </form>
  );
}
