// The setup study (issue 36, item 2): the request (the scan's conditions on one symbol or on the
// scan's matches, the horizon in bars and the fee per trade), then the answer: the verdict
// sentence first, the product's estimator (signals, effective samples, the shrunk share with its
// 95% interval against the base rate, "No measurable edge" when the interval holds it), the
// plain outcome statistics, and the equity curve. A study already running for this trader (429)
// says how many seconds to wait, from the server's Retry-After.
import { useId, useState } from 'react';
import {
  STUDY_SYMBOLS_MAX,
  studyRequest,
  type ScanCondition,
  type StudyRequest,
  type StudyResponse,
} from '../../../shared/schemas/scans.ts';
import type { RuleTimeframe } from '../../../shared/schemas/alertRules.ts';
import { EquityChart } from './EquityChart.tsx';
import { FIELD_CLASS, FieldError, LABEL_CLASS } from './ScanForm.tsx';

const NO_EDGE_TEXT = 'No measurable edge';

export interface StudyTarget {
  /** The row the study was asked from; null when asked for the whole scan. */
  symbol: string | null;
  /** The scan's matches (canonical ids), strongest first. */
  matches: string[];
  timeframe: RuleTimeframe;
  conditions: ScanCondition[];
}

/** The study's state as the panel holds it (its useStudy mutation). */
export interface StudyState {
  run: (request: StudyRequest) => void;
  pending: boolean;
  data: StudyResponse | undefined;
  error: Error | null;
}

const share = (value: number) => `${Math.round(value * 100)}%`;
const move = (value: number | null) =>
  value === null ? '-' : `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(2)}%`;

/** The request the study form makes: the scan's conditions on the chosen symbols. */
export function studyRequestOf(
  target: StudyTarget,
  scope: 'symbol' | 'matches',
  horizon: string,
  feePercent: string,
): { request: StudyRequest } | { errors: Record<string, string> } {
  const symbols = scope === 'symbol' && target.symbol ? [target.symbol] : target.matches.slice(0, STUDY_SYMBOLS_MAX);
  const parsed = studyRequest.safeParse({
    symbols,
    timeframe: target.timeframe,
    conditions: target.conditions,
    horizon: horizon.trim() === '' ? undefined : Number(horizon),
    feePercent: feePercent.trim() === '' ? undefined : Number(feePercent),
  });
  if (parsed.success) return { request: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) errors[String(issue.path[0] ?? '')] ??= issue.message;
  return { errors };
}

function Stat({ term, value, hint }: { term: string; value: string; hint?: string }) {
  return (
    <div className="rounded bg-gray-800 p-2">
      <dt className="text-[11px] text-gray-300">{term}</dt>
      <dd className="text-sm font-semibold tabular-nums text-white">{value}</dd>
      {hint ? <dd className="text-[10px] text-gray-400">{hint}</dd> : null}
    </div>
  );
}

function StudyResult({ study }: { study: StudyResponse }) {
  const { outcomes } = study;
  // The demo feed's bars are simulated: a verdict over them says so beside it.
  const demo = study.perSymbol.filter((entry) => entry.source === 'demo').map((entry) => entry.symbol);
  return (
    <div className="mt-3 space-y-3" data-testid="study-result">
      <div className="flex flex-wrap items-start gap-2">
        <p
          className="w-full min-w-0 text-base font-semibold text-white sm:w-auto sm:flex-1"
          data-testid="study-verdict"
        >
          {study.verdict}
        </p>
        {study.edge ? (
          <span className="rounded bg-green-500/20 px-1.5 py-0.5 text-[11px] font-semibold text-green-200">
            Edge over the base rate
          </span>
        ) : (
          <span
            className="rounded bg-amber-500/20 px-1.5 py-0.5 text-[11px] font-semibold text-amber-200"
            data-testid="study-no-edge"
            title="The 95% interval holds the base rate: the setup did not do measurably better than any bar"
          >
            {NO_EDGE_TEXT}
          </span>
        )}
        {demo.length > 0 && (
          <span
            className="rounded bg-gray-700 px-1.5 py-0.5 text-[11px] font-semibold text-gray-100"
            data-testid="study-demo"
            title={`Simulated bars of the demo feed, not a market's: ${demo.join(', ')}`}
          >
            Demo data
          </span>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-testid="study-estimate">
        <Stat term="Signals (n)" value={study.signals.toLocaleString('en-US')} />
        <Stat
          term="Effective samples"
          value={study.effectiveSamples.toLocaleString('en-US', { maximumFractionDigits: 1 })}
          hint="overlapping signals counted once"
        />
        <Stat
          term="Closed higher"
          value={share(study.rose.share)}
          hint={`95% ${share(study.rose.low)}–${share(study.rose.high)}`}
        />
        <Stat term="Base rate" value={share(study.baseRate)} hint="all bars, same symbols and window" />
      </dl>
      <div>
        <h4 className="text-sm font-semibold text-gray-100">Outcomes after {study.horizon} bars</h4>
        <dl className="mt-1 grid grid-cols-2 gap-2 sm:grid-cols-5" data-testid="study-outcomes">
          <Stat term="Hit rate" value={outcomes.hitRate === null ? '-' : share(outcomes.hitRate)} />
          <Stat term="Average move" value={move(outcomes.averageMovePercent)} />
          <Stat term="Median move" value={move(outcomes.medianMovePercent)} />
          <Stat term="Adverse excursion" value={move(outcomes.adverseExcursionPercent)} hint="mean worst" />
          <Stat term="Favourable excursion" value={move(outcomes.favourableExcursionPercent)} hint="mean best" />
        </dl>
      </div>
      <p className="text-[11px] text-gray-400">
        {study.trades.toLocaleString('en-US')} trade{study.trades === 1 ? '' : 's'} on {study.timeframe} bars
        {study.from && study.to ? ` from ${study.from.slice(0, 10)} to ${study.to.slice(0, 10)}` : ''}
        {study.perSymbol.length > 1
          ? `: ${study.perSymbol.map((entry) => `${entry.symbol} ${entry.signals}`).join(', ')}`
          : ''}
        .
      </p>
      <EquityChart equity={study.equity} label={`Equity curve of ${study.symbols.join(', ')}`} />
    </div>
  );
}

export function StudyView({ target, study, onClose }: { target: StudyTarget; study: StudyState; onClose: () => void }) {
  const id = useId();
  const [scope, setScope] = useState<'symbol' | 'matches'>(target.symbol ? 'symbol' : 'matches');
  const [horizon, setHorizon] = useState('24');
  const [fee, setFee] = useState('0.1');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const errorId = (key: string) => `${id}-error-${key}`;
  const invalid = (key: string) =>
    errors[key] ? { 'aria-invalid': true as const, 'aria-describedby': errorId(key) } : {};

  function submit() {
    const made = studyRequestOf(target, scope, horizon, fee);
    if ('errors' in made) return setErrors(made.errors);
    setErrors({});
    study.run(made.request);
  }

  const matches = Math.min(target.matches.length, STUDY_SYMBOLS_MAX);
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="mt-4 rounded-md border border-indigo-400/50 bg-indigo-500/5 p-3"
      data-testid="study-view"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={`${id}-heading`} className="text-sm font-semibold text-white">
          Setup study: what the price did after this scan's conditions came true
        </h3>
        <button
          type="button"
          className="rounded border border-gray-700 px-2 py-0.5 text-[11px] text-gray-200 hover:bg-gray-800"
          onClick={onClose}
        >
          Close study
        </button>
      </div>
      <form
        noValidate
        aria-label="Study settings"
        className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <fieldset className="col-span-2 min-w-0" aria-describedby={errors.symbols ? errorId('symbols') : undefined}>
          <legend className={LABEL_CLASS}>Symbols</legend>
          <div className="mt-1 flex flex-wrap gap-3 text-sm text-gray-200">
            {target.symbol && (
              <label className="flex items-center gap-1.5">
                <input
                  type="radio"
                  name={`${id}-scope`}
                  className="accent-indigo-500"
                  checked={scope === 'symbol'}
                  onChange={() => setScope('symbol')}
                />
                {target.symbol} only
              </label>
            )}
            <label className="flex items-center gap-1.5">
              <input
                type="radio"
                name={`${id}-scope`}
                className="accent-indigo-500"
                checked={scope === 'matches'}
                disabled={matches === 0}
                onChange={() => setScope('matches')}
              />
              The scan's matches ({matches}
              {target.matches.length > STUDY_SYMBOLS_MAX ? `, the strongest of ${target.matches.length}` : ''})
            </label>
          </div>
          <FieldError id={errorId('symbols')} text={errors.symbols} />
        </fieldset>
        <div className="min-w-0">
          <label htmlFor={`${id}-horizon`} className={LABEL_CLASS}>
            Horizon (bars)
          </label>
          <input
            id={`${id}-horizon`}
            type="number"
            step="1"
            inputMode="numeric"
            className={FIELD_CLASS}
            value={horizon}
            onChange={(event) => setHorizon(event.target.value)}
            {...invalid('horizon')}
          />
          <FieldError id={errorId('horizon')} text={errors.horizon} />
        </div>
        <div className="min-w-0">
          <label htmlFor={`${id}-fee`} className={LABEL_CLASS}>
            Fee per trade (%)
          </label>
          <input
            id={`${id}-fee`}
            type="number"
            step="any"
            inputMode="decimal"
            className={FIELD_CLASS}
            value={fee}
            onChange={(event) => setFee(event.target.value)}
            {...invalid('feePercent')}
          />
          <FieldError id={errorId('feePercent')} text={errors.feePercent} />
        </div>
        <div className="col-span-2 sm:col-span-4">
          <button
            type="submit"
            disabled={study.pending}
            className="rounded bg-indigo-600 px-3 py-1 text-sm font-semibold text-white hover:bg-indigo-500 disabled:opacity-60"
          >
            {study.pending ? 'Studying...' : 'Run study'}
          </button>
        </div>
      </form>
      {study.pending ? (
        <p role="status" className="mt-3 text-sm text-gray-300">
          Walking the stored history...
        </p>
      ) : study.error ? (
        <p role="alert" className="mt-3 text-sm text-red-300" data-testid="study-error">
          {study.error.message}
        </p>
      ) : study.data ? (
        <StudyResult study={study.data} />
      ) : null}
    </section>
  );
}
