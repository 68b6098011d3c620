// The dashboard's "Track record" panel in the AI section (on a phone, the AI tab): a heading and
// a disclosure. The view itself (TrackRecordPanel: filters, scores, reliability diagram,
// backtest) is mounted, and asks the server for a record, only once the trader opens the
// panel, so the dashboard's first load sends no request for it. Its code (about 5 kB gzipped)
// ships in the dashboard's chunk: a lazy chunk of its own, imported from the lazy dashboard,
// made the bundler split React and the query client out of the entry script into a chunk of
// their own, which the landing page would then load too (scripts/bundleBudget.mjs).
import { Panel } from '../../ui/Panel.tsx';
import { useId, useState } from 'react';
import { TrackRecordPanel } from './TrackRecordPanel.tsx';

export function TrackRecordSection({ className = '' }: { className?: string }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  return (
    <Panel
      headingId="track-record-heading"
      title="Track record"
      className={`min-w-0 ${className}`}
      headerClassName="flex flex-wrap items-center justify-between gap-2"
      data-testid="track-record"
      header={
        <button
          type="button"
          className="rounded border border-gray-700 px-2 py-1 text-xs text-gray-200 hover:bg-gray-800 hover:text-white"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen((value) => !value)}
        >
          {open ? 'Hide track record' : 'Show track record'}
        </button>
      }
    >
      <p className="mt-1 text-xs text-gray-300">
        Every odds statement of the WATOS grid and the assistant, resolved against the candles once its horizon has
        passed and scored: do the stated odds come true as often as stated?
      </p>
      <div id={bodyId} hidden={!open}>
        {open ? <TrackRecordPanel /> : null}
      </div>
    </Panel>
  );
}
