// The rules traders chose to publish (issue 36, item 3), in the Track record view under "My
// rules": scored with the product's parts (counts, Brier skill, reliability diagram, one row per
// rule), and apart from the product's own record, whose calibration is the product's alone.
import { RecordScores } from './RecordScores.tsx';
import { usePublishedRules } from './myRulesApi.ts';

export function PublishedRulesRecord() {
  const published = usePublishedRules();
  return (
    <section
      className="mt-4 border-t border-gray-800 pt-3"
      aria-labelledby="published-rules-heading"
      data-testid="published-rules-record"
    >
      <h3 id="published-rules-heading" className="text-sm font-semibold text-white">
        Traders' published rules
      </h3>
      <p className="mt-0.5 text-[11px] text-gray-400">
        Rules whose traders published their record, each scored like the product's odds and kept apart from them.
      </p>
      {published.isPending ? (
        <p className="mt-2 text-sm text-gray-300">Loading the published rules…</p>
      ) : published.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-300">
          The published rules could not be loaded: {published.error.message}
        </p>
      ) : published.data.counts.resolved === 0 ? (
        <p className="mt-2 text-sm text-gray-300" data-testid="published-rules-empty">
          No published rule has a resolved firing yet.
        </p>
      ) : (
        <RecordScores record={published.data} label="published rules" />
      )}
    </section>
  );
}
