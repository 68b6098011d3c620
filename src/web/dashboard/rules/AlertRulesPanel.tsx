// The "Alert rules" panel (issue 16), under the market alert log: the trader's own rules with
// their cap ("3 of 50 active"), pause / resume, edit and delete (confirmed in place); the
// Triggered list (live from the rules stream, newest first); and the delivery log (status,
// attempts, last error, latency of each channel of each firing). Each list shows its newest
// page and a "Load more" button for the next.
import { Panel } from '../../ui/Panel.tsx';
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import {
  RULE_CHANNEL_LABELS,
  RULE_TRIGGER_LABELS,
  type AlertRule,
  type DeliveryStatus,
  type RuleStatus,
} from '../../../shared/schemas/alertRules.ts';
import { formatPrice } from '../../../shared/format.ts';
import { useRuleEditor } from './AlertRulesProvider.tsx';
import { useDeleteRule, useDeliveries, useFirings, useRuleList, useSetRuleStatus } from './rulesApi.ts';

/** What "Load more" needs of a paged list (TanStack Query's infinite query). */
interface PagedList {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  error: Error | null;
  fetchNextPage: () => Promise<unknown>;
}

const TABS = [
  ['rules', 'Rules'],
  ['triggered', 'Triggered'],
  ['deliveries', 'Delivery log'],
] as const;
type Tab = (typeof TABS)[number][0];

const STATUS_STYLES: Record<RuleStatus, string> = {
  active: 'bg-green-900/60 text-green-300',
  paused: 'bg-gray-700 text-gray-200',
  triggered: 'bg-indigo-900/60 text-indigo-200',
  expired: 'bg-gray-800 text-gray-400',
};
const STATUS_LABELS: Record<RuleStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  triggered: 'Triggered',
  expired: 'Expired',
};
const DELIVERY_STYLES: Record<DeliveryStatus, string> = {
  pending: 'text-gray-300',
  retrying: 'text-amber-300',
  delivered: 'text-green-300',
  failed: 'text-red-300',
  skipped: 'text-gray-400',
};
const DELIVERY_LABELS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  retrying: 'Retrying',
  delivered: 'Delivered',
  failed: 'Failed',
  skipped: 'Skipped',
};

/** A time as the trader reads it: the time today, otherwise the date and time. */
function whenLabel(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

const smallButton =
  'rounded border border-gray-600 px-2 py-0.5 text-xs text-gray-200 hover:bg-gray-800 disabled:opacity-60';

/** The button under a list that reads its next page; nothing once the last page is shown. */
function LoadMore({ list, label }: { list: PagedList; label: string }) {
  if (!list.hasNextPage) return null;
  return (
    <div className="mt-2 flex flex-col items-center gap-1">
      <button
        type="button"
        className={smallButton}
        disabled={list.isFetchingNextPage}
        aria-busy={list.isFetchingNextPage}
        onClick={() => void list.fetchNextPage()}
      >
        {list.isFetchingNextPage ? 'Loading...' : label}
      </button>
      {list.isFetchNextPageError && list.error && (
        <p role="alert" className="text-xs text-red-300">
          {list.error.message}
        </p>
      )}
    </div>
  );
}

function RuleRow({ rule }: { rule: AlertRule }) {
  const editor = useRuleEditor();
  const setStatus = useSetRuleStatus();
  const remove = useDeleteRule();
  const [confirming, setConfirming] = useState(false);
  const error = setStatus.error ?? remove.error;
  // A rule named after its condition would say the same thing twice.
  const title = rule.name && !rule.description.startsWith(rule.name) ? rule.name : null;

  return (
    <li
      className="rounded border border-gray-800 bg-gray-800/50 p-2"
      data-testid="rule-row"
      data-status={rule.status}
      aria-label={rule.description}
    >
      <div className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          {title && <p className="truncate text-xs text-gray-400">{title}</p>}
          <p className="text-sm font-medium text-white">{rule.description}</p>
        </div>
        <span className={`shrink-0 rounded px-1.5 py-0.5 text-[11px] font-semibold ${STATUS_STYLES[rule.status]}`}>
          {STATUS_LABELS[rule.status]}
        </span>
      </div>
      <dl className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-[11px] text-gray-400">
        <div className="flex gap-1">
          <dt className="sr-only">Symbol</dt>
          <dd className="font-semibold text-gray-200">{rule.symbol}</dd>
        </div>
        <div className="flex gap-1">
          <dt className="sr-only">Timeframe</dt>
          <dd>{rule.timeframe}</dd>
        </div>
        <div className="flex gap-1">
          <dt className="sr-only">Trigger</dt>
          <dd>{RULE_TRIGGER_LABELS[rule.trigger]}</dd>
        </div>
        <div className="flex gap-1">
          <dt className="sr-only">Channels</dt>
          <dd>{rule.channels.map((channel) => RULE_CHANNEL_LABELS[channel]).join(', ')}</dd>
        </div>
        <div className="flex gap-1">
          <dt>Last triggered</dt>
          <dd className="text-gray-300">{rule.lastTriggeredAt ? whenLabel(rule.lastTriggeredAt) : 'never'}</dd>
        </div>
        {rule.expiresAt && (
          <div className="flex gap-1">
            <dt>Expires</dt>
            <dd className="text-gray-300">{whenLabel(rule.expiresAt)}</dd>
          </div>
        )}
      </dl>
      <div className="mt-1.5 flex flex-wrap items-center gap-1.5">
        {confirming ? (
          <>
            <span className="text-xs text-amber-300">Delete this rule?</span>
            <button
              type="button"
              className="rounded bg-red-700 px-2 py-0.5 text-xs text-white hover:bg-red-600 disabled:opacity-60"
              disabled={remove.isPending}
              onClick={() => remove.mutate(rule.id, { onSettled: () => setConfirming(false) })}
            >
              Yes, delete
            </button>
            <button type="button" className={smallButton} onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <>
            {(rule.status === 'active' || rule.status === 'paused') && (
              <button
                type="button"
                className={smallButton}
                disabled={setStatus.isPending}
                aria-label={`${rule.status === 'active' ? 'Pause' : 'Resume'} ${rule.description}`}
                onClick={() =>
                  setStatus.mutate({ id: rule.id, status: rule.status === 'active' ? 'paused' : 'active' })
                }
              >
                {rule.status === 'active' ? 'Pause' : 'Resume'}
              </button>
            )}
            <button
              type="button"
              className={smallButton}
              aria-label={`Edit ${rule.description}`}
              onClick={() => editor?.open({ rule })}
            >
              Edit
            </button>
            <button
              type="button"
              className={`${smallButton} hover:border-red-500 hover:text-red-300`}
              aria-label={`Delete ${rule.description}`}
              onClick={() => setConfirming(true)}
            >
              Delete
            </button>
          </>
        )}
      </div>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-300">
          {error.message}
        </p>
      )}
    </li>
  );
}

function RulesTab() {
  const list = useRuleList();
  if (list.isPending) return <p className="text-sm text-gray-400">Loading alert rules...</p>;
  if (list.isError)
    return (
      <p role="alert" className="text-sm text-red-300">
        {list.error.message}
      </p>
    );
  const rules = list.data.pages.flatMap((page) => page.rules);
  if (rules.length === 0)
    return (
      <p className="text-sm text-gray-400">
        No alert rules yet. Create one with New alert, the bell on a watchlist symbol, or from a candle chart.
      </p>
    );
  return (
    <>
      <ul className="space-y-2" aria-label="Your alert rules">
        {rules.map((rule) => (
          <RuleRow key={rule.id} rule={rule} />
        ))}
      </ul>
      <LoadMore list={list} label="Load more rules" />
    </>
  );
}

function TriggeredTab() {
  const firings = useFirings();
  if (firings.isPending) return <p className="text-sm text-gray-400">Loading...</p>;
  if (firings.isError)
    return (
      <p role="alert" className="text-sm text-red-300">
        {firings.error.message}
      </p>
    );
  const shown = firings.data.pages.flatMap((page) => page.firings);
  if (shown.length === 0) return <p className="text-sm text-gray-400">No alert has triggered yet.</p>;
  return (
    <>
      <ul className="space-y-2" aria-label="Triggered alerts">
        {shown.map((firing) => (
          <li key={firing.id} className="rounded border border-gray-800 bg-gray-800/50 p-2" data-testid="firing-row">
            <div className="flex items-center gap-2 text-xs">
              <span className="font-bold text-white">{firing.ticker}</span>
              <span className="text-gray-300">{formatPrice(firing.price)}</span>
              <span className="text-gray-400">{firing.timeframe}</span>
              {firing.source === 'demo' && (
                <span className="rounded bg-amber-500 px-1 text-[10px] font-bold text-gray-900">Demo data</span>
              )}
              <time className="ml-auto text-gray-400" dateTime={firing.firedAt}>
                {whenLabel(firing.firedAt)}
              </time>
            </div>
            <p className="mt-0.5 text-sm text-gray-200">{firing.message}</p>
            <p className="text-[11px] text-gray-400">{firing.ruleName}</p>
          </li>
        ))}
      </ul>
      <LoadMore list={firings} label="Load older alerts" />
    </>
  );
}

function DeliveriesTab() {
  const deliveries = useDeliveries(true);
  if (deliveries.isPending) return <p className="text-sm text-gray-400">Loading...</p>;
  if (deliveries.isError)
    return (
      <p role="alert" className="text-sm text-red-300">
        {deliveries.error.message}
      </p>
    );
  const shown = deliveries.data.pages.flatMap((page) => page.deliveries);
  if (shown.length === 0) return <p className="text-sm text-gray-400">Nothing delivered yet.</p>;
  return (
    <>
      <ul className="space-y-2" aria-label="Delivery log">
        {shown.map((delivery) => (
          <li
            key={delivery.id}
            className="rounded border border-gray-800 bg-gray-800/50 p-2 text-xs"
            data-testid="delivery-row"
            data-channel={delivery.channel}
            data-status={delivery.status}
          >
            <div className="flex items-center gap-2">
              <span className="font-bold text-white">{delivery.ticker}</span>
              <span className="text-gray-200">{RULE_CHANNEL_LABELS[delivery.channel]}</span>
              <span className={`font-semibold ${DELIVERY_STYLES[delivery.status]}`}>
                {DELIVERY_LABELS[delivery.status]}
              </span>
              <time className="ml-auto text-gray-400" dateTime={delivery.createdAt}>
                {whenLabel(delivery.createdAt)}
              </time>
            </div>
            <dl className="mt-0.5 flex flex-wrap gap-x-3 text-[11px] text-gray-400">
              <div className="flex min-w-0 gap-1">
                <dt>To</dt>
                <dd className="truncate text-gray-300">{delivery.target}</dd>
              </div>
              <div className="flex gap-1">
                <dt>Attempts</dt>
                <dd className="text-gray-300">{delivery.attempts}</dd>
              </div>
              <div className="flex gap-1">
                <dt>Latency</dt>
                <dd className="text-gray-300">{delivery.latencyMs === null ? '—' : `${delivery.latencyMs} ms`}</dd>
              </div>
            </dl>
            <p className="truncate text-[11px] text-gray-400" title={delivery.ruleName}>
              {delivery.ruleName}
            </p>
            {delivery.lastError && (
              <p className="mt-0.5 break-words text-[11px] text-red-300">Last error: {delivery.lastError}</p>
            )}
          </li>
        ))}
      </ul>
      <LoadMore list={deliveries} label="Load older deliveries" />
    </>
  );
}

export function AlertRulesPanel() {
  const id = useId();
  const editor = useRuleEditor();
  const list = useRuleList();
  const [tab, setTab] = useState<Tab>('rules');
  const tabButtons = useRef<(HTMLButtonElement | null)[]>([]);
  // Every page carries the counts; the newest one read is the freshest.
  const counts = list.data?.pages.at(-1);

  // Arrow keys move between tabs (the ARIA tabs pattern).
  function onTabKey(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + TABS.length) % TABS.length;
    setTab(TABS[next]![0]);
    tabButtons.current[next]?.focus();
  }

  return (
    <Panel
      headingId={`${id}-heading`}
      title="Alert rules"
      className="flex h-full flex-col"
      headerClassName="flex items-center gap-2"
      data-tour="alert-rules"
      data-testid="alert-rules-panel"
      header={
        <>
          {counts && (
            <span
              className="text-xs text-gray-400"
              data-testid="rule-cap"
              title={`${counts.totalCount} of ${counts.maxTotal} rules in all, paused ones included`}
            >
              {counts.activeCount} of {counts.maxActive} active
            </span>
          )}
          <button
            type="button"
            onClick={() => editor?.open()}
            className="ml-auto flex items-center gap-1 rounded bg-indigo-600 px-2 py-1 text-sm font-semibold text-white hover:bg-indigo-500"
          >
            <span aria-hidden>+</span> New alert
          </button>
        </>
      }
    >
      <div role="tablist" aria-label="Alert rules views" className="mt-2 flex gap-1 border-b border-gray-800">
        {TABS.map(([value, label], index) => (
          <button
            key={value}
            ref={(element) => {
              tabButtons.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${value}`}
            aria-selected={tab === value}
            aria-controls={`${id}-panel`}
            tabIndex={tab === value ? 0 : -1}
            onClick={() => setTab(value)}
            onKeyDown={(event) => onTabKey(event, index)}
            className={`-mb-px border-b-2 px-2 py-1 text-sm ${tab === value ? 'border-indigo-500 text-white' : 'border-transparent text-gray-400 hover:text-white'}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${tab}`}
        className="mt-2 min-h-0 flex-1 overflow-y-auto"
      >
        {tab === 'rules' && <RulesTab />}
        {tab === 'triggered' && <TriggeredTab />}
        {tab === 'deliveries' && <DeliveriesTab />}
      </div>
    </Panel>
  );
}
