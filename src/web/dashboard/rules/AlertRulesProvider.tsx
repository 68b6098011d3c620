// What the dashboard's alert-rule entry points share: one rule form (opened from the rules
// panel, a watchlist chip's bell or the candle chart, prefilled with a symbol and a price), and
// this trader's firings on the tab's live connection (src/web/live/): each firing goes
// first in the Triggered list, shows as a toast in the page and, while the tab is hidden and the
// browser allows it, as a system notification. The form's code loads the first time it opens.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, Suspense, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { AlertRule, RuleFiring } from '../../../shared/schemas/alertRules.ts';
import { formatPrice } from '../../../shared/format.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { useLiveRuleFirings } from '../../live/index.ts';
import type { RulePrefill } from './ruleForm.ts';
import { lazyPanel } from '../layout/index.ts';
import { withFiring } from './rulesApi.ts';

// The form's code (its fields, the symbol search, webhook and push settings) is fetched the
// first time a trader opens it, not with the dashboard.
const RuleFormDialog = lazyPanel(async () => (await import('./RuleFormDialog.tsx')).RuleFormDialog);

export interface RuleEditor {
  /** Opens the form: a new rule (optionally prefilled) or an existing one to edit. */
  open: (target?: { rule?: AlertRule; prefill?: RulePrefill }) => void;
}

const RuleEditorContext = createContext<RuleEditor | null>(null);

/** The rule form's opener, or null outside the dashboard (components then hide their alert buttons). */
export function useRuleEditor(): RuleEditor | null {
  return useContext(RuleEditorContext);
}

/** How long a firing's toast stays. */
const FIRING_TOAST_MS = 10_000;

function firingTitle(firing: RuleFiring): string {
  return `${firing.ticker} alert: ${firing.ruleName}`;
}

function showSystemNotification(firing: RuleFiring) {
  if (document.visibilityState !== 'hidden' || !('Notification' in window)) return;
  if (Notification.permission !== 'granted') return;
  try {
    const notification = new Notification(firingTitle(firing), {
      body: firing.message,
      // The tag of the rule's Web Push notification: with both on, one replaces the other.
      tag: `rule-${firing.ruleId}`,
      icon: '/favicon.svg',
    });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  } catch (error) {
    // Some browsers (Android Chrome) only notify through a service worker; the toast remains.
    console.warn('System notification failed', error);
  }
}

/** Takes this trader's firings from the tab's live connection while mounted; calls `onFiring` for each new one. */
function useRuleStream(onFiring: (firing: RuleFiring) => void) {
  const queryClient = useQueryClient();
  useLiveRuleFirings((firing) => {
    queryClient.setQueryData(queryKeys.rules.firings, (current: Parameters<typeof withFiring>[0]) =>
      withFiring(current, firing),
    );
    // The rule's last-triggered time and status (a "once" rule is done) changed on the server,
    // and the firing's deliveries are under way.
    void queryClient.invalidateQueries({ queryKey: queryKeys.rules.list });
    void queryClient.invalidateQueries({ queryKey: queryKeys.rules.deliveries });
    onFiring(firing);
  });
}

function FiringToasts({ firings, onDismiss }: { firings: RuleFiring[]; onDismiss: (id: number) => void }) {
  return (
    <div
      role="status"
      aria-label="Triggered alerts"
      className="pointer-events-none fixed bottom-4 right-4 z-[11000] flex w-80 max-w-[90vw] flex-col gap-2"
    >
      {firings.map((firing) => (
        <div
          key={firing.id}
          data-testid="rule-toast"
          className="pointer-events-auto flex items-start gap-3 rounded-lg border border-indigo-500 bg-gray-900 p-3 text-sm shadow-xl"
        >
          <svg aria-hidden viewBox="0 0 24 24" className="mt-0.5 h-4 w-4 shrink-0 text-indigo-300" fill="currentColor">
            <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z" />
          </svg>
          <div className="min-w-0 flex-1">
            <p className="font-semibold text-white">{firingTitle(firing)}</p>
            <p className="text-gray-200">{firing.message}</p>
            <p className="text-[11px] text-gray-400">
              {formatPrice(firing.price)} · {new Date(firing.firedAt).toLocaleTimeString()}
            </p>
          </div>
          <button
            type="button"
            aria-label="Dismiss"
            className="text-gray-400 hover:text-white"
            onClick={() => onDismiss(firing.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

export function AlertRulesProvider({ children }: { children: ReactNode }) {
  const [editing, setEditing] = useState<{ key: number; rule?: AlertRule; prefill?: RulePrefill } | null>(null);
  const [toasts, setToasts] = useState<RuleFiring[]>([]);

  const dismiss = useCallback((id: number) => setToasts((current) => current.filter((entry) => entry.id !== id)), []);
  const onFiring = useCallback(
    (firing: RuleFiring) => {
      setToasts((current) => [...current.filter((entry) => entry.id !== firing.id), firing].slice(-4));
      setTimeout(() => dismiss(firing.id), FIRING_TOAST_MS);
      showSystemNotification(firing);
    },
    [dismiss],
  );
  useRuleStream(onFiring);

  const editor = useMemo<RuleEditor>(() => ({ open: (target = {}) => setEditing({ key: Date.now(), ...target }) }), []);
  const close = useCallback(() => setEditing(null), []);

  return (
    <RuleEditorContext.Provider value={editor}>
      {children}
      {editing && (
        <Suspense fallback={null}>
          <RuleFormDialog key={editing.key} rule={editing.rule} prefill={editing.prefill} onClose={close} />
        </Suspense>
      )}
      <FiringToasts firings={toasts} onDismiss={dismiss} />
    </RuleEditorContext.Provider>
  );
}
