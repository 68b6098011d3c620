// The dashboard's alerts column (docs/SPEC.md: the right 25%), the Alerts tab on a phone: the
// watchlist alerts panel (741px), the market alert log (530px), then the trader's own alert
// rules (issue 16) in the rest of the column. One module, so DashboardPage loads the column's
// code on demand (dashboard/layout/lazyPanel.tsx).
import { AlertRulesPanel } from './rules/AlertRulesPanel.tsx';
import { AlertLog } from './alerts/AlertLog.tsx';
import { WatchlistAlerts } from './alerts/WatchlistAlerts.tsx';

export function AlertsColumn({ onOpenChart }: { onOpenChart: (symbolId: string) => void }) {
  return (
    <>
      <div className="h-[741px]">
        <WatchlistAlerts onOpenChart={onOpenChart} />
      </div>
      <div className="h-[530px]">
        <AlertLog />
      </div>
      <div className="min-h-[420px] flex-1">
        <AlertRulesPanel />
      </div>
    </>
  );
}
