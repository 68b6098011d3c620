// The tab bar of the dashboard below 1024px (see dashboardTabs.tsx): an ARIA tablist that
// stays at the top of the screen while the trader scrolls a tab. Arrow keys, Home and End move
// between the tabs (roving tab index). Choosing a tab brings the top of the dashboard back
// into view when the page was scrolled further down the previous tab.
import { useRef, type KeyboardEvent } from 'react';
import { DASHBOARD_TABS, type DashboardTab } from './dashboardTabs.tsx';

export function DashboardTabBar({ tab, onChange }: { tab: DashboardTab; onChange: (tab: DashboardTab) => void }) {
  const bar = useRef<HTMLDivElement>(null);

  const choose = (next: DashboardTab, focus = false) => {
    onChange(next);
    if (focus) bar.current?.querySelector<HTMLButtonElement>(`#dashboard-tabbutton-${next}`)?.focus();
    const top = (bar.current?.parentElement?.getBoundingClientRect().top ?? 0) + window.scrollY;
    if (window.scrollY > top) window.scrollTo({ top, behavior: 'instant' });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const index = DASHBOARD_TABS.findIndex((entry) => entry.id === tab);
    const last = DASHBOARD_TABS.length - 1;
    const target =
      event.key === 'ArrowRight'
        ? (index + 1) % DASHBOARD_TABS.length
        : event.key === 'ArrowLeft'
          ? (index + last) % DASHBOARD_TABS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : -1;
    if (target === -1) return;
    event.preventDefault();
    choose(DASHBOARD_TABS[target]!.id, true);
  };

  return (
    <div
      ref={bar}
      role="tablist"
      aria-label="Dashboard sections"
      className="sticky top-0 z-30 -mx-4 grid grid-cols-5 gap-1 border-b border-gray-800 bg-gray-950 px-4 py-2 lg:hidden"
      onKeyDown={onKeyDown}
      data-testid="dashboard-tabs"
    >
      {DASHBOARD_TABS.map((entry) => (
        <button
          key={entry.id}
          id={`dashboard-tabbutton-${entry.id}`}
          type="button"
          role="tab"
          aria-selected={tab === entry.id}
          aria-controls={`dashboard-tab-${entry.id}`}
          tabIndex={tab === entry.id ? 0 : -1}
          onClick={() => choose(entry.id)}
          className={`rounded-md py-2 text-sm font-semibold ${tab === entry.id ? 'bg-indigo-600 text-white' : 'bg-gray-800 text-gray-300 hover:text-white'}`}
        >
          {entry.label}
        </button>
      ))}
    </div>
  );
}
