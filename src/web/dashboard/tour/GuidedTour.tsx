// The guided tour of the dashboard (react-joyride 3), started by the window event
// `startTour` (the top bar's 'Take Tour'). Continuous with progress and a skip button, no
// close button, scrolls to the first step; a step whose target is missing or hidden is
// skipped in the direction of travel; finishing, skipping, Escape or a click on the overlay
// end it and reset to the first step (Escape used to leave joyride's beacon on the next step).
// Tall panels are highlighted whole while the tooltip anchors to their heading, so it always has
// room beside it. docs/SPEC.md's eight steps come first; the alert rules panel (issue 16) is the
// ninth. On a phone the dashboard is tabs: before a step is shown its tab is opened.
//
// docs/SPEC.md's tour constants: react-joyride 3 has no option for a scroll pause or a resize
// debounce, and its spotlight fade is built in, so the tour applies them itself: it scrolls to
// each target (joyride's scrolling is off) and pauses `scrollPauseMs` before showing the step
// (again while the layout above the target still moves, and whenever the page's size changes
// under a shown step whose target went off screen);
// a window resize, debounced by `resizeDebounceMs`, re-opens the tab of the shown step (the
// layout changes at the breakpoint); the overlay fades in `spotlightFadeSeconds`.
//
// Joyride itself (TourTooltips.tsx) is fetched when the tour is first started, not with the
// dashboard: the first start waits for it, later ones have it at once.
import { useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Step } from 'react-joyride';
import { TOUR } from '../../../shared/constants.ts';
import { loadWithin } from '../../chunkLoad.ts';
import { useNotify } from '../../ui/Notifications.tsx';
import { ShowDashboardTab, tabOf } from '../layout/index.ts';
import type { TourTooltipsProps } from './TourTooltips.tsx';

export const TOUR_STEPS: Step[] = [
  {
    target: '[data-tour="chart-area"]',
    title: 'Chart Analysis Hub',
    content:
      'Your charts live here. Switch between the professional chart, the Barchart widget, live exchange prices and your spreadsheet or demo-trading pages without losing your place.',
    skipBeacon: true,
    // The chart area is taller than most screens: a centred tooltip always fits.
    placement: 'center',
  },
  {
    target: '[data-tour="chart-switcher"]',
    title: 'Platform Switcher',
    content: 'Choose the chart source here. Every panel stays loaded, so switching back is instant.',
  },
  {
    target: '[data-tour="tradingview"]',
    title: 'Professional Charting',
    content: 'A full TradingView chart: real-time data, indicators, drawing tools, timeframes and symbol search.',
    placement: 'center',
  },
  {
    target: '[data-tour="watchlist"]',
    title: 'Watchlist Management',
    content:
      'Add symbols as EXCHANGE:SYMBOL, e.g. NASDAQ:AAPL, and remove them with the × button. The chart updates automatically, and the list is saved to your account.',
  },
  {
    target: '[data-tour="watchlist-alerts"] h2',
    spotlightTarget: '[data-tour="watchlist-alerts"]',
    title: 'Watchlist Alerts',
    content:
      'Alerts for your symbols: green is bullish, red bearish, yellow caution. Turn on audio to hear new alerts, or open a symbol’s chart with the video button.',
    placement: 'auto',
  },
  {
    target: '[data-tour="alert-log"] h2',
    spotlightTarget: '[data-tour="alert-log"]',
    title: 'Market Alert Log',
    content:
      'Every alert across the market with its timestamp, filterable by signal type, symbol, count and time window. New alerts arrive live.',
    placement: 'auto',
  },
  {
    target: '[data-tour="chat"] h2',
    spotlightTarget: '[data-tour="chat"]',
    title: 'AI Assistant',
    content:
      'Ask about market conditions, get an analysis per symbol, probability forecasts (What Are The Odds?) and summaries of the day’s alerts.',
    placement: 'auto',
  },
  {
    target: '[data-tour="prompt-catalog"] h2',
    spotlightTarget: '[data-tour="prompt-catalog"]',
    title: 'Prompt Catalog & File Management',
    content:
      'Ready-made analysis prompts by category, timeframe and symbol. Below, My Stuff holds your CSV and spreadsheet files for AI analysis and your linked spreadsheet.',
    placement: 'auto',
  },
  // Issue 16 adds this step after docs/SPEC.md's eight, which keep their order and texts.
  {
    target: '[data-tour="alert-rules"] h2',
    spotlightTarget: '[data-tour="alert-rules"]',
    title: 'Alert Rules',
    content:
      'Your own alerts on any symbol: price levels, percentage moves, indicators, built-in alerts or WATOS odds, delivered in the app, by e-mail, as push notifications or to your webhook. Create one here, with the bell on a watchlist symbol, or from a candle chart. Triggered alerts and every delivery are listed here too.',
    placement: 'auto',
  },
];

/** docs/SPEC.md: steps must be an array of objects each with a target. */
export function stepsAreValid(steps: unknown): steps is Step[] {
  return (
    Array.isArray(steps) &&
    steps.length > 0 &&
    steps.every(
      (step) => typeof step === 'object' && step !== null && 'target' in step && Boolean((step as Step).target),
    )
  );
}

function elementOf(selector: Step['target'] | undefined): Element | null {
  return typeof selector === 'string' ? document.querySelector(selector) : null;
}

function isMounted(selector: Step['target']): boolean {
  return typeof selector === 'string' ? document.querySelector(selector) !== null : selector !== null;
}

function hasBox(element: Element): boolean {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

/**
 * The dashboard tab to open so that `element` shows, or null when it shows already or would
 * stay hidden anyway (say, a chart source that is not the active one).
 */
function tabToReveal(element: Element | null) {
  const tab = tabOf(element);
  if (!element || !tab || hasBox(element)) return null;
  const wrapper = element.closest('[data-dashboard-tab]');
  for (let node: Element | null = element; node && node !== wrapper; node = node.parentElement) {
    if (getComputedStyle(node).display === 'none') return null;
  }
  return tab;
}

/** Shown now, or shown once its dashboard tab is opened. */
function canShow(selector: Step['target']): boolean {
  const element = elementOf(selector);
  return element !== null && (hasBox(element) || tabToReveal(element) !== null);
}

type TourTooltipsComponent = (props: TourTooltipsProps) => ReactNode;

/** The tooltips' module, fetched once on the first start. */
let tooltips: Promise<TourTooltipsComponent> | null = null;
function loadTooltips(): Promise<TourTooltipsComponent> {
  tooltips ??= loadWithin(() => import('./TourTooltips.tsx')).then((module) => module.TourTooltips);
  // After a failed download the next start asks again.
  tooltips.catch(() => (tooltips = null));
  return tooltips;
}

const TOUR_LOAD_FAILED = 'The guided tour could not be loaded. Check your connection and reload the page.';

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The keys that scroll the page. */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

/** How many frames a revealed tab gets to lay out its target (about a second). */
const REVEAL_FRAMES = 60;
/** How many times a step's scroll is redone while the layout above its target still moves. */
const SETTLE_TRIES = 5;

/** Scrolls so that `element` sits docs/SPEC.md's offset below the top of the screen. */
function scrollToTarget(element: Element) {
  const top = element.getBoundingClientRect().top + window.scrollY - TOUR.scrollOffset;
  window.scrollTo({ top: Math.max(0, top), behavior: 'instant' });
}

/** Whether any of `element` is on screen. */
function onScreen(element: Element): boolean {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight;
}

/**
 * Brings `element` into view and pauses `scrollPauseMs`; when the layout moved the target
 * during the pause (a panel above it filled in), scrolls again, so the tooltip that follows the
 * target is not shown off screen.
 */
async function scrollToSettled(element: Element, current: () => boolean) {
  for (let attempt = 0; attempt < SETTLE_TRIES && current(); attempt++) {
    scrollToTarget(element);
    const before = element.getBoundingClientRect().top;
    await pause(TOUR.scrollPauseMs);
    if (Math.abs(element.getBoundingClientRect().top - before) < 1) return;
  }
}

export function GuidedTour({ steps = TOUR_STEPS }: { steps?: Step[] }) {
  const showTab = useContext(ShowDashboardTab);
  const notify = useNotify();
  // Joyride's component once its module arrived (a component in state: set through a function).
  const [Tooltips, setTooltips] = useState<TourTooltipsComponent | null>(null);
  const [run, setRun] = useState(false);
  const [stepIndex, setStepIndex] = useState(0);
  // The step being shown, readable inside event callbacks without waiting for a render.
  const shown = useRef(0);
  const running = useRef(false);
  // Each show gets a number; a later show (or the end of the tour) makes an earlier one stale.
  const showCount = useRef(0);

  /** Opens the step's tab if it is in a closed one and waits for the target to be laid out. */
  const reveal = useCallback(
    async (index: number) => {
      const element = elementOf(steps[index]?.target);
      const tab = tabToReveal(element);
      if (!tab || !element) return;
      showTab(tab);
      // The tab's render can take more than a frame on a busy phone: measured before it, the
      // target has no box and the scroll below would aim at the top of the page.
      for (let frame = 0; frame < REVEAL_FRAMES && !hasBox(element); frame++) await nextFrame();
    },
    [steps, showTab],
  );

  // We bring each target into view ourselves (joyride's animated scroll could leave a step
  // waiting for a scroll that never ended), with the offset docs/SPEC.md sets, then pause.
  const show = useCallback(
    async (index: number) => {
      const ticket = ++showCount.current;
      shown.current = index;
      await reveal(index);
      if (ticket !== showCount.current) return false;
      const element = elementOf(steps[index]?.target);
      if (element) await scrollToSettled(element, () => ticket === showCount.current);
      if (ticket !== showCount.current) return false;
      setStepIndex(index);
      return true;
    },
    [steps, reveal],
  );

  const end = useCallback(() => {
    showCount.current += 1;
    running.current = false;
    shown.current = 0;
    setRun(false);
    setStepIndex(0);
  }, []);

  /** The next step from `from` going `direction` that can be shown, or -1 when none is left. */
  const visibleFrom = useCallback(
    (from: number, direction: 1 | -1) => {
      for (let index = from; index >= 0 && index < steps.length; index += direction) {
        if (canShow(steps[index]!.target)) return index;
        console.warn(
          isMounted(steps[index]!.target) ? 'Target not visible' : 'Target not mounted',
          steps[index]!.target,
        );
      }
      return -1;
    },
    [steps],
  );

  useEffect(() => {
    const start = async () => {
      if (!stepsAreValid(steps)) {
        console.warn('Steps are not valid');
        return;
      }
      let component: TourTooltipsComponent;
      try {
        component = await loadTooltips();
      } catch (error) {
        console.error(error);
        notify(TOUR_LOAD_FAILED);
        return;
      }
      setTooltips(() => component);
      const first = visibleFrom(0, 1);
      if (first === -1) return;
      if (!(await show(first))) return;
      running.current = true;
      setRun(true);
    };
    const onStart = () => void start();
    window.addEventListener('startTour', onStart);
    return () => window.removeEventListener('startTour', onStart);
  }, [steps, visibleFrom, show, notify]);

  // Crossing the breakpoint turns the tabs on or off: re-open the shown step's tab.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (running.current) void reveal(shown.current);
      }, TOUR.resizeDebounceMs);
    };
    window.addEventListener('resize', onResize);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('resize', onResize);
    };
  }, [reveal]);

  // While a step is shown, a panel that fills in above its target (rows arriving, a chart
  // sizing itself) moves the target, and the tooltip with it, off screen: bring it back. Only a
  // change of the page's size acts, and not once the trader has scrolled during the step
  // (wheel, touch or a scrolling key): the page is then where they took it.
  useEffect(() => {
    if (!run) return;
    // The step during which the trader last scrolled.
    let scrolledDuring = -1;
    const onTraderInput = (event: Event) => {
      if (event instanceof KeyboardEvent && !SCROLL_KEYS.has(event.key)) return;
      scrolledDuring = shown.current;
    };
    const observer = new ResizeObserver(() => {
      if (scrolledDuring === shown.current) return;
      const element = elementOf(steps[shown.current]?.target);
      if (element && hasBox(element) && !onScreen(element)) scrollToTarget(element);
    });
    observer.observe(document.body);
    const inputs = ['wheel', 'touchmove', 'keydown'] as const;
    for (const type of inputs) window.addEventListener(type, onTraderInput, { passive: true });
    return () => {
      observer.disconnect();
      for (const type of inputs) window.removeEventListener(type, onTraderInput);
    };
  }, [run, steps]);

  // Joyride can report the end of a step more than once; only the shown step moves on.
  const onStepDone = (index: number, direction: 1 | -1) => {
    if (index !== shown.current) return;
    const next = visibleFrom(index + direction, direction);
    if (next === -1) {
      if (direction === 1) end();
      return;
    }
    void show(next);
  };

  if (!Tooltips) return null;
  return <Tooltips steps={steps} run={run} stepIndex={stepIndex} onEnd={end} onStepDone={onStepDone} />;
}
