// "My rules" in the Track record view (issue 36, item 3): every firing of the trader's own alert
// rules as a forecast, resolved and scored like the product's WATOS statements, shown with the
// same parts (RecordScores: counts, Brier skill, reliability diagram) beside the product's
// record, and one line per rule with its figures and a switch that publishes its record (private
// to the trader until then).
import { useId } from 'react';
import { RecordScores } from './RecordScores.tsx';
import { useMyTrackRecord, usePublishRule, type MyRuleRecord } from './myRulesApi.ts';

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function RuleLine({
  rule,
  onPublish,
  busy,
}: {
  rule: MyRuleRecord;
  onPublish: (published: boolean) => void;
  busy: boolean;
}) {
  const id = useId();
  const figures = [
    `${rule.resolved.toLocaleString('en-US')} resolved`,
    rule.pending > 0 ? `${rule.pending.toLocaleString('en-US')} pending` : null,
    rule.hitRate !== null ? `hit rate ${percent(rule.hitRate)}` : null,
    rule.brierSkill !== null ? `skill ${rule.brierSkill > 0 ? '+' : ''}${rule.brierSkill.toFixed(3)}` : null,
  ].filter((text): text is string => text !== null);
  return (
    <li
      className="flex flex-wrap items-center gap-2 rounded border border-gray-700 p-2 text-xs"
      data-testid="my-rule"
      data-rule={rule.ruleId}
    >
      <div className="min-w-0 flex-1">
        <p className="truncate font-semibold text-white">{rule.name}</p>
        <p className="text-gray-300">{figures.join(' · ')}</p>
      </div>
      <label htmlFor={`${id}-publish`} className="flex items-center gap-1.5 text-gray-200">
        <input
          id={`${id}-publish`}
          type="checkbox"
          role="switch"
          className="accent-indigo-500"
          checked={rule.published}
          disabled={busy}
          aria-label={`Publish the record of ${rule.name}`}
          onChange={(event) => onPublish(event.target.checked)}
        />
        <span aria-hidden="true">{rule.published ? 'Public' : 'Private'}</span>
      </label>
    </li>
  );
}

export function MyRulesRecord() {
  const mine = useMyTrackRecord();
  const publish = usePublishRule();
  return (
    <section
      className="mt-4 border-t border-gray-800 pt-3"
      aria-labelledby="my-rules-record-heading"
      data-testid="my-rules-record"
    >
      <h3 id="my-rules-record-heading" className="text-sm font-semibold text-white">
        My rules
      </h3>
      <p className="mt-0.5 text-[11px] text-gray-400">
        Each firing of your alert rules, scored like the product's odds: private to you unless you publish a rule's
        record.
      </p>
      {mine.isPending ? (
        <p className="mt-2 text-sm text-gray-300">Loading your rules' record…</p>
      ) : mine.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-300">
          Your rules' record could not be loaded: {mine.error.message}
        </p>
      ) : mine.data.rules.length === 0 && mine.data.counts.pending === 0 ? (
        <p className="mt-2 text-sm text-gray-300" data-testid="my-rules-empty">
          {/* Not "has fired": a firing whose setup has too few past signals (MIN_SAMPLES,
              src/signals/watosOdds.ts) states no odds, so it is no forecast (studies/ruleForecasts.ts). */}
          No firing of your alert rules is a forecast yet: a firing becomes one here when its rule's setup has at least
          30 past signals in the stored history to state odds from.
        </p>
      ) : (
        <>
          {mine.data.counts.resolved === 0 ? (
            <p className="mt-2 text-sm text-gray-300">
              No firing of your rules has been resolved yet
              {mine.data.counts.pending > 0
                ? ` (${mine.data.counts.pending.toLocaleString('en-US')} pending: each settles once its horizon has passed)`
                : ''}
              .
            </p>
          ) : (
            // Each rule's hit rate and skill are on its own line below, with its publish switch.
            <RecordScores record={{ ...mine.data, signals: [] }} label="my rules" />
          )}
          <ul className="mt-3 grid gap-2 sm:grid-cols-2" aria-label="My rules' records">
            {mine.data.rules.map((rule) => (
              <RuleLine
                key={rule.ruleId}
                rule={rule}
                busy={publish.isPending && publish.variables.ruleId === rule.ruleId}
                onPublish={(published) => publish.mutate({ ruleId: rule.ruleId, published })}
              />
            ))}
          </ul>
          {publish.isError && (
            <p role="alert" className="mt-1 text-xs text-red-300">
              {publish.error.message}
            </p>
          )}
        </>
      )}
    </section>
  );
}
