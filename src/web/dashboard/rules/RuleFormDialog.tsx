// The create / edit form of an alert rule, in a modal: symbol (the watchlists' type-ahead),
// condition kind with its own fields, timeframe, trigger, optional expiry, message template,
// channels (push asks the browser's permission only when ticked; webhook adds its URL, a test
// send and the signing secret). Checked with the shared schema before sending, so the errors
// are the server's; the server's own refusals (the active-rule cap) show in the form too.
// The form's state is react-hook-form's, checked by the shared schema through its zod resolver
// on submit only (errors change when the trader submits again, not while typing).
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import {
  defaultTrigger,
  describeCondition,
  ruleInput,
  RULE_CHANNEL_LABELS,
  RULE_CHANNELS,
  RULE_CONDITION_KINDS,
  RULE_CONDITION_LABELS,
  RULE_TEMPLATE_FIELDS,
  RULE_TIMEFRAMES,
  RULE_TRIGGER_LABELS,
  RULE_TRIGGERS,
  type AlertRule,
  type RuleChannel,
  type RuleConditionKind,
} from '../../../shared/schemas/alertRules.ts';
import { formatPrice } from '../../../shared/format.ts';
import { resolveSymbol } from '../../../shared/symbols.ts';
import { SymbolSearch } from '../../ui/SymbolSearch.tsx';
import { enablePush } from './pushSubscription.ts';
import {
  canonicalSymbol,
  CONDITION_FIELDS,
  roundPrice,
  emptyForm,
  formFromRule,
  ruleFormErrors,
  ruleFormSchema,
  toRuleInput,
  type RuleFormState,
  type RulePrefill,
} from './ruleForm.ts';
import { useLastPrice, useSaveRule } from './rulesApi.ts';
import { WebhookSettings } from './WebhookSettings.tsx';

const field =
  'w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-sm text-white placeholder-gray-500 focus:border-indigo-500 focus:outline-none aria-[invalid=true]:border-red-500';
const labelClass = 'block text-xs text-gray-400';

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} className="mt-1 text-xs text-red-300">
      {text}
    </p>
  );
}

/** The rule in words as it would be saved, or null while the form does not make a valid rule yet. */
function preview(form: RuleFormState): string | null {
  const parsed = ruleInput.safeParse(toRuleInput(form));
  if (!parsed.success) return null;
  const ticker = resolveSymbol(parsed.data.symbol)?.ticker ?? parsed.data.symbol;
  return `${describeCondition(parsed.data.condition, ticker)} (${parsed.data.timeframe})`;
}

export function RuleFormDialog({
  rule,
  prefill,
  onClose,
  onSaved,
  pushEnabler = enablePush,
}: {
  /** The rule being edited; none for a new one. */
  rule?: AlertRule;
  prefill?: RulePrefill;
  onClose: () => void;
  onSaved?: (rule: AlertRule) => void;
  /** Turns push on for this browser (replaced in tests). */
  pushEnabler?: typeof enablePush;
}) {
  const id = useId();
  const [initial] = useState(() => (rule ? formFromRule(rule) : emptyForm(prefill)));
  const { control, formState, getValues, handleSubmit, register, setValue } = useForm<RuleFormState>({
    defaultValues: initial,
    // raw: the form's values on success; what is sent is their RuleInput, as the server gets it
    // (the server's parse canonicalises it, e.g. the symbol).
    resolver: zodResolver(ruleFormSchema, undefined, { raw: true }),
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });
  const form = useWatch({ control }) as RuleFormState;
  const errors = ruleFormErrors(formState.errors);
  const [push, setPush] = useState<{ asking: boolean; message: string | null }>({ asking: false, message: null });
  const saving = useSaveRule();
  const dialog = useRef<HTMLDivElement>(null);
  const message = useRef<HTMLTextAreaElement>(null);
  // The trigger follows the condition kind's default (on the tick for a price, at the bar close
  // for an indicator) until the trader picks one; an edited rule keeps its own.
  const [triggerPicked, setTriggerPicked] = useState(rule !== undefined);

  // Opened from a watchlist chip without a price: the latest close becomes the level, unless typed over.
  const wantsPrice =
    !rule && prefill?.symbol !== undefined && prefill.level === undefined && prefill.condition === undefined;
  const lastPrice = useLastPrice(wantsPrice ? canonicalSymbol(prefill?.symbol ?? '') : null);
  const priceFilled = useRef(false);
  useEffect(() => {
    const price = lastPrice.data;
    if (priceFilled.current || price === null || price === undefined) return;
    priceFilled.current = true;
    if (getValues('conditions.price_cross.level') === '')
      setValue('conditions.price_cross.level', String(roundPrice(price)));
  }, [lastPrice.data, getValues, setValue]);

  // A modal: focus starts in the form, Tab stays in it, Escape closes it, and focus goes back
  // to the button that opened it.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = dialog.current?.querySelector<HTMLElement>('input, select, textarea');
    first?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
      if (event.key !== 'Tab' || !dialog.current) return;
      const focusable = [
        ...dialog.current.querySelectorAll<HTMLElement>('button, input, select, textarea, [tabindex]'),
      ].filter((element) => !element.hasAttribute('disabled') && element.tabIndex >= 0);
      const [head, tail] = [focusable[0], focusable.at(-1)];
      if (event.shiftKey && document.activeElement === head) {
        event.preventDefault();
        tail?.focus();
      } else if (!event.shiftKey && document.activeElement === tail) {
        event.preventDefault();
        head?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      if (opener?.isConnected) opener.focus();
    };
  }, [onClose]);

  async function toggleChannel(channel: RuleChannel, checked: boolean) {
    if (!checked) {
      setValue(
        'channels',
        getValues('channels').filter((entry) => entry !== channel),
      );
      return;
    }
    if (channel === 'push') {
      setPush({ asking: true, message: null });
      const outcome = await pushEnabler();
      setPush({ asking: false, message: outcome.ok ? null : outcome.message });
      if (!outcome.ok) return;
    }
    const current = getValues('channels');
    setValue(
      'channels',
      RULE_CHANNELS.filter((entry) => entry === channel || current.includes(entry)),
    );
  }

  function insertPlaceholder(name: string) {
    const text = `{{${name}}}`;
    const box = message.current;
    const current = getValues('message');
    const at = box?.selectionStart ?? current.length;
    const end = box?.selectionEnd ?? at;
    setValue('message', `${current.slice(0, at)}${text}${current.slice(end)}`);
    requestAnimationFrame(() => {
      box?.focus();
      box?.setSelectionRange(at + text.length, at + text.length);
    });
  }

  function save(values: RuleFormState) {
    saving.mutate(
      { id: rule?.id ?? null, input: toRuleInput(values) },
      {
        onSuccess: (saved) => {
          onSaved?.(saved);
          onClose();
        },
      },
    );
  }

  const messageField = register('message');
  const errorId = (key: string) => `${id}-error-${key.replace(/\W/g, '-')}`;
  const invalid = (key: string) =>
    errors[key] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(key) } : {};
  const conditionFields = CONDITION_FIELDS[form.kind];
  const shownKeys = new Set([
    'symbol',
    'timeframe',
    'trigger',
    'expiresAt',
    'name',
    'message',
    'channels',
    'webhookUrl',
    ...conditionFields.map((entry) => `condition.${entry.name}`),
  ]);
  const otherErrors = Object.entries(errors).filter(([key]) => !shownKeys.has(key));
  const hasErrors = Object.keys(errors).length > 0;
  const description = preview(form);
  const title = rule ? 'Edit alert rule' : 'New alert rule';

  return (
    // A click beside the form does not close it: typed conditions are not thrown away by a stray click.
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-black/70 p-4">
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        className="flex max-h-[90vh] w-full max-w-2xl flex-col overflow-y-auto rounded-lg border border-gray-700 bg-gray-900 p-4 shadow-2xl"
      >
        <div className="flex items-center gap-3">
          <h3 id={`${id}-title`} className="flex-1 text-base font-semibold text-white">
            {title}
          </h3>
          <button
            type="button"
            aria-label="Close the alert form"
            className="rounded px-2 text-xl leading-none text-gray-400 hover:text-white"
            onClick={onClose}
          >
            ×
          </button>
        </div>
        <form
          noValidate
          className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-2"
          onSubmit={(event) => void handleSubmit(save)(event)}
        >
          <div>
            {/* The combobox is named by its own aria-label; this is its visible caption. */}
            <span aria-hidden="true" className={labelClass}>
              Symbol
            </span>
            <SymbolSearch
              form="ticker"
              label="Symbol"
              value={form.symbol}
              onChange={(symbol) => setValue('symbol', symbol)}
              onPick={(symbol) => setValue('symbol', symbol)}
              placeholder="e.g. BTC, AAPL, MES"
              describedBy={errors.symbol ? errorId('symbol') : undefined}
              className={field}
            />
            <FieldError id={errorId('symbol')} text={errors.symbol} />
          </div>
          <div>
            <label htmlFor={`${id}-timeframe`} className={labelClass}>
              Timeframe
            </label>
            <select id={`${id}-timeframe`} className={field} {...register('timeframe')} {...invalid('timeframe')}>
              {RULE_TIMEFRAMES.map((timeframe) => (
                <option key={timeframe} value={timeframe}>
                  {timeframe}
                </option>
              ))}
            </select>
            <FieldError id={errorId('timeframe')} text={errors.timeframe} />
          </div>
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-kind`} className={labelClass}>
              Condition
            </label>
            <select
              id={`${id}-kind`}
              className={field}
              {...register('kind', {
                onChange: (event: { target: { value: string } }) => {
                  if (!triggerPicked) setValue('trigger', defaultTrigger(event.target.value as RuleConditionKind));
                },
              })}
            >
              {RULE_CONDITION_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {RULE_CONDITION_LABELS[kind]}
                </option>
              ))}
            </select>
          </div>
          <fieldset className="grid grid-cols-1 gap-3 sm:col-span-2 sm:grid-cols-3" data-testid="condition-fields">
            <legend className="sr-only">{RULE_CONDITION_LABELS[form.kind]}</legend>
            {conditionFields.map((entry) => {
              const key = `condition.${entry.name}`;
              const inputId = `${id}-${form.kind}-${entry.name}`;
              const name = `conditions.${form.kind}.${entry.name}` as const;
              return (
                <div key={inputId}>
                  <label htmlFor={inputId} className={labelClass}>
                    {entry.label}
                  </label>
                  {entry.options ? (
                    <select id={inputId} className={field} {...register(name)} {...invalid(key)}>
                      {entry.options.map(([optionValue, optionLabel]) => (
                        <option key={optionValue} value={optionValue}>
                          {optionLabel}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <input
                      id={inputId}
                      type="number"
                      step={entry.step}
                      inputMode="decimal"
                      className={field}
                      {...register(name)}
                      {...invalid(key)}
                    />
                  )}
                  {entry.hint && <p className="mt-1 text-[11px] text-gray-400">{entry.hint}</p>}
                  {form.kind === 'price_cross' && entry.name === 'level' && lastPrice.data ? (
                    <p className="mt-1 text-[11px] text-gray-400">Last price {formatPrice(lastPrice.data)}</p>
                  ) : null}
                  <FieldError id={errorId(key)} text={errors[key]} />
                </div>
              );
            })}
          </fieldset>
          <div>
            <label htmlFor={`${id}-trigger`} className={labelClass}>
              Trigger
            </label>
            <select
              id={`${id}-trigger`}
              className={field}
              {...register('trigger', {
                onChange: () => {
                  setTriggerPicked(true);
                },
              })}
              {...invalid('trigger')}
            >
              {RULE_TRIGGERS.map((trigger) => (
                <option key={trigger} value={trigger}>
                  {RULE_TRIGGER_LABELS[trigger]}
                </option>
              ))}
            </select>
            <FieldError id={errorId('trigger')} text={errors.trigger} />
          </div>
          <div>
            <label htmlFor={`${id}-expires`} className={labelClass}>
              Expires (optional)
            </label>
            <input
              id={`${id}-expires`}
              type="datetime-local"
              className={field}
              {...register('expiresAt')}
              {...invalid('expiresAt')}
            />
            <FieldError id={errorId('expiresAt')} text={errors.expiresAt} />
          </div>
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-name`} className={labelClass}>
              Name (optional)
            </label>
            <input
              id={`${id}-name`}
              className={field}
              placeholder="Named after the condition when empty"
              {...register('name')}
              {...invalid('name')}
            />
            <FieldError id={errorId('name')} text={errors.name} />
          </div>
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-message`} className={labelClass}>
              Message (optional)
            </label>
            <textarea
              id={`${id}-message`}
              rows={2}
              className={field}
              {...messageField}
              ref={(element) => {
                messageField.ref(element);
                message.current = element;
              }}
              placeholder="{{ticker}} crossed {{close}} at {{time}}"
              aria-describedby={`${id}-placeholders${errors.message ? ` ${errorId('message')}` : ''}`}
              aria-invalid={errors.message ? true : undefined}
            />
            <div id={`${id}-placeholders`} className="mt-1 flex flex-wrap items-center gap-1 text-[11px] text-gray-400">
              <span>Placeholders:</span>
              {RULE_TEMPLATE_FIELDS.map((name) => (
                <button
                  key={name}
                  type="button"
                  title={`Insert {{${name}}}`}
                  className="rounded bg-gray-800 px-1.5 py-0.5 font-mono text-gray-200 hover:bg-gray-700"
                  onClick={() => insertPlaceholder(name)}
                >
                  {`{{${name}}}`}
                </button>
              ))}
            </div>
            <FieldError id={errorId('message')} text={errors.message} />
          </div>
          <fieldset className="sm:col-span-2" aria-describedby={errors.channels ? errorId('channels') : undefined}>
            <legend className={labelClass}>Deliver to</legend>
            <div className="mt-1 flex flex-wrap gap-4">
              {RULE_CHANNELS.map((channel) => (
                <label key={channel} className="flex items-center gap-1.5 text-sm text-gray-200">
                  <input
                    type="checkbox"
                    className="accent-indigo-500"
                    checked={form.channels.includes(channel)}
                    disabled={channel === 'push' && push.asking}
                    onChange={(event) => void toggleChannel(channel, event.target.checked)}
                  />
                  {RULE_CHANNEL_LABELS[channel]}
                </label>
              ))}
            </div>
            {push.asking && (
              <p role="status" className="mt-1 text-xs text-gray-400">
                Asking the browser for permission to notify you...
              </p>
            )}
            {push.message && (
              <p role="alert" className="mt-1 text-xs text-amber-300">
                {push.message}
              </p>
            )}
            <FieldError id={errorId('channels')} text={errors.channels} />
            {form.channels.includes('webhook') && (
              <WebhookSettings
                url={form.webhookUrl}
                onUrlChange={(webhookUrl) => setValue('webhookUrl', webhookUrl)}
                inputId={`${id}-webhook`}
                error={errors.webhookUrl}
                errorId={errorId('webhookUrl')}
              />
            )}
          </fieldset>
          <div className="space-y-2 sm:col-span-2">
            {description && (
              <p className="text-xs text-gray-300" data-testid="rule-preview">
                Alert when {description}
              </p>
            )}
            {hasErrors && (
              <div role="alert" className="rounded border border-red-800 bg-red-950/60 px-3 py-2 text-sm text-red-300">
                {otherErrors.length > 0
                  ? otherErrors.map(([key, text]) => <p key={key}>{text}</p>)
                  : 'Please correct the fields marked above.'}
              </div>
            )}
            {saving.isError && (
              <p role="alert" className="rounded border border-red-800 bg-red-950/60 px-3 py-2 text-sm text-red-300">
                {saving.error.message}
              </p>
            )}
            <div className="flex justify-end gap-2">
              <button
                type="button"
                className="rounded border border-gray-600 px-3 py-1.5 text-sm text-gray-200 hover:bg-gray-800"
                onClick={onClose}
              >
                Cancel
              </button>
              <button
                type="submit"
                disabled={saving.isPending}
                className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
              >
                {saving.isPending ? 'Saving...' : rule ? 'Save changes' : 'Create alert'}
              </button>
            </div>
          </div>
        </form>
      </div>
    </div>
  );
}
