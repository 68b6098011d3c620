// The dashboard's tabs on narrow screens (below Tailwind's lg breakpoint, 1024 px): Chart,
// Alerts, AI, Files and Scanner (issue 36: its results table wants a screen's width, not the
// alerts column's). Every panel stays mounted; a panel outside the chosen tab is hidden
// only below lg (`max-lg:hidden`), so the desktop layout is the one of docs/SPEC.md. Panels that
// send the trader elsewhere on the dashboard (open a chart, attach a file to the chat) and the
// guided tour ask for a tab by name through this context; each tab's wrapper carries
// `data-dashboard-tab` so the tour can find the tab that holds a step's target.
import { createContext, useContext } from 'react';

export const DASHBOARD_TABS = [
  { id: 'chart', label: 'Chart' },
  { id: 'alerts', label: 'Alerts' },
  { id: 'ai', label: 'AI' },
  { id: 'files', label: 'Files' },
  { id: 'scanner', label: 'Scanner' },
] as const;

export type DashboardTab = (typeof DASHBOARD_TABS)[number]['id'];

function isDashboardTab(value: string | null | undefined): value is DashboardTab {
  return DASHBOARD_TABS.some((tab) => tab.id === value);
}

/** Shows a tab (a no-op on desktop, where every panel is visible). */
export const ShowDashboardTab = createContext<(tab: DashboardTab) => void>(() => undefined);

export function useShowDashboardTab(): (tab: DashboardTab) => void {
  return useContext(ShowDashboardTab);
}

/** The tab whose wrapper holds `element`, if it sits in one. */
export function tabOf(element: Element | null): DashboardTab | null {
  const value = element?.closest('[data-dashboard-tab]')?.getAttribute('data-dashboard-tab');
  return isDashboardTab(value) ? value : null;
}
