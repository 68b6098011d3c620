// All-Market Alert Log (docs/SPEC.md): filters by type, market (asset class), symbol, count and
// time window with 'Apply Filters'; 'Loading alerts...' / 'No alerts found'; colour by display
// type; each row names its market (the ticker's asset class). New alerts arrive live on the tab's
// one live connection (src/web/live/), which carries every market's; the applied filters pick
// the ones that belong in the list.
import { Panel } from '../../ui/Panel.tsx';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ALERT_TYPES } from '../../../shared/constants.ts';
import {
  alertTimeLabel,
  toAlertDisplayItem,
  type AlertDisplayType,
  type AlertRecord,
} from '../../../shared/alertDisplay.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useLiveAlerts } from '../../live/index.ts';
import { ASSET_CLASS_GROUP_LABELS, ASSET_CLASS_LABELS, ASSET_CLASSES } from '../../ui/assetClasses.ts';
import {
  alertMatchesFilters,
  alertQueryString,
  alertWindowLabel,
  effectiveMaxCount,
  EMPTY_FILTERS,
  fetchAlerts,
  maxCountNotice,
  type AlertFilters,
} from './alertApi.ts';

export const TYPE_STYLES: Record<AlertDisplayType, { dot: string; text: string; label: string }> = {
  bullish: { dot: 'bg-green-500', text: 'text-green-400', label: 'Bullish' },
  bearish: { dot: 'bg-red-500', text: 'text-red-400', label: 'Bearish' },
  caution: { dot: 'bg-yellow-400', text: 'text-yellow-300', label: 'Caution' },
};

function AlertItem({ alert }: { alert: AlertRecord }) {
  const item = toAlertDisplayItem(alert);
  const style = TYPE_STYLES[item.type];
  return (
    <li
      className="rounded border border-gray-800 bg-gray-800/50 p-2"
      data-testid="alert-item"
      data-type={item.type}
      data-market={item.market ?? ''}
    >
      <div className="flex items-center gap-2 text-xs">
        <span className={`h-2 w-2 rounded-full ${style.dot}`} aria-hidden />
        <span className="font-bold text-white">{item.symbol}</span>
        <span className="text-gray-400" data-testid="alert-market">
          {item.market ? ASSET_CLASS_LABELS[item.market] : ''}
        </span>
        <span className={style.text}>{style.label}</span>
        <time className="ml-auto text-gray-400" dateTime={item.fullDate} title={item.fullDate}>
          {alertTimeLabel(alert.timestamp)}
        </time>
      </div>
      <p className="mt-1 text-sm text-gray-200">{item.content}</p>
    </li>
  );
}

export function AlertLog() {
  const queryClient = useQueryClient();
  const marketId = useId();
  const [draft, setDraft] = useState<AlertFilters>(EMPTY_FILTERS);
  const [applied, setApplied] = useState<{
    filters: AlertFilters;
    query: string;
    notice: string | null;
    /** The window the list covers, in words (empty start and end silently mean the last hour). */
    window: string;
  }>(() => ({
    filters: EMPTY_FILTERS,
    query: alertQueryString(EMPTY_FILTERS),
    notice: null,
    window: alertWindowLabel(EMPTY_FILTERS),
  }));
  const log = useQuery({
    queryKey: queryKeys.alerts.log(applied.query),
    queryFn: async () => {
      try {
        return await fetchAlerts(applied.query);
      } catch (error) {
        // docs/SPEC.md: a failed alert fetch is only logged; the list shows 'No alerts found'.
        console.error('Error fetching alerts', error);
        return [];
      }
    },
  });

  useLiveAlerts((alert) => {
    // A fixed end time means a historical view: live alerts do not belong in it.
    if (applied.filters.endTime || !alertMatchesFilters(applied.filters)(alert)) return;
    queryClient.setQueryData<AlertRecord[]>(queryKeys.alerts.log(applied.query), (current = []) =>
      [
        alert,
        ...current.filter(
          (existing) =>
            !(
              existing.ticker === alert.ticker &&
              existing.alert_type === alert.alert_type &&
              existing.timestamp === alert.timestamp
            ),
        ),
      ].slice(0, Math.max(current.length, 1)),
    );
  });

  const field = 'w-full rounded border border-gray-700 bg-gray-800 px-2 py-1 text-sm text-white';
  return (
    <Panel
      headingId="alert-log-heading"
      title="All-Market Alert Log"
      className="flex h-full flex-col"
      data-tour="alert-log"
    >
      {/* noValidate: an out-of-range max count is corrected by docs/SPEC.md's rule (and the
          trader told so), not refused by the browser's number-field check. */}
      <form
        className="mt-2 grid grid-cols-2 gap-2"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const notice = maxCountNotice(draft.maxCount);
          const filters = { ...draft, maxCount: String(effectiveMaxCount(draft.maxCount)) };
          setDraft(filters);
          const now = new Date();
          const query = alertQueryString(filters, now);
          // One request a click: a new query string is a new key, which React Query fetches by
          // itself; the same one (the same filters within the same second) is refetched. (An
          // invalidation on top used to refetch the previous key as well: two requests.)
          if (query === applied.query) void log.refetch();
          setApplied({ filters, query, notice, window: alertWindowLabel(filters, now) });
        }}
      >
        <label className="text-xs text-gray-400">
          Alert type
          <select
            className={field}
            value={draft.alertType}
            onChange={(event) => setDraft({ ...draft, alertType: event.target.value })}
          >
            <option value="">All types</option>
            {ALERT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type.replace('AlertGenerator', '')}
              </option>
            ))}
          </select>
        </label>
        {/* A label beside (not around) the select, so its accessible name is the label alone. */}
        <div className="text-xs text-gray-400">
          <label htmlFor={marketId}>Market</label>
          <select
            id={marketId}
            className={field}
            value={draft.market}
            onChange={(event) => setDraft({ ...draft, market: event.target.value })}
          >
            <option value="">All markets</option>
            {ASSET_CLASSES.map((assetClass) => (
              <option key={assetClass} value={assetClass}>
                {ASSET_CLASS_GROUP_LABELS[assetClass]}
              </option>
            ))}
          </select>
        </div>
        <label className="text-xs text-gray-400">
          Symbol
          <input
            className={field}
            value={draft.symbol}
            placeholder="e.g. BTC"
            onChange={(event) => setDraft({ ...draft, symbol: event.target.value })}
          />
        </label>
        <label className="text-xs text-gray-400">
          Max count
          <input
            className={field}
            type="number"
            min={1}
            max={100}
            value={draft.maxCount}
            onChange={(event) => setDraft({ ...draft, maxCount: event.target.value })}
          />
        </label>
        {/* The date fields take the whole row: Chromium's 'mm/dd/yyyy, --:-- --' is cut off in
            half of a 25%-wide panel. */}
        <label className="col-span-2 text-xs text-gray-400">
          Start time
          <input
            className={field}
            type="datetime-local"
            value={draft.startTime}
            onChange={(event) => setDraft({ ...draft, startTime: event.target.value })}
          />
        </label>
        <label className="col-span-2 text-xs text-gray-400">
          End time
          <input
            className={field}
            type="datetime-local"
            value={draft.endTime}
            onChange={(event) => setDraft({ ...draft, endTime: event.target.value })}
          />
        </label>
        <button
          type="submit"
          className="col-span-2 rounded bg-indigo-600 py-1.5 text-sm font-semibold text-white hover:bg-indigo-500"
        >
          Apply Filters
        </button>
      </form>
      {applied.notice ? (
        <p role="status" className="mt-1 text-xs text-yellow-300">
          {applied.notice}
        </p>
      ) : null}
      <p className="mt-2 text-xs text-gray-400" data-testid="alert-window">
        {applied.window}
      </p>
      <div className="mt-1 min-h-0 flex-1 overflow-y-auto" tabIndex={0} role="region" aria-label="Alert log results">
        {log.isPending || (log.isFetching && log.data?.length === 0) ? (
          <p className="text-sm text-gray-400">Loading alerts...</p>
        ) : log.data && log.data.length > 0 ? (
          <ul className="space-y-2" aria-label="Alerts">
            {log.data.map((alert) => (
              <AlertItem key={`${alert.ticker}-${alert.alert_type}-${alert.timestamp}`} alert={alert} />
            ))}
          </ul>
        ) : (
          <p className="text-sm text-gray-400">No alerts found</p>
        )}
      </div>
    </Panel>
  );
}
