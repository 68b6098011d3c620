// The trader's saved scans (issue 36): each loads into the form or is deleted, and each can
// alert when a symbol enters it ("Alert me when a symbol enters this scan": an alert rule of its
// own on the server, delivered through the chosen channels like any rule's).
import { useId, useState } from 'react';
import { RULE_CHANNEL_LABELS, type RuleChannel } from '../../../shared/schemas/alertRules.ts';
import type { SavedScan } from '../../../shared/schemas/scans.ts';
import { useSavedScanActions, useSavedScans } from './scanApi.ts';

/**
 * The channels a scan alert offers: in the app and by e-mail. Push needs the browser's permission
 * and a webhook its URL and secret, both set up in the rule form; a scan's rule can be edited
 * there for them.
 */
const SCAN_ALERT_CHANNELS = ['in_app', 'email'] as const satisfies readonly RuleChannel[];

function SavedScanItem({
  scan,
  onLoad,
  actions,
}: {
  scan: SavedScan;
  onLoad: (scan: SavedScan) => void;
  actions: ReturnType<typeof useSavedScanActions>;
}) {
  const id = useId();
  const [channels, setChannels] = useState<RuleChannel[]>(['in_app']);
  const alerting = scan.alertRuleId !== null;
  const busy = actions.alert.isPending && actions.alert.variables?.id === scan.id;
  const failed = actions.alert.isError && actions.alert.variables?.id === scan.id ? actions.alert.error : null;

  function setChannel(channel: RuleChannel, checked: boolean) {
    const next = SCAN_ALERT_CHANNELS.filter((entry) => (entry === channel ? checked : channels.includes(entry)));
    setChannels(next);
    // A scan that alerts already takes the new channels at once (none left turns it off).
    if (alerting) actions.alert.mutate({ id: scan.id, channels: next.length > 0 ? next : null });
  }

  return (
    <li className="rounded border border-gray-700 p-2 text-sm" data-testid="saved-scan">
      <div className="flex flex-wrap items-center gap-2">
        <span className="min-w-0 flex-1 truncate font-semibold text-white">{scan.name}</span>
        <span className="text-[11px] text-gray-400">
          {scan.timeframe}, {scan.conditions.length} condition{scan.conditions.length === 1 ? '' : 's'}
        </span>
        <button
          type="button"
          className="rounded border border-gray-700 px-2 py-0.5 text-xs text-gray-200 hover:bg-gray-800"
          aria-label={`Load the scan ${scan.name}`}
          onClick={() => onLoad(scan)}
        >
          Load
        </button>
        <button
          type="button"
          className="rounded border border-gray-700 px-2 py-0.5 text-xs text-gray-300 hover:border-red-500 hover:text-red-300"
          aria-label={`Delete the scan ${scan.name}`}
          disabled={actions.remove.isPending}
          onClick={() => actions.remove.mutate(scan.id)}
        >
          Delete
        </button>
      </div>
      <div className="mt-1 flex flex-wrap items-center gap-3 text-xs text-gray-200">
        <label className="flex items-center gap-1.5">
          <input
            type="checkbox"
            className="accent-indigo-500"
            checked={alerting}
            disabled={busy || (!alerting && channels.length === 0)}
            onChange={(event) =>
              actions.alert.mutate({ id: scan.id, channels: event.target.checked ? channels : null })
            }
          />
          Alert me when a symbol enters this scan
        </label>
        <fieldset className="flex flex-wrap items-center gap-2">
          <legend className="sr-only">Deliver the alerts of {scan.name} to</legend>
          {SCAN_ALERT_CHANNELS.map((channel) => (
            <label key={channel} className="flex items-center gap-1 text-gray-300">
              <input
                type="checkbox"
                id={`${id}-${channel}`}
                className="accent-indigo-500"
                checked={channels.includes(channel)}
                disabled={busy}
                onChange={(event) => setChannel(channel, event.target.checked)}
              />
              {RULE_CHANNEL_LABELS[channel]}
            </label>
          ))}
        </fieldset>
      </div>
      {failed && (
        <p role="alert" className="mt-1 text-xs text-red-300">
          {failed.message}
        </p>
      )}
    </li>
  );
}

export function SavedScans({
  onLoad,
  actions,
}: {
  onLoad: (scan: SavedScan) => void;
  actions: ReturnType<typeof useSavedScanActions>;
}) {
  const saved = useSavedScans();
  return (
    <section aria-labelledby="saved-scans-heading" data-testid="saved-scans">
      <h3 id="saved-scans-heading" className="text-sm font-semibold text-white">
        Saved scans
      </h3>
      {saved.isPending ? (
        <p className="mt-1 text-xs text-gray-400">Loading...</p>
      ) : saved.isError ? (
        <p role="alert" className="mt-1 text-xs text-red-300">
          The saved scans could not be loaded: {saved.error.message}
        </p>
      ) : saved.data.length === 0 ? (
        <p className="mt-1 text-xs text-gray-400">No saved scan yet: name one below the conditions to keep it.</p>
      ) : (
        <ul className="mt-1 space-y-2">
          {saved.data.map((scan) => (
            <SavedScanItem key={scan.id} scan={scan} onLoad={onLoad} actions={actions} />
          ))}
        </ul>
      )}
      {actions.remove.isError && (
        <p role="alert" className="mt-1 text-xs text-red-300">
          {actions.remove.error.message}
        </p>
      )}
    </section>
  );
}
