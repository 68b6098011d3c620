// One scored record, live or backtest (the same shape): how many forecasts (resolved, pending,
// unresolvable), the Brier score against the base rate's and the skill between them said in
// words, the reliability diagram with its table, and each signal's hit rate with its count,
// flagged signals marked.
import type { TrackRecordResponse } from '../../../shared/schemas/trackRecord.ts';
import { percent, ReliabilityDiagram } from './ReliabilityDiagram.tsx';

/** The scores of any record: the product's live or backtest record, or a trader's own rules'. */
export type ScoredRecord = Pick<
  TrackRecordResponse,
  'source' | 'counts' | 'brier' | 'baseBrier' | 'brierSkill' | 'reliability' | 'signals' | 'flagMinResolved'
>;

const count = (value: number) => value.toLocaleString('en-US');
const signed = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(3)}`;

const FLAGGED_TEXT = 'Below base rate';

/** Whether the odds beat quoting the base rate, in words. */
export function skillVerdict(record: Pick<TrackRecordResponse, 'brierSkill' | 'counts'>): string | null {
  const skill = record.brierSkill;
  if (skill === null) return null;
  const over = `over ${count(record.counts.resolved)} resolved forecast${record.counts.resolved === 1 ? '' : 's'}`;
  if (skill > 0) return `The stated odds beat the base rate ${over} (their Brier score is lower).`;
  if (skill < 0) return `The stated odds did worse than the base rate ${over} (their Brier score is higher).`;
  return `The stated odds did exactly as well as the base rate ${over}.`;
}

function Counts({ record }: { record: ScoredRecord }) {
  const { resolved, pending, unresolvable } = record.counts;
  const total = resolved + pending + unresolvable;
  return (
    <p className="text-sm text-gray-200" data-testid="track-record-counts">
      <span className="font-semibold text-white">{count(total)}</span> forecast{total === 1 ? '' : 's'}:{' '}
      <span data-testid="count-resolved">{count(resolved)}</span> resolved,{' '}
      <span data-testid="count-pending">{count(pending)}</span> pending,{' '}
      <span data-testid="count-unresolvable">{count(unresolvable)}</span> unresolvable
    </p>
  );
}

function Scores({ record }: { record: ScoredRecord }) {
  if (record.brier === null || record.baseBrier === null) return null;
  const verdict = skillVerdict(record);
  const beat = (record.brierSkill ?? 0) > 0;
  return (
    <div>
      <dl className="grid grid-cols-3 gap-2 text-center" data-testid="track-record-scores">
        <div className="rounded bg-gray-800 p-2">
          <dt className="text-[11px] text-gray-300">Brier score</dt>
          <dd className="text-base font-semibold tabular-nums text-white">{record.brier.toFixed(4)}</dd>
        </div>
        <div className="rounded bg-gray-800 p-2">
          <dt className="text-[11px] text-gray-300">Base-rate Brier</dt>
          <dd className="text-base font-semibold tabular-nums text-white">{record.baseBrier.toFixed(4)}</dd>
        </div>
        <div className="rounded bg-gray-800 p-2">
          <dt className="text-[11px] text-gray-300">Brier skill</dt>
          <dd
            className={`text-base font-semibold tabular-nums ${beat ? 'text-green-300' : (record.brierSkill ?? 0) < 0 ? 'text-red-300' : 'text-white'}`}
          >
            {record.brierSkill === null ? '–' : signed(record.brierSkill)}
          </dd>
        </div>
      </dl>
      {verdict ? (
        <p className="mt-2 text-sm text-gray-200" data-testid="track-record-verdict">
          {verdict}
        </p>
      ) : null}
      <p className="mt-1 text-[11px] text-gray-400">
        Brier score: mean squared gap between the stated probability and what happened (lower is better). Brier skill =
        1 − Brier / base-rate Brier: above 0 the odds beat quoting the base rate.
      </p>
    </div>
  );
}

function Signals({ record }: { record: ScoredRecord }) {
  if (record.signals.length === 0) return null;
  return (
    <div>
      <h4 className="text-sm font-semibold text-gray-100">Hit rate by signal</h4>
      <ul className="mt-1 grid gap-2 sm:grid-cols-2" data-testid="track-record-signals">
        {record.signals.map((signal) => (
          <li
            key={signal.signal}
            className={`rounded border p-2 text-[11px] text-gray-200 ${signal.flagged ? 'border-red-500/60 bg-red-500/10' : 'border-gray-700'}`}
            data-testid="track-record-signal"
            data-signal={signal.signal}
            data-flagged={signal.flagged}
          >
            <div className="flex flex-wrap items-center justify-between gap-1">
              <span className="text-xs font-semibold text-white">{signal.name}</span>
              {signal.flagged ? (
                <span
                  className="rounded bg-red-500/20 px-1 text-[10px] font-semibold text-red-200"
                  data-testid="track-record-flag"
                  title={`Brier skill below 0 over at least ${count(record.flagMinResolved)} resolved forecasts: its odds did worse than quoting the base rate`}
                >
                  ⚠ {FLAGGED_TEXT}
                </span>
              ) : null}
            </div>
            <p>
              Hit rate <span className="font-semibold text-white">{percent(signal.hitRate)}</span> of{' '}
              {count(signal.count)} forecast{signal.count === 1 ? '' : 's'}
            </p>
            <p className="text-gray-300">
              stated {percent(signal.stated)}, realised {percent(signal.realised)} · skill{' '}
              {signal.brierSkill === null ? '–' : signed(signal.brierSkill)}
            </p>
          </li>
        ))}
      </ul>
      <p className="mt-1 text-[11px] text-gray-400">
        Hit rate: the share whose direction came true (bullish and the close rose, bearish and it did not). A signal is
        flagged when its Brier skill is below 0 over at least {count(record.flagMinResolved)} resolved forecasts.
      </p>
    </div>
  );
}

export function RecordScores({ record, label }: { record: ScoredRecord; label: string }) {
  return (
    <div className="mt-2 grid gap-4 lg:grid-cols-[minmax(0,320px)_minmax(0,1fr)]">
      {record.reliability.length > 0 ? (
        <ReliabilityDiagram bins={record.reliability} label={label} />
      ) : (
        <p className="text-sm text-gray-300">No resolved forecast to plot yet.</p>
      )}
      <div className="flex min-w-0 flex-col gap-3">
        <Counts record={record} />
        <Scores record={record} />
        <Signals record={record} />
      </div>
    </div>
  );
}
