// /dashboard: the main application behind the subscription guard. Layout of docs/SPEC.md: left
// 75% holds the chart area, the AI section and the file list; right 25% the watchlist alerts
// panel (741px) and the market alert log (530px), then the trader's own alert rules (issue 16)
// in the rest of the column; the Scanner (issue 36) under the files, at the left column's width
// for its table. Below 1024px (Tailwind's lg) the dashboard is tabs instead: Chart, Alerts (the
// watchlist alerts, the alert log and the alert rules), AI, Files and Scanner; only the chosen
// tab's panels show. A tab's panels are mounted the first time it is opened (on a phone the
// page starts with the Chart tab's work only, not the whole dashboard's) and then stay mounted,
// so switching back keeps their state; on a wide screen, and once the guided tour starts (it
// visits every tab), all of them are. Keyboard: `/` focuses the chart's symbol search, `?`
// lists the shortcuts (dashboard/shortcuts/).
import { startTransition, useCallback, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { useLocation, useNavigate } from 'react-router';
import { LoadingScreen, RequireSubscription } from '../auth/guards.tsx';
import { ChartArea, type ChartSource } from '../dashboard/chart/ChartArea.tsx';
import { AssistantProvider } from '../dashboard/chat/AssistantProvider.tsx';
import { AlertRulesProvider } from '../dashboard/rules/AlertRulesProvider.tsx';
import { ChartSymbolPicker } from '../dashboard/market/ChartSymbolPicker.tsx';
import { DashboardShortcuts } from '../dashboard/shortcuts/ShortcutsDialog.tsx';
import { focusSymbolSearch } from '../dashboard/shortcuts/shortcuts.ts';
import { GuidedTour } from '../dashboard/tour/GuidedTour.tsx';
import { DashboardTabBar } from '../dashboard/layout/DashboardTabBar.tsx';
import { lazyPanel, PanelSuspense } from '../dashboard/layout/lazyPanel.tsx';
import { DASHBOARD_TABS, ShowDashboardTab, type DashboardTab } from '../dashboard/layout/dashboardTabs.tsx';
import { ChartWatchlist } from '../dashboard/watchlist/ChartWatchlist.tsx';
import { useChartWatchlist } from '../dashboard/watchlist/useChartWatchlist.ts';
import { LiveProvider } from '../live/index.ts';
import { useNotify } from '../ui/Notifications.tsx';
import { TopNav, TOUR_ON_ARRIVAL } from '../ui/TopNav.tsx';

/**
 * 'Take Tour' pressed on another page: once the dashboard (and its tour) is mounted, fire
 * `startTour`, and drop the request from the history entry so a reload does not repeat it.
 */
function StartTourOnArrival() {
  const location = useLocation();
  const navigate = useNavigate();
  const requested = (location.state as typeof TOUR_ON_ARRIVAL | null)?.startTour === true;

  useEffect(() => {
    if (!requested) return;
    const frame = requestAnimationFrame(() => {
      window.dispatchEvent(new Event('startTour'));
      void navigate(location.pathname, { replace: true, state: null });
    });
    return () => cancelAnimationFrame(frame);
  }, [requested, navigate, location.pathname]);

  return null;
}

// The panels of the Alerts, AI and Files tabs: their code is fetched when they are first mounted.
const AlertsColumn = lazyPanel(async () => (await import('../dashboard/AlertsColumn.tsx')).AlertsColumn);
const AiSection = lazyPanel(async () => (await import('../dashboard/chat/AiSection.tsx')).AiSection);
const MyStuff = lazyPanel(async () => (await import('../dashboard/files/MyStuff.tsx')).MyStuff);
const ScannerPanel = lazyPanel(async () => (await import('../dashboard/scanner/ScannerPanel.tsx')).ScannerPanel);
// The exchange view (price cards): fetched when Exchange Data is first chosen.
const ExchangeView = lazyPanel(async () => (await import('../dashboard/market/ExchangeView.tsx')).ExchangeView);

/** Tailwind's lg: from here up every panel shows and there are no tabs. */
const WIDE_SCREEN = '(min-width: 1024px)';

function subscribeToWidth(onChange: () => void) {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const query = window.matchMedia(WIDE_SCREEN);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether every panel shows (no tabs); true where the screen cannot be asked. */
function useWideScreen(): boolean {
  return useSyncExternalStore(
    subscribeToWidth,
    () => typeof window.matchMedia !== 'function' || window.matchMedia(WIDE_SCREEN).matches,
    () => true,
  );
}

const ALL_TABS = new Set<DashboardTab>(DASHBOARD_TABS.map((entry) => entry.id));

function Dashboard() {
  const notify = useNotify();
  const watchlist = useChartWatchlist(notify);
  const [source, setSource] = useState<ChartSource>('tradingview');
  const [chartSymbol, setChartSymbol] = useState<string | null>(null);
  const [tab, setTabState] = useState<DashboardTab>('chart');
  // The tabs whose panels are mounted: the first one, then each one opened (they stay mounted).
  const [opened, setOpened] = useState<ReadonlySet<DashboardTab>>(() => new Set(['chart']));
  const wide = useWideScreen();
  const setTab = useCallback((next: DashboardTab) => {
    setTabState(next);
    setOpened((current) => (current.has(next) ? current : new Set([...current, next])));
  }, []);
  const showTab = setTab;
  // A wide screen shows every panel: they stay mounted if the window then narrows (React's
  // state adjusted while rendering, not in an effect).
  if (wide && opened !== ALL_TABS) setOpened(ALL_TABS);
  // The tour visits every tab: mount them all before it looks for its steps' targets (it starts
  // on the same event, after this has rendered: it first awaits its own code).
  useEffect(() => {
    const mountAll = () => flushSync(() => setOpened(ALL_TABS));
    window.addEventListener('startTour', mountAll);
    return () => window.removeEventListener('startTour', mountAll);
  }, []);
  const mounted = (id: DashboardTab) => wide || opened.has(id);
  // A watchlist table row picked as the TradingView main chart; the saved order stays as it is.
  const [mainSymbol, setMainSymbol] = useState<string | null>(null);
  const main = mainSymbol !== null && watchlist.symbols.includes(mainSymbol) ? mainSymbol : watchlist.symbols[0];
  const chartSymbols = main ? [main, ...watchlist.symbols.filter((symbol) => symbol !== main)] : watchlist.symbols;

  // The own candle chart of a symbol, from the alerts panel or a chart watchlist chip: shown in
  // the exchange view (on a phone, the Chart tab), scrolled into sight.
  const openChart = (symbolId: string) => {
    setSource('exchange');
    setChartSymbol(symbolId);
    setTab('chart');
    requestAnimationFrame(() =>
      document.querySelector('[data-tour="chart-area"]')?.scrollIntoView({ behavior: 'smooth' }),
    );
  };

  // `/`: the chart's symbol search, on the Chart tab of a phone. Barchart and the embedded
  // platforms have no symbol input of ours, so from them it opens Exchange Data's, the chart of
  // any symbol. The switch is rendered at once so the input is there to focus.
  const searchSymbols = () => {
    flushSync(() => {
      setTab('chart');
      if (source !== 'tradingview' && source !== 'exchange') setSource('exchange');
    });
    focusSymbolSearch();
  };

  /** A tab's panels, once the tab has been opened (or on a wide screen). */
  const whenMounted = (id: DashboardTab, panels: ReactNode) => (mounted(id) ? panels : null);

  /** A tab's wrapper: hidden below lg unless it is the chosen tab. */
  const tabPanel = (id: DashboardTab) => ({
    id: `dashboard-tab-${id}`,
    'data-dashboard-tab': id,
    className: tab === id ? '' : 'max-lg:hidden',
  });

  return (
    <ShowDashboardTab.Provider value={showTab}>
      <main className="mx-auto grid max-w-[1920px] grid-cols-1 gap-4 p-4 lg:grid-cols-4" data-testid="dashboard">
        <h1 className="sr-only">Dashboard</h1>
        <DashboardTabBar tab={tab} onChange={setTab} />
        {/* On a phone this column is no box of its own: its panels are the grid's rows. */}
        <div className="flex min-w-0 flex-col gap-4 max-lg:contents lg:col-span-3">
          <div {...tabPanel('chart')}>
            <div className="min-h-[741px]">
              <ChartArea
                symbols={chartSymbols}
                source={source}
                onSourceChange={setSource}
                watchlistControls={
                  <ChartWatchlist
                    symbols={watchlist.symbols}
                    onAdd={watchlist.add}
                    onRemove={watchlist.remove}
                    onOpenChart={openChart}
                    current={main}
                    onOpen={setMainSymbol}
                  />
                }
                exchangeControls={
                  <div className="flex flex-wrap items-center gap-2" data-testid="chart-symbol-picker">
                    <ChartSymbolPicker label="Chart any symbol" onChart={setChartSymbol} keyShortcut="/" />
                    <span className="text-[11px] text-gray-400">
                      Candles and alerts for any market: a ticker, EXCHANGE:SYMBOL or a name
                    </span>
                  </div>
                }
                exchangeView={(active) => (
                  <PanelSuspense className="h-[650px]">
                    <ExchangeView active={active} chartSymbol={chartSymbol} onChartSymbol={setChartSymbol} />
                  </PanelSuspense>
                )}
              />
            </div>
          </div>
          <div {...tabPanel('ai')}>
            {whenMounted(
              'ai',
              <PanelSuspense className="h-[560px]">
                <AiSection />
              </PanelSuspense>,
            )}
          </div>
          <div {...tabPanel('files')}>
            {whenMounted(
              'files',
              <PanelSuspense className="h-[400px]">
                <MyStuff />
              </PanelSuspense>,
            )}
          </div>
          <div {...tabPanel('scanner')}>
            {whenMounted(
              'scanner',
              <PanelSuspense className="h-[400px]">
                <ScannerPanel onOpenChart={openChart} />
              </PanelSuspense>,
            )}
          </div>
        </div>
        <div {...tabPanel('alerts')} className={`flex min-w-0 flex-col gap-4 ${tabPanel('alerts').className}`}>
          {whenMounted(
            'alerts',
            <PanelSuspense className="h-[741px]">
              <AlertsColumn onOpenChart={openChart} />
            </PanelSuspense>,
          )}
        </div>
        <GuidedTour />
        <DashboardShortcuts onSearch={searchSymbols} />
      </main>
    </ShowDashboardTab.Provider>
  );
}

/**
 * The dashboard's first render as a transition: React renders it in slices, giving the main
 * thread back every few milliseconds, instead of one long task once the sign-in check answers
 * (on a phone a tap would wait for it). The loading screen stays until the dashboard commits.
 */
function RenderInSlices({ children }: { children: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => startTransition(() => setReady(true)), []);
  return ready ? children : <LoadingScreen />;
}

export function DashboardPage() {
  return (
    <RequireSubscription>
      <RenderInSlices>
        <div className="min-h-screen">
          <TopNav />
          {/* The tab's one live connection: prices on screen, alerts and rule firings (issue 34). */}
          <LiveProvider>
            <AssistantProvider>
              <AlertRulesProvider>
                <Dashboard />
              </AlertRulesProvider>
            </AssistantProvider>
          </LiveProvider>
          <StartTourOnArrival />
        </div>
      </RenderInSlices>
    </RequireSubscription>
  );
}
